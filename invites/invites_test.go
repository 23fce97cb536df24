package invites

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"relay/internal/testdb"
)

// TestParse: a code reads the same however a person types it (case,
// dashes, spaces, Crockford's O, I and L), and nothing else reads.
func TestParse(t *testing.T) {
	canon := "7K2QD9XW4MRT8VB3HN1F"
	want := sha256.Sum256([]byte(canon))
	for _, s := range []string{
		canon, "7K2QD-9XW4M-RT8VB-3HN1F", "7k2qd-9xw4m-rt8vb-3hn1f", " 7K2QD 9XW4M RT8VB 3HN1F ",
		"7K2QD-9XW4M-RT8VB-3HNIF", "7K2QD-9XW4M-RT8VB-3HNLF", "7k2qd9xw4mrt8vb3hnlf",
		"7-K-2-Q-D-9-X-W-4-M-R-T-8-V-B-3-H-N-1-F",
	} {
		if h, err := Parse(s); err != nil || h != Hash(want) {
			t.Errorf("Parse(%q) = %x, %v; want the hash of %s", s, h, err, canon)
		}
	}
	if h, err := Parse("7K2QD-9XW4M-RT8VB-3HN0F"); err != nil || h == Hash(want) {
		t.Errorf("a code one symbol apart reads as the same code, or not at all: %v", err)
	}
	if h, err := Parse("7K2QD-9XW4M-RT8VB-3HNOF"); err != nil || h != Hash(sha256.Sum256([]byte("7K2QD9XW4MRT8VB3HN0F"))) {
		t.Errorf("O does not read as 0: %v", err)
	}
	for _, s := range []string{
		"", "-", strings.Repeat("-", 40), "7K2QD-9XW4M-RT8VB-3HN1", "7K2QD-9XW4M-RT8VB-3HN1FF",
		"7K2QD-9XW4M-RT8VB-3HN1U", "7K2QD_9XW4M_RT8VB_3HN1F", "7K2QD\t9XW4M\tRT8VB\t3HN1F",
		"7K2QD-9XW4M-RT8VB-3HN1\x00", "７K2QD-9XW4M-RT8VB-3HN1F", "7K2QD-9XW4M-RT8VB-3HN1\xff",
		strings.Repeat(" ", 21) + canon, // over MaxInput
	} {
		if _, err := Parse(s); !errors.Is(err, ErrMalformed) {
			t.Errorf("Parse(%q): %v, want ErrMalformed", s, err)
		}
	}
}

// FuzzParse: Parse never panics, refuses with ErrMalformed alone, and a
// code it reads is 20 symbols once dashes and spaces are out, within
// MaxInput bytes, and reads the same in upper case.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"7K2QD-9XW4M-RT8VB-3HN1F", "7k2qd9xw4mrt8vb3hnlf", "", "-----", "7K2QD-9XW4M-RT8VB-3HN1U", "７K2QD"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Parse(%q): %v", s, err)
			}
			return
		}
		if len(s) > MaxInput || len(strings.NewReplacer("-", "", " ", "").Replace(s)) != Symbols {
			t.Fatalf("Parse(%q) read a code of another length", s)
		}
		if h2, err := Parse(strings.ToUpper(s)); err != nil || h2 != h {
			t.Fatalf("Parse(%q) and its upper case differ: %v", s, err)
		}
	})
}

