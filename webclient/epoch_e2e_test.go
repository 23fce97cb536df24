package webclient_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"

	"relay/epoch"
	"relay/hub"
	"relay/relay"
)

// restoredNotice is a condition: the page shows the notice that messages
// may be missing because the relay went back to an earlier copy.
const restoredNotice = `(() => { const n = document.getElementById('purge-notice');
	return n && !n.hidden && n.dataset.reason === 'restored' && n.textContent.includes('earlier copy'); })()`

// queued is how many envelopes wait for device dev.
func (r *liveRelay) queued(dev string) int {
	return r.count(`SELECT count(*) FROM queue WHERE device_id = $1`, dev)
}

// storedTimes is how many messages of tb's chat with peer read text in
// its IndexedDB: written before the ACK, whatever the page shows yet.
func storedTimes(tb *tab, peer, text string) int {
	return eval[int](tb, fmt.Sprintf(`import('/store.js').then(s => s.getMessages(%s)).then(ms => ms.filter(m => m.text === %s).length)`, js(peer), js(text)))
}

// cursorAt is a condition: tb's stored cursor is at seq, in an epoch.
func cursorAt(seq int) string {
	return fmt.Sprintf(`import('/store.js').then(s => s.getMeta('cursor')).then(c => c.lastSeq === %d && !!c.epoch)`, seq)
}

// checkOnce fails the test unless tb stored each of texts from peer once.
func checkOnce(t *testing.T, tb *tab, peer string, texts ...string) {
	t.Helper()
	for _, m := range texts {
		if n := storedTimes(tb, peer, m); n != 1 {
			t.Errorf("%q is stored %d times, want once", m, n)
		}
	}
}

// TestRestoreWithNewEpoch: the relay's database is restored from a backup
// that an operator took while bob was offline, and relay admin new-epoch
// is run. Alice then sends a message that takes a seq bob already holds
// (the head equals his cursor, so only the epoch tells). Bob comes back:
// the messages of the backup that he has are recognised by id and shown
// once, the new one is stored and shown, and the notice says that some
// may be missing. A client without the epoch check ACKs the new message
// as a replay and never shows it.
func TestRestoreWithNewEpoch(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	bob.openChat("alice")
	bobDevice := bob.deviceID()
	bob.do(chromedp.Navigate("about:blank")) // offline

	alice.openChat("bob")
	alice.send("one")
	alice.send("two")
	alice.waitFor("two sent", `document.querySelectorAll('#messages .msg.out[data-status="sent"]').length === 2`)
	// The backup: bob's device row and queue as they are now.
	execDB(t, r, `CREATE TABLE backup_queue (LIKE queue)`)
	execDB(t, r, `INSERT INTO backup_queue SELECT * FROM queue WHERE device_id = $1`, bobDevice)
	execDB(t, r, `CREATE TABLE backup_device AS SELECT id, seq FROM devices`)
	alice.send("three")
	alice.waitFor("three sent", `document.querySelectorAll('#messages .msg.out[data-status="sent"]').length === 3`)

	bob.do(chromedp.Navigate(r.URL + "/#/chat/alice"))
	bob.waitMessage("three")
	held := r.count(`SELECT seq FROM devices WHERE id = $1`, bobDevice)
	bob.waitFor("bob's cursor at the head", cursorAt(held))
	waitDB(t, "bob's queue empty", func() bool { return r.queued(bobDevice) == 0 })
	bob.do(chromedp.Navigate("about:blank"))

	// The restore, then the operator's command.
	execDB(t, r, `DELETE FROM queue WHERE device_id = $1`, bobDevice)
	execDB(t, r, `INSERT INTO queue SELECT * FROM backup_queue`)
	execDB(t, r, `UPDATE devices d SET seq = b.seq FROM backup_device b WHERE d.id = b.id AND d.id = $1`, bobDevice)
	renewEpoch(t, r)
	alice.send("four")
	alice.waitFor("four sent", `document.querySelectorAll('#messages .msg.out[data-status="sent"]').length === 4`)
	if head := r.count(`SELECT seq FROM devices WHERE id = $1`, bobDevice); head != held {
		t.Fatalf("bob's head is %d after four, his cursor %d: only equal ones show that the epoch alone tells", head, held)
	}

	bob.do(chromedp.Navigate(r.URL + "/#/chat/alice"))
	bob.waitFor("bob's chat", `document.getElementById('composer')`)
	waitDB(t, "bob ACKed the replay", func() bool { return r.queued(bobDevice) == 0 })
	if storedTimes(bob, "alice", "four") != 1 {
		t.Fatalf("bob ACKed everything but stored no four: sent after the restore, it was dropped as a replay")
	}
	checkOnce(t, bob, "alice", "one", "two", "three")
	bob.waitMessage("four")
	bob.waitFor("the restored notice", restoredNotice)
	checkScreen(bob, "restored-notice")
}

