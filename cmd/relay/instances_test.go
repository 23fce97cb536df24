package main

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/oklog/ulid/v2"

	"relay/internal/testdb"
	"relay/relayclient"
)

// instances starts n relay processes on one database.
func instances(t testing.TB, n int, args ...string) []*relayProc {
	t.Helper()
	db := testdb.New(t)
	var ps []*relayProc
	for i := 0; i < n; i++ {
		p := &relayProc{t: t, db: db, addr: freeAddr(t), args: args}
		p.start()
		t.Cleanup(p.kill)
		ps = append(ps, p)
	}
	return ps
}

func (p *relayProc) url() string { return "http://" + p.addr }

// account registers name with n devices through the relay at base; the
// returned clients speak as each device, all with the account's session.
func account(t testing.TB, base, name string, n int) []*relayclient.Client {
	t.Helper()
	ctx := context.Background()
	c := relayclient.New(base)
	k, _ := ecdh.P256().GenerateKey(rand.Reader)
	if err := c.Register(ctx, name, "long enough password", k.PublicKey().Bytes()); err != nil {
		t.Fatal(err)
	}
	var out []*relayclient.Client
	for i := 0; i < n; i++ {
		id, err := c.AddDevice(ctx, "d", k.PublicKey().Bytes())
		if err != nil {
			t.Fatal(err)
		}
		d := *c
		d.Device = id
		out = append(out, &d)
	}
	return out
}

// at returns a copy of c that speaks to another instance with the same
// session.
func at(c *relayclient.Client, p *relayProc) *relayclient.Client {
	d := *c
	d.BaseURL, d.Origin = p.url(), p.url()
	return &d
}

// follower streams one device in the background.
type follower struct {
	events chan relayclient.Event
	done   chan error
	cancel context.CancelFunc
}

func follow(c *relayclient.Client) *follower {
	ctx, cancel := context.WithCancel(context.Background())
	f := &follower{events: make(chan relayclient.Event, 1000), done: make(chan error, 1), cancel: cancel}
	go func() {
		f.done <- c.Stream(ctx, "", false, func(e relayclient.Event) error {
			if e.Name != "ping" && e.Name != "epoch" {
				f.events <- e
			}
			return nil
		})
	}()
	return f
}

func (f *follower) next(t *testing.T, within time.Duration) relayclient.Event {
	t.Helper()
	select {
	case e := <-f.events:
		return e
	case <-time.After(within):
		t.Fatalf("no event within %v", within)
		return relayclient.Event{}
	}
}

func (f *follower) expect(t *testing.T, name string, within time.Duration) relayclient.Event {
	t.Helper()
	e := f.next(t, within)
	if e.Name != name {
		t.Fatalf("got event %s, want %s", e.Name, name)
	}
	return e
}

func send(t *testing.T, c *relayclient.Client, to string) string {
	t.Helper()
	id := ulid.Make().String()
	if _, err := c.Send(context.Background(), id, to, []byte("ciphertext")); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestCrossInstanceDelivery: a device streaming from instance 2 gets what
// instance 1 accepted, at once, in order.
func TestCrossInstanceDelivery(t *testing.T) {
	ps := instances(t, 2)
	alice := account(t, ps[0].url(), "alice", 1)
	bob := account(t, ps[0].url(), "bob", 1)
	f := follow(at(bob[0], ps[1]))
	defer f.cancel()
	f.expect(t, "ready", 10*time.Second)
	for i := 1; i <= 20; i++ {
		id := send(t, alice[0], "bob")
		// Well under the 5 s catch-up interval: this is the notification.
		e := f.expect(t, "envelope", 2*time.Second)
		if e.Envelope.ID != id || e.Envelope.Seq != int64(i) {
			t.Fatalf("got %s seq %d, want %s seq %d", e.Envelope.ID, e.Envelope.Seq, id, i)
		}
	}
}

// TestDeliveryWithoutNotifications turns NOTIFY off: the catch-up check
// alone still delivers everything, in order, within its interval.
func TestDeliveryWithoutNotifications(t *testing.T) {
	ps := instances(t, 2, "--notify=false", "--catch-up-interval", "200ms")
	alice := account(t, ps[0].url(), "alice", 1)
	bob := account(t, ps[0].url(), "bob", 1)
	f := follow(at(bob[0], ps[1]))
	defer f.cancel()
	f.expect(t, "ready", 10*time.Second)
	var ids []string
	for i := 0; i < 5; i++ {
		ids = append(ids, send(t, alice[0], "bob"))
	}
	for i, id := range ids {
		e := f.expect(t, "envelope", 5*time.Second)
		if e.Envelope.ID != id || e.Envelope.Seq != int64(i+1) {
			t.Fatalf("got %s seq %d, want %s seq %d", e.Envelope.ID, e.Envelope.Seq, id, i+1)
		}
	}
}

// TestCrossInstanceReplacementAndRevocation: one stream per device across
// instances, and revoking a device ends its stream wherever it is.
func TestCrossInstanceReplacementAndRevocation(t *testing.T) {
	ps := instances(t, 3)
	bob := account(t, ps[0].url(), "bob", 2)
	alice := account(t, ps[0].url(), "alice", 1)

	first := follow(at(bob[0], ps[0]))
	defer first.cancel()
	first.expect(t, "ready", 10*time.Second)
	second := follow(at(bob[0], ps[1]))
	defer second.cancel()
	second.expect(t, "ready", 10*time.Second)
	first.expect(t, "replaced", 2*time.Second)
	if err := <-first.done; !errors.Is(err, relayclient.ErrStreamEnded) {
		t.Fatalf("the replaced stream ended with %v", err)
	}
	id := send(t, alice[0], "bob")
	if e := second.expect(t, "envelope", 2*time.Second); e.Envelope.ID != id {
		t.Fatalf("the new stream got %s", e.Envelope.ID)
	}

	// bob's second device streams on instance 3; the first revokes it
	// through instance 1.
	other := follow(at(bob[1], ps[2]))
	defer other.cancel()
	other.expect(t, "envelope", 10*time.Second) // alice's envelope, queued for it too
	other.expect(t, "ready", 2*time.Second)
	if err := bob[0].Revoke(context.Background(), bob[1].Device); err != nil {
		t.Fatal(err)
	}
	other.expect(t, "revoked", 2*time.Second)
}

// TestListenerConnectionDropped terminates every instance's notification
// connection in PostgreSQL: deliveries go on, within the catch-up interval
// at worst, and nothing is lost.
func TestListenerConnectionDropped(t *testing.T) {
	ps := instances(t, 2, "--catch-up-interval", "300ms")
	alice := account(t, ps[0].url(), "alice", 1)
	bob := account(t, ps[0].url(), "bob", 1)
	f := follow(at(bob[0], ps[1]))
	defer f.cancel()
	f.expect(t, "ready", 10*time.Second)

	pool, err := pgxpool.New(context.Background(), ps[0].db)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE 'LISTEN%'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("terminated %d listener connections, want 2", n)
	}
	for i := 1; i <= 5; i++ {
		id := send(t, alice[0], "bob")
		e := f.expect(t, "envelope", 5*time.Second)
		if e.Envelope.ID != id || e.Envelope.Seq != int64(i) {
			t.Fatalf("got %s seq %d, want %s seq %d", e.Envelope.ID, e.Envelope.Seq, id, i)
		}
	}
}
