package devices

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestPasswordHash(t *testing.T) {
	h, err := newHasher(Argon2Params{Memory: 64, Time: 1, Threads: 1}, 2)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	stored, err := h.hash(ctx, "secret password")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stored, "$argon2id$v=19$m=64,t=1,p=1$") || strings.Contains(stored, "secret") {
		t.Fatalf("hash %q", stored)
	}
	if ok, err := h.verify(ctx, "secret password", stored); !ok || err != nil {
		t.Fatalf("right password refused: %v", err)
	}
	if ok, _ := h.verify(ctx, "secret passwore", stored); ok {
		t.Fatal("wrong password accepted")
	}
	// An unknown user checks against the dummy and never matches.
	if ok, err := h.verify(ctx, "", ""); ok || err != nil {
		t.Fatalf("dummy: %v %v", ok, err)
	}
	// Four computations: the hash and three checks, the dummy's included;
	// the dummy's own hash at start is not counted.
	if n := h.runs.Load(); n != 4 {
		t.Fatalf("%d argon2id runs counted, want 4", n)
	}
	// Hashes made with other costs still verify: the costs are in the hash.
	h2, _ := newHasher(Argon2Params{Memory: 128, Time: 2, Threads: 1}, 1)
	if ok, err := h2.verify(ctx, "secret password", stored); !ok || err != nil {
		t.Fatalf("old hash under new costs: %v", err)
	}
	for _, bad := range []string{"$argon2i$v=19$m=64,t=1,p=1$AAAA$AAAA", "$argon2id$v=19$m=x$AAAA$AAAA", "plain"} {
		if _, err := h.verify(ctx, "x", bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestHashingIsBounded: with every slot taken, a hash waits for one instead
// of allocating its memory (here it gives up when its context ends); with a
// slot free, the same call goes through. A login flood therefore queues.
func TestHashingIsBounded(t *testing.T) {
	h, err := newHasher(Argon2Params{Memory: 64, Time: 1, Threads: 1}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := h.acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := h.hash(ctx, "long enough password"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("with both slots taken, hash returned %v instead of waiting", err)
	}
	if _, err := h.verify(ctx, "long enough password", ""); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("with both slots taken, verify returned %v instead of waiting", err)
	}
	h.release()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	if _, err := h.hash(ctx2, "long enough password"); err != nil {
		t.Fatalf("with a slot free: %v", err)
	}
}
