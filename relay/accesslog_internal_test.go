package relay

import (
	"net/http"
	"testing"

	"relay/internal/testdb"
)

// TestLogPathMatchesTheRouter: the access log's pattern matcher finds a
// route exactly for the paths the router has a route for under some
// method, and that route's pattern; every other path is logged as a
// client file's name or "(unmatched)", never as itself.
func TestLogPathMatchesTheRouter(t *testing.T) {
	pool, _ := testdb.Pool(t)
	s, err := New(Config{Pool: pool, BaseURL: "http://127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cases := map[string]string{ // path: what the log says
		"/api/accounts":                 "/api/accounts",
		"/api/accounts/alice":           "/api/accounts/:username",
		"/api/accounts/Alice%2f":        "/api/accounts/:username",
		"/api/accounts/":                unmatched,
		"/api/accounts/alice/":          unmatched,
		"/api/accounts/alice/x":         unmatched,
		"/api/Accounts/alice":           unmatched,
		"//api/accounts/alice":          unmatched,
		"/api/devices":                  "/api/devices",
		"/api/devices/01J0000000000000": "/api/devices/:id",
		"/api/devices/:id":              "/api/devices/:id",
		"/api/events":                   "/api/events",
		"/api/events/":                  unmatched,
		"/api/nothing":                  unmatched,
		"/metrics":                      unmatched, // served on a listener of its own
		"/healthz":                      "/healthz",
		"/":                             "/",
		"/app.js":                       "/app.js",
		"/alice/../app.js":              "/app.js",
		"/alice":                        unmatched,
		"/api":                          unmatched,
		"/api/app.js":                   unmatched,
	}
	for path, want := range cases {
		routed := false
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
			if h, _, _ := s.router.Lookup(m, path); h != nil {
				routed = true
			}
		}
		if got := s.logPath(path); got != want {
			t.Errorf("%q is logged as %q, want %q", path, got, want)
		}
		if matched := s.patterns.match(path) != ""; matched != routed {
			t.Errorf("%q: the log's matcher says %v, the router %v", path, matched, routed)
		}
	}
}
