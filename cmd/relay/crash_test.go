package main

import (
	"bufio"
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"relay/internal/testdb"
	"relay/relayclient"
)

// relayProc runs the relay binary at a fixed address, so that it can be
// killed and started again where clients expect it.
type relayProc struct {
	t    testing.TB
	db   string
	addr string
	args []string   // extra flags
	mu   sync.Mutex // guards cmd
	cmd  *exec.Cmd
}

func (p *relayProc) start() {
	p.t.Helper()
	cmd := exec.Command(binary, append([]string{"--listen", p.addr, "--rate", "100000", "--auth-rate", "100000", "--auth-rate-user", "100000", "--ping-interval", "1h"}, p.args...)...)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+p.db)
	out, err := cmd.StdoutPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on") {
				ready <- true
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			_ = cmd.Wait()
			p.t.Fatalf("the relay exited at start")
		}
	case <-time.After(30 * time.Second):
		p.t.Fatal("the relay did not start")
	}
	p.mu.Lock()
	p.cmd = cmd
	p.mu.Unlock()
}

func (p *relayProc) kill() {
	p.mu.Lock()
	cmd := p.cmd
	p.cmd = nil
	p.mu.Unlock()
	if cmd != nil {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
	}
}

func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestCrashConsistency kills the relay with SIGKILL at random moments while
// senders send, and starts it again. Senders resend with the same id after
// an error or no answer, as the web client does. After recovery, every
// device has every envelope meant for it exactly once, in seq order.
func TestCrashConsistency(t *testing.T) {
	p := &relayProc{t: t, db: testdb.New(t), addr: freeAddr(t)}
	p.start()
	t.Cleanup(p.kill)
	base := "http://" + p.addr
	ctx := context.Background()

	type acct struct {
		name    string
		client  *relayclient.Client
		devices []string
	}
	var accts []*acct
	for _, name := range []string{"alice", "bob"} {
		c := relayclient.New(base)
		k, _ := ecdh.P256().GenerateKey(rand.Reader)
		if err := c.Register(ctx, name, "long enough password", k.PublicKey().Bytes()); err != nil {
			t.Fatal(err)
		}
		a := &acct{name: name, client: c}
		for i := 0; i < 2; i++ {
			id, err := c.AddDevice(ctx, "d", k.PublicKey().Bytes())
			if err != nil {
				t.Fatal(err)
			}
			a.devices = append(a.devices, id)
		}
		accts = append(accts, a)
	}

	// expected[device] lists accepted ids; order among senders is set by
	// the relay, so it is checked as a set plus a gapless seq.
	var mu sync.Mutex // guards expected, retries
	expected := map[string]map[string]bool{}
	for _, a := range accts {
		for _, d := range a.devices {
			expected[d] = map[string]bool{}
		}
	}
	retries := 0
	stopSending := make(chan struct{})
	var wg sync.WaitGroup
	failed := make(chan error, 4)
	for si, a := range accts {
		for di := range a.devices {
			wg.Add(1)
			go func(si, di int, a *acct) {
				defer wg.Done()
				c := *a.client
				c.Device = a.devices[di]
				to := accts[1-si]
				for n := 0; ; n++ {
					select {
					case <-stopSending:
						return
					default:
					}
					id := ulid.Make().String()
					body := []byte(fmt.Sprintf("%s/%d/%d", a.name, di, n))
					giveUp := time.Now().Add(45 * time.Second)
					for {
						sctx, cancel := context.WithTimeout(ctx, 3*time.Second)
						_, err := c.Send(sctx, id, to.name, body)
						cancel()
						if err == nil {
							break
						}
						if code := relayclient.Code(err); code != "" && code != "http_error" && code != "internal" && code != "unavailable" {
							failed <- fmt.Errorf("send %s: %w", id, err)
							return
						}
						mu.Lock()
						retries++
						mu.Unlock()
						if time.Now().After(giveUp) {
							failed <- fmt.Errorf("send %s: the relay did not come back: %v", id, err)
							return
						}
						time.Sleep(50 * time.Millisecond)
					}
					mu.Lock()
					for _, d := range append(append([]string{}, to.devices...), a.devices...) {
						if d != a.devices[di] {
							expected[d][id] = true
						}
					}
					mu.Unlock()
				}
			}(si, di, a)
		}
	}

	// Kill and restart at random moments while the senders run.
	killerDone := make(chan struct{})
	kills := 0
	go func() {
		defer close(killerDone)
		rng := mrand.New(mrand.NewPCG(1, 2))
		for i := 0; i < 4; i++ {
			time.Sleep(time.Duration(150+rng.IntN(400)) * time.Millisecond)
			p.kill()
			kills++
			p.start()
		}
	}()
	<-killerDone
	time.Sleep(300 * time.Millisecond) // a last stretch on the recovered relay
	close(stopSending)
	wg.Wait()
	close(failed)
	for err := range failed {
		t.Fatal(err)
	}
	total := 0
	for _, ids := range expected {
		total += len(ids)
	}
	t.Logf("%d kills, %d resends, %d deliveries expected", kills, retries, total)
	if retries == 0 {
		t.Fatal("no send ever failed: the kills did not hit the exchange, so the test proved nothing")
	}

	// After recovery: each device reads its whole queue.
	for _, a := range accts {
		for _, d := range a.devices {
			c := *a.client
			c.Device = d
			sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			got := map[string]int{}
			var last int64
			var gaps []string
			err := c.Stream(sctx, "", false, func(e relayclient.Event) error {
				switch e.Name {
				case "envelope":
					got[e.Envelope.ID]++
					if e.Envelope.Seq != last+1 {
						gaps = append(gaps, fmt.Sprintf("%d after %d", e.Envelope.Seq, last))
					}
					last = e.Envelope.Seq
				case "ready":
					cancel()
				}
				return nil
			})
			cancel()
			if err != nil && sctx.Err() == nil {
				t.Fatalf("reading %s: %v", d, err)
			}
			if len(gaps) > 0 {
				t.Errorf("device %s: seq gaps %v", d, gaps)
			}
			for id, n := range got {
				if n != 1 || !expected[d][id] {
					t.Errorf("device %s: envelope %s seen %d times (expected: %v)", d, id, n, expected[d][id])
				}
			}
			if len(got) != len(expected[d]) {
				t.Errorf("device %s has %d envelopes, want %d", d, len(got), len(expected[d]))
			}
		}
	}
}
