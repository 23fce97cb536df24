package main

import (
	"context"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"relay/internal/browser"
)

// TestEveryNumberIsReported runs the benchmark's page in real Chromium on
// a small history, so that a change to search.js or the store that the
// page no longer follows fails here and not at the next `make bench`. It
// times nothing: each number docs/performance.md reports is there, once,
// and more than nothing, and the rare word is found exactly where it was
// put (measure checks it, and the reference agrees).
func TestEveryNumberIsReported(t *testing.T) {
	srv := httptest.NewServer(handler())
	t.Cleanup(srv.Close)
	p := browser.New(t)
	ctx, cancel := context.WithTimeout(p.Ctx, 3*time.Minute)
	defer cancel()
	results, err := measure(ctx, srv.URL, config{messages: 2000, chats: 10, needles: 7, runs: 3})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range results {
		if got[r.Metric] {
			t.Errorf("%q reported twice", r.Metric)
		}
		got[r.Metric] = true
		// A query for nothing can take less than the clock's step.
		low := r.Value <= 0 && !strings.HasPrefix(r.Metric, "query")
		if low || r.Value < 0 || math.IsNaN(r.Value) || math.IsInf(r.Value, 0) {
			t.Errorf("%s = %v %s", r.Metric, r.Value, r.Unit)
		}
	}
	want := []string{"history", "reference: reading every row from IndexedDB, median", "first search: building the index, median",
		"the index in the heap", "reference: a bare loop over the same texts, median", "query just after a chat changed, median"}
	for _, q := range queries {
		want = append(want, "query, "+q.name+", median")
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("no %q", w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d numbers reported, %d expected: a new one belongs in this test and in docs/performance.md", len(got), len(want))
	}
}
