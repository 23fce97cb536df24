package webclient_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	internalbrowser "relay/internal/browser"
	"relay/internal/pushtest"
	"relay/relay"
)

const pushContact = "mailto:ops@relay.test"

// withPush turns push on against the tests' own push service on loopback.
func withPush(svc *pushtest.Service) func(*relay.Config) {
	return func(c *relay.Config) {
		c.PushContact = pushContact
		c.PushRootCAs = svc.Roots()
		c.PushAllowPrivate = true
	}
}

// fakeSubscription is run in every page of the profile before the app's
// scripts. Headless Chromium cannot subscribe through its vendor's push
// service here (there is none to reach), so PushManager's subscribe and
// getSubscription are replaced to give a subscription of the tests' own
// push service; everything after them is real: the client's PUT, the
// relay's push, the push service's checks. It also counts the permission
// prompts and keeps what the worker tells the page.
func fakeSubscription(sub *pushtest.Subscription) string {
	return fmt.Sprintf(`(() => {
  const sub = {
    endpoint: %[1]s,
    toJSON() { return { endpoint: %[1]s, expirationTime: null, keys: { p256dh: %[2]s, auth: %[3]s } }; },
    async unsubscribe() { localStorage.removeItem('test-push-subscribed'); return true; },
  };
  window.testPush = { subscribe: [], prompts: 0, messages: [] };
  PushManager.prototype.subscribe = async function (opts) {
    const key = btoa(String.fromCharCode(...new Uint8Array(opts.applicationServerKey))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    window.testPush.subscribe.push({ userVisibleOnly: opts.userVisibleOnly, key });
    localStorage.setItem('test-push-subscribed', '1');
    return sub;
  };
  PushManager.prototype.getSubscription = async function () {
    return localStorage.getItem('test-push-subscribed') ? sub : null;
  };
  const ask = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = function () { window.testPush.prompts++; return ask(); };
  navigator.serviceWorker.addEventListener('message', (e) => window.testPush.messages.push(e.data));
})()`, js(sub.Endpoint), js(sub.P256dh), js(sub.Auth))
}

func ptr[T any](v T) *T { return &v }

// grantNotifications answers the notification permission for origin with
// "granted" whenever the page asks: headless Chromium shows no prompt.
func grantNotifications(t *testing.T, p *internalbrowser.Profile, origin string) {
	t.Helper()
	if _, err := chromedp.CallBrowser(p.Ctx, browser.SetPermission, browser.SetPermissionParams{
		Permission: &browser.PermissionDescriptor{Name: "notifications"}, Setting: browser.PermissionSettingGranted, Origin: origin}); err != nil {
		t.Fatalf("granting notifications: %v", err)
	}
}

// TestNotificationsOptIn: Settings explains what a notification shows and
// what the push service learns; the permission prompt comes only with the
// switch's click; switching on subscribes with the relay's VAPID key and
// registers the subscription with the relay, and the switch stays on after
// a reload; with the tab closed, a message from alice makes the relay push
// to that subscription (an empty payload, decrypted by the push service);
// switching off deletes it on the relay.
func TestNotificationsOptIn(t *testing.T) {
	svc := pushtest.New(t, pushContact)
	r := startRelay(t, withPush(svc))
	sub := svc.Subscribe(t)
	p := internalbrowser.New(t)
	grantNotifications(t, p, r.URL)
	bob, closeBob := pushTab(t, r, p, sub)
	bob.register("bob")
	_, alice := r.newProfile(t)
	alice.register("alice")
	eval[chromedp.Void](bob, `location.hash = '#/settings'`)
	bob.waitFor("the notifications switch", `document.getElementById('notify-switch') && !document.getElementById('notify-switch').disabled`)
	about := eval[string](bob, `document.getElementById('notify-about').textContent`)
	for _, want := range []string{"New message", "never who wrote it or what", "learns that this device got something, and when"} {
		if !strings.Contains(about, want) {
			t.Fatalf("the notifications text %q does not say %q", about, want)
		}
	}
	if eval[bool](bob, `document.getElementById('notify-switch').checked`) || eval[int](bob, `window.testPush.prompts`) != 0 {
		t.Fatal("before any click: the switch is on, or the permission was asked for")
	}
	bob.do(chromedp.Click(chromedp.ID("notify-switch")))
	bob.waitFor("notifications on", `document.getElementById('notify-msg').textContent === 'Notifications are on for this device.'`)
	var key struct{ PublicKey string }
	if err := r.Pool.QueryRow(context.Background(), `SELECT public_key FROM push_vapid`).Scan(&key.PublicKey); err != nil {
		t.Fatal(err)
	}
	calls := eval[[]struct {
		UserVisibleOnly bool
		Key             string
	}](bob, `window.testPush.subscribe`)
	if eval[int](bob, `window.testPush.prompts`) != 1 || len(calls) != 1 || !calls[0].UserVisibleOnly || calls[0].Key != key.PublicKey {
		t.Fatalf("subscribe calls %+v (want one, userVisibleOnly, the relay's key %s)", calls, key.PublicKey)
	}
	dev := bob.deviceID()
	if n := r.count(`SELECT count(*) FROM push_subscriptions WHERE device_id = $1 AND endpoint = $2`, dev, sub.Endpoint); n != 1 {
		t.Fatal("the relay holds no subscription for the device")
	}
	checkScreen(bob, "notifications-on")
	bob.do(chromedp.Reload())
	bob.waitFor("the switch on after a reload", `document.getElementById('notify-switch') && document.getElementById('notify-switch').checked && !document.getElementById('notify-switch').disabled`)

	// The tab closes: the device streams nowhere, and alice's message
	// pushes.
	closeBob()
	waitStreamGone(t, r, dev)
	alice.openChat("bob")
	alice.send("are you there?")
	svc.WaitFor(t, "the push to bob's subscription", func() bool { return len(svc.Pushes(sub)) == 1 })
	if got := svc.Pushes(sub)[0]; len(got.Payload) != 0 {
		t.Fatalf("the push carried %q", got.Payload)
	}

	bob, _ = pushTab(t, r, p, sub)
	eval[chromedp.Void](bob, `location.hash = '#/settings'`)
	bob.waitFor("the switch", `document.getElementById('notify-switch') && document.getElementById('notify-switch').checked && !document.getElementById('notify-switch').disabled`)
	// A click lands on the switch on screen at that moment; should Settings
	// be drawn again meanwhile, that switch is gone, so the test clicks the
	// one on screen until the screen says notifications are off.
	bob.waitFor("notifications off", `(() => {
  const b = document.getElementById('notify-switch'), m = document.getElementById('notify-msg');
  if (m.textContent === 'Notifications are off for this device.') return true;
  if (b.checked && !b.disabled) b.click();
  return false;
})()`)
	if n := r.count(`SELECT count(*) FROM push_subscriptions WHERE device_id = $1`, dev); n != 0 {
		t.Fatal("switching off left the subscription on the relay")
	}
	if eval[bool](bob, `navigator.serviceWorker.getRegistration('/').then(r => r.pushManager.getSubscription()).then(s => s !== null)`) {
		t.Fatal("switching off left the browser subscribed")
	}
}

