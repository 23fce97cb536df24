package relay

import (
	"errors"
	"net/http"
	"time"

	"github.com/oklog/ulid/v2"

	"relay/envelope"
	"relay/queue"
)

// POST /api/messages: an envelope sent, checked in the order of
// docs/protocol.md, then stored for every device of its recipients.

// POST /api/messages. The checks run in the order docs/protocol.md gives,
// and a request that fails one changes nothing: no queue row, no contact,
// no idempotency record and no rate-limit token.
func (s *Server) send(w http.ResponseWriter, r *http.Request, in *checked) error {
	ctx := r.Context()
	// 1. session and 2. X-Device, in the same query, and the body's
	// bound: the route's preamble (routes.go)
	acc, dev := in.account, in.device
	// 3. shape, a "to" list's length included (ADR 0106)
	env, err := envelope.Parse(in.body, s.cfg.MaxBody, s.cfg.MaxRecipients)
	if err != nil {
		return err
	}
	commit, err := commitHeader(&env) // an MLS commit's header (commits.go)
	if err != nil {
		return err
	}
	if err := checkWelcome(&env); err != nil { // a Welcome's framing (commits.go)
		return err
	}
	// 4. a known id is answered from its record (ADR 0084). The record is
	// read only when a check below would refuse the request: an id that
	// passes them all is recognised by the accept itself, so the common
	// path keeps its one round trip.
	// 5. clock skew, for an id the relay does not know
	now := s.now()
	if err := envelope.CheckSkew(env.ID, now, s.cfg.Skew); err != nil {
		return s.unlessKnown(w, r, in, &env, err)
	}
	// 6. rate limit (fanout.go): the tokens are given back below unless
	// the envelope is stored.
	spent, err := s.spend(acc, &env, now)
	if err != nil {
		return s.unlessKnown(w, r, in, &env, err)
	}
	stored := false
	defer func() {
		if !stored {
			spent.giveBack(now)
		}
	}()
	// 7. Origin
	if err := in.origin(); err != nil {
		return err
	}
	// 8. recipients (fanout.go)
	qe := &queue.Envelope{
		ID: env.ID.String(), FromAccount: acc.ID, FromUsername: acc.Username, FromDevice: dev,
		TS: now.UnixMilli(), Body: env.Body,
	}
	deleted, err := s.address(ctx, acc, &env, qe)
	var refused *apiError
	if errors.As(err, &refused) {
		return s.unlessKnown(w, r, in, &env, refused)
	} else if err != nil {
		return err
	}

	// 9. idempotency: a resend that passed the checks above, or that
	// races its first attempt, is recognised by the accept (ADR 0003)
	// 10. a commit's epoch, in the accept's transaction (commits.go)
	expires := recordExpiry(env.ID, now, s.cfg.Skew, s.cfg.DedupWindow)
	ts, dup, deliveries, err := s.accept(ctx, qe, commit, expires, now)
	if errors.Is(err, queue.ErrAccountGone) {
		// The sender or a recipient was deleted after the checks above;
		// nothing was stored. Which one decides the answer.
		if _, serr := s.session(r); serr != nil {
			return serr
		}
		return errAccountDeleted
	}
	if err != nil {
		return err
	}
	answer := map[string]any{"id": qe.ID, "ts": ts}
	if dup {
		// Answered as its record: what was deleted since is not said.
		s.metrics.duplicates.Inc()
	} else {
		s.metrics.accepted.Inc()
		stored = true
		s.hub.Committed(qe, deliveries)
		if qe.Wake {
			// Push now rather than at the next sweep; never blocks.
			s.pusher.Signal(deviceIDs(deliveries))
		}
		if len(deleted) > 0 {
			answer["deleted"] = deleted
		}
	}
	writeJSON(w, http.StatusAccepted, answer)
	return nil
}

// recordExpiry is when the idempotency record of an envelope with id,
// accepted at now, may go: not before a resend of the id could pass the
// skew check (its time plus the window, ADR 0003; a minute more covers
// requests in flight at the edge), and not before the dedup window after
// the accept, so that a client that lost the 202 and retries with the
// same id a day later is still recognised (ADR 0084).
func recordExpiry(id ulid.ULID, now time.Time, skew, window time.Duration) time.Time {
	exp := ulid.Time(id.Time()).Add(skew + time.Minute)
	if w := now.Add(window); w.After(exp) {
		exp = w
	}
	return exp
}

// unlessKnown answers a send that a check would refuse with refusal,
// unless the account already sent an envelope with its id: that one is
// answered from its record, after the Origin check, whatever the id's age
// or the rate limit, and takes no token (docs/protocol.md, check 4; ADR
// 0084). A failed lookup is the answer, never the refusal: a client told
// clock_skew would renew the id and could send the message twice.
func (s *Server) unlessKnown(w http.ResponseWriter, r *http.Request, in *checked, env *envelope.Envelope, refusal error) error {
	key := &queue.Envelope{ID: env.ID.String(), FromAccount: in.account.ID, ToUsername: recordTo(env), Body: env.Body}
	ts, found, err := queue.Remembered(r.Context(), s.pool, key)
	if !found {
		if err != nil {
			return err
		}
		return refusal
	}
	if err := in.origin(); err != nil {
		return err
	}
	if err != nil {
		return err // id_conflict
	}
	s.metrics.duplicates.Inc()
	writeJSON(w, http.StatusAccepted, map[string]any{"id": key.ID, "ts": ts})
	return nil
}

func deviceIDs(ds []queue.Delivery) []string {
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i] = d.DeviceID
	}
	return ids
}
