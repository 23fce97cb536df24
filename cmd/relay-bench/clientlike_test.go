package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// jsConst returns the value of `const name = <integer>` in a client file.
func jsConst(src, name string) (int, error) {
	m := regexp.MustCompile(`(?m)^\s*(?:export\s+)?const\s+` + regexp.QuoteMeta(name) + `\s*=\s*(\d+)\s*;`).FindStringSubmatch(src)
	if m == nil {
		return 0, fmt.Errorf("no integer constant %s", name)
	}
	return strconv.Atoi(m[1])
}

// TestClientPolicyFollowsTheWebClient reads the web client's files and
// fails when the client-like scenario's copy of its policy differs, so
// that the scenario follows the client (go:embed cannot reach across
// packages, hence the relative paths).
func TestClientPolicyFollowsTheWebClient(t *testing.T) {
	for _, c := range []struct {
		file, name string
		bench      int
	}{
		{"stream.js", "ACK_INTERVAL_MS", int(clientAckInterval / time.Millisecond)},
		{"receipts.js", "WINDOW", int(receiptWindow / time.Millisecond)},
		{"records.js", "MAX_IDS", receiptMaxIDs},
	} {
		src, err := os.ReadFile(filepath.Join("..", "..", "webclient", "static", c.file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := jsConst(string(src), c.name)
		if err != nil {
			t.Errorf("%s: %v: the client-like scenario cannot follow the client", c.file, err)
			continue
		}
		if got != c.bench {
			t.Errorf("%s has %s = %d, the bench mirrors %d: change the bench's constant (policy.go) to match", c.file, c.name, got, c.bench)
		}
	}
}

// TestJSConst is the control of the test above: a changed or missing
// constant is seen.
func TestJSConst(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int
		ok   bool
	}{
		{"export const ACK_INTERVAL_MS = 150;\n", 150, true},
		{"const ACK_INTERVAL_MS = 250; // coalesce\n", 250, true},
		{"// ACK_INTERVAL_MS = 150;\nconst ACK_INTERVAL_MS_X = 150;\n", 0, false},
		{"let ackTo = 0;\n", 0, false},
	} {
		got, err := jsConst(c.src, "ACK_INTERVAL_MS")
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%q: %d, %v; want %d, ok %v", c.src, got, err, c.want, c.ok)
		}
	}
}

// TestAckPolicy runs stream.js's policy over arrival times and checks
// which ACKs it sends. One ACK per batch (the naive policy) fails every
// case but the first.
func TestAckPolicy(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for _, c := range []struct {
		name   string
		in     []arrival
		hideAt time.Duration
		want   []sentAck
	}{
		{"sparse: each at once", []arrival{{ms(0), 1}, {ms(200), 2}, {ms(400), 3}},
			0, []sentAck{{ms(0), 1}, {ms(200), 2}, {ms(400), 3}}},
		{"a burst: the first at once, the rest at the end of the interval",
			[]arrival{{ms(0), 1}, {ms(10), 2}, {ms(20), 3}, {ms(149), 4}},
			0, []sentAck{{ms(0), 1}, {ms(150), 4}}},
		{"steady every 40 ms: one ACK per interval, each covering what came",
			[]arrival{{ms(0), 1}, {ms(40), 2}, {ms(80), 3}, {ms(120), 4}, {ms(160), 5}, {ms(200), 6}, {ms(240), 7}, {ms(280), 8}, {ms(320), 9}},
			0, []sentAck{{ms(0), 1}, {ms(150), 4}, {ms(300), 8}, {ms(450), 9}}},
		{"exactly one interval later: at once", []arrival{{ms(0), 1}, {ms(150), 2}},
			0, []sentAck{{ms(0), 1}, {ms(150), 2}}},
		{"hidden with an ACK pending: sent at once", []arrival{{ms(0), 1}, {ms(50), 2}, {ms(60), 3}},
			ms(70), []sentAck{{ms(0), 1}, {ms(70), 3}}},
		{"hidden with nothing pending: nothing", []arrival{{ms(0), 1}},
			ms(70), []sentAck{{ms(0), 1}}},
		{"a replayed lower seq is ACKed again, as written since the last ACK", []arrival{{ms(0), 5}, {ms(20), 3}, {ms(40), 2}},
			0, []sentAck{{ms(0), 5}, {ms(150), 3}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := simulateAcks(clientAckInterval, c.in, c.hideAt)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("ACKs %v, want %v", got, c.want)
			}
		})
	}
}

