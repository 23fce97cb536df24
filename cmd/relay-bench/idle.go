package main

import (
	"bufio"
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/oklog/ulid/v2"

	"relay/relayclient"
)

// The idle scenario: many streams that receive nothing, the relay's
// memory per stream, the time to open them, and, while they are all
// open, messages to a random 1 % of the devices.
const (
	// idleAccountDevices is how many devices each account has: the
	// relay's default maximum, so that a message to 1 % of the accounts
	// reaches 1 % of the devices.
	idleAccountDevices = 20
	// idleSources is how many loopback source addresses the streams are
	// opened from (127.0.0.2 on): one address offers the load generator
	// about 28,000 ephemeral ports.
	idleSources = 16
	// idleOpeners is how many streams are being opened at once.
	idleOpeners = 16
	// idleRounds is how many messages go to a random 1 % each, one after
	// the other.
	idleRounds = 10
	// idleWait is how long a message's copies may take before the
	// missing ones count as lost.
	idleWait = 10 * time.Second
)

// idleAccount is an account of the idle scenario: its name, its session
// and its devices.
type idleAccount struct {
	name   string
	cookie *http.Cookie
	ids    []string
}

// idleSetup is what the idle streams are opened for, made on the relay
// before the measured one: the accounts, and the device that sends the
// messages to 1 % of them.
type idleSetup struct {
	accounts     []idleAccount
	sender       string // the sending device
	senderCookie *http.Cookie
}

func (s *idleSetup) devices() int {
	n := 0
	for _, a := range s.accounts {
		n += len(a.ids)
	}
	return n
}

