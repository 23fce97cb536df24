package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"relay/queue"
	"relay/relayclient"
)

// TestGroupTargets checks who a group message reaches: every device of
// its group but the sending one, the sender's other device included, and
// nobody in another group; and its "to" list names the other members.
func TestGroupTargets(t *testing.T) {
	names := make([]string, groupMembers)
	for i := range names {
		names[i] = fmt.Sprintf("m%d", i)
	}
	for _, size := range groupSizes {
		for _, c := range []struct{ m, k int }{{0, 0}, {13, 1}, {groupMembers - 1, 0}} {
			got := groupTargets(size, c.m, c.k)
			if len(got) != groupCopies(size) {
				t.Errorf("size %d, member %d: %d targets, want %d", size, c.m, len(got), groupCopies(size))
			}
			if slices.Contains(got, groupStream(c.m, c.k)) || !slices.Contains(got, groupStream(c.m, 1-c.k)) {
				t.Errorf("size %d, member %d device %d: targets %v hold the sending device or miss the other", size, c.m, c.k, got)
			}
			for _, s := range got {
				if s/groupDevices/size != c.m/size {
					t.Errorf("size %d, member %d: stream %d is in another group", size, c.m, s)
				}
			}
			list := groupList(names, size, c.m)
			seen := map[string]bool{}
			for _, n := range list {
				var j int
				fmt.Sscanf(n, "m%d", &j)
				if j/size != c.m/size || j == c.m || seen[n] {
					t.Errorf("size %d, member %d: %s in the list %v", size, c.m, n, list)
				}
				seen[n] = true
			}
			if len(list) != size-1 {
				t.Errorf("size %d, member %d: a list of %d, want %d", size, c.m, len(list), size-1)
			}
		}
	}
	for _, size := range groupSizes {
		// Every device of every member takes a turn in a round of turns.
		sent := map[[2]int]int{}
		for p := 0; p < groupSenders; p++ {
			for i := 0; i < groupMembers*groupDevices/groupSenders; i++ {
				m, k := groupSender(size, p, i)
				sent[[2]int{m, k}]++
			}
		}
		if len(sent) != groupMembers*groupDevices {
			t.Errorf("size %d: %d of %d devices sent in a round", size, len(sent), groupMembers*groupDevices)
		}
		// The senders' i-th messages are to as many groups as there are,
		// up to one each: a naive member p + 8i would send 8 at once to
		// one or two groups of 10.
		for i := 0; i < 30; i++ {
			groups := map[int]bool{}
			for p := 0; p < groupSenders; p++ {
				m, _ := groupSender(size, p, i)
				groups[m/size] = true
			}
			if want := min(groupSenders, groupMembers/size); len(groups) != want {
				t.Errorf("size %d: the senders' messages %d are to %d groups, want %d", size, i, len(groups), want)
			}
		}
	}
}

