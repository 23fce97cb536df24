package webclient_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"

	"relay/deletion"
	"relay/devices"
	"relay/hub"
	"relay/internal/browser"
)

// deleteInSettings deletes the account from tab's Settings: the password,
// then the confirmation dialog.
func deleteInSettings(tb *tab) {
	tb.t.Helper()
	eval[chromedp.Void](tb, `location.hash = '#/settings'`)
	tb.waitFor("the Delete account section", `document.getElementById('delete-password')`)
	tb.do(chromedp.SetValue(chromedp.ID("delete-password"), password), chromedp.Click(chromedp.ID("delete-account")))
	tb.waitFor("the confirmation dialog", `document.getElementById('delete-dialog') && document.getElementById('delete-dialog').open`)
	tb.do(chromedp.Click(chromedp.ID("delete-confirm")))
}

const deletedNotice = `document.getElementById('auth-notice') && document.getElementById('auth-notice').textContent.includes('This account was deleted') && document.getElementById('nav').hidden`

// TestDeleteAccountFlow: alice has a laptop with two tabs and a linked
// phone; bob is offline with her last message waiting for him. She
// deletes her account in Settings (it says what happens, asks for her
// password, then for a confirmation in a dialog): both laptop tabs and
// the phone are logged out and say the account was deleted, with nothing
// of it left in their storage. bob's chat with her says it too, with the
// composer off. Then the search of the database's files finds neither
// her username nor her waiting envelope's ciphertext after the vacuum and
// checkpoint (relay admin vacuum), and the same search found both before.
// Once the name's hold has passed, a new alice_leaves gets bob's
// key-change warning.
func TestDeleteAccountFlow(t *testing.T) {
	conn, dir := cluster(t)
	r := startRelay(t)
	ctx := context.Background()
	const name = "alice_leaves" // a needle of at least 8 bytes
	p := browser.New(t)
	laptop := r.openTab(t, p.Ctx)
	_, bob := r.newProfile(t)
	// bob first: alice's rows are then the newest of their pages, where
	// a plain VACUUM, which moves only the rows before them, would leave
	// their bytes; VACUUM FULL must erase them.
	bob.register("bob")
	laptop.register(name)
	phone := linkedDevice(t, r, laptop, name)
	secondCtx, _ := p.NewTab(t)
	second := r.openTab(t, secondCtx)
	second.waitFor("the second tab's chat list", `document.getElementById('new-chat-username')`)

	bob.openChat(name)
	bob.send("hello before you go")
	laptop.openChat("bob")
	laptop.waitMessage("hello before you go")
	bob.do(chromedp.Navigate("about:blank")) // offline: her reply waits
	laptop.send("my last words")
	laptop.waitFor("sent", `document.querySelector('#messages .msg.out[data-status="sent"]')`)
	var body []byte
	if err := r.Pool.QueryRow(ctx, `SELECT body FROM queue WHERE from_username = $1 AND device_id = $2`, name, bobDevice(t, r)).Scan(&body); err != nil {
		t.Fatalf("her envelope waiting for bob: %v", err)
	}
	cipher := string(body[len(body)-24:])
	var oid uint32
	if err := r.Pool.QueryRow(ctx, `SELECT oid FROM pg_database WHERE datname = current_database()`).Scan(&oid); err != nil {
		t.Fatal(err)
	}
	dbDir := filepath.Join(dir, "base", fmt.Sprint(oid))
	// Control: both needles are in the database's files now.
	for _, n := range []string{name, cipher} {
		if hits := auditHits(t, conn, dbDir, n); len(hits) == 0 {
			t.Fatalf("the audit did not find %q before the deletion: it cannot prove anything", n)
		}
	}

	eval[chromedp.Void](laptop, `location.hash = '#/settings'`)
	laptop.waitFor("the Delete account section", `document.getElementById('delete-section')`)
	for _, want := range []string{"logs out every device", "deletes the messages waiting", "what they already received", "blocks your username"} {
		if !eval[bool](laptop, `document.getElementById('delete-section').textContent.includes(`+js(want)+`)`) {
			t.Errorf("the Delete account section does not say %q", want)
		}
	}
	checkScreen(laptop, "delete-section")
	// Without the password nothing is asked or deleted.
	laptop.do(chromedp.Click(chromedp.ID("delete-account")))
	laptop.waitFor("the missing password said", `document.getElementById('delete-error').textContent.includes('password')`)
	// A wrong password is refused after the dialog, and changes nothing.
	laptop.do(chromedp.SetValue(chromedp.ID("delete-password"), "not my password"), chromedp.Click(chromedp.ID("delete-account")))
	laptop.waitFor("the confirmation dialog", `document.getElementById('delete-dialog') && document.getElementById('delete-dialog').open`)
	checkScreen(laptop, "delete-dialog")
	laptop.do(chromedp.Click(chromedp.ID("delete-confirm")))
	laptop.waitFor("the wrong password said", `document.getElementById('delete-error').textContent.includes('Nothing was deleted')`)
	if r.count(`SELECT count(*) FROM accounts WHERE username = $1`, name) != 1 {
		t.Fatal("a wrong password deleted the account")
	}

	deleteInSettings(laptop)
	for _, tb := range []*tab{laptop, second, phone} {
		tb.waitFor("logged out, saying the account was deleted", deletedNotice)
		tb.waitFor("nothing of the account left here", `(async () => { const s = await import('/sync.js'); return s.me() === null && !s.streaming() && !s.isOwner() && (await indexedDB.databases()).length === 0; })()`)
	}
	checkScreen(phone, "deleted")
	if n := r.count(`SELECT count(*) FROM accounts WHERE username = $1`, name); n != 0 {
		t.Fatal("the account is still on the relay")
	}

	bob.do(chromedp.Navigate(r.URL + "/#/chat/" + name))
	bob.waitFor("the chat saying the account was deleted, composer off",
		`document.getElementById('composer') && document.getElementById('composer').disabled && document.getElementById('send-btn').disabled && document.getElementById('composer-note').textContent.includes('This account was deleted')`)
	bob.waitMessage("hello before you go") // his history stays
	checkScreen(bob, "contact-deleted")

	if err := deletion.Vacuum(ctx, r.Pool); err != nil {
		t.Fatal(err)
	}
	if hits := auditHits(t, conn, dbDir, name, cipher); len(hits) != 0 {
		t.Fatalf("the deleted account is still in the database's files: %+v", hits)
	}

	// The hold passes (as 30 days would): the name is free again, and the
	// new owner's key is not the one bob stored.
	if _, err := r.Pool.Exec(ctx, `UPDATE held_names SET held_until = now()`); err != nil {
		t.Fatal(err)
	}
	_, newcomer := r.newProfile(t)
	newcomer.register(name)
	eval[chromedp.Void](bob, `location.hash = '#/chats'`)
	bob.openChat(name)
	bob.waitFor("the key-change warning", `document.getElementById('key-warning')`)
	bob.waitFor("the composer back on", `!document.getElementById('composer').disabled`)
}

