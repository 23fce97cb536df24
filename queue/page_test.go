package queue_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"relay/internal/testdb"
	"relay/queue"
)

// TestReadPage: a page is the rows after its cursor in seq order, cut by
// its row limit or after the row that brings its bodies to the byte
// limit, with More set exactly when it was cut; read to the end, the
// pages are what Read returns.
func TestReadPage(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx := context.Background()
	devs := fixture(t, pool, 1, 1)
	accs := accountIDs(devs)
	from, to := accs[0], accs[1]
	dev := devs[to][0]
	sizes := []int{100, 100, 5000, 5000, 5000, 100, 100}
	for _, n := range sizes {
		if _, _, _, err := queue.Accept(ctx, pool, envelope(from, to, devs[from][0], strings.Repeat("b", n)), time.Now().Add(time.Hour), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	all, err := queue.Read(ctx, pool, dev, 0, 1000, 1000)
	if err != nil {
		t.Fatal(err)
	}
	seqs := func(items []queue.Item) []int64 {
		var out []int64
		for _, it := range items {
			out = append(out, it.Seq)
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		after    int64
		limit    int
		maxBytes int64
		want     []int64
		more     bool
	}{
		{"everything", 0, 100, 1 << 20, []int64{1, 2, 3, 4, 5, 6, 7}, false},
		// The control for the extra row read: a limit of exactly what
		// is left is not "more".
		{"a limit of exactly the rest", 4, 3, 1 << 20, []int64{5, 6, 7}, false},
		{"cut by the limit", 0, 3, 1 << 20, []int64{1, 2, 3}, true},
		// 100+100 < 5100; the third row brings the bodies to 5200, so it
		// is the last.
		{"cut by the bytes", 0, 100, 5100, []int64{1, 2, 3}, true},
		{"cut by the bytes exactly", 0, 100, 5200, []int64{1, 2, 3}, true},
		{"one row over the bytes", 2, 100, 1, []int64{3}, true},
		{"at the head", 7, 100, 1 << 20, nil, false},
		{"beyond the head", 9, 100, 1 << 20, nil, false},
	} {
		p, err := queue.ReadPage(ctx, pool, dev, tc.after, tc.limit, tc.maxBytes)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := seqs(p.Items); !equal(got, tc.want) || p.More != tc.more || p.State.Seq != 7 {
			t.Errorf("%s: seqs %v, more %v, head %d; want %v, %v, 7", tc.name, got, p.More, p.State.Seq, tc.want, tc.more)
		}
	}
	// Pages read to the end are Read's rows, field for field.
	var paged []queue.Item
	for after := int64(0); ; {
		p, err := queue.ReadPage(ctx, pool, dev, after, 2, 5000)
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, p.Items...)
		if !p.More {
			break
		}
		after = p.Items[len(p.Items)-1].Seq
	}
	if len(paged) != len(all) {
		t.Fatalf("%d rows paged, Read has %d", len(paged), len(all))
	}
	for i := range all {
		a, b := all[i], paged[i]
		if a.Seq != b.Seq || a.ID != b.ID || a.From != b.From || a.FromDevice != b.FromDevice || a.To != b.To || a.TS != b.TS || string(a.Body) != string(b.Body) {
			t.Fatalf("row %d: paged %+v, Read %+v", i, b.Seq, a.Seq)
		}
	}
	// A head set back below rows still queued (by hand in SQL; a restore
	// brings back rows and head together): the page, as a stream's
	// replay, stops at the head.
	if _, err := pool.Exec(ctx, `UPDATE devices SET seq = 5 WHERE id = $1`, dev); err != nil {
		t.Fatal(err)
	}
	p, err := queue.ReadPage(ctx, pool, dev, 0, 100, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if got := seqs(p.Items); !equal(got, []int64{1, 2, 3, 4, 5}) || p.More || p.State.Seq != 5 {
		t.Fatalf("a head set back to 5: seqs %v, more %v, head %d", got, p.More, p.State.Seq)
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestReadPageNoDevice: a revoked device's page is ErrNoDevice, though its
// row is kept, and so is an unknown device's; the control is the same
// device's page before the revocation.
func TestReadPageNoDevice(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx := context.Background()
	devs := fixture(t, pool, 1)
	dev := devs[accountIDs(devs)[0]][0]
	if _, err := queue.ReadPage(ctx, pool, dev, 0, 10, 1000); err != nil {
		t.Fatalf("a live device: %v", err)
	}
	if _, err := pool.Exec(ctx, `UPDATE devices SET revoked_at = now() WHERE id = $1`, dev); err != nil {
		t.Fatal(err)
	}
	if _, err := queue.ReadPage(ctx, pool, dev, 0, 10, 1000); !errors.Is(err, queue.ErrNoDevice) {
		t.Fatalf("a revoked device: %v, want ErrNoDevice", err)
	}
	if _, err := queue.ReadPage(ctx, pool, ulid.Make().String(), 0, 10, 1000); !errors.Is(err, queue.ErrNoDevice) {
		t.Fatalf("an unknown device: %v, want ErrNoDevice", err)
	}
}

// TestReadPagePurgeMark: the page carries the device's purge mark, read
// with its rows: after a purge the rows are gone and the mark says up to
// where.
func TestReadPagePurgeMark(t *testing.T) {
	pool, _ := testdb.Pool(t)
	ctx := context.Background()
	devs := fixture(t, pool, 1, 1)
	accs := accountIDs(devs)
	from, to := accs[0], accs[1]
	for range 3 {
		if _, _, _, err := queue.Accept(ctx, pool, envelope(from, to, devs[from][0], strings.Repeat("c", 1000)), time.Now().Add(time.Hour), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := queue.Purge(ctx, pool, time.Now().Add(-time.Hour), 1500); err != nil {
		t.Fatal(err)
	}
	p, err := queue.ReadPage(ctx, pool, devs[to][0], 0, 10, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if p.State.PurgedSeq != 2 || p.State.PurgedReason != queue.PurgeSize || len(p.Items) != 1 || p.Items[0].Seq != 3 {
		t.Fatalf("purged up to %d (%q), %d rows; want up to 2 for size, then row 3", p.State.PurgedSeq, p.State.PurgedReason, len(p.Items))
	}
}