// TestGroupCopiesExactlyOnce is the groups scenario's check, copy by copy:
// a missing copy, a repeated one, and one on a device the message does not
// target (its sending device, a device of another group) are each caught
// and named; a copy that arrives before its sender read the 202 counts.
func TestGroupCopiesExactlyOnce(t *testing.T) {
	const size = 10
	t0 := time.Unix(1000, 0)
	name := func(s int) string { return fmt.Sprintf("s%d", s) }
	// Two messages: member 3's device 0 to group 0, member 57's device 1
	// to group 5.
	setup := func(skip func(s int, id string) bool) *tally {
		tl := newTally(groupMembers * groupDevices)
		for _, e := range []struct {
			id   string
			m, k int
		}{{"A", 3, 0}, {"B", 57, 1}} {
			for i, s := range groupTargets(size, e.m, e.k) {
				if !skip(s, e.id) {
					tl.arrived(s, e.id, t0.Add(time.Duration(i+1)*time.Millisecond))
				}
			}
			tl.expect(e.id, t0, groupTargets(size, e.m, e.k)) // after the arrivals, as when a stream is faster than the 202
		}
		return tl
	}
	none := func(int, string) bool { return false }
	type want struct{ lost, dup, stray, delivered int }
	counts := func(tl *tally) want {
		lost, dup := tl.check()
		return want{lost, dup, tl.strays(), tl.delivered()}
	}
	all := 2 * groupCopies(size)

	for _, c := range []struct {
		name    string
		skip    func(int, string) bool
		extra   func(tl *tally)
		want    want
		problem string
	}{
		{"every copy once", none, func(*tally) {}, want{0, 0, 0, all}, ""},
		{"a copy missing", func(s int, id string) bool { return id == "B" && s == groupStream(52, 0) }, func(*tally) {},
			want{1, 0, 0, all - 1}, "B on s104: missing"},
		{"a copy twice", none, func(tl *tally) { tl.arrived(groupStream(3, 1), "A", t0.Add(time.Second)) },
			want{0, 1, 0, all}, "A on s7: 2 arrivals"},
		{"a copy on the sending device", none, func(tl *tally) { tl.arrived(groupStream(3, 0), "A", t0) },
			want{0, 0, 1, all}, "A on s6, which it does not target: 1 arrivals"},
		{"a copy in another group", none, func(tl *tally) { tl.arrived(groupStream(10, 0), "A", t0) },
			want{0, 0, 1, all}, "A on s20, which it does not target: 1 arrivals"},
		{"an envelope not of the phase", none, func(tl *tally) { tl.arrived(0, "earlier", t0) }, want{0, 0, 0, all}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			tl := setup(c.skip)
			c.extra(tl)
			if got := counts(tl); got != c.want {
				t.Fatalf("lost, duplicated, stray, delivered %v; want %v", got, c.want)
			}
			ps := tl.problems(5, name)
			if (c.problem == "") != (len(ps) == 0) || (c.problem != "" && ps[0] != c.problem) {
				t.Fatalf("problems %q, want %q", ps, c.problem)
			}
		})
	}
	if got := setup(none).lastArrival(); !got.Equal(t0.Add(time.Duration(groupCopies(size)) * time.Millisecond)) {
		t.Errorf("last arrival %v", got)
	}
}

