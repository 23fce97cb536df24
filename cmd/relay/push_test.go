package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"relay/internal/pushtest"
	"relay/internal/testdb"
)

// TestPushSurvivesKill: the relay accepts an envelope for a device with
// no stream and is killed with SIGKILL while the push to it is in flight
// (the push service holds the request without answering), so the push
// never reached the device. Started again, it wakes the device exactly
// once: from what the accept committed, not from memory (ADR 0087).
func TestPushSurvivesKill(t *testing.T) {
	const contact = "mailto:ops@relay.test"
	svc := pushtest.New(t, contact)
	// The binary trusts the push service through the system roots.
	certs := filepath.Join(t.TempDir(), "pushtest.pem")
	if err := os.WriteFile(certs, svc.CertificatePEM(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSL_CERT_FILE", certs)
	metrics := freeAddr(t)
	db := testdb.New(t)
	p := &relayProc{t: t, db: db, addr: freeAddr(t), args: []string{"--push-contact", contact, "--push-allow-private",
		"--push-interval", "1s", "--catch-up-interval", "100ms", "--metrics-listen", metrics}}
	p.start()
	t.Cleanup(p.kill)
	ctx := context.Background()
	alice := account(t, p.url(), "alice", 1)[0]
	bob := account(t, p.url(), "bob", 1)[0]
	sub := svc.Subscribe(t)
	if err := bob.Do(ctx, http.MethodPut, "/api/push", map[string]string{"endpoint": sub.Endpoint, "p256dh": sub.P256dh, "auth": sub.Auth}, nil); err != nil {
		t.Fatal(err)
	}
	svc.Answer(sub, pushtest.Hang)

	send(t, alice, "bob")
	svc.WaitFor(t, "the push to reach the push service", func() bool { return svc.Tries(sub) == 1 })
	p.kill()
	if n := len(svc.Pushes(sub)); n != 0 {
		t.Fatalf("%d pushes delivered before the kill", n)
	}

	p.start()
	svc.WaitFor(t, "a push after the restart", func() bool { return len(svc.Pushes(sub)) == 1 })
	// Exactly once: the wake-up is recorded as answered, and sweeps that
	// run for longer than the interval (15 sweeps 100 ms apart, against
	// 1 s) send nothing more.
	pool, err := pgxpool.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	waitFor(t, "the wake-up to be recorded as answered", func() bool {
		var due bool
		err := pool.QueryRow(ctx, `SELECT wake_seq > pushed_seq FROM push_subscriptions`).Scan(&due)
		return err == nil && !due
	})
	from := sweeps(t, metrics)
	waitFor(t, "15 more sweeps", func() bool { return sweeps(t, metrics) >= from+15 })
	if svc.Tries(sub) != 2 || len(svc.Pushes(sub)) != 1 {
		t.Fatalf("%d requests, %d pushes delivered: want the hung one and one more", svc.Tries(sub), len(svc.Pushes(sub)))
	}
}

// sweeps reads relay_push_sweeps_total from the relay's metrics.
func sweeps(t *testing.T, addr string) int {
	t.Helper()
	_, body := get(t, "http://"+addr+"/metrics")
	m := regexp.MustCompile(`\nrelay_push_sweeps_total (\d+)\n`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no relay_push_sweeps_total in the metrics")
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// waitFor polls cond every few milliseconds for up to 20 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 20 s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
