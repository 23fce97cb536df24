package relay

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/julienschmidt/httprouter"
	"github.com/oklog/ulid/v2"

	"relay/canonical"
	"relay/devices"
	"relay/envelope"
	"relay/epoch"
	"relay/queue"
)

// The JSON shapes of docs/protocol.md. Keys are raw bytes on the server and
// standard padded base64 on the wire.

type credentials struct {
	Username  string `json:"username"`
	Password  string `json:"password"`
	PublicKey string `json:"publicKey"`
}

type accountJSON struct {
	Username  string `json:"username"`
	PublicKey string `json:"publicKey,omitempty"`
}

type deviceJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	PublicKey  string `json:"publicKey"`
	CreatedAt  int64  `json:"createdAt"`
	LastSeenAt *int64 `json:"lastSeenAt"`
	Linked     bool   `json:"linked"`
}

type contactJSON struct {
	Username  string `json:"username"`
	PublicKey string `json:"publicKey"`
	Since     int64  `json:"since"`
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func checkUsername(u string) error {
	if !canonical.ValidUsername(u) {
		return errBadUsername
	}
	return nil
}

func checkPassword(p string) error {
	if len(p) < devices.MinPassword || len(p) > devices.MaxPassword {
		return errBadPassword
	}
	return nil
}

// POST /api/accounts
func (s *Server) createAccount(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	var c credentials
	if err := readJSON(w, r, maxJSON, &c); err != nil {
		return err
	}
	if err := checkUsername(c.Username); err != nil {
		return err
	}
	if err := checkPassword(c.Password); err != nil {
		return err
	}
	key, err := devices.ParsePublicKey(c.PublicKey)
	if err != nil {
		return err
	}
	if err := s.throttleAuth(r, ""); err != nil {
		return err
	}
	sess, err := s.accounts.CreateAccount(r.Context(), c.Username, c.Password, key)
	if err != nil {
		return err
	}
	s.setSessionCookie(w, sess)
	writeJSON(w, http.StatusCreated, accountJSON{Username: c.Username})
	return nil
}

// GET /api/accounts/:username
func (s *Server) getAccount(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	if _, err := s.session(r); err != nil {
		return err
	}
	u := p.ByName("username")
	if err := checkUsername(u); err != nil {
		return err
	}
	acc, err := s.accounts.Lookup(r.Context(), u)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, accountJSON{Username: acc.Username, PublicKey: b64(acc.PublicKey)})
	return nil
}

// POST /api/sessions
func (s *Server) login(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	var c credentials
	if err := readJSON(w, r, maxJSON, &c); err != nil {
		return err
	}
	if !canonical.ValidUsername(c.Username) || len(c.Password) > devices.MaxPassword {
		// Nothing can match; no need to tell which part was wrong.
		return errBadCredentials
	}
	if err := s.throttleAuth(r, c.Username); err != nil {
		return err
	}
	acc, sess, err := s.accounts.Login(r.Context(), c.Username, c.Password)
	if err != nil {
		return err
	}
	s.setSessionCookie(w, sess)
	writeJSON(w, http.StatusOK, accountJSON{Username: acc.Username, PublicKey: b64(acc.PublicKey)})
	return nil
}

// DELETE /api/sessions
func (s *Server) logout(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	if _, err := s.session(r); err != nil {
		return err
	}
	c, _ := r.Cookie(sessionCookie)
	if err := s.accounts.Logout(r.Context(), c.Value); err != nil {
		return err
	}
	s.clearSessionCookie(w)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// POST /api/devices
func (s *Server) addDevice(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	acc, err := s.session(r)
	if err != nil {
		return err
	}
	var body struct {
		PublicKey string `json:"publicKey"`
		Name      string `json:"name"`
	}
	if err := readJSON(w, r, maxJSON, &body); err != nil {
		return err
	}
	if !validDeviceName(body.Name) {
		return errBadDeviceName
	}
	key, err := devices.ParsePublicKey(body.PublicKey)
	if err != nil {
		return err
	}
	d, err := s.accounts.AddDevice(r.Context(), acc.ID, body.Name, key)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]string{"id": d.ID})
	return nil
}