// TestLogoutAsksOnce: the logout dialog opens once the relay has said
// whether this is the last device. Log out pressed again meanwhile (a
// slow relay, an impatient person) joins the first press: the relay is
// asked once and one dialog opens, which Cancel closes.
func TestLogoutAsksOnce(t *testing.T) {
	r := startRelay(t)
	_, alice := r.newProfile(t)
	alice.register("alice")
	// Both presses in one task: no answer can come between them.
	asked := eval[int](alice, `(() => {
  const real = window.fetch;
  let asked = 0;
  window.fetch = (url, ...rest) => { if (String(url).startsWith('/api/devices')) asked++; return real(url, ...rest); };
  const b = document.getElementById('logout');
  b.click();
  b.click();
  window.fetch = real;
  return asked;
})()`)
	if asked != 1 {
		t.Fatalf("two presses of Log out asked the relay %d times for the devices, want once", asked)
	}
	alice.waitFor("the logout dialog", `document.getElementById('leave-dialog') && document.getElementById('leave-dialog').open`)
	alice.do(chromedp.Click(chromedp.CSS("#leave-dialog .dialog-cancel")))
	alice.waitFor("no dialog left", `!document.querySelector('dialog')`)
	if eval[bool](alice, `import('/sync.js').then((s) => s.me() !== 'alice')`) {
		t.Fatal("Cancel logged out")
	}
}

// bobDevice is the one device bob has.
func bobDevice(t *testing.T, r *liveRelay) string {
	t.Helper()
	var id string
	if err := r.Pool.QueryRow(context.Background(), `SELECT d.id FROM devices d JOIN accounts a ON a.id = d.account_id WHERE a.username = 'bob'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// setDisabled does what relay admin disable and enable do: the account's
// row, and the notice to the streams in the same transaction.
func setDisabled(t *testing.T, r *liveRelay, username string, disabled bool) {
	t.Helper()
	ctx := context.Background()
	store, err := devices.NewStore(r.Pool, devices.Config{})
	if err != nil {
		t.Fatal(err)
	}
	err = pgx.BeginFunc(ctx, r.Pool, func(tx pgx.Tx) error {
		devs, err := store.SetDisabled(ctx, tx, username, disabled)
		if err != nil || !disabled {
			return err
		}
		return hub.NotifyEnded(ctx, tx, hub.ReasonDisabled, devs)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDisabledAccountIsTold: the operator disables alice while her chat
// is open. Her page says at once that the operator disabled the account
// and what to do; a message she sends then fails with the relay's reason.
// Once enabled, the same browser works again without a login.
func TestDisabledAccountIsTold(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	alice.openChat("bob")
	setDisabled(t, r, "alice", true)
	alice.waitFor("the bar saying the operator disabled the account",
		`document.getElementById('conn-bar').dataset.state === 'disabled' && !document.getElementById('conn-bar').hidden && document.getElementById('conn-bar').textContent.includes('operator disabled this account')`)
	checkScreen(alice, "disabled")
	alice.send("while disabled")
	alice.waitFor("the refusal with the relay's reason", `document.querySelector('#messages .msg.failed') && document.getElementById('messages').textContent.includes('disabled')`)

	setDisabled(t, r, "alice", false)
	alice.do(chromedp.Reload())
	alice.openChat("bob")
	alice.waitFor("the stream back", `document.getElementById('conn-bar').hidden && !document.getElementById('composer').disabled`)
	alice.send("enabled again")
	bob.openChat("alice")
	bob.waitMessage("enabled again")
}
