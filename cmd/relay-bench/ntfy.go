package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/oklog/ulid/v2"
)

// ntfy is the peer of the client-like scenario (ADR 0068): ntfy with its
// durable SQLite message cache (cache-file; writes synchronous, SQLite's
// default journal and synchronous=FULL), one topic per recipient and one
// subscriber per device, the same publishers and bodies.
type ntfy struct {
	cmd  *exec.Cmd
	base string
	dir  string
}

// startNtfy starts the ntfy binary on a free loopback port with a fresh
// cache file and the request limits lifted for loopback.
func (b *bench) startNtfy() (*ntfy, error) {
	dir, err := os.MkdirTemp("", "relay-bench-ntfy-")
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	base := "http://" + addr
	cmd := exec.Command(b.o.ntfy, "serve", "--config", os.DevNull, "--listen-http", addr, "--base-url", base,
		"--cache-file", filepath.Join(dir, "cache.db"), "--visitor-request-limit-exempt-hosts", "127.0.0.1",
		"--visitor-subscription-limit", "100000", "--log-level", "error")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting ntfy: %w", err)
	}
	n := &ntfy{cmd: cmd, base: base, dir: dir}
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := http.Get(base + "/v1/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			n.stop()
			return nil, errors.New("ntfy did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.peer = cmd
	return n, nil
}

// startPeer starts ntfy when --ntfy names it, and returns it (nil
// without) and what stops it.
func (b *bench) startPeer() (*ntfy, func(), error) {
	if b.o.ntfy == "" {
		return nil, func() {}, nil
	}
	peer, err := b.startNtfy()
	if err != nil {
		return nil, nil, err
	}
	return peer, func() {
		peer.stop()
		b.peer = nil
	}, nil
}

func (n *ntfy) stop() {
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	_ = n.cmd.Wait()
	os.RemoveAll(n.dir)
}

// ntfyLoad is what one ntfy phase publishes: topics of subs subscribers
// each, subscriber s of topic t being stream t*subs+s of the phase's
// tally, and the topic of each publish.
type ntfyLoad struct {
	topics, subs, publishers int
	topic                    func(p, i int) int // the topic of publisher p's i-th publish
}

// streams are the streams of topic t's subscribers.
func (l ntfyLoad) streams(t int) []int {
	s := make([]int, l.subs)
	for i := range s {
		s[i] = t*l.subs + i
	}
	return s
}

// clientNtfyLoad is the client-like scenario against ntfy: a topic per
// recipient with a subscriber per device, publishers round-robin.
func clientNtfyLoad(publishers int) ntfyLoad {
	return ntfyLoad{topics: clientRecipients, subs: clientDevices, publishers: publishers,
		topic: func(p, i int) int { return (p + i) % clientRecipients }}
}

// ntfyPhase is a phase against ntfy: its subscribers on /<topic>/json,
// publishers POSTing text bodies of the client-like size (clientBodySize)
// that start with the envelope id, by which arrivals are counted.
func (b *bench) ntfyPhase(n *ntfy, l ntfyLoad) (phaseResult, error) {
	say("ntfy, %d topics × %d subscribers, %d publishers…", l.topics, l.subs, l.publishers)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := &http.Client{Transport: b.transport}
	prefix := "bench" + strings.ToLower(ulid.Make().String()[16:])
	topics := make([]string, l.topics)
	for i := range topics {
		topics[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	subscribers := l.topics * l.subs
	tl := newTally(subscribers)
	var failed atomic.Value
	fail := func(err error) {
		if ctx.Err() == nil {
			failed.CompareAndSwap(nil, err)
		}
	}
	var subs sync.WaitGroup
	ready := make(chan struct{}, subscribers)
	for s := 0; s < subscribers; s++ {
		subs.Add(1)
		go func(s int) {
			defer subs.Done()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, n.base+"/"+topics[s/l.subs]+"/json", nil)
			resp, err := client.Do(req)
			if err != nil {
				fail(err)
				ready <- struct{}{}
				return
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				var m struct{ Event, Message string }
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					fail(fmt.Errorf("ntfy stream: %w", err))
					return
				}
				switch m.Event {
				case "open":
					ready <- struct{}{}
				case "message":
					if len(m.Message) >= 26 {
						tl.arrived(s, m.Message[:26], time.Now())
					}
				}
			}
		}(s)
	}
	defer subs.Wait()
	defer cancel()
	for s := 0; s < subscribers; s++ {
		select {
		case <-ready:
		case <-time.After(30 * time.Second):
			return phaseResult{}, errors.New("ntfy: the subscribers did not get ready")
		}
	}
	if err, ok := failed.Load().(error); ok {
		return phaseResult{}, err
	}
	pad := strings.Repeat("x", clientBodySize-26)
	var accepted, refused atomic.Int64
	var firstRefusal atomic.Value
	cpu0 := b.cpu()
	start := time.Now()
	publish(ctx, l.publishers, 0, start.Add(b.o.duration), func(p, i int) bool {
		t := l.topic(p, i)
		id := ulid.Make().String()
		t0 := time.Now()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, n.base+"/"+topics[t], bytes.NewBufferString(id+pad))
		resp, err := client.Do(req)
		if err != nil {
			fail(err)
			return false
		}
		answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			// Refused, not accepted: under load ntfy answers 500 when
			// SQLite stays locked past its busy timeout. Counted, and the
			// publisher goes on as a client would with its next.
			if refused.Add(1) == 1 {
				firstRefusal.Store(fmt.Sprintf("%s %s", resp.Status, bytes.TrimSpace(answer)))
			}
			return true
		}
		tl.expect(id, t0, l.streams(t))
		accepted.Add(1)
		return true
	})
	elapsed := time.Since(start)
	used := b.cpu().sub(cpu0)
	tl.await(int(accepted.Load())*l.subs, b.o.settle)
	cancel()
	if err, ok := failed.Load().(error); ok {
		return phaseResult{}, err
	}
	lost, dup := tl.check()
	lats := tl.latencies()
	msgs := float64(accepted.Load())
	res := phaseResult{accepted: msgs / elapsed.Seconds(), p50: percentile(lats, 0.5), p99: percentile(lats, 0.99),
		lost: lost, dup: dup, stray: tl.strays(), cpu: used.per(msgs), refused: int(refused.Load()),
		copies: copiesPerSecond(tl, start)}
	if res.refused > 0 {
		say("ntfy refused %d publishes, the first with %v", res.refused, firstRefusal.Load())
	}
	return res, nil
}
