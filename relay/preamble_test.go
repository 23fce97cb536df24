package relay_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"regexp"
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

// TestPreamblesAsDocumented holds each route's declared checks (routes.go)
// to the order docs/protocol.md gives in the route's section: the
// refusals the checks make, in their declared order, begin the
// documented list (the handler's own checks follow them).
func TestPreamblesAsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	// The refusals of docs/protocol.md that each check makes, in its order.
	makes := map[string][]string{
		"origin": {"Origin"}, "session": {"unauthenticated"}, "speaker": {"unauthenticated", "device_required"},
		"push on": {"push_disabled"}, "stream slot": {"shutting_down"}, "body": {"too_large"},
		"origin in handler": nil, // later, among the handler's own checks
	}
	heading := regexp.MustCompile("(?m)^#{3,4} `(GET|POST|PUT|PATCH|DELETE) (/[^`]*)`")
	order := regexp.MustCompile(`Checks in order:|Errors before the stream starts:|Errors:|\*\*Checks, in this order\.\*\*`)
	refusal := regexp.MustCompile(`\bOrigin\b|unauthenticated|device_required|push_disabled|too_large|shutting_down`)
	documented := map[string][]string{} // "METHOD pattern": refusals, each at its first mention
	for _, h := range heading.FindAllSubmatchIndex(doc, -1) {
		end := len(doc)
		if next := bytes.Index(doc[h[1]:], []byte("\n#")); next >= 0 {
			end = h[1] + next
		}
		section := doc[h[1]:end]
		loc := order.FindIndex(section)
		if loc == nil {
			continue
		}
		text := section[loc[0]:]
		if !bytes.HasPrefix(text, []byte("**")) { // the send's table runs on; the others are one paragraph
			if p := bytes.Index(text, []byte("\n\n")); p >= 0 {
				text = text[:p]
			}
		}
		var seen []string
		for _, m := range refusal.FindAll(text, -1) {
			if !slices.Contains(seen, string(m)) {
				seen = append(seen, string(m))
			}
		}
		documented[string(doc[h[2]:h[3]])+" "+string(doc[h[4]:h[5]])] = seen
	}
	routes := 0
	for _, rp := range newTestServer(t).Relay.Preambles() {
		if len(rp.Checks) == 0 {
			continue // /healthz and /readyz (docs/operations.md)
		}
		key := rp.Method + " " + rp.Pattern
		doc, ok := documented[key]
		if !ok {
			t.Errorf("%s: no order of checks in docs/protocol.md", key)
			continue
		}
		var declared, names []string
		late := false
		for _, c := range rp.Checks {
			r, ok := makes[c.Name]
			if !ok {
				t.Fatalf("%s: the test does not know what check %q refuses with", key, c.Name)
			}
			late = late || c.Name == "origin in handler"
			declared = append(declared, r...)
			names = append(names, c.Name)
		}
		if len(declared) > len(doc) || !slices.Equal(declared, doc[:len(declared)]) {
			t.Errorf("%s declares %v, refusing with %v; docs/protocol.md's order begins %v", key, names, declared, doc)
		}
		if late && !slices.Contains(doc[len(declared):], "Origin") {
			t.Errorf("%s checks Origin in its handler, but docs/protocol.md puts no Origin after %v", key, declared)
		}
		routes++
	}
	if routes < 20 {
		t.Fatalf("only %d routes compared", routes)
	}
}
