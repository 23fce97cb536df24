package main

import (
	"crypto/rand"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"

	"relay/relayclient"
)

// The groups scenario (ADR 0106): a message to a group is one envelope
// whose "to" lists the other members, and the relay queues a copy for
// every device of each and for the sender's other devices. The relay's
// limits: startInstance lifts the message and fan-out buckets (--rate,
// --fanout-rate); a list of at most 99 names is within --max-recipients'
// default of 256, which is left as it is.
const (
	// groupMembers are the accounts of the scenario, shared by every group
	// size: 10 groups of 10, or one group of 100.
	groupMembers = 100
	// groupDevices are each member's devices, all streaming and ACKing as
	// the web client does; a member sends from one of them.
	groupDevices = 2
	// groupSenders is how many messages are in flight, as in the
	// client-like scenario's 8-publisher phase, and the pgbench
	// reference's clients.
	groupSenders = 8
)

// groupSizes are the sizes measured, each dividing groupMembers.
var groupSizes = []int{10, 100}

// groupCopies is the copies one message to a group of size makes: every
// device of the group but the sending one.
func groupCopies(size int) int { return size*groupDevices - 1 }

// groupSender is who sends sender p's i-th message to a group of size:
// turn p + groupSenders*i (groupTurn).
func groupSender(size, p, i int) (member, dev int) {
	return groupTurn(groupMembers, size, p+groupSenders*i)
}

// groupTurn is who sends turn n when members accounts form groups of
// size. Consecutive turns go to different groups, so that the messages in
// flight at once are to as many groups as there are; each member takes
// one turn in every members turns, from its devices in turn. The pgbench
// reference takes the same turns.
func groupTurn(members, size, n int) (member, dev int) {
	groups, turn := members/size, n%members
	return turn%groups*size + turn/groups%size, n / members % groupDevices
}

// groupStream is the stream of member m's device k in a phase's tally.
func groupStream(m, k int) int { return m*groupDevices + k }

// groupTargets are the streams that a message from member m's device k to
// its group of size reaches: every device of every member of the group
// (members m/size*size on), the sender's other devices included, but not
// the sending device.
func groupTargets(size, m, k int) []int {
	var out []int
	for j := m / size * size; j < (m/size+1)*size; j++ {
		for d := 0; d < groupDevices; d++ {
			if j != m || d != k {
				out = append(out, groupStream(j, d))
			}
		}
	}
	return out
}

// groupList is the "to" of a message from member m to its group of size:
// the other members' names, in the group's order.
func groupList(names []string, size, m int) []string {
	var out []string
	for j := m / size * size; j < (m/size+1)*size; j++ {
		if j != m {
			out = append(out, names[j])
		}
	}
	return out
}

// groupTopology is the members of the scenario, made once: every phase
// opens fresh streams for all their devices.
type groupTopology struct {
	members [][]*relayclient.Client // groupDevices each
	names   []string
}

func (b *bench) groupTopology() (*groupTopology, error) {
	say("groups: %d members × %d devices…", groupMembers, groupDevices)
	members, names, err := b.accounts(groupMembers, groupDevices)
	return &groupTopology{members: members, names: names}, err
}

// streamName names stream s of a groups phase for a report.
func (t *groupTopology) streamName(s int) string {
	return fmt.Sprintf("%s's device %d (%s)", t.names[s/groupDevices], s%groupDevices, t.members[s/groupDevices][s%groupDevices].Device)
}

