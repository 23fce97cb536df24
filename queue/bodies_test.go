package queue_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"relay/internal/testdb"
	"relay/queue"
)

// fiveQueues is an envelope's fan-out between two accounts of three devices
// each, sent from the first account's first device: five target queues.
type fiveQueues struct {
	pool     *pgxpool.Pool
	from, to int64
	sender   string
	targets  []string // every device but the sender, in id order
}

func newFiveQueues(t *testing.T) *fiveQueues {
	t.Helper()
	pool, _ := testdb.Pool(t)
	devs := fixture(t, pool, 3, 3)
	accs := accountIDs(devs)
	f := &fiveQueues{pool: pool, from: accs[0], to: accs[1], sender: devs[accs[0]][0]}
	f.targets = append(append(f.targets, devs[accs[0]][1:]...), devs[accs[1]]...)
	return f
}

// accept stores one envelope and returns it with its deliveries by device.
func (f *fiveQueues) accept(t *testing.T, body string) (*queue.Envelope, map[string]int64) {
	t.Helper()
	e := envelope(f.from, f.to, f.sender, body)
	_, _, ds, err := queue.Accept(context.Background(), f.pool, e, time.Now().Add(time.Hour), time.Now())
	if err != nil || len(ds) != 5 {
		t.Fatalf("accept: %d deliveries, %v", len(ds), err)
	}
	seqs := map[string]int64{}
	for _, d := range ds {
		seqs[d.DeviceID] = d.Seq
	}
	return e, seqs
}