// pushTab opens a tab of profile p on the relay's page with
// fakeSubscription(sub) in place; close closes it.
func pushTab(t *testing.T, r *liveRelay, p *internalbrowser.Profile, sub *pushtest.Subscription) (tb *tab, close func()) {
	t.Helper()
	ctx, close := p.NewTab(t)
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: fakeSubscription(sub)}); err != nil {
		t.Fatal(err)
	}
	return r.openTab(t, ctx), close
}

// waitStreamGone waits until the relay holds no open stream for device.
func waitStreamGone(t *testing.T, r *liveRelay, device string) {
	t.Helper()
	for i := 0; r.count(`SELECT count(*) FROM devices WHERE id = $1 AND stream_instance IS NULL`, device) == 0; i++ {
		if i > 400 {
			t.Fatal("the device's stream did not end")
		}
		sleep()
	}
}

// TestServiceWorkerPush: a push delivered with DevTools'
// ServiceWorker.deliverPushMessage shows nothing while a tab of the app is
// visible, and shows the fixed "New message" (no body, no sender, no data)
// when no tab is open; a click closes it and opens the app, or with a tab
// open focuses it instead.
func TestServiceWorkerPush(t *testing.T) {
	svc := pushtest.New(t, pushContact)
	r := startRelay(t, withPush(svc))
	sub := svc.Subscribe(t)
	p := internalbrowser.New(t)
	grantNotifications(t, p, r.URL)
	regs := make(chan serviceworker.RegistrationID, 16)
	go func() {
		for ev, err := range chromedp.Events(p.Ctx, serviceworker.WorkerRegistrationUpdated) {
			if err != nil {
				return
			}
			for _, reg := range ev.Registrations {
				if !reg.IsDeleted && reg.ScopeURL == r.URL+"/" {
					select {
					case regs <- reg.RegistrationID:
					default:
					}
				}
			}
		}
	}()
	if _, err := chromedp.Call(p.Ctx, serviceworker.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	bob, closeBob := pushTab(t, r, p, sub)
	bob.register("bob")
	eval[chromedp.Void](bob, `location.hash = '#/settings'`)
	bob.waitFor("the notifications switch", `document.getElementById('notify-switch') && !document.getElementById('notify-switch').disabled`)
	bob.do(chromedp.Click(chromedp.ID("notify-switch")))
	bob.waitFor("notifications on", `document.getElementById('notify-msg').textContent === 'Notifications are on for this device.'`)
	var reg serviceworker.RegistrationID
	select {
	case reg = <-regs:
	case <-time.After(20 * time.Second):
		t.Fatal("DevTools reported no registration of the service worker")
	}
	deliver := func() {
		t.Helper()
		if _, err := chromedp.Call(p.Ctx, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{Origin: r.URL, RegistrationID: reg, Data: ""}); err != nil {
			t.Fatalf("ServiceWorker.deliverPushMessage: %v", err)
		}
	}
	// DevTools attached to the worker keeps it running, so the test can
	// read what it showed when no page of the app is open.
	worker := attachWorker(t, p)
	// What the worker shows, as it calls showNotification: headless
	// Chromium does not always keep a shown notification for
	// getNotifications(), so the call itself is what the test reads.
	worker.eval(`(() => {
  self.testShown = [];
  const show = self.registration.showNotification.bind(self.registration);
  self.registration.showNotification = (title, options) => show(title, options).then(
    () => { self.testShown.push({ title, options }); },
    (e) => { self.testShown.push({ error: String(e) }); throw e; });
  return true;
})()`)
	const shown = `JSON.stringify(self.testShown)`

	// A visible tab: the worker shows nothing, and tells the tab after it
	// decided, so the message marks the end of its work.
	if !eval[bool](bob, `document.visibilityState === 'visible'`) {
		t.Fatal("the tab is not visible")
	}
	deliver()
	bob.waitFor("the worker's word", `window.testPush.messages.length === 1`)
	if got := worker.eval(shown); got != `"[]"` {
		t.Fatalf("shown %s while a tab of the app was visible", got)
	}

	// No tab: the fixed notification. Closing a tab takes a moment: the
	// push goes once the worker sees no window.
	closeBob()
	for i := 0; worker.eval(`self.clients.matchAll({type: 'window', includeUncontrolled: true}).then(ws => ws.length)`) != "0"; i++ {
		if i > 400 {
			t.Fatal("the closed tab is still a window of the worker")
		}
		sleep()
	}
	deliver()
	for i := 0; worker.eval(shown) == `"[]"`; i++ {
		if i > 400 {
			t.Fatal("no notification shown with no tab of the app open")
		}
		sleep()
	}
	if got := worker.eval(shown); got != `"[{\"title\":\"New message\",\"options\":{\"tag\":\"new-message\",\"renotify\":true}}]"` {
		t.Fatalf("shown %s, want one \"New message\" with no body and no data", got)
	}

	// A click with no tab opens the app, and with a tab of the app open
	// focuses that tab; either way the notification closes. The browser
	// allows a window or a focus only from a real click on a notification,
	// which DevTools cannot make, so the test calls the worker's click
	// handler and records the calls.
	click := `(async () => {
  const calls = [];
  const openWindow = self.clients.openWindow, focus = WindowClient.prototype.focus;
  self.clients.openWindow = async (url) => { calls.push('open ' + url); return null; };
  WindowClient.prototype.focus = async function () { calls.push('focus ' + new URL(this.url).pathname); return this; };
  try {
    await notificationClicked({ close() { calls.push('close'); } });
  } finally {
    self.clients.openWindow = openWindow;
    WindowClient.prototype.focus = focus;
  }
  return JSON.stringify(calls);
})()`
	if got := worker.eval(click); got != `"[\"close\",\"open /\"]"` {
		t.Fatalf("a click with no tab: %s, want the notification closed and the app opened", got)
	}
	bob, _ = pushTab(t, r, p, sub)
	bob.waitFor("the app", `document.getElementById('new-chat-username')`)
	if got := worker.eval(click); got != `"[\"close\",\"focus /\"]"` {
		t.Fatalf("a click with a tab open: %s, want the notification closed and that tab focused", got)
	}
}

// serviceWorker is a DevTools session on the app's service worker.
type serviceWorker struct {
	t   *testing.T
	ctx context.Context
}

// attachWorker attaches to the app's running service worker for the rest
// of the test.
func attachWorker(t *testing.T, p *internalbrowser.Profile) *serviceWorker {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.Ctx, 20*time.Second)
	defer cancel()
	var id target.ID
	for id == "" {
		targets, err := chromedp.Targets(ctx)
		if err != nil {
			t.Fatalf("listing targets: %v", err)
		}
		for _, ti := range targets {
			if ti.Type == "service_worker" && strings.HasSuffix(ti.URL, "/sw.js") {
				id = ti.TargetID
			}
		}
		if id == "" {
			select {
			case <-ctx.Done():
				t.Fatal("the service worker is not running")
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	wctx, wcancel := chromedp.NewContext(p.Ctx, chromedp.WithTargetID(id))
	t.Cleanup(wcancel)
	// The first action attaches, with no timeout: the session lasts as
	// long as the context of that first call.
	if err := chromedp.Do(wctx); err != nil {
		t.Fatalf("attaching to the service worker: %v", err)
	}
	return &serviceWorker{t: t, ctx: wctx}
}

// eval evaluates expression in the worker and returns its JSON.
func (w *serviceWorker) eval(expression string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(w.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (string, error) {
		res, err := cdp.Call(ctx, tg, runtime.Evaluate, runtime.EvaluateParams{Expression: expression, AwaitPromise: ptr(true), ReturnByValue: ptr(true)})
		if err != nil {
			return "", err
		}
		if res.ExceptionDetails != nil {
			return "", fmt.Errorf("%s %v", res.ExceptionDetails.Text, res.ExceptionDetails.Exception)
		}
		return string(res.Result.Value), nil
	})
	if err != nil {
		w.t.Fatalf("in the service worker: %s: %v", expression, err)
	}
	return v
}
