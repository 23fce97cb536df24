package webclient_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"relay/internal/browser"
	"relay/relayclient/backup"
	"relay/webclient"
)

// archiveKATScript runs the backup vectors through archive.js: the
// backup key, the file sealed from the vectors' archive with their key
// and IV, the archive opened and read again, and each case's error code.
// It also writes an archive of its own, for the Go twin to read.
const archiveKATScript = `(async (v) => {
  const a = await import('/archive.js');
  const c = await import('/crypto.js');
  const bad = []; let checks = 0;
  const check = (ok, what) => { checks++; if (!ok) bad.push(what); };
  const bytes = async (b) => new Uint8Array(await b.arrayBuffer());
  const same = (x, y) => x.length === y.length && x.every((b, i) => b === y[i]);
  const rk = c.unhex(v.recoveryKey);
  check(c.hex(await a.backupKey(rk, v.username)) === v.backupKey, 'backup key');
  const archive = new Blob([c.b64decode(v.archive)]);
  const file = await a.sealBackup(rk, v.username, archive, { archiveKey: c.unhex(v.archiveKey), iv: c.unhex(v.iv) });
  check(same(await bytes(file), c.b64decode(v.file)), 'the file sealed');
  const opened = await a.openBackup(rk, v.username, new Blob([c.b64decode(v.file)]));
  check(same(await bytes(opened), c.b64decode(v.archive)), 'the archive opened');
  const { head, lines } = await a.readArchive(opened);
  check(head.account === 'alice' && head.messages === 2 && head.files === 1 && head.chats === 1 && lines.length === v.lines, 'the head ' + JSON.stringify(head));
  const chat = lines.find((l) => l.chat);
  check(chat.chat.publicKey instanceof Uint8Array && chat.chat.publicKey.length === 65, 'the contact key as bytes');
  const f = lines.find((l) => l.file);
  check(f.data instanceof Uint8Array && c.hex(f.data) === 'ffd8ffe000', 'the file data');
  const msg = lines.find((l) => l.msg && l.msg.reactions);
  check(msg.msg.reactions['👍'].bob.on === true && msg.msg.files[0].name === 'lac.jpg', 'a message as it was');
  for (const k of v.cases) {
    let code = '';
    try {
      const o = await a.openBackup(c.unhex(k.recoveryKey), k.username, new Blob([c.b64decode(k.file)]));
      await a.readArchive(o);
    } catch (e) { code = e.code || String(e); }
    check(code === k.error, k.name + ': ' + code + ', want ' + k.error);
  }
  // The transfer's bodies: the key from both ends, each body sealed
  // byte for byte and opened to its offer, and the bad ones refused.
  const tv = v.transfer;
  const fromPriv = await c.importPrivate(c.unhex(tv.fromPriv), c.unhex(tv.fromPub));
  const toPriv = await c.importPrivate(c.unhex(tv.toPriv), c.unhex(tv.toPub));
  const tk = await c.historyKeyBytes(fromPriv, c.unhex(tv.toPub), tv.fromDevice, tv.toDevice);
  const tk2 = await c.historyKeyBytes(toPriv, c.unhex(tv.fromPub), tv.fromDevice, tv.toDevice);
  check(c.hex(tk) === tv.key && c.hex(tk2) === tv.key, 'the transfer key');
  for (const b of tv.bodies) {
    const o = { kind: b.kind, estimate: b.estimate || 0, since: b.since || 0, size: b.size || 0,
      id: b.attachment ? c.unhex(b.attachment) : undefined, key: b.attachmentKey ? c.unhex(b.attachmentKey) : undefined, digest: b.digest ? c.unhex(b.digest) : undefined };
    const sealed = await a.sealTransfer(tk, c.unhex(b.iv), b.id, tv.username, o);
    check(c.b64encode(sealed) === b.body, 'sealed ' + b.name);
    const got = await a.openTransfer(tk, b.id, tv.username, c.b64decode(b.body));
    const same2 = got.kind === b.kind && (got.since || 0) === (b.since || 0) && (got.estimate || 0) === (b.estimate || 0) && (got.size || 0) === (b.size || 0) &&
      (!b.attachment || (c.hex(got.id) === b.attachment && c.hex(got.key) === b.attachmentKey && c.hex(got.digest) === b.digest));
    check(same2, 'opened ' + b.name);
  }
  for (const b of tv.bad) {
    let refused = false;
    try { await a.openTransfer(tk, b.id, tv.username, c.b64decode(b.body)); } catch { refused = true; }
    check(refused, 'refused ' + b.name);
  }
  const mine = await a.writeArchive({ account: 'carol', made: 5, since: 2 }, [
    { chat: { username: 'dave', publicKey: new Uint8Array([1, 2, 3]) } },
    { msg: { id: 'm1', chat: 'dave', text: 'Grüße 👋', ts: 3, sort: 3 } },
    { file: { ref: 'r', msg: 'm1', chat: 'dave', type: 'text/plain' }, data: new Uint8Array([104, 105]) },
  ]);
  return { bad, checks, mine: c.b64encode(await bytes(mine)) };
})`

