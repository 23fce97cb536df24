package relay

import (
	"context"
	"errors"
	"strings"
	"time"

	"relay/envelope"
	"relay/mlsgroup"
	"relay/mlsheader"
	"relay/queue"
)

// The relay's part in MLS commits (ADR 0099): a send marked "kind":
// "commit" is accepted only at its group's current epoch, one commit per
// group and epoch (docs/protocol.md, "POST /api/messages", checks 3 and
// 10). A welcome's framing is checked here too (check 3, ADR 0105).

// commitHeader reads the MLS header of a commit envelope's body (check 3),
// nil for any other envelope: those are never parsed.
func commitHeader(env *envelope.Envelope) (*mlsheader.Header, error) {
	if !env.Commit {
		return nil, nil
	}
	h, err := mlsheader.Parse(env.Body)
	if err != nil {
		// The parser's reason names a field, never the bytes.
		return nil, codeBadCommit.errorf("the body is not an MLS commit the relay can order: %s", err.Error())
	}
	if h.ContentType != mlsheader.ContentCommit {
		return nil, codeBadCommit.errorf("the body is an MLS message whose content type is not commit; send it without \"kind\": \"commit\"")
	}
	return &h, nil
}

// checkWelcome checks that a welcome envelope's body is framed as an MLS
// Welcome (check 3), all the relay can see of one; any other envelope is
// never read. The framing is what keeps a message from passing for a
// welcome to take the bucket for group upkeep (ADR 0105).
func checkWelcome(env *envelope.Envelope) error {
	if !env.Welcome {
		return nil
	}
	if err := mlsheader.CheckWelcome(env.Body); err != nil {
		// The reason names a field, never the bytes.
		return codeBadWelcome.errorf("the body is not an MLS Welcome: %s. Send the Welcome as the MLSMessage the MLS library encodes "+
			"(version mls10, wire format mls_welcome), or send anything else without \"kind\": \"welcome\"", strings.TrimPrefix(err.Error(), mlsheader.ErrMalformed.Error()+": "))
	}
	return nil
}

// accept queues qe: through the group committer (ADR 0018), or for a
// commit in a transaction of its own under its group's row lock, which a
// group of unrelated envelopes must not wait for (check 10).
func (s *Server) accept(ctx context.Context, qe *queue.Envelope, commit *mlsheader.Header, expires, now time.Time) (int64, bool, []queue.Delivery, error) {
	if commit == nil {
		return s.committer.Accept(ctx, qe, expires, now)
	}
	ts, dup, ds, err := mlsgroup.Accept(ctx, s.pool, qe, commit.GroupID, commit.Epoch, expires, now)
	var stale *mlsgroup.StaleEpochError
	if errors.As(err, &stale) {
		return 0, false, nil, staleEpoch(stale.Current)
	}
	return ts, dup, ds, err
}

// staleEpoch names the group's current epoch, the one a commit must name
// to be accepted, as a JSON number: epochs count commits and stay far
// below 2^53.
func staleEpoch(current uint64) *apiError {
	ae := codeStaleEpoch.errorf("this commit's epoch is not the group's current epoch %d: another commit took it first, "+
		"or this device is ahead of the relay. Apply the group's commits up to epoch %d and commit again", current, current)
	ae.extra = map[string]any{"currentEpoch": current}
	return ae
}
