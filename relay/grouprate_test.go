package relay_test

import (
	"context"
	"crypto/rand"
	"errors"
	"math"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"relay/relay"
	"relay/relayclient"
)

// welcomeMsg is a real MLS Welcome, made by another implementation
// (ts-mls, mlsheader/testdata/gen.mjs): the relay checks only its framing.
func welcomeMsg(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../mlsheader/testdata/messages/welcome.mls")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wantRateLimited(t *testing.T, err error, retry time.Duration) {
	t.Helper()
	var e *relayclient.Error
	if !errors.As(err, &e) || e.Code != "rate_limited" || e.Status != http.StatusTooManyRequests || e.RetryAfter != retry {
		t.Fatalf("got %v, want 429 rate_limited with Retry-After %v", err, retry)
	}
}

// TestGroupUpkeepSpendsNoMessageBudget: commits and welcomes take their
// tokens from the bucket for group upkeep, to others and to oneself alike
// (ADR 0105). At one message and one envelope to self a minute, an
// account that made a group (a commit and a welcome to its peer, and the
// same to its own account for a linked device) still sends its message
// and its read record; the next message is refused, so the rate is one.
// On the version without the bucket, the welcome after the commit is
// already refused rate_limited; on the one that keeps welcomes in the
// message bucket, the message after them is.
func TestGroupUpkeepSpendsNoMessageBudget(t *testing.T) {
	s := newTestServer(t, withRate(1), withSelfRate(1))
	ctx := context.Background()
	alice := s.register(t, "alice", 2)
	s.register(t, "bob", 1)
	a := alice.device(0)
	welcome := welcomeMsg(t)
	for _, to := range []string{"bob", "alice"} {
		if _, err := a.SendCommit(ctx, s.newID(), to, commitMsg("group-"+to, 0, "c")); err != nil {
			t.Fatalf("commit to %s: %v", to, err)
		}
		if _, err := a.SendWelcome(ctx, s.newID(), to, welcome); err != nil {
			t.Fatalf("welcome to %s: %v", to, err)
		}
	}
	s.send(t, a, "bob", "the message")
	s.send(t, a, "alice", "the read record")
	_, err := a.Send(ctx, s.newID(), "bob", []byte("one more"))
	wantRateLimited(t, err, time.Minute)
	// A welcome is queued like any envelope: for bob's device, and for
	// alice's other device.
	if n := s.count(t, "SELECT count(*) FROM queue WHERE body = $1", welcome); n != 3 {
		t.Fatalf("%d queue rows of welcomes, want 3", n)
	}
}

// TestGroupBucketRunsOutOnItsOwn: the bucket for group upkeep is bounded:
// at N a minute, N welcomes and commits pass, the next of either is
// refused with the bucket's Retry-After, and a message still goes. A
// welcome or commit refused after check 6 gives its token back. On the
// version that puts welcomes in the message bucket, the message after
// them is refused.
func TestGroupBucketRunsOutOnItsOwn(t *testing.T) {
	const rate = 4
	s := newTestServer(t, withRate(2), withGroupRate(rate))
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	s.register(t, "bob", 1)
	a := alice.device(0)
	welcome := welcomeMsg(t)
	// More refusals than the bucket holds, each after check 6: every token
	// comes back.
	for i := 0; i < 2*rate; i++ {
		_, err := a.SendWelcome(ctx, s.newID(), "nobody", welcome)
		wantCode(t, err, "unknown_recipient")
		_, err = a.SendCommit(ctx, s.newID(), "bob", commitMsg("g", 7, "x"))
		wantStale(t, err, 0)
	}
	for i := 0; i < rate; i++ {
		if _, err := a.SendWelcome(ctx, s.newID(), "bob", welcome); err != nil {
			t.Fatalf("welcome %d: %v", i+1, err)
		}
	}
	retry := time.Duration(math.Ceil(60/float64(rate))) * time.Second
	_, err := a.SendWelcome(ctx, s.newID(), "bob", welcome)
	wantRateLimited(t, err, retry)
	_, err = a.SendCommit(ctx, s.newID(), "bob", commitMsg("g", 0, "x"))
	wantRateLimited(t, err, retry)
	s.send(t, a, "bob", "a message still goes")
	// The bucket refills at its own rate.
	s.Clock.Advance(retry)
	if _, err := a.SendCommit(ctx, s.newID(), "bob", commitMsg("g", 0, "x")); err != nil {
		t.Fatalf("a commit once a token is back: %v", err)
	}
	_, err = a.SendWelcome(ctx, s.newID(), "bob", welcome)
	wantRateLimited(t, err, retry)
}

// TestBadWelcome: an envelope marked as a welcome whose body is not framed
// as an MLS Welcome is 400 bad_welcome at check 3, before the clock skew
// and the recipient; it stores nothing and takes no token from any
// bucket. The same bytes not marked as a welcome are an ordinary envelope.
func TestBadWelcome(t *testing.T) {
	s := newTestServer(t, withRate(1), withGroupRate(1))
	ctx := context.Background()
	alice := s.register(t, "alice", 1)
	s.register(t, "bob", 1)
	a := alice.device(0)
	skewed := ulid.MustNew(ulid.Timestamp(s.Clock.Now().Add(-10*time.Minute)), rand.Reader).String()
	before := s.state(t)
	for name, body := range map[string][]byte{
		"text":            []byte("hello"),
		"a commit":        commitMsg("g", 0, "x"),
		"version mls11":   {0, 2, 0, 3, 0},
		"the framing cut": {0, 1, 0},
	} {
		for _, id := range []string{s.newID(), skewed} {
			for _, to := range []string{"bob", "nobody"} {
				_, err := a.SendWelcome(ctx, id, to, body)
				var e *relayclient.Error
				if !errors.As(err, &e) || e.Status != http.StatusBadRequest || e.Code != "bad_welcome" {
					t.Fatalf("%s to %s: got %v, want 400 bad_welcome", name, to, err)
				}
			}
		}
	}
	if after := s.state(t); after != before {
		t.Fatalf("refused welcomes changed the state from %v to %v", before, after)
	}
	// No token was taken: the one welcome and the one message of the
	// minute still go.
	if _, err := a.SendWelcome(ctx, s.newID(), "bob", welcomeMsg(t)); err != nil {
		t.Fatalf("a welcome after the refusals: %v", err)
	}
	s.send(t, a, "bob", "hello")
	if got := relay.DefaultConfig().GroupRatePerMinute; got != 120 {
		t.Fatalf("default group rate %d, want 120", got)
	}
}