// prepareIdle registers accounts of idleAccountDevices devices, n devices
// in all, and a sender. It runs on the relay before the fresh one that is
// measured, so that the measured process has not hashed a password
// (argon2id's memory would blur the baseline).
func (b *bench) prepareIdle(n int) (*idleSetup, error) {
	accounts := (n + idleAccountDevices - 1) / idleAccountDevices
	say("registering %d accounts with %d devices in all for the idle streams…", accounts, n)
	ctx := context.Background()
	setup := &idleSetup{accounts: make([]idleAccount, accounts)}
	start := time.Now()
	var made atomic.Int64
	err := parallel(8, accounts, func(i int) error {
		c := b.client()
		k, _ := ecdh.P256().GenerateKey(rand.Reader)
		name := fmt.Sprintf("idle%d_%d", b.n, i)
		if err := c.Register(ctx, name, "bench password", k.PublicKey().Bytes()); err != nil {
			return err
		}
		a := idleAccount{name: name, cookie: sessionCookie(c, b.base)}
		for j := 0; j < min(idleAccountDevices, n-i*idleAccountDevices); j++ {
			id, err := c.AddDevice(ctx, "idle", k.PublicKey().Bytes())
			if err != nil {
				return err
			}
			a.ids = append(a.ids, id)
		}
		setup.accounts[i] = a
		if m := made.Add(1); m%1000 == 0 {
			say("  %d of %d accounts (%.0f s)", m, accounts, time.Since(start).Seconds())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	senders, _, err := b.account(1)
	if err != nil {
		return nil, err
	}
	setup.sender, setup.senderCookie = senders[0].Device, sessionCookie(senders[0], b.base)
	return setup, nil
}

// sessionCookie is c's session cookie for the relay at base.
func sessionCookie(c *relayclient.Client, base string) *http.Cookie {
	u, _ := url.Parse(base)
	var out *http.Cookie
	for _, ck := range c.HTTP.Jar.Cookies(u) {
		out = ck
	}
	return out
}

// idleArrivals counts the copies of the messages sent to the idle streams
// as the holders report them.
type idleArrivals struct {
	mu  sync.Mutex
	got map[string][]time.Time // envelope id → arrival of each copy
}

func (a *idleArrivals) add(id string, at time.Time) {
	a.mu.Lock()
	a.got[id] = append(a.got[id], at)
	a.mu.Unlock()
}

func (a *idleArrivals) count(id string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.got[id])
}

// streamsPerProcess is how many streams one process may hold under the
// open-files limit, which this process has raised to the hard limit; the
// rest of the limit is left for the database connections and the like.
func streamsPerProcess() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Max > 1<<20 {
		return 1 << 20
	}
	return max(1000, int(rl.Max)-2000)
}

// idleStreams opens a stream for every device of setup, measures the
// relays' memory growth per stream over the second half, then sends
// idleRounds messages, each to a random 1 % of the accounts, and measures
// their delivery while every stream is open.
//
// One process may hold only so many connections (the open-files limit),
// so the streams are held by holder processes (this program again, in
// holdStreams) and, past one process's share, served by as many relay
// instances on the one database, each stream on one of them.
func (b *bench) idleStreams(setup *idleSetup) ([]result, error) {
	n := setup.devices()
	procs := (n + streamsPerProcess() - 1) / streamsPerProcess()
	stopExtras, err := b.startExtras(procs)
	if err != nil {
		return nil, err
	}
	defer stopExtras()
	bases := []string{b.base}
	for _, in := range b.extra {
		bases = append(bases, in.base)
	}
	arrivals := &idleArrivals{got: map[string][]time.Time{}}
	holders := make([]*holder, procs)
	defer func() {
		for _, h := range holders {
			if h != nil {
				h.stop()
			}
		}
	}()
	for k := range holders {
		h, err := b.startHolder(arrivals)
		if err != nil {
			return nil, err
		}
		holders[k] = h
	}
	say("opening %d idle streams on %d relay process(es) from %d source addresses…", n, procs, idleSources)
	var lines []string
	for _, a := range setup.accounts {
		for _, id := range a.ids {
			i := len(lines)
			u, _ := url.Parse(bases[i%procs])
			lines = append(lines, fmt.Sprintf("open\t%s\t127.0.0.%d\t%s\t%s=%s", u.Host, 2+(i/procs)%idleSources, id, a.cookie.Name, a.cookie.Value))
		}
	}
	open := func(from, to int) (time.Duration, error) {
		start := time.Now()
		for i := from; i < to; i++ {
			holders[i%procs].send(lines[i])
		}
		for _, h := range holders {
			h.send("go")
		}
		for _, h := range holders {
			if err := h.wait(); err != nil {
				return 0, err
			}
		}
		return time.Since(start), nil
	}
	// The first half of the streams absorbs memory the processes had
	// freed before (startup, the first pages of each size); the figures
	// are the growth over the second half, i.e. what one more stream
	// costs.
	first, err := open(0, n/2)
	if err != nil {
		return nil, err
	}
	rss0, heap0, stacks0 := b.settledMemory()
	second, err := open(n/2, n)
	if err != nil {
		return nil, err
	}
	rss1, heap1, stacks1 := b.settledMemory()
	per := func(a, b int64) float64 { return float64(a-b) / float64(n-n/2) / 1024 }
	out := []result{
		{"idle", fmt.Sprintf("open %d streams", n), float64((first + second).Milliseconds()), "ms", fmt.Sprintf("%d at once per relay process, %d process(es)", idleOpeners, procs)},
		{"idle", "resident memory per stream", per(rss1, rss0), "KiB", "target ≤ 10; growth over the second half"},
		{"idle", "Go heap per stream", per(heap1, heap0), "KiB", "in use, including garbage not yet collected"},
		{"idle", "goroutine stacks per stream", per(stacks1, stacks0), "KiB", ""},
	}
	if b.o.profile {
		// The heap profile collects garbage first; a few seconds later
		// the runtime has returned some freed memory to the system.
		b.saveProfile("heap?gc=1", "idle.heap.pprof")
		b.saveProfile("goroutine", "idle.goroutine.pprof")
		time.Sleep(5 * time.Second)
		rss2, heap2, stacks2 := b.memory()
		out = append(out, result{"idle", "after a GC: resident memory per stream", per(rss2, rss0), "KiB", "--profile only; first relay process collected"},
			result{"idle", "after a GC: Go heap per stream", per(heap2, heap0), "KiB", ""},
			result{"idle", "after a GC: goroutine stacks per stream", per(stacks2, stacks0), "KiB", ""})
	}
	delivery, err := b.idleDelivery(setup, arrivals)
	if err != nil {
		return nil, err
	}
	return append(out, delivery...), nil
}

// idleDelivery sends idleRounds messages from setup's sender, each to a
// random 1 % of the accounts (at least one), one after the other, and
// measures from each POST's start to its arrival on each of the streams
// of those accounts.
func (b *bench) idleDelivery(setup *idleSetup, arrivals *idleArrivals) ([]result, error) {
	c := b.client()
	c.Device = setup.sender
	u, _ := url.Parse(b.base)
	c.HTTP.Jar.SetCookies(u, []*http.Cookie{setup.senderCookie})
	pick := max(1, len(setup.accounts)/100)
	say("sending %d messages, each to %d random accounts of the %d (1 %% of the streams)…", idleRounds, pick, len(setup.accounts))
	body := make([]byte, clientBodySize)
	var waits []float64
	copies := 0
	for round := 0; round < idleRounds; round++ {
		var to []string
		want := 0
		for _, i := range mrand.Perm(len(setup.accounts))[:pick] {
			to = append(to, setup.accounts[i].name)
			want += len(setup.accounts[i].ids)
		}
		id := ulid.Make().String()
		start := time.Now()
		if _, err := c.SendTo(context.Background(), id, to, body, ""); err != nil {
			return nil, err
		}
		for deadline := time.Now().Add(idleWait); arrivals.count(id) < want && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		arrivals.mu.Lock()
		got := arrivals.got[id]
		arrivals.mu.Unlock()
		if len(got) != want {
			b.violations = append(b.violations, fmt.Sprintf("idle: a message to %d streams arrived %d times within %s", want, len(got), idleWait))
		}
		for _, at := range got {
			waits = append(waits, float64(at.Sub(start).Microseconds())/1000)
		}
		copies += want
	}
	sort.Float64s(waits)
	return []result{
		{"idle", "1 % delivery p50", percentile(waits, 0.5), "ms", fmt.Sprintf("%d copies of %d messages, every stream open", copies, idleRounds)},
		{"idle", "1 % delivery p99", percentile(waits, 0.99), "ms", "target ≤ 1,000"},
		{"idle", "1 % delivery max", percentile(waits, 1), "ms", ""},
	}, nil
}

// settledMemory waits until the relay's resident size stops moving (the
// runtime returns freed memory to the system gradually) and then reads its
// memory; it gives up waiting after 30 s.
func (b *bench) settledMemory() (rss, heap, stacks int64) {
	prev, _, _ := b.memory()
	steady := 0
	for deadline := time.Now().Add(30 * time.Second); steady < 3 && time.Now().Before(deadline); {
		time.Sleep(500 * time.Millisecond)
		cur, _, _ := b.memory()
		if d := cur - prev; d < 64<<10 && d > -64<<10 {
			steady++
		} else {
			steady = 0
		}
		prev = cur
	}
	return b.memory()
}

// memory reads the resident set size of the relay processes from /proc
// and their Go heap and stacks from their metrics, summed.
func (b *bench) memory() (rss, heap, stacks int64) {
	all := []*instance{{cmd: b.cmd, metrics: b.metrics}}
	all = append(all, b.extra...)
	for _, in := range all {
		r, h, s := in.memory()
		rss, heap, stacks = rss+r, heap+h, stacks+s
	}
	return rss, heap, stacks
}

// memory reads in's resident set size from /proc and its Go heap and
// stacks from its metrics.
func (in *instance) memory() (rss, heap, stacks int64) {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", in.cmd.Process.Pid))
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			rss = kb * 1024
		}
	}
	resp, err := http.Get(in.metrics)
	if err == nil {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 2 {
				continue
			}
			v, _ := strconv.ParseFloat(f[1], 64)
			switch f[0] {
			case "go_memstats_heap_inuse_bytes":
				heap = int64(v)
			case "go_memstats_stack_inuse_bytes":
				stacks = int64(v)
			}
		}
		resp.Body.Close()
	}
	return rss, heap, stacks
}