// bodies counts the stored bodies and checks that each is referenced by
// a queue row: a body is never left behind, nor a row without its body.
func (f *fiveQueues) bodies(t *testing.T) int {
	t.Helper()
	var n, orphans, dangling int
	err := f.pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM bodies),
		(SELECT count(*) FROM bodies b WHERE NOT EXISTS (SELECT 1 FROM queue q WHERE q.body_id = b.id)),
		(SELECT count(*) FROM queue q WHERE NOT EXISTS (SELECT 1 FROM bodies b WHERE b.id = q.body_id))`).Scan(&n, &orphans, &dangling)
	if err != nil {
		t.Fatal(err)
	}
	if orphans != 0 || dangling != 0 {
		t.Fatalf("%d bodies no queue row references, %d queue rows without their body", orphans, dangling)
	}
	return n
}

// TestBodyOncePerEnvelope: an envelope to five queues is stored once, and
// each device reads it whole; the body goes with the last ACK, not before.
func TestBodyOncePerEnvelope(t *testing.T) {
	f := newFiveQueues(t)
	ctx := context.Background()
	e, seqs := f.accept(t, "ciphertext")
	if n := f.bodies(t); n != 1 {
		t.Fatalf("%d bodies for one envelope, want 1", n)
	}
	for i, dev := range f.targets {
		items, err := queue.Read(ctx, f.pool, dev, 0, seqs[dev], 10)
		if err != nil || len(items) != 1 {
			t.Fatalf("device %d read %d items, %v", i, len(items), err)
		}
		if it := items[0]; it.ID != e.ID || string(it.Body) != "ciphertext" || it.From != e.FromUsername ||
			it.FromDevice != e.FromDevice || it.To != e.ToUsername || it.TS != e.TS {
			t.Fatalf("device %d read %+v, want %+v", i, it, e)
		}
		if _, err := queue.Ack(ctx, f.pool, dev, seqs[dev]); err != nil {
			t.Fatal(err)
		}
		want := 1
		if i == len(f.targets)-1 {
			want = 0
		}
		if n := f.bodies(t); n != want {
			t.Fatalf("after %d of 5 ACKs: %d bodies, want %d", i+1, n, want)
		}
	}
}

// TestBodyGoesWithConcurrentLastAcks: every device ACKs each envelope at
// the same time as the others. Two ACKs that delete a body's last two
// rows at once must not each leave the body to the other; the control is
// the release without its lock, which leaves bodies behind here.
func TestBodyGoesWithConcurrentLastAcks(t *testing.T) {
	f := newFiveQueues(t)
	ctx := context.Background()
	const envelopes = 40
	for i := range envelopes {
		f.accept(t, fmt.Sprint("body ", i))
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(f.targets))
	start := make(chan struct{})
	for _, dev := range f.targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for seq := int64(1); seq <= envelopes; seq++ {
				if _, err := queue.Ack(ctx, f.pool, dev, seq); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := f.bodies(t); n != 0 {
		t.Fatalf("%d bodies left after every device ACKed every envelope", n)
	}
}

// TestBodyGoesWithEveryDeletion: whatever deletes an envelope's last queue
// row deletes its body: revocation (Drop), the purges by age and by size,
// the deletion of the sending account, and a device row's cascade. Each
// case deletes some rows first and checks that the body stays.
func TestBodyGoesWithEveryDeletion(t *testing.T) {
	inTx := func(f *fiveQueues, fn func(tx pgx.Tx) error) error {
		return pgx.BeginFunc(context.Background(), f.pool, fn)
	}
	for _, tc := range []struct {
		name string
		// some deletes part of the envelope's rows, rest the others.
		some, rest func(t *testing.T, f *fiveQueues) error
	}{
		{"revoke", func(t *testing.T, f *fiveQueues) error {
			return inTx(f, func(tx pgx.Tx) error { return queue.Drop(context.Background(), tx, f.targets[0]) })
		}, func(t *testing.T, f *fiveQueues) error {
			return inTx(f, func(tx pgx.Tx) error {
				for _, dev := range f.targets[1:] {
					if err := queue.Drop(context.Background(), tx, dev); err != nil {
						return err
					}
				}
				return nil
			})
		}},
		{"purge by age", func(t *testing.T, f *fiveQueues) error {
			_, err := f.pool.Exec(context.Background(), `DELETE FROM queue WHERE device_id = $1`, f.targets[0])
			return err
		}, func(t *testing.T, f *fiveQueues) error {
			aged, _, err := queue.Purge(context.Background(), f.pool, time.Now().Add(time.Minute), 1<<20)
			if err == nil && aged != 4 {
				err = fmt.Errorf("purged %d by age, want 4", aged)
			}
			return err
		}},
		{"purge by size", func(t *testing.T, f *fiveQueues) error {
			_, err := f.pool.Exec(context.Background(), `DELETE FROM queue WHERE device_id = ANY ($1)`, f.targets[:2])
			return err
		}, func(t *testing.T, f *fiveQueues) error {
			// A limit below one body: every queue holding it is over.
			_, trimmed, err := queue.Purge(context.Background(), f.pool, time.Now().Add(-time.Hour), 4)
			if err == nil && trimmed != 3 {
				err = fmt.Errorf("trimmed %d, want 3", trimmed)
			}
			return err
		}},
		{"account deletion", func(t *testing.T, f *fiveQueues) error {
			_, err := queue.Ack(context.Background(), f.pool, f.targets[4], 1)
			return err
		}, func(t *testing.T, f *fiveQueues) error {
			return inTx(f, func(tx pgx.Tx) error { return queue.DropAccount(context.Background(), tx, f.from, "u") })
		}},
		{"device rows deleted", func(t *testing.T, f *fiveQueues) error {
			_, err := f.pool.Exec(context.Background(), `DELETE FROM devices WHERE id = $1`, f.targets[0])
			return err
		}, func(t *testing.T, f *fiveQueues) error {
			_, err := f.pool.Exec(context.Background(), `DELETE FROM devices WHERE id = ANY ($1)`, f.targets[1:])
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFiveQueues(t)
			f.accept(t, "ciphertext")
			if err := tc.some(t, f); err != nil {
				t.Fatal(err)
			}
			if n := f.bodies(t); n != 1 {
				t.Fatalf("%d bodies while queue rows still reference it, want 1", n)
			}
			if err := tc.rest(t, f); err != nil {
				t.Fatal(err)
			}
			if n := f.bodies(t); n != 0 {
				t.Fatalf("%d bodies once no queue row references it, want 0", n)
			}
		})
	}
}

// TestResendOfAStoredBody: a resend of an envelope is recognised by its
// idempotency record, while its body waits and after every device has
// ACKed it, and stores no second body.
func TestResendOfAStoredBody(t *testing.T) {
	f := newFiveQueues(t)
	ctx := context.Background()
	e, seqs := f.accept(t, "ciphertext")
	resend := func(when string) {
		t.Helper()
		again := *e
		again.TS += 1000
		ts, dup, ds, err := queue.Accept(ctx, f.pool, &again, time.Now().Add(time.Hour), time.Now())
		if err != nil || !dup || ts != e.TS || len(ds) != 0 {
			t.Fatalf("resend %s: ts %d dup %v deliveries %v err %v; want the original ts and nothing queued", when, ts, dup, ds, err)
		}
	}
	resend("while queued")
	if n := f.bodies(t); n != 1 {
		t.Fatalf("%d bodies after a resend, want 1", n)
	}
	for dev, seq := range seqs {
		if _, err := queue.Ack(ctx, f.pool, dev, seq); err != nil {
			t.Fatal(err)
		}
	}
	resend("after every ACK")
	if n := f.bodies(t); n != 0 {
		t.Fatalf("%d bodies after a resend of a delivered envelope, want 0", n)
	}
}