// TestCreateListRevokeSpend: a code made is shown once, in groups, kept
// only as its hash, and spent one use at a time while it has uses and
// time left; Revoke deletes it. Each refusal is ErrInvalid.
func TestCreateListRevokeSpend(t *testing.T) {
	ctx := context.Background()
	pool, _ := testdb.Pool(t)
	now := time.Now()
	code, inv, err := Create(ctx, pool, 2, time.Hour, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(code) != 23 || code[5] != '-' || inv.ID == 0 || inv.Uses != 2 || !inv.ExpiresAt.Equal(inv.CreatedAt.Add(time.Hour)) {
		t.Fatalf("Create: %q, %+v", code, inv)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM invites WHERE strpos(encode(code_hash, 'escape'), $1) > 0`, strings.ReplaceAll(code, "-", "")).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the code is stored as it is: %d, %v", n, err)
	}
	forever, _, err := Create(ctx, pool, 1, 0, now)
	if err != nil {
		t.Fatal(err)
	}
	spend := func(code string, at time.Time) error {
		h, err := Parse(code)
		if err != nil {
			t.Fatal(err)
		}
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return Spend(ctx, tx, h, at) })
	}
	for i := range 2 {
		if err := spend(code, now); err != nil {
			t.Fatalf("use %d: %v", i+1, err)
		}
	}
	if err := spend(code, now); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a third use of two: %v", err)
	}
	if err := spend(forever, now.Add(100*365*24*time.Hour)); err != nil {
		t.Fatalf("a code that never expires, in a hundred years: %v", err)
	}
	third, thirdInv, _ := Create(ctx, pool, 1, time.Minute, now)
	if err := spend(third, now.Add(time.Minute)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("at its expiry: %v", err)
	}
	if err := spend("7K2QD-9XW4M-RT8VB-3HN1F", now); !errors.Is(err, ErrInvalid) {
		t.Fatalf("an unknown code: %v", err)
	}
	list, err := List(ctx, pool)
	if err != nil || len(list) != 3 {
		t.Fatalf("List: %+v, %v", list, err)
	}
	for i, want := range []string{"used up", "used up", "expired"} {
		if got := list[i].State(now.Add(time.Minute)); got != want {
			t.Errorf("invite %d: %s, want %s", list[i].ID, got, want)
		}
	}
	if got := list[2].State(now); got != "usable" {
		t.Errorf("before its expiry: %s", got)
	}
	if err := Revoke(ctx, pool, thirdInv.ID); err != nil {
		t.Fatal(err)
	}
	if err := Revoke(ctx, pool, thirdInv.ID); !errors.Is(err, ErrUnknown) {
		t.Fatalf("revoking twice: %v", err)
	}
	for _, c := range []struct {
		uses int
		ttl  time.Duration
	}{{0, 0}, {MaxUses + 1, 0}, {1, -time.Second}} {
		if _, _, err := Create(ctx, pool, c.uses, c.ttl, now); err == nil {
			t.Errorf("Create(%d uses, %v) made an invite", c.uses, c.ttl)
		}
	}
}

// BenchmarkSpendRefused times Spend for each kind of code that cannot be
// spent, and for a usable one (rolled back, so it stays usable):
// docs/performance.md, "Invite codes", compares them.
func BenchmarkSpendRefused(b *testing.B) {
	ctx := context.Background()
	pool, _ := testdb.Pool(b)
	now := time.Now()
	mk := func(uses int, ttl time.Duration) string {
		code, _, err := Create(ctx, pool, uses, ttl, now.Add(-2*time.Hour))
		if err != nil {
			b.Fatal(err)
		}
		return code
	}
	// Some rows, so that the index is not one page of one row.
	for range 1000 {
		mk(1, 0)
	}
	usedUp := mk(1, 0)
	h, _ := Parse(usedUp)
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return Spend(ctx, tx, h, now) }); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, code string }{
		{"unknown", "7K2QD-9XW4M-RT8VB-3HN1F"},
		{"used_up", usedUp},
		{"expired", mk(1, time.Hour)},
		{"usable", mk(1, 0)},
	} {
		h, _ := Parse(c.code)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tx, err := pool.Begin(ctx)
				if err != nil {
					b.Fatal(err)
				}
				err = Spend(ctx, tx, h, now)
				if (err == nil) != (c.name == "usable") {
					b.Fatalf("%s: %v", c.name, err)
				}
				if err := tx.Rollback(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
