package webclient_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"relay/audit"
	"relay/internal/testdb"
	"relay/relayclient"
)

// cluster gives the admin connection of the test cluster and its data
// directory, for CHECKPOINT and the audit.
func cluster(t *testing.T) (*pgx.Conn, string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testdb.AdminURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	var dir string
	if err := conn.QueryRow(ctx, "SHOW data_directory").Scan(&dir); err != nil {
		t.Fatalf("reading data_directory (the test role must be a superuser): %v", err)
	}
	return conn, dir
}

// auditHits checkpoints, so that everything is in the heap files as well as
// the WAL, and returns the audit's hits for the needles.
func auditHits(t *testing.T, conn *pgx.Conn, dir string, needles ...string) []audit.Hit {
	t.Helper()
	if _, err := conn.Exec(context.Background(), "CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	var forms []audit.Form
	for _, n := range needles {
		f, err := audit.Forms(n)
		if err != nil {
			t.Fatal(err)
		}
		forms = append(forms, f...)
	}
	rep, err := audit.Scan(dir, forms, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Unreadable) > 0 {
		t.Fatalf("the audit could not read %v", rep.Unreadable)
	}
	if rep.Files < 100 {
		t.Fatalf("the audit read only %d files of %s", rep.Files, dir)
	}
	return rep.Hits
}

func marker(t *testing.T) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "mk" + hex.EncodeToString(b)
}

// TestNoPlaintextAtRest sends messages holding a random marker through the
// real web client, one long enough to be stored out of line (TOAST), and
// searches the whole PostgreSQL data directory, WAL included, before and
// after the ACK. A positive control writes the marker in plain and must be
// found, so the test can fail.
func TestNoPlaintextAtRest(t *testing.T) {
	conn, dir := cluster(t)
	r := startRelay(t)
	mark := marker(t)
	long := mark + strings.Repeat(" a long message that PostgreSQL stores out of line.", 200)

	_, alice := r.newProfile(t)
	_, bob := r.newProfile(t)
	alice.register("alice")
	bob.register("bob")
	bob.openChat("alice")
	bob.do(chromedp.Navigate("about:blank")) // offline: the envelopes wait

	alice.openChat("bob")
	alice.send("short " + mark)
	alice.do(chromedp.SetValue(chromedp.ID("composer"), long), chromedp.Click(chromedp.ID("send-btn")))
	alice.waitFor("both sent", `document.querySelectorAll('#messages .msg.out[data-status="sent"]').length === 2`)
	if n := r.count(`SELECT count(*) FROM queue WHERE octet_length(body) > 8000`); n != 1 {
		t.Fatalf("%d large envelopes queued, want the long one", n)
	}
	if hits := auditHits(t, conn, dir, mark); len(hits) != 0 {
		t.Fatalf("plaintext on disk while queued: %+v", hits)
	}

	bob.do(chromedp.Navigate(r.URL + "/#/chat/alice"))
	bob.waitMessage("short " + mark)
	bob.waitFor("the long message", `[...document.querySelectorAll('#messages .msg')].some(e => e.querySelector('.text').textContent === `+js(long)+`)`)
	waitQueueEmpty(t, r)
	if hits := auditHits(t, conn, dir, mark); len(hits) != 0 {
		t.Fatalf("plaintext on disk after ACK: %+v", hits)
	}

	// Positive control: the same search finds the marker once it is stored
	// in plain.
	if _, err := r.Pool.Exec(context.Background(), `CREATE TABLE scratch (t text)`); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Pool.Exec(context.Background(), `INSERT INTO scratch VALUES ($1)`, "control "+mark); err != nil {
		t.Fatal(err)
	}
	if hits := auditHits(t, conn, dir, mark); len(hits) == 0 {
		t.Fatal("the audit did not find a plaintext marker: it cannot prove anything")
	}
}