func validDeviceName(n string) bool {
	if n == "" || len(n) > devices.MaxDeviceName || !utf8.ValidString(n) {
		return false
	}
	for _, r := range n {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// GET /api/devices
func (s *Server) listDevices(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	acc, err := s.session(r)
	if err != nil {
		return err
	}
	list, err := s.accounts.Devices(r.Context(), acc.ID)
	if err != nil {
		return err
	}
	out := make([]deviceJSON, 0, len(list))
	for _, d := range list {
		dj := deviceJSON{ID: d.ID, Name: d.Name, PublicKey: b64(d.PublicKey), CreatedAt: d.CreatedAt.UnixMilli(), Linked: d.Linked}
		if d.LastSeenAt != nil {
			ms := d.LastSeenAt.UnixMilli()
			dj.LastSeenAt = &ms
		}
		out = append(out, dj)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// DELETE /api/devices/:id
func (s *Server) revokeDevice(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	acc, err := s.session(r)
	if err != nil {
		return err
	}
	id := p.ByName("id")
	if _, err := envelope.ParseID(id); err != nil {
		return errUnknownDevice
	}
	if err := s.transitions().RevokeDevice(r.Context(), acc.ID, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// GET /api/contacts
func (s *Server) listContacts(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	acc, err := s.session(r)
	if err != nil {
		return err
	}
	list, err := s.accounts.Contacts(r.Context(), acc.ID)
	if err != nil {
		return err
	}
	out := make([]contactJSON, 0, len(list))
	for _, c := range list {
		out = append(out, contactJSON{Username: c.Username, PublicKey: b64(c.PublicKey), Since: c.Since.UnixMilli()})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// POST /api/messages. The checks run in the order docs/protocol.md gives,
// and a request that fails one changes nothing: no queue row, no contact,
// no idempotency record and no rate-limit token.
func (s *Server) send(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	ctx := r.Context()
	// 1. session
	// 2. X-Device, in the same query
	acc, dev, err := s.speaker(r, false)
	if err != nil {
		return err
	}
	// 3. shape
	data, err := readBody(w, r, envelope.MaxRequest)
	if err != nil {
		return err
	}
	env, err := envelope.Parse(data, s.cfg.MaxBody)
	if err != nil {
		return err
	}
	commit, err := commitHeader(&env) // an MLS commit's header (commits.go)
	if err != nil {
		return err
	}
	// 4. a known id is answered from its record (ADR 0084). The record is
	// read only when a check below would refuse the request: an id that
	// passes them all is recognised by the accept itself, so the common
	// path keeps its one round trip.
	// 5. clock skew, for an id the relay does not know
	now := s.now()
	if err := envelope.CheckSkew(env.ID, now, s.cfg.Skew); err != nil {
		return s.unlessKnown(w, r, acc, &env, err)
	}
	// 6. rate limit: the token is given back below unless the envelope is
	// stored. Envelopes to the sender's own account have a bucket of their
	// own, so that reading (read records, ADR 0015) never holds up a reply
	// (ADR 0035). acc comes from the session, and usernames have one
	// spelling, so no one reaches another account through this bucket.
	// Receipts to others have a third bucket, so that reading a busy chat
	// never holds up the next message either (ADR 0051).
	limits := s.limits
	if env.To == acc.Username {
		limits = s.selfLimits
	} else if env.Receipt {
		limits = s.receiptLimits
	}
	res, retry := limits.reserve(acc.ID, now)
	if res == nil {
		return s.unlessKnown(w, r, acc, &env, rateLimited(retry))
	}
	stored := false
	defer func() {
		if !stored {
			res.CancelAt(now)
		}
	}()
	// 7. Origin
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	// 8. recipient
	to, err := s.accounts.Lookup(ctx, env.To)
	if errors.Is(err, devices.ErrUnknownAccount) {
		return s.unlessKnown(w, r, acc, &env, errUnknownRecipient)
	} else if err != nil {
		return err // a deleted recipient is account_deleted
	}

	qe := &queue.Envelope{
		ID: env.ID.String(), FromAccount: acc.ID, FromUsername: acc.Username, FromDevice: dev,
		ToAccount: to.ID, ToUsername: to.Username, TS: now.UnixMilli(), Body: env.Body,
		// Only the recipient's devices may need waking by a message;
		// envelopes to oneself (read positions, ADR 0035) and receipts
		// (ADR 0051) never push. The accept records it (ADR 0087).
		Wake: to.ID != acc.ID && !env.Receipt,
	}
	// 9. idempotency: a resend that passed the checks above, or that
	// races its first attempt, is recognised by the accept (ADR 0003)
	// 10. a commit's epoch, in the accept's transaction (commits.go)
	expires := recordExpiry(env.ID, now, s.cfg.Skew, s.cfg.DedupWindow)
	ts, dup, deliveries, err := s.accept(ctx, qe, commit, expires, now)
	if errors.Is(err, queue.ErrAccountGone) {
		// The sender or the recipient was deleted after the checks above;
		// nothing was stored. Which one decides the answer.
		if _, serr := s.session(r); serr != nil {
			return serr
		}
		return errAccountDeleted
	}
	if err != nil {
		return err
	}
	if dup {
		s.metrics.duplicates.Inc()
	} else {
		s.metrics.accepted.Inc()
		stored = true
		s.hub.Committed(qe, deliveries)
		if qe.Wake {
			// Push now rather than at the next sweep; never blocks.
			s.pusher.Signal(deviceIDs(deliveries))
		}
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"id": qe.ID, "ts": ts})
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
func (s *Server) unlessKnown(w http.ResponseWriter, r *http.Request, acc devices.Account, env *envelope.Envelope, refusal error) error {
	key := &queue.Envelope{ID: env.ID.String(), FromAccount: acc.ID, ToUsername: env.To, Body: env.Body}
	ts, found, err := queue.Remembered(r.Context(), s.pool, key)
	if !found {
		if err != nil {
			return err
		}
		return refusal
	}
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	if err != nil {
		return err // id_conflict
	}
	s.metrics.duplicates.Inc()
	writeJSON(w, http.StatusAccepted, map[string]any{"id": key.ID, "ts": ts})
	return nil
}

// POST /api/ack
func (s *Server) ack(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	_, dev, err := s.speaker(r, false)
	if err != nil {
		return err
	}
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	data, err := readBody(w, r, maxJSON)
	if err != nil {
		return err
	}
	upTo, ep, err := parseAck(data)
	if err != nil {
		return err
	}
	start := time.Now()
	if ep != "" {
		if err := s.checkAckEpoch(r.Context(), ep); err != nil {
			return err
		}
	}
	if _, err := s.acker.Ack(r.Context(), dev, upTo); err != nil {
		return err
	}
	s.metrics.ack.Observe(time.Since(start).Seconds())
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// checkAckEpoch refuses an ACK whose epoch is not the database's now (ADR
// 0090): its seq numbers were read in another history of the queue, where
// they may name rows the client never saw. The epoch is read fresh for
// every such ACK, so an ACK that crosses a failover or a restore deletes
// nothing; ACKs without an epoch skip the read.
func (s *Server) checkAckEpoch(ctx context.Context, ep string) error {
	p, err := epoch.Read(ctx, s.pool)
	if err != nil {
		return err
	}
	if cur := p.String(); cur != ep {
		ae := codeEpochChanged.errorf("this ACK's epoch is not the relay's epoch %s: the relay's history of this queue went back "+
			"(its database was restored or failed over), so nothing was deleted. Open the stream again, "+
			"recognise by envelope id what is already stored, and tell the user that messages sent meanwhile may be missing", cur)
		ae.extra = map[string]any{"epoch": cur}
		return ae
	}
	return nil
}

func deviceIDs(ds []queue.Delivery) []string {
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i] = d.DeviceID
	}
	return ids
}
