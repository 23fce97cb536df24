package relay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"relay/internal/pushtest"
	"relay/relay"
	"relay/relayclient"
)

// The tests of one envelope to a list of accounts, a group's members
// (docs/protocol.md, "POST /api/messages"; ADR 0106).

func withFanoutRate(n int) option    { return func(c *relay.Config) { c.FanoutRatePerMinute = n } }
func withMaxRecipients(n int) option { return func(c *relay.Config) { c.MaxRecipients = n } }

// members makes n accounts named prefix000, prefix001, … without devices,
// straight in the database: a list needs accounts, not their devices, and
// a group of a hundred registered through the API would take the test's
// time for nothing it checks.
func (s *testServer) members(t *testing.T, prefix string, n int) []string {
	t.Helper()
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("%s%03d", prefix, i))
	}
	if _, err := s.Pool.Exec(context.Background(), `INSERT INTO accounts (username, password_hash, public_key)
		SELECT name, 'x', '\x04' FROM unnest($1::text[]) AS name`, names); err != nil {
		t.Fatal(err)
	}
	return names
}

// copyRow is one queue row of an envelope.
type copyRow struct {
	seq int64
	to  string
	ts  int64
}

// copies returns the queue rows of envelope id by device.
func (s *testServer) copies(t *testing.T, id string) map[string][]copyRow {
	t.Helper()
	rows, err := s.Pool.Query(context.Background(), `SELECT device_id, seq, to_username, ts FROM queue WHERE envelope_id = $1`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]copyRow{}
	for rows.Next() {
		var dev string
		var c copyRow
		if err := rows.Scan(&dev, &c.seq, &c.to, &c.ts); err != nil {
			t.Fatal(err)
		}
		out[dev] = append(out[dev], c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGroupSendFanOut: one envelope to bob and carol, from alice's first
// device, is one copy on every device of the three accounts but the
// sending one, each with the next seq of its device and the same ts, the
// one alice was answered, and each saying as "to" the account it was
// queued for: "alice" on alice's other device. The streams open before
// the send get their copies live, with the same "to"; the queue pages of
// the others read them from the database. carol is listed second: on the
// version that fans out to the first name only (tried once), her devices
// get nothing and the test fails there.
func TestGroupSendFanOut(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 2)
	carol := s.register(t, "carol", 2)
	// One envelope before, so that the seqs to check are not all 1.
	s.send(t, bob.device(0), "carol", "before")
	live := map[string]*follower{}
	for _, c := range []*relayclient.Client{alice.device(1), bob.device(0), carol.device(1)} {
		f := follow(t, c, "")
		if e := f.next(t); e.Name == "envelope" { // carol's devices hold "before"
			f.expectReady(t, e.Envelope.Seq)
		} else if e.Name != "ready" {
			t.Fatalf("got %+v, want ready", e)
		}
		live[c.Device] = f
	}

	a, err := alice.device(0).SendTo(ctx, s.newID(), []string{"bob", "carol"}, []byte("to the group"), "")
	if err != nil {
		t.Fatal(err)
	}
	if a.Deleted != nil {
		t.Fatalf("deleted %q, want none said", a.Deleted)
	}
	want := map[string]copyRow{
		alice.Devices[1]: {1, "alice", a.TS},
		bob.Devices[0]:   {1, "bob", a.TS},
		bob.Devices[1]:   {2, "bob", a.TS}, // after "before", which its other device sent
		carol.Devices[0]: {2, "carol", a.TS},
		carol.Devices[1]: {2, "carol", a.TS},
	}
	got := s.copies(t, a.ID)
	for dev, w := range want {
		if c := got[dev]; len(c) != 1 || c[0] != w {
			t.Errorf("device %s: copies %+v, want one %+v", dev, c, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("copies on %d devices, want %d (never the sending device): %v", len(got), len(want), got)
	}
	for dev, f := range live {
		e := f.expectEnvelopes(t, want[dev].seq, 1)[0]
		if e.ID != a.ID || e.To != want[dev].to || e.TS != a.TS || e.From != "alice" || e.FromDevice != alice.Devices[0] || string(e.Body) != "to the group" {
			t.Errorf("device %s streamed %+v, want to %q", dev, e, want[dev].to)
		}
	}
	for _, c := range []*relayclient.Client{bob.device(1), carol.device(0)} {
		p, err := c.Fetch(ctx, want[c.Device].seq-1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Envelopes) != 1 || p.Envelopes[0].ID != a.ID || p.Envelopes[0].To != want[c.Device].to || p.Envelopes[0].TS != a.TS {
			t.Errorf("device %s fetched %+v, want to %q", c.Device, p.Envelopes, want[c.Device].to)
		}
	}
	// A single "to" stays as it was: every copy says "bob", alice's own
	// other device's too.
	one := s.send(t, alice.device(0), "bob", "one to one")
	for dev, c := range s.copies(t, one.ID) {
		if len(c) != 1 || c[0].to != "bob" {
			t.Errorf("device %s: copies %+v of a send to bob", dev, c)
		}
	}
	// Both made alice a contact of bob and of carol, both ways; carol and
	// bob were contacts already, by "before".
	if n := s.count(t, `SELECT count(*) FROM contacts`); n != 6 {
		t.Errorf("%d contact rows, want 6", n)
	}
}

// TestGroupSendRefusals: lists of the wrong shape are refused at check 3,
// a list naming an account that does not exist at check 8, for the whole
// request; none stores anything for anyone, and none keeps a token of any
// bucket. The control: with one message token and a fan-out bucket of
// 256, the send to 256 other accounts after all of them passes, which it
// would not if any refusal had kept a token.
func TestGroupSendRefusals(t *testing.T) {
	const max = 256
	s := newTestServer(t, withRate(1), withFanoutRate(max))
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 1)
	group := append([]string{"bob"}, s.members(t, "m", max-1)...)
	over := append(append([]string{}, group...), "alice")
	hdr := map[string]string{"X-Device": alice.Devices[0], "Origin": s.URL}
	body := b64([]byte("x"))
	envelope := func(to string) string {
		return `{"id":"` + s.newID() + `","to":` + to + `,"body":"` + body + `"}`
	}
	list := func(names ...string) string {
		j, _ := json.Marshal(names)
		return string(j)
	}
	before := s.state(t)
	for _, tc := range []struct {
		name, to string
		status   int
		code     string
	}{
		{"a name twice", list("bob", "m000", "bob"), 400, "bad_envelope"},
		{"an empty list", `[]`, 400, "bad_envelope"},
		{"numbers", `[1,2]`, 400, "bad_envelope"},
		{"a null in the list", `["bob",null]`, 400, "bad_envelope"},
		{fmt.Sprintf("a list of %d", max+1), list(over...), 400, "too_many_recipients"},
		{"a bad name", list("bob", "Carol!"), 400, "bad_envelope"},
		{"a nested list", `[["bob"]]`, 400, "bad_envelope"},
		{"a number", `7`, 400, "bad_envelope"},
		{"an object", `{"bob":true}`, 400, "bad_envelope"},
		{"null", `null`, 400, "bad_envelope"},
		{"an unknown name", list("m000", "bob", "nobody", "noone"), 404, "unknown_recipient"},
	} {
		a := raw(t, alice.Client, "POST", "/api/messages", hdr, envelope(tc.to))
		if a.Status != tc.status || a.code() != tc.code {
			t.Errorf("%s: got %d %s, want %d %s", tc.name, a.Status, a.Raw, tc.status, tc.code)
		}
		switch tc.code {
		case "too_many_recipients":
			if msg, _ := a.Body["message"].(string); !strings.Contains(msg, fmt.Sprint(max)) {
				t.Errorf("%s: the message does not name the limit: %s", tc.name, a.Raw)
			}
		case "unknown_recipient":
			if a.Body["username"] != "nobody" {
				t.Errorf("%s: the answer names %v, want the first unknown name, nobody", tc.name, a.Body["username"])
			}
		}
		if after := s.state(t); after != before {
			t.Fatalf("%s changed the state from %v to %v", tc.name, before, after)
		}
	}
	// The relay's client reads the name too.
	_, err := alice.device(0).SendTo(ctx, s.newID(), []string{"bob", "nobody"}, []byte("x"), "")
	var e *relayclient.Error
	if !errorsAs(err, &e) || e.Code != "unknown_recipient" || e.Username != "nobody" {
		t.Fatalf("got %v, want unknown_recipient naming nobody", err)
	}

	a, err := alice.device(0).SendTo(ctx, s.newID(), group, []byte("to all"), "")
	if err != nil {
		t.Fatalf("the send to %d after the refusals: %v", len(group), err)
	}
	// bob's one device and alice's other one have devices to get it.
	if got := s.copies(t, a.ID); len(got) != 2 || len(got[bob.Devices[0]]) != 1 || len(got[alice.Devices[1]]) != 1 {
		t.Fatalf("copies %v", got)
	}
	if got := relay.DefaultConfig(); got.MaxRecipients != 256 || got.FanoutRatePerMinute != 3000 {
		t.Fatalf("defaults: %d recipients, fan-out %d a minute; want 256 and 3000", got.MaxRecipients, got.FanoutRatePerMinute)
	}
}

// TestGroupSendSkipsDeleted: a deleted account in a list is skipped and
// named in the answer, sorted, so that a group keeps working while its
// members remove it; a list whose accounts other than the sender's are all
// deleted is 410 account_deleted and stores nothing, as a single "to" of a
// deleted account is. A list of the sender alone is an envelope to self.
func TestGroupSendSkipsDeleted(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 1)
	for _, name := range []string{"dave", "carol"} {
		u := s.register(t, name, 1)
		if err := u.device(0).DeleteAccount(ctx, password); err != nil {
			t.Fatal(err)
		}
	}
	a, err := alice.device(0).SendTo(ctx, s.newID(), []string{"dave", "bob", "alice", "carol"}, []byte("x"), "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Deleted, []string{"carol", "dave"}) {
		t.Fatalf("deleted %q, want [carol dave]", a.Deleted)
	}
	if got := s.copies(t, a.ID); len(got) != 2 || len(got[bob.Devices[0]]) != 1 || got[alice.Devices[1]][0].to != "alice" {
		t.Fatalf("copies %v: want bob's device and alice's other one", got)
	}
	before := s.state(t)
	for _, to := range [][]string{{"carol", "dave"}, {"alice", "carol"}} {
		_, err := alice.device(0).SendTo(ctx, s.newID(), to, []byte("x"), "")
		var e *relayclient.Error
		if !errorsAs(err, &e) || e.Status != http.StatusGone || e.Code != "account_deleted" {
			t.Fatalf("to %q: got %v, want 410 account_deleted", to, err)
		}
	}
	if after := s.state(t); after != before {
		t.Fatalf("refused lists changed the state from %v to %v", before, after)
	}
	self, err := alice.device(1).SendTo(ctx, s.newID(), []string{"alice"}, []byte("note"), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.copies(t, self.ID); len(got) != 1 || len(got[alice.Devices[0]]) != 1 || got[alice.Devices[0]][0].to != "alice" {
		t.Fatalf("copies of a list of the sender alone: %v", got)
	}
}

// TestGroupSendIdempotent: a resend of a list answers the original ts and
// queues nothing, also after a member was deleted; the same id with
// another list, the same names in another order, or "bob" for ["bob"] and
// the other way round, is 409 id_conflict. The record of a single "to"
// still holds the username, as every record written before lists does,
// and the record of a list names nobody in the clear.
func TestGroupSendIdempotent(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	s.register(t, "bob", 1)
	carol := s.register(t, "carol", 1)
	a := alice.device(0)
	id := s.newID()
	first, err := a.SendTo(ctx, id, []string{"bob", "carol"}, []byte("hello"), "")
	if err != nil {
		t.Fatal(err)
	}
	rows := s.count(t, "SELECT count(*) FROM queue")
	s.Clock.Advance(time.Second)
	again, err := a.SendTo(ctx, id, []string{"bob", "carol"}, []byte("hello"), "")
	if err != nil || again.Accepted != first.Accepted {
		t.Fatalf("resend: %+v %v, want %+v", again, err, first)
	}
	for _, to := range [][]string{{"carol", "bob"}, {"bob"}, {"bob", "carol", "alice"}} {
		_, err := a.SendTo(ctx, id, to, []byte("hello"), "")
		wantCode(t, err, "id_conflict")
	}
	_, err = a.Send(ctx, id, "bob", []byte("hello"))
	wantCode(t, err, "id_conflict")
	if n := s.count(t, "SELECT count(*) FROM queue"); n != rows {
		t.Fatalf("the resend and the conflicts queued %d rows", n-rows)
	}
	one := s.newID()
	if _, err := a.Send(ctx, one, "bob", []byte("hello")); err != nil {
		t.Fatal(err)
	}
	_, err = a.SendTo(ctx, one, []string{"bob"}, []byte("hello"), "")
	wantCode(t, err, "id_conflict")
	if n := s.count(t, "SELECT count(*) FROM sent WHERE envelope_id = $1 AND to_username = 'bob'", one); n != 1 {
		t.Fatalf("the record of a send to bob does not hold \"bob\"")
	}
	if n := s.count(t, "SELECT count(*) FROM sent WHERE envelope_id = $1 AND to_username LIKE 'list:%' AND to_username NOT LIKE '%bob%' AND to_username NOT LIKE '%carol%'", id); n != 1 {
		t.Fatalf("the record of a list is not its key")
	}
	// carol leaves; the group's resend is still the same envelope.
	if err := carol.device(0).DeleteAccount(ctx, password); err != nil {
		t.Fatal(err)
	}
	rows = s.count(t, "SELECT count(*) FROM queue")
	again, err = a.SendTo(ctx, id, []string{"bob", "carol"}, []byte("hello"), "")
	if err != nil || again.Accepted != first.Accepted {
		t.Fatalf("resend after carol left: %+v %v, want %+v", again, err, first)
	}
	if n := s.count(t, "SELECT count(*) FROM queue"); n != rows {
		t.Fatalf("resends queued %d rows", n-rows)
	}
}

// TestFanoutBucket: with 300 accounts a minute and lists of about 120
// others, two sends pass and the third is refused by the fan-out bucket,
// with its Retry-After: 61 tokens are left of the 120 it needs, at 5 a
// second. The third's message token is given back: the send to 61
// accounts after it passes on the message bucket's third and last token
// (and on the fan-out bucket's last 61). Then envelopes to others are refused, whatever their
// kind, and envelopes to oneself are not: they take no fan-out token.
// On the version without the bucket, the third send passes; on the one
// that keeps the message token of a refused send, the fourth is refused.
func TestFanoutBucket(t *testing.T) {
	const fanout, size = 300, 120
	s := newTestServer(t, withRate(3), withFanoutRate(fanout), withMaxRecipients(size), withGroupRate(1000), withReceiptRate(1000))
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	s.register(t, "bob", 1)
	a := alice.device(0)
	group := append([]string{"bob"}, s.members(t, "m", size-1)...)
	// The sender's own name in a list takes nothing: 119, then 120
	// taken, 61 left.
	for _, to := range [][]string{append([]string{"alice"}, group[:size-1]...), group} {
		if _, err := a.SendTo(ctx, s.newID(), to, []byte("x"), ""); err != nil {
			t.Fatal(err)
		}
	}
	_, err := a.SendTo(ctx, s.newID(), group, []byte("x"), "")
	wantRateLimited(t, err, 12*time.Second) // 59 more at 5 a second
	if _, err := a.SendTo(ctx, s.newID(), group[:61], []byte("x"), ""); err != nil {
		t.Fatalf("the smaller send after the refusal: %v", err)
	}
	_, err = a.Send(ctx, s.newID(), "bob", []byte("x"))
	wantRateLimited(t, err, 20*time.Second) // the message bucket's, first
	_, err = a.SendReceipt(ctx, s.newID(), "bob", []byte("r"))
	wantRateLimited(t, err, time.Second) // the fan-out bucket's: one token at 5 a second
	_, err = a.SendWelcome(ctx, s.newID(), "bob", welcomeMsg(t))
	wantRateLimited(t, err, time.Second)
	s.send(t, a, "alice", "to self")
	if _, err := a.SendTo(ctx, s.newID(), []string{"alice"}, []byte("x"), "receipt"); err != nil {
		t.Fatalf("a list of the sender alone: %v", err)
	}
	if _, err := a.SendWelcome(ctx, s.newID(), "alice", welcomeMsg(t)); err != nil {
		t.Fatalf("a welcome to self: %v", err)
	}
	s.Clock.Advance(time.Second)
	if _, err := a.SendReceipt(ctx, s.newID(), "bob", []byte("r")); err != nil {
		t.Fatalf("a receipt once a fan-out token is back: %v", err)
	}
	// A configuration whose list could never pass is refused.
	if _, err := relay.New(relay.Config{Pool: s.Pool, BaseURL: s.URL, FanoutRatePerMinute: 100, MaxRecipients: 101}); err == nil {
		t.Fatal("New took a fan-out bucket smaller than a list")
	}
}

// TestConcurrentGroupSends: four accounts of two devices each send at once
// to lists of the other three, each list in another order, so that the
// fan-outs lock overlapping devices in every order a naive locking could
// take them. Every send is accepted (no deadlock ends one), every device
// holds each envelope meant for it exactly once, and its seqs run from 1
// without a gap.
func TestConcurrentGroupSends(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	names := []string{"ann", "ben", "cat", "dan"}
	users := make([]*user, len(names))
	for i, n := range names {
		users[i] = s.register(t, n, 2)
	}
	const each = 25
	sent := make([][]string, len(users))
	var wg sync.WaitGroup
	errs := make(chan error, len(users))
	for i, u := range users {
		wg.Go(func() {
			var others []string
			for j, n := range names {
				if j != i {
					others = append(others, n)
				}
			}
			for k := range each {
				to := slices.Concat(others[k%3:], others[:k%3]) // rotated
				if k%2 == 1 {
					slices.Reverse(to)
				}
				id := s.newID()
				if _, err := u.device(0).SendTo(ctx, id, to, []byte(id), ""); err != nil {
					errs <- fmt.Errorf("%s's send %d: %w", u.Name, k, err)
					return
				}
				sent[i] = append(sent[i], id)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, u := range users {
		for d, dev := range u.Devices {
			var want []string
			for j := range users {
				if j != i || d != 0 { // never to the sending device
					want = append(want, sent[j]...)
				}
			}
			rows, err := s.Pool.Query(ctx, `SELECT seq, envelope_id FROM queue WHERE device_id = $1 ORDER BY seq`, dev)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			var seq int64
			for rows.Next() {
				var id string
				if err := rows.Scan(&seq, &id); err != nil {
					t.Fatal(err)
				}
				if seq != int64(len(got))+1 {
					t.Fatalf("%s's device %d: seq %d after %d rows", u.Name, d, seq, len(got))
				}
				got = append(got, id)
			}
			rows.Close()
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%s's device %d holds %d envelopes, want %d, each once", u.Name, d, len(got), len(want))
			}
		}
	}
}

// TestGroupCommitToList: every kind may go to a list. A commit to the
// group's members is ordered by its epoch as any commit is: the first at
// epoch 0 reaches every member's devices, the next at epoch 0 is 409
// stale_epoch and stores nothing, its resend is answered from its record
// after the group moved on. A welcome and a receipt to a list are queued
// like a message.
func TestGroupCommitToList(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	bob := s.register(t, "bob", 1)
	carol := s.register(t, "carol", 2)
	a := alice.device(0)
	members := []string{"bob", "carol"}
	id := s.newID()
	first, err := a.SendTo(ctx, id, members, commitMsg("g", 0, "add"), "commit")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.copies(t, first.ID); len(got) != 3 || got[carol.Devices[1]][0].to != "carol" || got[bob.Devices[0]][0].to != "bob" {
		t.Fatalf("copies of the commit: %v", got)
	}
	before := s.state(t)
	_, err = bob.device(0).SendTo(ctx, s.newID(), []string{"alice", "carol"}, commitMsg("g", 0, "racing"), "commit")
	wantStale(t, err, 1)
	if after := s.state(t); after != before {
		t.Fatalf("a stale commit to a list changed the state from %v to %v", before, after)
	}
	again, err := a.SendTo(ctx, id, members, commitMsg("g", 0, "add"), "commit")
	if err != nil || again.Accepted != first.Accepted {
		t.Fatalf("resend of the commit: %+v %v, want %+v", again, err, first)
	}
	for _, kind := range []string{"welcome", "receipt"} {
		body := []byte("r")
		if kind == "welcome" {
			body = welcomeMsg(t)
		}
		sent, err := a.SendTo(ctx, s.newID(), members, body, kind)
		if err != nil {
			t.Fatalf("a %s to a list: %v", kind, err)
		}
		if got := s.copies(t, sent.ID); len(got) != 3 {
			t.Fatalf("copies of a %s: %v", kind, got)
		}
	}
	if s.epochOf(t, "g") != 1 {
		t.Fatalf("the group is at epoch %d, want 1", s.epochOf(t, "g"))
	}
}

// TestGroupSendWakes: a message to a list records a wake-up (ADR 0087) on
// the subscribed devices of every listed account, as a message to one
// account does, and never on the sender's other devices; a receipt to a
// list wakes no one. The pusher is not run: what is checked is the
// decision the accept committed. On the version that wakes only the first
// listed account, carol's device has nothing to wake it.
func TestGroupSendWakes(t *testing.T) {
	svc := pushtest.New(t, pushContact)
	s := newTestServerWithoutRun(t, withPush(svc))
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	bob := s.register(t, "bob", 1)
	carol := s.register(t, "carol", 1)
	for _, c := range []*relayclient.Client{alice.device(1), bob.device(0), carol.device(0)} {
		subscribe(t, c, svc.Subscribe(t))
	}
	members := []string{"bob", "carol"}
	if _, err := alice.device(0).SendTo(ctx, s.newID(), members, []byte("r"), "receipt"); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.device(0).SendTo(ctx, s.newID(), members, []byte("m"), ""); err != nil {
		t.Fatal(err)
	}
	for dev, want := range map[string]int64{alice.Devices[1]: 0, bob.Devices[0]: 2, carol.Devices[0]: 2} {
		if wake, _ := s.wakeState(t, dev); wake != want {
			t.Errorf("device %s: wake_seq %d, want %d", dev, wake, want)
		}
	}
}