// TestSeedScenario is the acceptance run the relay grew from: two accounts,
// five devices (three for alice, two for bob, each its own browser profile).
func TestSeedScenario(t *testing.T) {
	conn, dir := cluster(t)
	r := startRelay(t)
	ctx := context.Background()

	_, aLaptop := r.newProfile(t)
	_, bLaptop := r.newProfile(t)
	aLaptop.register("alice")
	bLaptop.register("bob")
	link := func(approver *tab, user string) *tab {
		t.Helper()
		_, tb := r.newProfile(t)
		code := tb.login(user)
		id := tb.deviceID()
		eval[chromedp.Void](approver, `location.hash = '#/chats'`)
		approver.waitFor("the chat list", `document.getElementById('new-chat-username')`)
		eval[chromedp.Void](approver, `location.hash = '#/devices'`)
		row := fmt.Sprintf(`.device[data-id="%s"]`, id)
		approver.waitFor("the new device", `document.querySelector('`+row+`')`)
		if got := eval[string](approver, `document.querySelector('`+row+` .device-code').textContent`); got != code {
			t.Fatalf("codes differ: %q and %q", got, code)
		}
		approver.do(chromedp.Click(chromedp.CSS(row + " .approve-btn")))
		tb.waitFor("the device to be linked", `document.getElementById('new-chat-username')`)
		published(t, r, tb)
		return tb
	}
	aPhone := link(aLaptop, "alice")
	aTablet := link(aLaptop, "alice")
	bPhone := link(bLaptop, "bob")
	if n := r.count(`SELECT count(*) FROM devices WHERE revoked_at IS NULL`); n != 5 {
		t.Fatalf("%d devices, want 5", n)
	}
	alices := []*tab{aLaptop, aPhone, aTablet}
	bobs := []*tab{bLaptop, bPhone}
	for _, tb := range alices {
		tb.openChat("bob")
	}
	for _, tb := range bobs {
		tb.openChat("alice")
	}

	// Live delivery both ways, copies to the sender's other devices, never
	// an echo to the sending device.
	texts := []string{}
	say := func(from *tab, text string, everyone []*tab) {
		t.Helper()
		texts = append(texts, text)
		from.send(text)
		for _, tb := range everyone {
			tb.waitMessage(text)
		}
		n := eval[int](from, `[...document.querySelectorAll('#messages .msg')].filter(e => e.querySelector('.text').textContent === `+js(text)+`).length`)
		if n != 1 {
			t.Fatalf("the sending device shows %q %d times", text, n)
		}
	}
	all := append(append([]*tab{}, alices...), bobs...)
	say(aLaptop, "from alice's laptop "+marker(t), all)
	say(bPhone, "from bob's phone "+marker(t), all)

	// The tablet goes offline during an exchange and gets it all on return.
	aTablet.do(chromedp.Navigate("about:blank"))
	online := []*tab{aLaptop, aPhone, bLaptop, bPhone}
	say(bLaptop, "while the tablet sleeps 1 "+marker(t), online)
	say(aPhone, "while the tablet sleeps 2 "+marker(t), online)
	say(bPhone, "while the tablet sleeps 3 "+marker(t), online)
	aTablet.do(chromedp.Navigate(r.URL + "/#/chat/bob"))
	aTablet.waitMessage(texts[len(texts)-1])
	if got := aTablet.messages(); strings.Join(got, "|") != strings.Join(texts, "|") {
		t.Fatalf("the tablet shows %q, want %q in order", got, texts)
	}

	// ACK empties every queue, once every receipt of what was read went out.
	for _, tb := range all {
		tb.waitFor("the receipts sent", receiptsSettled)
	}
	waitQueueEmpty(t, r)
	stats, err := audit.ReadStats(ctx, r.Pool, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if stats.Queued != 0 || stats.Devices != 5 || stats.Accounts != 2 {
		t.Fatalf("stats: %+v", stats)
	}

	// Raw requests as bob: a forged from is ignored; a foreign device id
	// and a request without Origin are refused.
	raw := relayclient.New(r.URL)
	if _, err := raw.Login(ctx, "bob", password); err != nil {
		t.Fatal(err)
	}
	raw.Device = bLaptop.deviceID()
	// The live tabs ACK (and so delete) what they get, so the fan-out is
	// read from the devices' seq counters, which only the send moves, and
	// the stamped sender from the tablet's row, which nobody ACKs: its tab
	// is closed before the send.
	ids := map[*tab]string{}
	for _, tb := range all {
		ids[tb] = tb.deviceID()
	}
	// Nothing else may move a seq meanwhile: no chat is open (an arriving
	// message read in an open chat sends a read record to the account),
	// and every read record and receipt has gone out.
	for _, tb := range all {
		eval[chromedp.Void](tb, `location.hash = '#/chats'`)
		tb.waitFor("the chat list", `document.getElementById('new-chat-username') && !document.getElementById('composer')`)
	}
	for _, tb := range all {
		tb.waitFor("nothing left to send", outboxSettled)
	}
	aTablet.do(chromedp.Navigate("about:blank"))
	seqs := func() map[*tab]int {
		out := map[*tab]int{}
		for _, tb := range all {
			out[tb] = r.count(`SELECT seq FROM devices WHERE id = $1`, ids[tb])
		}
		return out
	}
	before := seqs()
	forged := ulid.Make().String()
	if err := raw.Do(ctx, http.MethodPost, "/api/messages", map[string]string{
		"id": forged, "to": "alice", "body": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "from": "alice",
	}, nil); err != nil {
		t.Fatal(err)
	}
	after := seqs()
	for _, tb := range all {
		want := 1 // alice's three devices and bob's phone
		if tb == bLaptop {
			want = 0 // the sending device
		}
		if got := after[tb] - before[tb]; got != want {
			t.Fatalf("the forged envelope was queued %d times for a device, want %d", got, want)
		}
	}
	if n := r.count(`SELECT count(*) FROM queue WHERE envelope_id = $1 AND device_id = $2 AND from_username = 'bob'`, forged, ids[aTablet]); n != 1 {
		t.Fatalf("the offline tablet holds %d copies stamped as bob's, want 1", n)
	}
	if n := r.count(`SELECT count(*) FROM queue WHERE envelope_id = $1 AND from_username <> 'bob'`, forged); n != 0 {
		t.Fatal("the forged from was believed")
	}
	foreign := *raw
	foreign.Device = aLaptop.deviceID()
	if _, err := foreign.Send(ctx, ulid.Make().String(), "alice", []byte("x")); relayclient.Code(err) != "device_forbidden" {
		t.Fatalf("a foreign device id: %v", err)
	}
	noOrigin := *raw
	noOrigin.Origin = ""
	if _, err := noOrigin.Send(ctx, ulid.Make().String(), "alice", []byte("x")); relayclient.Code(err) != "origin_required" {
		t.Fatalf("no Origin: %v", err)
	}

	// No plaintext in the database or its WAL.
	if hits := auditHits(t, conn, dir, texts...); len(hits) != 0 {
		t.Fatalf("plaintext on disk: %+v", hits)
	}
	bPhone.screenshot("seed-scenario")
}