// groupPhase runs one phase: every device of every member streams and ACKs
// as the web client does, groupSenders members at a time post a message
// of the client-like size to their group (as fast as they can, or at rate
// messages/s in all), and at the end every accepted message must have
// arrived exactly once on each of its target devices and on no other.
func (b *bench) groupPhase(t *groupTopology, size int, rate float64) (phaseResult, error) {
	say("groups of %d, %d senders, rate %s…", size, groupSenders, rateName(rate))
	ph := b.newPhase(groupMembers*groupDevices, false)
	defer ph.release()
	devs, err := b.openDevices(ph, t.members)
	if err != nil {
		return phaseResult{}, fmt.Errorf("groups: %w", err)
	}
	lists := make([][]string, groupMembers)
	for m := range lists {
		lists[m] = groupList(t.names, size, m)
	}
	body := make([]byte, clientBodySize)
	_, _ = rand.Read(body)
	wal0, err := b.walLSN()
	if err != nil {
		return phaseResult{}, err
	}
	var accepted atomic.Int64
	cpu0 := b.cpu()
	start := time.Now()
	publish(ph.ctx, groupSenders, rate, start.Add(b.o.duration), func(p, i int) bool {
		m, k := groupSender(size, p, i)
		id := ulid.Make().String()
		t0 := time.Now()
		if _, err := devs[groupStream(m, k)].c.SendTo(ph.ctx, id, lists[m], body, ""); err != nil {
			ph.fail(fmt.Errorf("send to a group of %d: %w", size, err))
			return false
		}
		ph.tally.expect(id, t0, groupTargets(size, m, k))
		accepted.Add(1)
		return true
	})
	elapsed := time.Since(start)
	used := b.cpu().sub(cpu0)
	msgs := accepted.Load()
	// A group's copies are many: more time than the client-like
	// scenario's before a copy counts as lost.
	ph.tally.await(int(msgs)*groupCopies(size), 2*b.o.settle)
	ph.finish(devs)
	wal1, err := b.walLSN()
	if err != nil {
		return phaseResult{}, err
	}
	if err, ok := ph.failed.Load().(error); ok {
		return phaseResult{}, err
	}
	lost, dup := ph.tally.check()
	lats := ph.tally.latencies()
	res := phaseResult{
		accepted: float64(msgs) / elapsed.Seconds(), copies: copiesPerSecond(ph.tally, start),
		p50: percentile(lats, 0.50), p99: percentile(lats, 0.99), lost: lost, dup: dup, stray: ph.tally.strays(),
		cpu: used.per(float64(msgs)), dials: int(b.net.dials.Load() - ph.dials0), protocol: ph.traffic.protocol(),
		publishers: groupSenders,
	}
	if d := ph.tally.delivered(); d > 0 {
		res.acksPerEnv = float64(ph.acks.Load()) / float64(d)
	}
	if msgs > 0 {
		res.walPerMsg = float64(wal1-wal0) / float64(msgs)
	}
	if res.lost+res.dup+res.stray > 0 {
		// Loudly, at once: the run goes on to print its table, then
		// ends with an error (b.violations).
		v := fmt.Sprintf("groups of %d at %s: %d copies lost, %d duplicated, %d on devices they do not target",
			size, rateName(rate), res.lost, res.dup, res.stray)
		say("EXACTLY ONCE BROKEN: %s; the first: %s", v, strings.Join(ph.tally.problems(5, t.streamName), "; "))
		b.violations = append(b.violations, v)
	}
	return res, nil
}

// groupNtfyLoad is a groups phase against ntfy: a topic per group with a
// subscriber per device of its members (ntfy also delivers to the
// sender's, so a message makes one copy more than on the relay), the same
// senders taking the same turns.
func groupNtfyLoad(size int) ntfyLoad {
	return ntfyLoad{topics: groupMembers / size, subs: size * groupDevices, publishers: groupSenders,
		topic: func(p, i int) int {
			m, _ := groupSender(size, p, i)
			return m / size
		}}
}

