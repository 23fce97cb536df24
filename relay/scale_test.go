package relay_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"relay/relayclient"
)

// TestGaplessUnderConcurrency has many senders fan out into overlapping
// sets of devices for a few seconds while a reader follows every device,
// reconnecting with Last-Event-ID at random moments and ACKing as it goes.
// Every reader must end with every envelope meant for its device, exactly
// once, in seq order without a gap, and no send may fail (a deadlock would
// surface as an error).
func TestGaplessUnderConcurrency(t *testing.T) {
	s := newTestServer(t, withRealClock(), withRate(1_000_000))
	const accounts, devicesEach, senders = 4, 3, 8
	duration := 3 * time.Second
	if testing.Short() {
		duration = time.Second
	}
	var users []*user
	for i := 0; i < accounts; i++ {
		users = append(users, s.register(t, fmt.Sprintf("user%d", i), devicesEach))
	}

	// expected[device] is the set of envelope ids accepted for it.
	var mu sync.Mutex // guards expected
	expected := map[string]map[string]bool{}
	for _, u := range users {
		for _, d := range u.Devices {
			expected[d] = map[string]bool{}
		}
	}

	// Readers.
	type reader struct {
		device string
		mu     sync.Mutex // guards seen, last, errs
		seen   []string
		last   int64
		errs   []string
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var readers []*reader
	var rwg sync.WaitGroup
	for _, u := range users {
		for i := range u.Devices {
			r := &reader{device: u.Devices[i]}
			readers = append(readers, r)
			c := u.device(i)
			seed := uint64(len(readers))
			rwg.Add(1)
			go func() {
				defer rwg.Done()
				rng := rand.New(rand.NewPCG(seed, 7))
				for ctx.Err() == nil {
					// Reconnect at a random moment.
					cctx, cancel := context.WithTimeout(ctx, time.Duration(50+rng.IntN(400))*time.Millisecond)
					r.mu.Lock()
					resume := ""
					if r.last > 0 {
						resume = strconv.FormatInt(r.last, 10)
					}
					r.mu.Unlock()
					err := c.Stream(cctx, resume, false, func(e relayclient.Event) error {
						if e.Name != "envelope" {
							return nil
						}
						r.mu.Lock()
						defer r.mu.Unlock()
						if e.Envelope.Seq != r.last+1 {
							r.errs = append(r.errs, fmt.Sprintf("seq %d after %d", e.Envelope.Seq, r.last))
						}
						r.last = e.Envelope.Seq
						r.seen = append(r.seen, e.Envelope.ID)
						if r.last%20 == 0 {
							go c.Ack(context.Background(), r.last-5) //nolint:errcheck // a lost ACK only means a longer replay
						}
						return nil
					})
					cancel()
					if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
						r.mu.Lock()
						r.errs = append(r.errs, "stream: "+err.Error())
						r.mu.Unlock()
					}
				}
			}()
		}
	}

	// Senders.
	deadline := time.Now().Add(duration)
	var swg sync.WaitGroup
	sendErrs := make(chan error, senders)
	total := 0
	var tmu sync.Mutex
	for w := 0; w < senders; w++ {
		swg.Add(1)
		go func(w int) {
			defer swg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			for time.Now().Before(deadline) {
				from := users[rng.IntN(accounts)]
				fi := rng.IntN(devicesEach)
				to := users[rng.IntN(accounts)]
				id := s.newID()
				if _, err := from.device(fi).Send(context.Background(), id, to.Name, []byte("x")); err != nil {
					sendErrs <- err
					return
				}
				// Every device of the recipient and of the sender's
				// account, but never the sending device.
				mu.Lock()
				for _, d := range append(append([]string{}, to.Devices...), from.Devices...) {
					if d != from.Devices[fi] {
						expected[d][id] = true
					}
				}
				mu.Unlock()
				tmu.Lock()
				total++
				tmu.Unlock()
			}
		}(w)
	}
	swg.Wait()
	close(sendErrs)
	for err := range sendErrs {
		t.Fatalf("a send failed under concurrency: %v", err)
	}
	if total < 100 {
		t.Fatalf("only %d envelopes sent; the test proves little", total)
	}

	// Wait until every reader has everything, then stop them.
	done := func() bool {
		for _, r := range readers {
			r.mu.Lock()
			n := len(r.seen)
			r.mu.Unlock()
			if n < len(expected[r.device]) {
				return false
			}
		}
		return true
	}
	wait := time.Now().Add(60 * time.Second)
	for !done() && time.Now().Before(wait) {
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	rwg.Wait()
	for _, r := range readers {
		if len(r.errs) > 0 {
			t.Errorf("device %s: %v", r.device, r.errs[:min(5, len(r.errs))])
		}
		got := map[string]int{}
		for _, id := range r.seen {
			got[id]++
		}
		for id, n := range got {
			if n != 1 {
				t.Errorf("device %s got envelope %s %d times", r.device, id, n)
			}
			if !expected[r.device][id] {
				t.Errorf("device %s got envelope %s that was not meant for it", r.device, id)
			}
		}
		if len(got) != len(expected[r.device]) {
			t.Errorf("device %s got %d envelopes up to seq %d, want %d (device head %d, %d still queued)", r.device, len(got), r.last, len(expected[r.device]),
				s.count(t, "SELECT seq FROM devices WHERE id = $1", r.device), s.count(t, "SELECT count(*) FROM queue WHERE device_id = $1", r.device))
		}
	}
	t.Logf("%d envelopes from %d senders to %d devices", total, senders, len(readers))
}
