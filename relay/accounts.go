package relay

import (
	"context"
	"net/http"
	"net/url"

	"github.com/jackc/pgx/v5"

	"relay/canonical"
	"relay/devices"
	"relay/invites"
)

// POST and GET /api/accounts: registering, and finding someone by name.

type credentials struct {
	Username  string `json:"username"`
	Password  string `json:"password"`
	PublicKey string `json:"publicKey"`
	// Invite is the code a relay whose registration is by invite asks
	// for (ADR 0117); ignored by one that is open.
	Invite string `json:"invite"`
}

type accountJSON struct {
	Username  string `json:"username"`
	PublicKey string `json:"publicKey,omitempty"`
}

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
func (s *Server) createAccount(w http.ResponseWriter, r *http.Request, in *checked) error {
	if s.cfg.Registration == RegistrationClosed {
		return errRegistrationClosed
	}
	var c credentials
	if err := decodeJSON(in.body, &c); err != nil {
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
	admit, err := s.admission(c.Invite)
	if err != nil {
		return err
	}
	if err := s.throttleAuth(r, ""); err != nil {
		return err
	}
	sess, err := s.accounts.CreateAccount(r.Context(), c.Username, c.Password, key, admit)
	if err != nil {
		return err
	}
	s.setSessionCookie(w, sess)
	writeJSON(w, http.StatusCreated, accountJSON{Username: c.Username})
	return nil
}

// admission is what a registration must pass inside the transaction that
// creates the account: nothing on an open relay; on one by invite, the
// spending of a use of the code given (ADR 0117). The code's shape is
// checked and its hash taken here, before the throttle: the one query
// comes after it, the same for an unknown, a used-up and an expired code.
func (s *Server) admission(code string) (func(context.Context, pgx.Tx) error, error) {
	if s.cfg.Registration != RegistrationInvite {
		return nil, nil
	}
	if code == "" {
		return nil, errInviteRequired
	}
	h, err := invites.Parse(code)
	if err != nil {
		return nil, errBadInvite
	}
	return func(ctx context.Context, tx pgx.Tx) error { return invites.Spend(ctx, tx, h, s.now()) }, nil
}

// GET /api/accounts/:username, with ?fresh=1 read from the database
// whatever this instance holds in memory: a client whose check of a
// device's certificate failed against the key it was answered asks again
// so, as that answer may be older than a key replacement whose notice has
// not reached this instance yet (ADR 0104).
func (s *Server) getAccount(w http.ResponseWriter, r *http.Request, in *checked) error {
	u := in.params.ByName("username")
	if err := checkUsername(u); err != nil {
		return err
	}
	fresh, err := parseFresh(r.URL.RawQuery)
	if err != nil {
		return err
	}
	lookup := s.accounts.Lookup
	if fresh {
		lookup = s.accounts.LookupFresh
	}
	acc, err := lookup(r.Context(), u)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, accountJSON{Username: acc.Username, PublicKey: b64(acc.PublicKey)})
	return nil
}

// parseFresh reads the key directory's query: fresh=0 or fresh=1, once,
// or nothing. Any other parameter is ignored, as it was before fresh.
func parseFresh(raw string) (bool, error) {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return false, codeBadQuery.errorf("the query is not of the form fresh=1")
	}
	n, err := queryInt(q, "fresh", 0, 0, 1)
	return n == 1, err
}

// GET /api/accounts/:username/devices: the ids of the account's live
// devices, so that a member of a group finds the leaves whose device is
// gone and removes them (ADR 0101). Ids only: no name, key or date. A
// claim of the account's key packages already tells whoever may send to
// it the same ids (docs/security.md).
func (s *Server) getAccountDevices(w http.ResponseWriter, r *http.Request, in *checked) error {
	u := in.params.ByName("username")
	if err := checkUsername(u); err != nil {
		return err
	}
	acc, err := s.accounts.Lookup(r.Context(), u)
	if err != nil {
		return err // unknown_account, account_deleted
	}
	ids, err := s.accounts.DeviceIDs(r.Context(), acc.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, accountDevicesJSON{Username: acc.Username, Devices: ids})
	return nil
}

type accountDevicesJSON struct {
	Username string   `json:"username"`
	Devices  []string `json:"devices"` // never null: [] when none is left
}
