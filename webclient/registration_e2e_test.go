package webclient_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"relay/invites"
	"relay/relay"
)

// Who may register, in the browser (docs/protocol.md, "GET
// /api/registration"; ADR 0117).

// visible is a condition: the element with id is shown.
func visible(id string) string {
	return `(() => { const e = document.getElementById(` + js(id) + `); return !!e && e.checkVisibility(); })()`
}

// TestRegisterWithInvite: on a relay whose registration is by invite,
// Create account asks for the code in words, and Log in does not; an
// empty code and a code that does not work are refused with a sentence
// at the field, and nothing is created; the code as given, typed in lower
// case with spaces, creates the account and spends its use.
func TestRegisterWithInvite(t *testing.T) {
	r := startRelay(t, func(c *relay.Config) { c.Registration = relay.RegistrationInvite })
	code, inv, err := invites.Create(context.Background(), r.Pool, 1, time.Hour, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	_, tb := r.newProfile(t)
	tb.waitFor("the invite field", visible("auth-invite"))
	if !eval[bool](tb, `document.querySelector('label[for=auth-invite]').textContent === 'Invite code' && document.getElementById('auth-invite-hint').textContent.includes('only with an invite code from its operator') && document.getElementById('auth-invite').getAttribute('aria-describedby') === 'auth-invite-hint'`) {
		t.Fatal("the invite field does not say in words why it is there")
	}
	checkScreen(tb, "register-invite")
	tb.do(chromedp.Click(chromedp.ID("tab-login")))
	if eval[bool](tb, visible("auth-invite")) {
		t.Fatal("Log in asks for an invite code")
	}
	tb.do(chromedp.Click(chromedp.ID("tab-register")))
	tb.waitFor("the invite field again", visible("auth-invite"))

	tb.fillAuth("alice")
	tb.do(chromedp.Click(chromedp.ID("register-btn")))
	tb.waitFor("the missing code as a sentence", `document.getElementById('auth-error').textContent.includes('Type the invite code you were given') && document.getElementById('auth-invite').getAttribute('aria-invalid') === 'true' && document.activeElement.id === 'auth-invite'`)
	tb.do(chromedp.SetValue(chromedp.ID("auth-invite"), "7K2QD-9XW4M-RT8VB-3HNPF"))
	tb.do(chromedp.Click(chromedp.ID("register-btn")))
	tb.waitFor("the refused code as a sentence", `document.getElementById('auth-error').textContent.startsWith('This invite code does not work: it is unknown, used up or expired.') && document.getElementById('auth-invite').getAttribute('aria-invalid') === 'true'`)
	checkScreen(tb, "register-invite-refused")
	if n := r.count(`SELECT count(*) FROM accounts`); n != 0 {
		t.Fatalf("%d accounts after the refusals", n)
	}

	typed := ""
	for i, c := range code {
		if c == '-' {
			typed += " "
			continue
		}
		if i%2 == 0 && c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		typed += string(c)
	}
	tb.do(chromedp.SetValue(chromedp.ID("auth-invite"), typed))
	tb.do(chromedp.Click(chromedp.ID("register-btn")))
	tb.waitFor("the chat list", `document.getElementById('new-chat-username')`)
	if r.count(`SELECT count(*) FROM accounts`) != 1 || r.count(`SELECT used FROM invites WHERE id = $1`, inv.ID) != 1 {
		t.Fatal("the account was not created with the code's one use")
	}
}

// TestRegistrationClosed: on a relay that closed registration, Create
// account says so in words instead of the form, and offers Log in; an
// account made before it closed logs in on a new browser, which is linked
// from the account's other device as ever.
func TestRegistrationClosed(t *testing.T) {
	mode := relay.RegistrationOpen
	r := startRelay(t, func(c *relay.Config) { c.Registration = mode })
	_, laptop := r.newProfile(t)
	laptop.register("alice")
	r.Stop()
	mode = relay.RegistrationClosed
	r.Start()

	_, tb := r.newProfile(t)
	tb.waitFor("the closed notice", visible("auth-closed"))
	if !eval[bool](tb, `document.getElementById('auth-closed').textContent.includes('This relay does not take new accounts: its operator has closed registration.') && !document.getElementById('auth-username').checkVisibility() && !document.getElementById('register-btn').checkVisibility() && document.getElementById('tab-register').getAttribute('aria-selected') === 'true'`) {
		t.Fatal("Create account on a closed relay does not say it is closed, or still shows the form")
	}
	checkScreen(tb, "register-closed")
	tb.do(chromedp.Click(chromedp.ID("auth-closed-login")))
	tb.waitFor("Log in, chosen", `document.getElementById('tab-login').getAttribute('aria-selected') === 'true' && document.activeElement.id === 'tab-login' && document.getElementById('login-btn').checkVisibility() && !document.getElementById('auth-closed').checkVisibility()`)

	// Logging in and being linked is not registering.
	laptop.waitFor("the laptop's stream back", `document.getElementById('conn-bar').hidden`)
	phone := linkedDevice(t, r, laptop, "alice")
	phone.waitFor("the phone's chat list", `document.getElementById('new-chat-username')`)
	if n := r.count(`SELECT count(*) FROM accounts`); n != 1 {
		t.Fatalf("%d accounts, want alice's alone", n)
	}
}

// TestInviteLearntFromTheRefusal: when GET /api/registration fails (a
// proxy in the way, a relay older than it), Create account shows the form
// of an open relay; the relay's refusal, invite_required, then brings the
// invite field with a sentence, and the code given creates the account.
func TestInviteLearntFromTheRefusal(t *testing.T) {
	r := startWrapped(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.URL.Path == "/api/registration" {
				http.Error(w, "not here", http.StatusBadGateway)
				return
			}
			h.ServeHTTP(w, req)
		})
	}, func(c *relay.Config) { c.Registration = relay.RegistrationInvite })
	code, _, err := invites.Create(context.Background(), r.Pool, 1, 0, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	_, tb := r.newProfile(t)
	tb.fillAuth("alice")
	if eval[bool](tb, visible("auth-invite")) {
		t.Fatal("the invite field shows though the relay did not say it wants one")
	}
	tb.do(chromedp.Click(chromedp.ID("register-btn")))
	tb.waitFor("the invite field, after the refusal", visible("auth-invite")+` && document.getElementById('auth-error').textContent.startsWith('This relay creates accounts only with an invite code.') && document.activeElement.id === 'auth-invite'`)
	tb.do(chromedp.SetValue(chromedp.ID("auth-invite"), code))
	tb.do(chromedp.Click(chromedp.ID("register-btn")))
	tb.waitFor("the chat list", `document.getElementById('new-chat-username')`)
}
