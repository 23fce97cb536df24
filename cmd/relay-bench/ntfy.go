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

func (n *ntfy) stop() {
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	_ = n.cmd.Wait()
	os.RemoveAll(n.dir)
}

// ntfyPhase is the client-like phase against ntfy: 16 topics with five
// subscribers each on /<topic>/json, publishers POSTing 1 KiB text bodies
// to the topics round-robin. A body starts with the envelope's id, by
// which arrivals are counted.
func (b *bench) ntfyPhase(n *ntfy, publishers int) (phaseResult, error) {
	say("ntfy, %d publishers…", publishers)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := &http.Client{Transport: b.transport}
	prefix := "bench" + strings.ToLower(ulid.Make().String()[16:])
	topics := make([]string, clientRecipients)
	for i := range topics {
		topics[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	tl := newTally(clientRecipients * clientDevices)
	var failed atomic.Value
	fail := func(err error) {
		if ctx.Err() == nil {
			failed.CompareAndSwap(nil, err)
		}
	}
	var subs sync.WaitGroup
	ready := make(chan struct{}, clientRecipients*clientDevices)
	for s := 0; s < clientRecipients*clientDevices; s++ {
		subs.Add(1)
		go func(s int) {
			defer subs.Done()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, n.base+"/"+topics[s/clientDevices]+"/json", nil)
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
	for s := 0; s < clientRecipients*clientDevices; s++ {
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
	var wg sync.WaitGroup
	cpu0 := b.cpu()
	start := time.Now()
	deadline := start.Add(b.o.duration)
	for p := 0; p < publishers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for i := p; time.Now().Before(deadline) && ctx.Err() == nil; i++ {
				r := i % clientRecipients
				id := ulid.Make().String()
				t0 := time.Now()
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, n.base+"/"+topics[r], bytes.NewBufferString(id+pad))
				resp, err := client.Do(req)
				if err != nil {
					fail(err)
					return
				}
				answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					// Refused, not accepted: under load ntfy answers 500 when
					// SQLite stays locked past its busy timeout. Counted, and
					// the publisher goes on as a client would with its next.
					if refused.Add(1) == 1 {
						firstRefusal.Store(fmt.Sprintf("%s %s", resp.Status, bytes.TrimSpace(answer)))
					}
					continue
				}
				tl.expect(id, t0, recipientStreams(r))
				accepted.Add(1)
			}
		}(p)
	}
	wg.Wait()
	elapsed := time.Since(start)
	used := b.cpu().sub(cpu0)
	tl.await(int(accepted.Load())*clientDevices, 15*time.Second)
	cancel()
	if err, ok := failed.Load().(error); ok {
		return phaseResult{}, err
	}
	lost, dup := tl.check()
	lats := tl.latencies()
	msgs := float64(accepted.Load())
	res := phaseResult{accepted: msgs / elapsed.Seconds(), p50: percentile(lats, 0.5), p99: percentile(lats, 0.99),
		lost: lost, dup: dup, cpu: used.per(msgs), refused: int(refused.Load())}
	if res.refused > 0 {
		say("ntfy refused %d publishes, the first with %v", res.refused, firstRefusal.Load())
	}
	return res, nil
}