// TestTallyCountsLossAndDuplicates checks the end-of-phase accounting with
// a dropped and a duplicated delivery as controls; arrivals of envelopes
// not expected (receipts, an earlier phase's) count as neither.
func TestTallyCountsLossAndDuplicates(t *testing.T) {
	t0 := time.Unix(1000, 0)
	setup := func() *tally {
		tl := newTally(10)
		tl.expect("A", t0, []int{0, 1, 2, 3, 4})
		tl.expect("B", t0, []int{5, 6, 7, 8, 9})
		return tl
	}
	deliverAll := func(tl *tally, skip func(s int, id string) bool) {
		for s := 0; s < 5; s++ {
			if !skip(s, "A") {
				tl.arrived(s, "A", t0.Add(time.Duration(s+1)*time.Millisecond))
			}
		}
		for s := 5; s < 10; s++ {
			if !skip(s, "B") {
				tl.arrived(s, "B", t0.Add(time.Duration(s+1)*time.Millisecond))
			}
		}
	}
	none := func(int, string) bool { return false }

	tl := setup()
	deliverAll(tl, none)
	tl.arrived(0, "receipt", t0)
	tl.arrived(7, "old", t0)
	tl.arrived(7, "old", t0)
	if lost, dup := tl.check(); lost != 0 || dup != 0 || tl.delivered() != 10 {
		t.Fatalf("everything once: lost %d, duplicated %d, delivered %d; want 0, 0, 10", lost, dup, tl.delivered())
	}
	if lats := tl.latencies(); len(lats) != 10 || lats[0] != 1 || lats[9] != 10 {
		t.Fatalf("latencies %v, want 1..10 ms", lats)
	}

	tl = setup()
	deliverAll(tl, func(s int, id string) bool { return s == 3 && id == "A" })
	if lost, dup := tl.check(); lost != 1 || dup != 0 {
		t.Fatalf("one dropped: lost %d, duplicated %d; want 1, 0", lost, dup)
	}

	tl = setup()
	deliverAll(tl, none)
	tl.arrived(8, "B", t0.Add(time.Second))
	if lost, dup := tl.check(); lost != 0 || dup != 1 {
		t.Fatalf("one duplicated: lost %d, duplicated %d; want 0, 1", lost, dup)
	}
	if lats := tl.latencies(); lats[len(lats)-1] != 10 {
		t.Fatalf("a duplicate changed the latency: %v", lats)
	}

	tl = setup()
	deliverAll(tl, none)
	tl.arrived(2, "B", t0) // B on a stream it does not target, instead of its own
	if lost, dup := tl.check(); lost != 0 || dup != 0 {
		t.Fatalf("B on a foreign stream: lost %d, duplicated %d; want 0, 0", lost, dup)
	}
}

// TestFloorScript runs the physical floor's pgbench script on a fresh
// database whose default is synchronous_commit off: one 1 KiB row per
// transaction, committed durably because the bench's environment says so.
// The control runs the probe without that environment and sees off.
func TestFloorScript(t *testing.T) {
	pgbench, db, pool := pgbenchDB(t)
	ctx := context.Background()
	var name string
	if err := pool.QueryRow(ctx, `SELECT current_database()`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{floorTableSQL, `ALTER DATABASE "` + name + `" SET synchronous_commit = off`,
		`CREATE TABLE probe (setting text, env bool)`} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	run := func(script string, env []string) {
		t.Helper()
		f, err := os.CreateTemp("", "floor-*.sql")
		if err != nil {
			t.Fatal(err)
		}
		defer os.Remove(f.Name())
		f.WriteString(script)
		f.Close()
		cmd := exec.Command(pgbench, "-n", "-M", "prepared", "-c", "2", "-t", "5", "-f", f.Name(), db)
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pgbench: %v\n%s", err, out)
		}
	}
	run(floorScript, floorEnv)
	var rows, kib int
	if err := pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE octet_length(body) = 1024) FROM bench_floor`).Scan(&rows, &kib); err != nil {
		t.Fatal(err)
	}
	if rows != 10 || kib != 10 {
		t.Fatalf("%d rows, %d of 1 KiB; want 10 of 10 (2 clients × 5 transactions)", rows, kib)
	}
	run("INSERT INTO probe VALUES (current_setting('synchronous_commit'), true);\n", floorEnv)
	run("INSERT INTO probe VALUES (current_setting('synchronous_commit'), false);\n", nil)
	// The accept-transaction reference plans as the relay does; the
	// control without its environment plans as PostgreSQL does.
	run("INSERT INTO probe VALUES (current_setting('plan_cache_mode'), true);\n", refEnv)
	run("INSERT INTO probe VALUES (current_setting('plan_cache_mode'), false);\n", nil)
	for _, c := range []struct {
		env  bool
		want string
	}{{true, "on"}, {false, "off"}, {true, "force_generic_plan"}, {false, "auto"}} {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM probe WHERE env = $1 AND setting = $2`, c.env, c.want).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 10 {
			t.Errorf("with the pgbench environment %v: %d of 10 transactions ran with %s", c.env, n, c.want)
		}
	}
}
