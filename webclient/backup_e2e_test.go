package webclient_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// downloadsTo makes the tab's browser save what it downloads into dir,
// under the names the page gives.
func downloadsTo(tb *tab, dir string) {
	tb.t.Helper()
	if _, err := chromedp.CallBrowser(tb.ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir}); err != nil {
		tb.t.Fatal(err)
	}
}

// waitDownload waits until the file name in dir is complete (Chromium
// writes name.crdownload first, then renames it) and returns its path.
func waitDownload(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	for i := 0; ; i++ {
		if _, err := os.Stat(p); err == nil {
			if _, err := os.Stat(p + ".crdownload"); os.IsNotExist(err) {
				return p
			}
		}
		if i > 400 {
			t.Fatalf("no download %s in %s", name, dir)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// writeBackup types the recovery key into Settings › History backup and
// waits for the file it writes, whose path it returns.
func writeBackup(tb *tab, key, dir string) string {
	tb.t.Helper()
	eval[chromedp.Void](tb, `location.hash = '#/settings'`)
	tb.waitFor("the backup form", `document.getElementById('backup-key') && !document.getElementById('backup-form').hidden`)
	tb.do(chromedp.SetValue(chromedp.ID("backup-key"), key), chromedp.Click(chromedp.ID("backup-go")))
	tb.waitFor("the backup written", `document.getElementById('backup-status').textContent.startsWith('Backup written')`)
	name := eval[string](tb, `document.getElementById('backup-save').getAttribute('download')`)
	return waitDownload(tb.t, dir, name)
}

// importFile chooses path in Settings › Import a backup, presses Import
// and waits for the status line to begin with want.
func importFile(tb *tab, path, want string) {
	tb.t.Helper()
	tb.do(chromedp.SetUploadFiles(chromedp.ID("import-file"), []string{path}), chromedp.Click(chromedp.ID("import-go")))
	tb.waitFor("the import's outcome: "+want, `document.getElementById('import-status').textContent.startsWith(`+js(want)+`)`)
}

// storedTexts is what the store holds of a chat, in its order: each
// message's text, or its files' names.
func storedTexts(tb *tab, chat string) []string {
	tb.t.Helper()
	return eval[[]string](tb, `import('/store.js').then(async (s) => (await s.getMessages(`+js(chat)+`)).map((m) => m.files ? m.files.map((f) => f.name).join(',') : m.text))`)
}

// TestBackupRestoresHistory: alice writes her history to a backup file
// with her recovery key (a mistyped key writes nothing and says so), logs
// in on a fresh browser, restores the account with the key, and is
// offered to import a backup with it. Bob's backup, a damaged copy of
// hers and a file that is no backup are each refused with what went
// wrong, and change nothing; hers brings both chats back in their order,
// with the file she sent, its bytes the same. Importing it again adds
// nothing. The Settings screen with its backup card fits every width.
func TestBackupRestoresHistory(t *testing.T) {
	r, alice, bob := aliceAndBob(t)
	published(t, r, bob)
	dir := t.TempDir()
	downloadsTo(alice, dir)
	downloadsTo(bob, dir)
	key := saveRecoveryKey(alice)
	bobKey := saveRecoveryKey(bob)

	alice.openChat("bob")
	alice.send("Bonjour bob, voici la liste")
	sendDroppedFile(alice, "liste.txt", "eggs, flour, milk")
	bob.openChat("alice")
	bob.waitFor("alice's file", fileShown)
	bob.send("Salut alice, merci")
	alice.waitMessage("Salut alice, merci")
	alice.openChat("alice")
	alice.send("note à moi")
	alice.waitMessage("note à moi")
	alice.waitFor("everything sent", outboxSettled)
	wantBob := storedTexts(alice, "bob")
	if len(wantBob) != 3 {
		t.Fatalf("alice's chat with bob: %q", wantBob)
	}
	sent := eval[kept](alice, keptFile("bob", "file"))

	// A mistyped key (its check character catches it) writes nothing.
	eval[chromedp.Void](alice, `location.hash = '#/settings'`)
	alice.waitFor("the backup form", `document.getElementById('backup-key')`)
	// The check character itself changed: always caught (a change
	// elsewhere slips past it once in 32).
	typo := []byte(key)
	typo[len(typo)-1] = map[bool]byte{true: 'B', false: 'A'}[typo[len(typo)-1] == 'A']
	alice.do(chromedp.SetValue(chromedp.ID("backup-key"), string(typo)), chromedp.Click(chromedp.ID("backup-go")))
	alice.waitFor("the typo refused", `document.getElementById('backup-status').textContent.startsWith('No backup was written. This is not a recovery key')`)
	file := writeBackup(alice, key, dir)
	if !strings.HasPrefix(filepath.Base(file), "relay-backup-alice-") {
		t.Fatalf("the backup's name: %s", file)
	}
	checkScreen(alice, "settings-backup")
	bobFile := writeBackup(bob, bobKey, dir)

	// A damaged copy of alice's, and a file that is not a backup.
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-20] ^= 1
	damaged := filepath.Join(t.TempDir(), "damaged.relaybackup")
	if err := os.WriteFile(damaged, data, 0o644); err != nil {
		t.Fatal(err)
	}
	notBackup := filepath.Join(t.TempDir(), "holiday.jpg")
	if err := os.WriteFile(notBackup, []byte("\xff\xd8\xffJFIF not a backup at all, but long enough to hold a header of one, or more"), 0o644); err != nil {
		t.Fatal(err)
	}

	_, fresh := r.newProfile(t)
	fresh.login("alice")
	fresh.waitFor("the restore form", `document.getElementById('restore-key')`)
	typeRecoveryKey(fresh, key)
	fresh.waitFor("the offer to import a backup", `document.getElementById('import-offer')`)
	fresh.do(chromedp.Click(chromedp.ID("import-offer")))
	fresh.waitFor("Settings, at Import a backup", `document.activeElement && document.activeElement.id === 'import-file' && document.getElementById('import-restored')`)
	nothing := "Nothing was imported, and nothing on this device changed. "
	for _, c := range []struct{ path, says string }{
		{bobFile, "This backup does not open with this recovery key"},
		{damaged, "This backup is damaged"},
		{notBackup, "This file is not a relay backup"},
	} {
		importFile(fresh, c.path, nothing+c.says)
		if got := storedTexts(fresh, "bob"); len(got) != 0 {
			t.Fatalf("a refused import changed the chat with bob: %q", got)
		}
	}
	importFile(fresh, file, "Imported 4 messages into 2 chats")
	if got := storedTexts(fresh, "bob"); strings.Join(got, "|") != strings.Join(wantBob, "|") {
		t.Fatalf("the chat with bob after the import: %q, want %q", got, wantBob)
	}
	if got := storedTexts(fresh, "alice"); len(got) != 1 || got[0] != "note à moi" {
		t.Fatalf("notes to self after the import: %q", got)
	}
	fresh.openChat("bob")
	fresh.waitMessage("Salut alice, merci")
	fresh.waitFor("the file sent, here from the backup", fileShown)
	if got := eval[kept](fresh, keptFile("bob", "file")); got.SHA256 != sent.SHA256 {
		t.Fatalf("the file from the backup differs from the one sent")
	}
	if got := fresh.messages(); len(got) != 3 || got[0] != "Bonjour bob, voici la liste" || got[2] != "Salut alice, merci" {
		t.Fatalf("the chat shows %q", got)
	}

	// Again: everything is here already. The key of the restore was
	// used, so it is asked for.
	eval[chromedp.Void](fresh, `location.hash = '#/settings'`)
	fresh.waitFor("the import form asking for the key", `document.getElementById('import-key') && !document.getElementById('import-restored')`)
	fresh.do(chromedp.SetValue(chromedp.ID("import-key"), key))
	importFile(fresh, file, "Nothing to add")
}
