package webclient_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"relay/internal/browser"
	"relay/webclient"
)

// mlsVectorFiles are the RFC 9420 interop vectors the client's MLS library
// is checked against (testdata/mls/README.md), by the name run() in
// testdata/mls/vectors.js takes them.
var mlsVectorFiles = map[string]string{
	"treeMath":          "tree-math.json",
	"keySchedule":       "key-schedule.json",
	"messageProtection": "message-protection.json",
	"welcome":           "welcome.json",
}

// mlsSuites are the ciphersuites the vendored files implement: 1
// (X25519, Ed25519), 2 (P-256, the client's), 5 (P-521) and 7 (P-384). The
// vectors of 3, 4 and 6 need ChaCha20 or X448 and Ed448's HPKE packages,
// which are not vendored (ADR 0098), and are reported as skipped.
var mlsSuites = []int{1, 2, 5, 7}

type mlsVectorResult struct {
	Checks  int      `json:"checks"`
	Bad     []string `json:"bad"`
	Suites  []int    `json:"suites"`
	Skipped []string `json:"skipped"`
}

// mlsVectorServer serves the client as the relay does, and the vectors'
// runner beside it (test data, never served by the relay).
func mlsVectorServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/", webclient.Handler())
	mux.Handle("/mlsvectors/", http.StripPrefix("/mlsvectors/", http.FileServer(http.Dir("testdata/mls"))))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// vendoredEntry is the library's entry module as served, from
// vendored.json.
func vendoredEntry(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("vendored.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Entry string }
	if err := json.Unmarshal(b, &v); err != nil || v.Entry == "" {
		t.Fatalf("vendored.json: no entry (%v)", err)
	}
	return "/" + v.Entry
}

func readMLSVectors(t *testing.T) map[string]any {
	t.Helper()
	v := map[string]any{}
	for key, file := range mlsVectorFiles {
		b, err := os.ReadFile("testdata/mls/" + file)
		if err != nil {
			t.Fatal(err)
		}
		var x any
		if err := json.Unmarshal(b, &x); err != nil {
			t.Fatal(err)
		}
		v[key] = x
	}
	return v
}

func runMLSVectors(t *testing.T, ctx context.Context, base, entry string, v map[string]any) mlsVectorResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/")); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	dir := entry[:strings.LastIndexByte(entry, '/')+1]
	script := `(async (v) => { const m = await import('/mlsvectors/vectors.js'); return JSON.stringify(await m.run(` + js(dir) + `, v)); })(` + js(v) + `)`
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](script, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("running the MLS vectors in Chromium: %v", err)
	}
	var r mlsVectorResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("result %q: %v", out, err)
	}
	return r
}

// mlsVectorChecks is the number of checks vectors.js makes on v for the
// suites it implements, so that a vector it skipped shows.
func mlsVectorChecks(t *testing.T, v map[string]any) int {
	t.Helper()
	n := 0
	for _, x := range v["treeMath"].([]any) {
		m := x.(map[string]any)
		n += 2
		for _, f := range []string{"left", "right", "parent", "sibling"} {
			n += len(m[f].([]any))
		}
	}
	ours := func(x any) bool { return slices.Contains(mlsSuites, int(x.(map[string]any)["cipher_suite"].(float64))) }
	for _, x := range v["keySchedule"].([]any) {
		if ours(x) {
			// group context, 3 epoch secrets, 8 of the key schedule,
			// the external key and the exporter
			n += 14 * len(x.(map[string]any)["epochs"].([]any))
		}
	}
	for _, x := range v["messageProtection"].([]any) {
		if ours(x) {
			n += 6 // three private messages, two public, one round trip
		}
	}
	for _, x := range v["welcome"].([]any) {
		if ours(x) {
			n += 5 // ref, group secrets, group info, tag, signature
		}
	}
	return n
}

// TestMLSVectorsInBrowser runs the RFC 9420 interop vectors (tree math,
// the key schedule, message protection, welcome) through the vendored
// ts-mls in Chromium, loaded from the files the relay serves, as the
// client will load them. Every vector of the suites the vendored files
// implement is checked; the others are reported skipped, by name.
//
// The controls: one expected value changed in each file fails the check
// of that value, or the checks prove nothing.
func TestMLSVectorsInBrowser(t *testing.T) {
	srv := mlsVectorServer(t)
	entry := vendoredEntry(t)
	b := browser.New(t)
	v := readMLSVectors(t)

	r := runMLSVectors(t, b.Ctx, srv.URL, entry, v)
	if want := mlsVectorChecks(t, v); len(r.Bad) > 0 || r.Checks != want {
		t.Fatalf("ts-mls disagrees with the RFC 9420 vectors (%d checks of %d): %q", r.Checks, want, r.Bad)
	}
	if !slices.Equal(r.Suites, mlsSuites) {
		t.Fatalf("suites checked %v, want %v (skipped %q)", r.Suites, mlsSuites, r.Skipped)
	}
	t.Logf("%d checks of suites %v; skipped %q", r.Checks, r.Suites, r.Skipped)

	for _, c := range []struct {
		file   string
		change func(x []any)
		want   string // a prefix of a reported mismatch
	}{
		{"treeMath", func(x []any) {
			p := x[3].(map[string]any)["parent"].([]any)
			p[0] = p[0].(float64) + 2
		}, "tree-math 3 parent[0]"},
		{"keySchedule", func(x []any) {
			e := suiteVector(x, 2)["epochs"].([]any)[1].(map[string]any)
			e["joiner_secret"] = flipChar(e["joiner_secret"].(string), 10, hexChars)
		}, "key-schedule suite 2 epoch 1 joiner_secret"},
		{"messageProtection", func(x []any) {
			m := suiteVector(x, 2)
			m["application"] = flipChar(m["application"].(string), 4, hexChars)
		}, "message-protection suite 2 application"},
		{"welcome", func(x []any) {
			w := suiteVector(x, 2)
			w["signer_pub"] = flipChar(w["signer_pub"].(string), 40, hexChars)
		}, "welcome suite 2 signature"},
	} {
		one := map[string]any{}
		for key := range mlsVectorFiles {
			one[key] = []any{}
		}
		fresh := readMLSVectors(t)[c.file].([]any)
		c.change(fresh)
		one[c.file] = fresh
		r := runMLSVectors(t, b.Ctx, srv.URL, entry, one)
		if !slices.ContainsFunc(r.Bad, func(bad string) bool { return strings.HasPrefix(bad, c.want) }) {
			t.Errorf("control %s: no %q mismatch in %q: the check cannot fail", c.file, c.want, r.Bad)
		} else {
			t.Logf("control %s: %q", c.file, r.Bad)
		}
	}
}

const hexChars = "0123456789abcdef"

func suiteVector(x []any, suite int) map[string]any {
	for _, v := range x {
		if m := v.(map[string]any); int(m["cipher_suite"].(float64)) == suite {
			return m
		}
	}
	panic("no vector of this suite")
}
