package relay

import (
	"context"
	"errors"
	"slices"
	"time"

	"golang.org/x/time/rate"

	"relay/devices"
	"relay/envelope"
	"relay/queue"
)

// Who an envelope reaches and what that costs: the rate limit of check 6
// with its fan-out bucket, and the recipients of check 8, one username or a
// list of them (docs/protocol.md, "POST /api/messages"; ADR 0106).

// tokens are what check 6 took for one envelope: a token of its own
// bucket, and one of the fan-out bucket per other account it names.
type tokens struct {
	own, fanout *rate.Reservation // fanout is nil for an envelope to oneself
}

// giveBack returns both, for an envelope that was not stored.
func (t tokens) giveBack(now time.Time) {
	t.own.CancelAt(now)
	if t.fanout != nil {
		t.fanout.CancelAt(now)
	}
}

// spend is check 6. An envelope takes a token from one of four buckets:
// commits and welcomes, to anyone, from the bucket for group upkeep, so
// that a client's upkeep never holds up a message (ADR 0105; check 3 has
// checked their framing, which bounds what a message passed off as one
// gains to this bucket); envelopes to no account but the sender's from the
// bucket to self, so that reading (read records, ADR 0015) never holds up a
// reply (ADR 0035); receipts to others from a bucket of their own, so that
// reading a busy chat never holds up the next message either (ADR 0051);
// anything else from the bucket for messages. acc comes from the session,
// and usernames have one spelling, so no one reaches another account
// through the bucket to self.
//
// An envelope to other accounts also takes one token per other account it
// names from the fan-out bucket, so that a message to a group of a
// hundred costs what its reach is (ADR 0106). Both are taken or neither:
// the refusal's Retry-After is the bucket's that refused.
func (s *Server) spend(acc devices.Account, env *envelope.Envelope, now time.Time) (tokens, error) {
	others := env.Others(acc.Username)
	limits := s.limits
	switch {
	case env.Commit || env.Welcome:
		limits = s.groupLimits
	case others == 0:
		limits = s.selfLimits
	case env.Receipt:
		limits = s.receiptLimits
	}
	own, retry := limits.reserve(acc.ID, now)
	if own == nil {
		return tokens{}, rateLimited(retry)
	}
	if others == 0 {
		return tokens{own: own}, nil
	}
	// New refuses a configuration whose fan-out burst is below the most
	// names of a list, so n never exceeds what the bucket can hold.
	fanout, retry := s.fanoutLimits.reserveN(acc.ID, now, others)
	if fanout == nil {
		own.CancelAt(now)
		return tokens{}, rateLimited(retry)
	}
	return tokens{own: own, fanout: fanout}, nil
}

// address is check 8: it looks up the envelope's recipients and sets
// where qe goes. A username no account has is 404 unknown_recipient; a
// single "to" whose account was deleted is 410 account_deleted, as before
// lists. In a list, the sender's own name adds nothing (its other devices
// get every envelope), a deleted account is skipped and returned in
// deleted, sorted, and the list is 410 only when it reaches no account but
// the sender's and named a deleted one. Refusals are *apiError.
func (s *Server) address(ctx context.Context, acc devices.Account, env *envelope.Envelope, qe *queue.Envelope) (deleted []string, err error) {
	if env.List == nil {
		to, err := s.accounts.Lookup(ctx, env.To)
		switch {
		case errors.Is(err, devices.ErrUnknownAccount):
			return nil, errUnknownRecipient
		case errors.Is(err, devices.ErrAccountDeleted):
			return nil, errAccountDeleted
		case err != nil:
			return nil, err
		}
		qe.ToAccount, qe.ToUsername = to.ID, to.Username
		// Only the recipient's devices may need waking by a message;
		// envelopes to oneself (read positions, ADR 0035) and receipts
		// (ADR 0051) never push. The accept records it (ADR 0087).
		qe.Wake = to.ID != acc.ID && !env.Receipt
		return nil, nil
	}
	names := make([]string, 0, len(env.List))
	for _, name := range env.List {
		if name != acc.Username {
			names = append(names, name)
		}
	}
	found, err := s.accounts.LookupAll(ctx, names)
	if err != nil {
		return nil, err
	}
	qe.Listed, qe.ToUsername = true, queue.ListKey(env.List)
	qe.Recipients = make([]queue.Recipient, 0, len(names))
	for i, f := range found {
		switch {
		case errors.Is(f.Err, devices.ErrUnknownAccount):
			return nil, unknownRecipient(names[i]) // the first, in the list's order
		case errors.Is(f.Err, devices.ErrAccountDeleted):
			deleted = append(deleted, names[i])
		case f.Err != nil:
			return nil, f.Err
		default:
			qe.Recipients = append(qe.Recipients, queue.Recipient{Account: f.Account.ID, Username: f.Account.Username})
		}
	}
	if len(qe.Recipients) == 0 && len(deleted) > 0 {
		return nil, errAccountDeleted
	}
	slices.Sort(deleted)
	qe.Wake = len(qe.Recipients) > 0 && !env.Receipt
	return deleted, nil
}

// recordTo is the "to" of env as its idempotency record keeps it: the
// username, or the list's key, so that "bob" and ["bob"] are different
// envelopes (ADR 0106).
func recordTo(env *envelope.Envelope) string {
	if env.List != nil {
		return queue.ListKey(env.List)
	}
	return env.To
}