// groupsScenario runs, for each group size, the references (pgbench of
// the list accept, and what storing the body once would save), rounds of
// the relay and, with --ntfy, ntfy in between, then the relay at half its
// peak for the delivery latency.
func (b *bench) groupsScenario() ([]result, error) {
	peer, stopPeer, err := b.startPeer()
	if err != nil {
		return nil, err
	}
	defer stopPeer()
	top, err := b.groupTopology()
	if err != nil {
		return nil, err
	}
	of := b.roundsNote()
	var out []result
	add := func(metric string, v float64, unit, note string) {
		out = append(out, result{"groups", metric, v, unit, note})
	}
	for _, size := range groupSizes {
		ref, err := b.groupReference(top, size)
		if err != nil {
			return nil, err
		}
		var relay, peerRuns []phaseResult
		for round := 1; round <= b.o.rounds; round++ {
			r, err := b.groupPhase(top, size, 0)
			if err != nil {
				return nil, err
			}
			relay = append(relay, r)
			if peer != nil {
				r, err := b.ntfyPhase(peer, groupNtfyLoad(size))
				if err != nil {
					return nil, err
				}
				peerRuns = append(peerRuns, r)
			}
		}
		rl := median(relay)
		half, err := b.groupPhase(top, size, rl.accepted/2)
		if err != nil {
			return nil, err
		}

		g := fmt.Sprintf("%d groups of %d", groupMembers/size, size)
		if size == groupMembers {
			g = fmt.Sprintf("1 group of %d", size)
		}
		what := fmt.Sprintf("groups of %d", size)
		add(what+": accepted", rl.accepted, "messages/s", fmt.Sprintf("%s members × %d streaming devices, %d senders; %s", g, groupDevices, groupSenders, of))
		add(what+": copies delivered", rl.copies, "copies/s", fmt.Sprintf("%d copies a message; first send to last arrival", groupCopies(size)))
		add(what+": delivery p50", rl.p50, "ms", "at saturation, POST start to each copy's arrival")
		add(what+": delivery p99", rl.p99, "ms", "")
		add(what+": CPU per message", rl.cpu.total(), "ms", fmt.Sprintf("relay %.2f, PostgreSQL %.2f, load %.2f", rl.cpu.relay, rl.cpu.postgres, rl.cpu.load))
		add(what+": ACK requests per copy", rl.acksPerEnv, "requests", "stream.js's coalesced ACKs")
		add(what+": relay ÷ list accept tx", rl.accepted/ref.tps, "ratio", fmt.Sprintf("pgbench of queue.AcceptSQL for a list, %d clients: %.0f tx/s", groupSenders, ref.tps))
		if peer != nil {
			nt := median(peerRuns)
			add("ntfy, "+what+": copies delivered", nt.copies, "copies/s", fmt.Sprintf("a topic per group, %d subscribers each (%d copies a message); %s", size*groupDevices, size*groupDevices, of))
			add("ntfy, "+what+": published", nt.accepted, "messages/s", "")
			add("ntfy, "+what+": delivery p50", nt.p50, "ms", "at saturation")
			add("ntfy, "+what+": delivery p99", nt.p99, "ms", "")
			add("ntfy, "+what+": lost + duplicated", float64(nt.lost+nt.dup+nt.stray), "copies", fmt.Sprintf("lost %d, duplicated %d, stray %d; must be 0", nt.lost, nt.dup, nt.stray))
			add("ntfy, "+what+": refused publishes", float64(nt.refused), "publishes", "non-200 answers, not counted; summed over the rounds")
			if nt.lost+nt.dup+nt.stray > 0 {
				b.violations = append(b.violations, fmt.Sprintf("ntfy, %s: %d lost, %d duplicated, %d stray", what, nt.lost, nt.dup, nt.stray))
			}
			add(what+": relay ÷ ntfy, copies", rl.copies/nt.copies, "ratio", "copies delivered per second")
		}
		add(fmt.Sprintf("%s, half peak (%.0f/s): delivery p50", what, rl.accepted/2), half.p50, "ms", "")
		add(fmt.Sprintf("%s, half peak: delivery p99", what), half.p99, "ms", "")
		all := median(append(relay, half)) // sums what was lost, duplicated or stray
		add(what+": lost + duplicated + stray", float64(all.lost+all.dup+all.stray), "copies",
			fmt.Sprintf("lost %d, duplicated %d, on devices not targeted %d, over every phase; must be 0", all.lost, all.dup, all.stray))
		b.storageLines(&out, what, size, ref, rl)
	}
	if peer == nil {
		add("ntfy", 0, "", "not run: pass --ntfy /path/to/ntfy for the peer's lines")
	}
	return out, nil
}
