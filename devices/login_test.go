package devices

import (
	"context"
	"errors"
	"testing"

	"relay/internal/testdb"
)

// BenchmarkLoginFailure times the two failed logins at the default costs:
// an unknown username (checked against the dummy hash) and a wrong
// password. They should cost the same; TestLoginFailuresCostTheSame in
// package relay counts the hashing, since a test never judges by time.
func BenchmarkLoginFailure(b *testing.B) {
	pool, _ := testdb.Pool(b)
	s, err := NewStore(pool, Config{HashConcurrency: 1})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.CreateAccount(ctx, "alice", "correct horse battery", []byte{4}, nil); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, username string }{
		{"unknown username", "nobody"},
		{"wrong password", "alice"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := s.Login(ctx, bc.username, "wrong password"); !errors.Is(err, ErrBadCredentials) {
					b.Fatal(err)
				}
			}
		})
	}
}
