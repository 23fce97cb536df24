package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeNtfy serves the part of ntfy's API that the bench uses, so that the
// peer's phases run without ntfy (which this machine cannot fetch): the
// health check, a subscription on /<topic>/json (an "open" event, then a
// "message" event per publish, as JSON lines) and a publish by POST
// /<topic>. copies says how many times publish n on a topic goes to its
// subscriber sub: 1, or 0 and 2 for a control.
type fakeNtfy struct {
	copies func(topic string, sub, n int) int

	mu    sync.Mutex // guards the following
	subs  map[string][]chan string
	count map[string]int // publishes per topic
}

func (f *fakeNtfy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	topic := strings.Trim(r.URL.Path, "/")
	switch {
	case r.URL.Path == "/v1/health":
	case r.Method == http.MethodGet && strings.HasSuffix(topic, "/json"):
		ch := make(chan string, 1<<14)
		f.mu.Lock()
		f.subs[strings.TrimSuffix(topic, "/json")] = append(f.subs[strings.TrimSuffix(topic, "/json")], ch)
		f.mu.Unlock()
		fmt.Fprintln(w, `{"event":"open"}`)
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case m := <-ch:
				line, _ := json.Marshal(map[string]string{"event": "message", "message": m})
				w.Write(append(line, '\n'))
				w.(http.Flusher).Flush()
			}
		}
	case r.Method == http.MethodPost:
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		n := f.count[topic]
		f.count[topic]++
		for i, ch := range f.subs[topic] {
			for range f.copies(topic, i, n) {
				ch <- string(body)
			}
		}
		f.mu.Unlock()
	default:
		http.NotFound(w, r)
	}
}

// TestNtfyPhase runs the groups scenario's ntfy phases, and a client-like
// one, against the fake: every copy arrives once and is counted; a copy
// the fake drops or repeats is caught. The controls act on the first
// publish to each topic, which every phase makes however slow the
// machine.
func TestNtfyPhase(t *testing.T) {
	for _, c := range []struct {
		name      string
		load      ntfyLoad
		copies    func(topic string, sub, n int) int
		lost, dup bool
	}{
		{"groups of 10", groupNtfyLoad(10), nil, false, false},
		{"groups of 100", groupNtfyLoad(100), nil, false, false},
		{"client-like", clientNtfyLoad(8), nil, false, false},
		{"a copy dropped", groupNtfyLoad(10), func(_ string, sub, n int) int {
			if sub == 3 && n == 0 {
				return 0
			}
			return 1
		}, true, false},
		{"a copy twice", groupNtfyLoad(10), func(_ string, sub, n int) int {
			if sub == 7 && n == 0 {
				return 2
			}
			return 1
		}, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeNtfy{copies: c.copies, subs: map[string][]chan string{}, count: map[string]int{}}
			if f.copies == nil {
				f.copies = func(string, int, int) int { return 1 }
			}
			srv := httptest.NewServer(f)
			defer srv.Close()
			tr := &http.Transport{MaxIdleConnsPerHost: 64}
			defer tr.CloseIdleConnections()
			// Long enough for every copy of a loaded machine to come, but
			// for the control that drops one, whose phase waits it out.
			settle := 20 * time.Second
			if c.lost {
				settle = time.Second
			}
			b := &bench{o: options{duration: 300 * time.Millisecond, settle: settle}, transport: tr}
			r, err := b.ntfyPhase(&ntfy{base: srv.URL}, c.load)
			if err != nil {
				t.Fatal(err)
			}
			if r.accepted <= 0 || r.copies <= 0 || r.stray != 0 || (r.lost > 0) != c.lost || (r.dup > 0) != c.dup {
				t.Fatalf("accepted %.0f/s, copies %.0f/s, lost %d, duplicated %d, stray %d; want copies, lost %v, duplicated %v",
					r.accepted, r.copies, r.lost, r.dup, r.stray, c.lost, c.dup)
			}
		})
	}
}
