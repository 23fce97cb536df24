package devices

import (
	"context"
	"strings"
	"testing"
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