// TestGroupScriptIsTheRelaysListAccept runs the list-envelope pgbench
// script once against a fresh database, with the senders' table as the
// bench fills it, and the relay's own accept (queue.Accept) of the same
// list beside it: both must queue the same copies, each with the "to" of
// its account, and keep the same record. The body-once variant queues the
// same copies with empty bodies and the body once in a table of its own.
func TestGroupScriptIsTheRelaysListAccept(t *testing.T) {
	pgbench, db, pool := pgbenchDB(t)
	ctx := context.Background()
	const size, members = 3, 6
	top := &groupTopology{}
	for m := 0; m < members; m++ {
		name := fmt.Sprintf("member%d", m)
		if _, err := pool.Exec(ctx, `INSERT INTO accounts (username, password_hash, public_key) VALUES ($1, 'x', '\x04')`, name); err != nil {
			t.Fatal(err)
		}
		var devs []*relayclient.Client
		for k := 0; k < groupDevices; k++ {
			id := fmt.Sprintf("D%d_%d", m, k)
			if _, err := pool.Exec(ctx, `INSERT INTO devices (id, account_id, name, public_key) SELECT $1, id, 'd', '\x04' FROM accounts WHERE username = $2`, id, name); err != nil {
				t.Fatal(err)
			}
			devs = append(devs, &relayclient.Client{Device: id})
		}
		top.names, top.members = append(top.names, name), append(top.members, devs)
	}
	b := &bench{pool: pool}
	if err := b.fillGroupSenders(top, size); err != nil {
		t.Fatal(err)
	}
	run := func(turns, count int, once bool) {
		t.Helper()
		f, err := os.CreateTemp("", "group-*.sql")
		if err != nil {
			t.Fatal(err)
		}
		defer os.Remove(f.Name())
		f.WriteString(groupScript(turns, once))
		f.Close()
		args := []string{"-n", "-M", "prepared", "-c", "1", "-t", strconv.Itoa(count), "-f", f.Name()}
		for _, v := range pgbenchGroupVars {
			args = append(args, "-D", v)
		}
		cmd := exec.Command(pgbench, append(args, db)...)
		cmd.Env = append(os.Environ(), refEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pgbench: %v\n%s", err, out)
		}
	}
	run(1, 1, false) // one turn, the first: member0's device 0

	// The relay's accept of the same message.
	ids := map[string]int64{}
	rows, _ := pool.Query(ctx, `SELECT username, id FROM accounts`)
	for rows.Next() {
		var n string
		var id int64
		rows.Scan(&n, &id)
		ids[n] = id
	}
	list := groupList(top.names, size, 0)
	e := &queue.Envelope{ID: ulid.Make().String(), FromAccount: ids["member0"], FromUsername: "member0", FromDevice: "D0_0",
		ToUsername: queue.ListKey(list), Listed: true, TS: time.Now().UnixMilli(), Body: make([]byte, clientBodySize), Wake: true}
	for _, n := range list {
		e.Recipients = append(e.Recipients, queue.Recipient{Account: ids[n], Username: n})
	}
	if _, _, _, err := queue.Accept(ctx, pool, e, time.Now().Add(time.Hour), time.Now()); err != nil {
		t.Fatal(err)
	}

	copies := func(where string) []string {
		t.Helper()
		rows, err := pool.Query(ctx, `SELECT device_id || ' to ' || to_username || ' from ' || from_device || ', ' || octet_length(body) || ' B'
			FROM queue WHERE `+where+` ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for rows.Next() {
			var s string
			rows.Scan(&s)
			out = append(out, s)
		}
		return out
	}
	script, relay := copies(`envelope_id <> '`+e.ID+`'`), copies(`envelope_id = '`+e.ID+`'`)
	if len(relay) != groupCopies(size) || !slices.Equal(script, relay) {
		t.Fatalf("the script queued\n%s\nthe relay\n%s", strings.Join(script, "\n"), strings.Join(relay, "\n"))
	}
	if relay[0] != fmt.Sprintf("D0_1 to member0 from D0_0, %d B", clientBodySize) {
		t.Fatalf("the sender's other device got %q", relay[0])
	}
	var records, keys, contacts int
	if err := pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT to_username), (SELECT count(*) FROM contacts) FROM sent`).Scan(&records, &keys, &contacts); err != nil {
		t.Fatal(err)
	}
	if records != 2 || keys != 1 || contacts != 2*(size-1) {
		t.Fatalf("records %d with %d keys, contacts %d; want 2 with 1, %d", records, keys, contacts, 2*(size-1))
	}

	if _, err := pool.Exec(ctx, `TRUNCATE queue`); err != nil {
		t.Fatal(err)
	}
	run(1, 1, true)
	once := copies("true")
	var bodies, bodyBytes int
	if err := pool.QueryRow(ctx, `SELECT count(*), sum(octet_length(body)) FROM bench_bodies`).Scan(&bodies, &bodyBytes); err != nil {
		t.Fatal(err)
	}
	empty := make([]string, len(relay))
	for i, c := range relay {
		empty[i] = strings.TrimSuffix(c, fmt.Sprintf("%d B", clientBodySize)) + "0 B"
	}
	if !slices.Equal(once, empty) || bodies != 1 || bodyBytes != clientBodySize {
		t.Fatalf("body once queued\n%s\nand %d bodies of %d bytes; want the same copies empty and one body of %d", strings.Join(once, "\n"), bodies, bodyBytes, clientBodySize)
	}

	// A client takes the turns 0, 8, 16, … of the senders' table, from one
	// transaction to the next: with 12 turns, 0, 8 and 4, which are
	// member 0's device 0, member 1's device 1 and member 2's device 0.
	if _, err := pool.Exec(ctx, `TRUNCATE queue`); err != nil {
		t.Fatal(err)
	}
	run(members*groupDevices, 3, false)
	var from []string
	rows, err := pool.Query(ctx, `SELECT DISTINCT from_device FROM queue ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var d string
		rows.Scan(&d)
		from = append(from, d)
	}
	if want := []string{"D0_0", "D1_1", "D2_0"}; !slices.Equal(from, want) {
		t.Fatalf("three turns sent from %v, want %v", from, want)
	}
}