// TestSeqSetBackUnderAStream: the relay's database goes back under a
// streaming client without anyone telling the relay (a device's seq set
// back in SQL, as a restore PostgreSQL cannot tell would). Alice's next
// message takes a seq below bob's cursor. The relay ends bob's stream at
// its next check; his new stream's head is below his cursor, so he
// resynchronises: the message is shown, with the notice. A client without
// that check ACKs it as a replay.
func TestSeqSetBackUnderAStream(t *testing.T) {
	r, alice, bob := aliceAndBob(t, func(c *relay.Config) { c.CatchUp = 200 * time.Millisecond })
	bob.openChat("alice")
	bobDevice := bob.deviceID()
	// Else the chat may start the old way and turn forward-secret midway:
	// after the failover bob would take the first forward-secret message
	// before the older ones, and rightly refuse those as a downgrade.
	published(t, r, bob)
	alice.openChat("bob")
	for _, m := range []string{"one", "two", "three"} {
		alice.send(m)
		bob.waitMessage(m)
	}
	bob.waitFor("bob's cursor at the head", cursorAt(r.count(`SELECT seq FROM devices WHERE id = $1`, bobDevice)))
	// As a backup would hold it: no row above the device's seq.
	waitDB(t, "bob's queue empty", func() bool { return r.queued(bobDevice) == 0 })
	if _, err := r.Pool.Exec(context.Background(), `UPDATE devices SET seq = 1 WHERE id = $1`, bobDevice); err != nil {
		t.Fatal(err)
	}
	alice.send("four")
	alice.waitFor("four sent", `document.querySelectorAll('#messages .msg.out[data-status="sent"]').length === 4`)
	// Bob's stream ends, and his next one tells what happened.
	waitDB(t, "bob ACKed four", func() bool { return r.queued(bobDevice) == 0 })
	if storedTimes(bob, "alice", "four") != 1 {
		t.Fatalf("bob ACKed everything but stored no four: it was dropped as a replay")
	}
	bob.waitFor("the restored notice", restoredNotice)
	checkOnce(t, bob, "alice", "one", "two", "three")
	bob.waitMessage("four")
	checkScreen(bob, "restored-notice-live")
	bob.do(chromedp.Click(chromedp.CSS(`#purge-notice button`)))
	bob.waitFor("the notice dismissed", `document.getElementById('purge-notice').hidden`)
	alice.send("five")
	bob.waitMessage("five")
	if eval[bool](bob, `!document.getElementById('purge-notice').hidden`) {
		t.Fatal("the notice came back for a message of the new history")
	}
}

// execDB runs one statement on r's database.
func execDB(t *testing.T, r *liveRelay, query string, args ...any) {
	t.Helper()
	if _, err := r.Pool.Exec(context.Background(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// renewEpoch does what relay admin new-epoch does, on r's database.
func renewEpoch(t *testing.T, r *liveRelay) {
	t.Helper()
	ctx := context.Background()
	err := pgx.BeginFunc(ctx, r.Pool, func(tx pgx.Tx) error {
		if err := epoch.Renew(ctx, tx); err != nil {
			return err
		}
		return hub.NotifyEpoch(ctx, tx)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// waitDB waits for cond, a question to the database, checked every 50 ms
// for 20 s.
func waitDB(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 400 {
		if cond() {
			return
		}
		sleep()
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestAckOfAnOldEpoch: the relay fails over to a replica that had not
// received bob's last envelopes (his seq goes back, the epoch changes, and
// nobody tells the relay), and bob's stream runs on before any check ends
// it. Alice's next messages take seq numbers bob has passed, so his stream
// skips them, until one takes a seq past his cursor: bob stores it and
// ACKs up to it, which in the new history covers the two he never saw.
// The ACK names bob's epoch, so the relay deletes nothing and answers
// epoch_changed; bob resynchronises, stores the two, and is told. A client
// whose ACK names no epoch deletes them unseen.
func TestAckOfAnOldEpoch(t *testing.T) {
	// No catch-up check within the test: the window before it is the case.
	r, alice, bob := aliceAndBob(t, func(c *relay.Config) { c.CatchUp = time.Hour })
	bob.openChat("alice")
	bobDevice := bob.deviceID()
	// Else the chat may start the old way and turn forward-secret midway:
	// after the failover bob would take the first forward-secret message
	// before the older ones, and rightly refuse those as a downgrade.
	published(t, r, bob)
	alice.openChat("bob")
	for _, m := range []string{"one", "two", "three"} {
		alice.send(m)
		bob.waitMessage(m)
	}
	bob.waitFor("bob's cursor at the head", cursorAt(r.count(`SELECT seq FROM devices WHERE id = $1`, bobDevice)))
	waitDB(t, "bob's queue empty", func() bool { return r.queued(bobDevice) == 0 })
	// The failover: a new timeline, unannounced (here the token, in SQL),
	// and a seq that lost its last two commits.
	execDB(t, r, `UPDATE devices SET seq = seq - 2 WHERE id = $1`, bobDevice)
	execDB(t, r, `UPDATE relay_epoch SET token = 'promoted'`)
	for i, m := range []string{"four", "five", "six"} {
		alice.send(m)
		alice.waitFor(m+" sent", fmt.Sprintf(`document.querySelectorAll('#messages .msg.out[data-status="sent"]').length === %d`, 4+i))
	}
	for _, m := range []string{"four", "five", "six"} {
		bob.waitMessage(m)
	}
	bob.waitFor("the restored notice", restoredNotice)
	waitDB(t, "bob ACKed the new history", func() bool { return r.queued(bobDevice) == 0 })
	checkOnce(t, bob, "alice", "one", "two", "three", "four", "five", "six")
}
