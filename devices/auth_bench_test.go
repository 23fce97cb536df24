package devices

import (
	"context"
	"testing"

	"relay/internal/testdb"
)

// BenchmarkAuthenticateDevice is the lookup every request that speaks as
// a device makes (the session, its account and the device, in one query),
// alone and from 16 goroutines at once. BenchmarkAckRequest in package
// relay is a whole ACK around it.
func BenchmarkAuthenticateDevice(b *testing.B) {
	pool, _ := testdb.Pool(b)
	s, err := NewStore(pool, Config{Argon2: Argon2Params{Memory: 64, Time: 1, Threads: 1}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	sess, err := s.CreateAccount(ctx, "alice", "correct horse battery", []byte{4}, nil)
	if err != nil {
		b.Fatal(err)
	}
	acc, err := s.Authenticate(ctx, sess.Token)
	if err != nil {
		b.Fatal(err)
	}
	dev, err := s.AddDevice(ctx, acc.ID, "phone", []byte{4})
	if err != nil {
		b.Fatal(err)
	}
	check := func() error {
		_, live, err := s.AuthenticateDevice(ctx, sess.Token, dev.ID)
		if err == nil && !live {
			b.Fatal("the device is not live")
		}
		return err
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := check(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := check(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
