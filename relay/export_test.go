package relay

import (
	"bytes"
	"context"
	"sync"

	"relay/push"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// SyncBuffer is syncBuffer for the tests of package relay_test.
type SyncBuffer = syncBuffer

// CountQueue refreshes relay_queue_depth now, as Run does every 15 s.
func (s *Server) CountQueue(ctx context.Context) { s.countQueue(ctx) }

// PushStats are the pusher's counters.
func (s *Server) PushStats() push.Stats { return s.pusher.Stats() }

// SweepPush sweeps the database for devices due a push now, as Run does
// every catch-up interval.
func (s *Server) SweepPush(ctx context.Context) { s.pusher.Sweep(ctx) }

// SessionCacheStats is the session cache's hits and forgotten accounts.
func (s *Server) SessionCacheStats() (hits, forgotten int64) { return s.accounts.CacheStats() }

// AccountCacheHits is the username lookups answered from memory.
func (s *Server) AccountCacheHits() int64 { return s.accounts.NameCacheHits() }

// SessionCacheOn reports whether the session cache answers from memory.
func (s *Server) SessionCacheOn() bool { return s.accounts.CacheOn() }

// Housekeeping runs the relay's housekeeping now, as Run does every
// minute.
func (s *Server) Housekeeping(ctx context.Context) { s.housekeeping(ctx) }
