package relay_test

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"relay/internal/testdb"
	"relay/relay"
	"relay/relayclient"
)

// TestPreambleOrder: every route's preamble refuses a request with the
// first of its declared checks that fails (routes.go, ADR 0096). For each
// pair of checks a route declares, a request failing both gets the
// earlier one's refusal; failing only the later one, the later one's: so
// each check runs, and in the declared order. The three relays share one
// database, so one session serves them all; they differ only in what two
// checks read from the relay itself (push on, closing).
func TestPreambleOrder(t *testing.T) {
	pool, _ := testdb.Pool(t)
	clk := &clock{t: time.Now()}
	const site = "https://relay.test"
	pushOn := func(c *relay.Config) { c.PushContact = pushContact }
	open := served(t, pool, clk, withOrigins(site), pushOn)
	pushOff := served(t, pool, clk, withOrigins(site))
	closing := served(t, pool, clk, withOrigins(site), pushOn)
	closing.Relay.BeginClose()
	// Registered from the one allowed origin.
	c := relayclient.New(open.URL)
	c.Origin = site
	if err := c.Register(context.Background(), "alice", password, newKey(t)); err != nil {
		t.Fatal(err)
	}
	device, err := c.AddDevice(context.Background(), "alice-0", newKey(t))
	if err != nil {
		t.Fatal(err)
	}
	cookie := ""
	for _, c := range c.HTTP.Jar.Cookies(mustURL(t, open.URL)) {
		cookie = c.Name + "=" + c.Value
	}
	if cookie == "" {
		t.Fatal("no session cookie")
	}

	// What breaks each check, and the refusal it makes then.
	refusal := map[string]string{
		"origin": "origin_required", "session": "unauthenticated", "speaker": "device_required",
		"push on": "push_disabled", "stream slot": "shutting_down", "body": "too_large",
	}
	// request sends the route's request with the checks in broken failing.
	request := func(rp relay.RoutePreamble, broken map[string]bool) answer {
		t.Helper()
		srv := open
		switch {
		case broken["push on"]:
			srv = pushOff
		case broken["stream slot"]:
			srv = closing
		}
		header := map[string]string{}
		if !broken["origin"] {
			header["Origin"] = site
		}
		if !broken["session"] {
			header["Cookie"] = cookie
		}
		if !broken["speaker"] {
			header["X-Device"] = device
		}
		var body any
		for _, c := range rp.Checks {
			if c.Name == "body" {
				body = "{}"
				if broken["body"] {
					body = strings.Repeat(" ", int(c.Limit)+1)
				}
			}
		}
		path := strings.NewReplacer(":username", "alice", ":id", device).Replace(rp.Pattern)
		// A client without a jar: the session is the Cookie header above.
		return raw(t, &relayclient.Client{BaseURL: srv.URL, HTTP: &http.Client{}}, rp.Method, path, header, body)
	}

	tested := 0
	for _, rp := range open.Relay.Preambles() {
		var names []string
		for _, c := range rp.Checks {
			if c.Name == "origin in handler" {
				continue // the handler's own order (TestCheckOrder)
			}
			if _, ok := refusal[c.Name]; !ok {
				t.Fatalf("%s %s: the test does not know how to fail check %q", rp.Method, rp.Pattern, c.Name)
			}
			names = append(names, c.Name)
		}
		for j, later := range names {
			cases := []map[string]bool{{later: true}}
			for _, earlier := range names[:j] {
				cases = append(cases, map[string]bool{earlier: true, later: true})
			}
			for _, broken := range cases {
				want := later
				for _, n := range names {
					if broken[n] {
						want = n
						break
					}
				}
				a := request(rp, broken)
				if a.code() != refusal[want] || a.Status < 400 {
					t.Errorf("%s %s, failing %v of %v: %d %s, want %s (the %s check)",
						rp.Method, rp.Pattern, keys(broken), names, a.Status, bytes.TrimSpace(a.Raw), refusal[want], want)
				}
				tested++
			}
		}
	}
	if tested < 40 {
		t.Fatalf("only %d requests: the route table was not read", tested)
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
