package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"relay/relayclient"
)

// privateCluster starts a PostgreSQL cluster of the test's own, so that the
// test can stop and start it without disturbing other tests.
type privateCluster struct {
	t      *testing.T
	script string
	env    []string
}

func newPrivateCluster(t *testing.T) (*privateCluster, string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "relay-pg-faults-")
	if err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(dir, 0o755) // the cluster's owner must reach it
	_, file, _, _ := runtime.Caller(0)
	c := &privateCluster{t: t, script: filepath.Join(filepath.Dir(file), "..", "..", "scripts", "pgcluster.sh"),
		env: append(os.Environ(), "RELAY_PGDIR="+filepath.Join(dir, "pg"), "RELAY_PGPORT="+strings.Split(freeAddr(t), ":")[1])}
	t.Cleanup(func() {
		c.run("stop")
		os.RemoveAll(dir)
	})
	return c, c.run("url", "relay")
}

func (c *privateCluster) run(args ...string) string {
	c.t.Helper()
	cmd := exec.Command("bash", append([]string{c.script}, args...)...)
	cmd.Env = c.env
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		c.t.Fatalf("pgcluster %v: %v\n%s", args, err, stderr)
	}
	return strings.TrimSpace(string(out))
}

// exchange sends envelopes from alice to bob through one instance, resending
// with the same id after an error or no answer, until stop is closed. It
// returns the ids accepted and the status codes of the failures.
type exchange struct {
	mu       sync.Mutex // guards accepted, failures
	accepted []string
	failures map[int]int // HTTP status (0: no answer) -> count
}

