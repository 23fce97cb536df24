package relay

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"relay/internal/testdb"
)

// newIdleServer is a Server on a fresh database that serves nothing; the
// test drives Run and Close itself.
func newIdleServer(t *testing.T) *Server {
	t.Helper()
	pool, _ := testdb.Pool(t)
	s, err := New(Config{Pool: pool, BaseURL: "http://127.0.0.1", DisableNotify: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runWith starts s.Run with one more background loop, and returns once
// that loop has started, so that Close has something to stop.
func runWith(t *testing.T, s *Server, loop func(context.Context)) <-chan error {
	t.Helper()
	started := make(chan struct{})
	s.background = append(s.background, func(ctx context.Context) {
		close(started)
		loop(ctx)
	})
	errc := make(chan error, 1)
	go func() { errc <- s.Run(context.Background()) }()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not start its loops")
	}
	return errc
}

// TestCloseWaitsForRun: Close returns nil only once every goroutine Run
// started has ended. A loop that goes on after its context ended holds
// Close until its bound, and Close says so: the control, since a Close that
// only cancelled would return nil at once with the loop still running. A
// loop that ends when cancelled has ended when Close returns.
func TestCloseWaitsForRun(t *testing.T) {
	t.Run("stuck", func(t *testing.T) {
		s := newIdleServer(t)
		s.closeWait = 200 * time.Millisecond
		release := make(chan struct{})
		var ended atomic.Bool
		errc := runWith(t, s, func(ctx context.Context) {
			<-ctx.Done()
			<-release
			ended.Store(true)
		})
		if err := s.Close(); !errors.Is(err, ErrClosed) {
			t.Fatalf("Close returned %v with a loop of Run still running", err)
		}
		if ended.Load() {
			t.Fatal("the loop ended before it was released")
		}
		close(release)
		if err := <-errc; !errors.Is(err, ErrClosed) {
			t.Fatalf("Run returned %v after Close", err)
		}
		if err := s.Close(); err != nil || !ended.Load() {
			t.Fatalf("Close again, once the loop ended: %v (ended %v)", err, ended.Load())
		}
	})
	t.Run("prompt", func(t *testing.T) {
		s := newIdleServer(t)
		var ended atomic.Bool
		errc := runWith(t, s, func(ctx context.Context) {
			<-ctx.Done()
			ended.Store(true)
		})
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if !ended.Load() {
			t.Fatal("Close returned before Run's loop ended")
		}
		if err := <-errc; !errors.Is(err, ErrClosed) {
			t.Fatalf("Run returned %v after Close", err)
		}
	})
}

// TestRunOnce: Run runs once; after Close it starts nothing.
func TestRunOnce(t *testing.T) {
	s := newIdleServer(t)
	errc := runWith(t, s, func(ctx context.Context) { <-ctx.Done() })
	if err := s.Run(context.Background()); err == nil || errors.Is(err, ErrClosed) {
		t.Fatalf("a second Run returned %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	<-errc

	closed := newIdleServer(t)
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	if err := closed.Run(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Run after Close returned %v", err)
	}
}
