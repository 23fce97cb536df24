package main

import (
	"context"
	"math"
	"net/http/httptest"
	"testing"
	"time"

	"relay/internal/browser"
)

// TestEveryNumberIsReported runs the benchmark's page in real Chromium on
// a small history, so that a change to the store or the lock that the
// page no longer follows fails here and not at the next `make bench`. It
// times nothing: each number docs/performance.md reports is there, once,
// and more than nothing; and measure checks what the lock did: every
// message read back with the lock off and on, every row sealed once it
// is on and none once it is off.
func TestEveryNumberIsReported(t *testing.T) {
	srv := httptest.NewServer(handler())
	t.Cleanup(srv.Close)
	p := browser.New(t)
	ctx, cancel := context.WithTimeout(p.Ctx, 3*time.Minute)
	defer cancel()
	results, err := measure(ctx, srv.URL, config{messages: 1000, chats: 5, writes: 10, runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range results {
		if got[r.Metric] {
			t.Errorf("%q reported twice", r.Metric)
		}
		got[r.Metric] = true
		if r.Value <= 0 || math.IsNaN(r.Value) || math.IsInf(r.Value, 0) {
			t.Errorf("%s = %v %s", r.Metric, r.Value, r.Unit)
		}
	}
	want := []string{
		"history",
		"reading every chat, lock off, median",
		"reading every chat, lock on, median",
		"turning the lock on",
		"turning the lock on: the passphrase's key",
		"turning the lock on: sealing the rows",
		"rows sealed a second",
		"turning the lock off",
		"a write (store.setVerified), lock off, median",
		"a write (store.setVerified), lock on, median",
		"a message row sealed (lockcrypto.sealRow), median",
		"a message row opened (lockcrypto.openRow), median",
		"scrypt alone (lockcrypto.passphraseKey), median",
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