type archiveKAT struct {
	Bad    []string `json:"bad"`
	Checks int      `json:"checks"`
	Mine   string   `json:"mine"`
}

// TestArchiveVectorsInBrowser: archive.js, in Chromium, makes the backup
// file of the vectors byte for byte, opens it, reads its archive, and
// gives each damaged or foreign file the error the Go twin gives; seals
// and opens the history transfer's bodies as the Go twin does and refuses
// the bad ones; and an archive it writes is read by the Go twin. The control: the same run
// with one case's expected code changed reports that case.
func TestArchiveVectorsInBrowser(t *testing.T) {
	vectors, err := os.ReadFile("../relayclient/backup/testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(webclient.Handler())
	defer srv.Close()
	b := browser.New(t)
	run := func(v []byte) archiveKAT {
		t.Helper()
		ctx, cancel := context.WithTimeout(b.Ctx, 60*time.Second)
		defer cancel()
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
			t.Fatal(err)
		}
		r, err := chromedp.Run(ctx, chromedp.Evaluate[archiveKAT](archiveKATScript+"("+string(v)+")", chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("running the vectors in Chromium: %v", err)
		}
		return r
	}
	var v struct {
		Cases    []map[string]any `json:"cases"`
		Transfer struct {
			Bodies []any `json:"bodies"`
			Bad    []any `json:"bad"`
		} `json:"transfer"`
	}
	if err := json.Unmarshal(vectors, &v); err != nil {
		t.Fatal(err)
	}
	want := 8 + len(v.Cases) + 2*len(v.Transfer.Bodies) + len(v.Transfer.Bad)
	r := run(vectors)
	if len(r.Bad) > 0 || r.Checks != want {
		t.Fatalf("archive.js disagrees with relayclient/backup (%d checks of %d): %v", r.Checks, want, r.Bad)
	}
	mine, err := base64.StdEncoding.DecodeString(r.Mine)
	if err != nil {
		t.Fatal(err)
	}
	h, lines, err := backup.ReadArchive(mine)
	if err != nil {
		t.Fatalf("the Go twin cannot read archive.js's archive: %v", err)
	}
	if h.Account != "carol" || h.Since != 2 || len(lines) != 3 || string(lines[2].Data) != "hi" || lines[1].Msg["text"] != "Grüße 👋" {
		t.Fatalf("the Go twin reads %+v, %+v", h, lines)
	}

	var changed map[string]any
	if err := json.Unmarshal(vectors, &changed); err != nil {
		t.Fatal(err)
	}
	changed["cases"].([]any)[1].(map[string]any)["error"] = "wrong_backup_key"
	broken, _ := json.Marshal(changed)
	if r := run(broken); len(r.Bad) != 1 {
		t.Fatalf("a changed error code in the vectors: %v", r.Bad)
	}
}