func (x *exchange) run(t *testing.T, c *relayclient.Client, to string, stop <-chan struct{}) {
	x.failures = map[int]int{}
	for {
		select {
		case <-stop:
			return
		default:
		}
		id := ulid.Make().String()
		giveUp := time.Now().Add(60 * time.Second)
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			_, err := c.Send(ctx, id, to, []byte("ciphertext"))
			cancel()
			if err == nil {
				break
			}
			status := 0
			if e, ok := err.(*relayclient.Error); ok {
				status = e.Status
				if status < 500 {
					t.Errorf("send %s: %v", id, err)
					return
				}
			}
			x.mu.Lock()
			x.failures[status]++
			x.mu.Unlock()
			if time.Now().After(giveUp) {
				t.Errorf("send %s: no recovery: %v", id, err)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		x.mu.Lock()
		x.accepted = append(x.accepted, id)
		x.mu.Unlock()
	}
}

// reader follows a device with automatic reconnects and checks every
// envelope comes once, in seq order.
type reader struct {
	mu   sync.Mutex // guards ids, last, errs
	ids  map[string]int
	last int64
	errs []string
}

func read(ctx context.Context, c *relayclient.Client) *reader {
	r := &reader{ids: map[string]int{}}
	go c.Stream(ctx, "", true, func(e relayclient.Event) error {
		if e.Name != "envelope" {
			return nil
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if e.Envelope.Seq != r.last+1 {
			r.errs = append(r.errs, fmt.Sprintf("seq %d after %d", e.Envelope.Seq, r.last))
		}
		r.last = e.Envelope.Seq
		r.ids[e.Envelope.ID]++
		return nil
	})
	return r
}

// check waits until the reader has every accepted id and verifies exactly
// once, in order.
func (r *reader) check(t *testing.T, name string, accepted []string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r.mu.Lock()
		n := len(r.ids)
		r.mu.Unlock()
		if n >= len(accepted) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errs) > 0 {
		t.Errorf("%s: %v", name, r.errs)
	}
	for _, id := range accepted {
		if r.ids[id] != 1 {
			t.Errorf("%s: accepted envelope %s arrived %d times", name, id, r.ids[id])
		}
	}
	if len(r.ids) != len(accepted) {
		t.Errorf("%s: %d envelopes, %d accepted", name, len(r.ids), len(accepted))
	}
}

// TestPostgresRestart stops PostgreSQL under two relay instances while
// envelopes flow and streams are open, and starts it again. The relay
// answers 503 while the database is away, and afterwards every accepted
// envelope reaches both of bob's devices exactly once, in order.
func TestPostgresRestart(t *testing.T) {
	pg, db := newPrivateCluster(t)
	ps := []*relayProc{{t: t, db: db, addr: freeAddr(t)}, {t: t, db: db, addr: freeAddr(t)}}
	for _, p := range ps {
		p.start()
		t.Cleanup(p.kill)
	}
	alice := account(t, ps[0].url(), "alice", 1)
	bob := account(t, ps[0].url(), "bob", 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	readers := []*reader{read(ctx, at(bob[0], ps[1])), read(ctx, at(bob[1], ps[1]))}

	stop := make(chan struct{})
	x := &exchange{}
	done := make(chan struct{})
	go func() { x.run(t, alice[0], "bob", stop); close(done) }()
	time.Sleep(300 * time.Millisecond) // let the exchange get going
	pg.run("stop")
	// While the database is away the relay answers, and with 503.
	start := time.Now()
	resp, err := http.Get(ps[1].url() + "/readyz")
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("readyz with the database away: %v %v", resp, err)
	}
	resp.Body.Close()
	if time.Since(start) > 5*time.Second {
		t.Fatal("readyz hung")
	}
	time.Sleep(time.Second) // the outage
	pg.run("url")
	time.Sleep(time.Second) // traffic on the recovered database
	close(stop)
	<-done

	x.mu.Lock()
	accepted := append([]string{}, x.accepted...)
	failures := fmt.Sprint(x.failures)
	x.mu.Unlock()
	t.Logf("%d accepted; failures by status: %s", len(accepted), failures)
	if x.failures[http.StatusServiceUnavailable] == 0 {
		t.Fatalf("no 503 during the outage (failures %s): the test did not hit it", failures)
	}
	for i, r := range readers {
		r.check(t, "bob's device "+strconv.Itoa(i), accepted)
	}
}

// TestInstanceKilled kills the instance two devices stream from; they
// reconnect to the other instance and get everything, in order.
func TestInstanceKilled(t *testing.T) { instanceGone(t, syscall.SIGKILL) }

// TestInstanceTerminated stops an instance with SIGTERM: its streams end
// with event: shutdown, the devices reconnect to the other instance, and
// nothing is lost or repeated.
func TestInstanceTerminated(t *testing.T) { instanceGone(t, syscall.SIGTERM) }

func instanceGone(t *testing.T, sig syscall.Signal) {
	ps := instances(t, 2)
	alice := account(t, ps[0].url(), "alice", 1)
	bob := account(t, ps[0].url(), "bob", 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Each reader's client tries instance 2 and falls over to instance 1,
	// as a load balancer would.
	var readers []*reader
	for _, d := range bob {
		c := at(d, ps[1])
		c.HTTP = &http.Client{Jar: d.HTTP.Jar, Transport: failover{to: ps[0].addr, from: ps[1].addr}}
		readers = append(readers, read(ctx, c))
	}
	stop := make(chan struct{})
	x := &exchange{}
	done := make(chan struct{})
	go func() { x.run(t, alice[0], "bob", stop); close(done) }()
	time.Sleep(300 * time.Millisecond)
	ps[1].mu.Lock()
	cmd := ps[1].cmd
	ps[1].mu.Unlock()
	_ = cmd.Process.Signal(sig)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if sig == syscall.SIGTERM && err != nil {
			t.Fatalf("after SIGTERM the relay exited with %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("the relay did not exit within 15 s of %v", sig)
	}
	ps[1].mu.Lock()
	ps[1].cmd = nil
	ps[1].mu.Unlock()
	time.Sleep(500 * time.Millisecond)
	close(stop)
	<-done
	x.mu.Lock()
	accepted := append([]string{}, x.accepted...)
	x.mu.Unlock()
	for i, r := range readers {
		r.check(t, "bob's device "+strconv.Itoa(i), accepted)
	}
}

// failover is a transport that sends requests for one address to another
// once the first refuses connections, standing in for a load balancer.
type failover struct{ from, to string }

func (f failover) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil || req.URL.Host != f.from {
		return resp, err
	}
	r2 := req.Clone(req.Context())
	r2.URL.Host = f.to
	r2.Host = f.to
	return http.DefaultTransport.RoundTrip(r2)
}
