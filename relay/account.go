package relay

import (
	"net/http"

	"relay/canonical"
	"relay/devices"
	"relay/lifecycle"
)

// /api/account: the caller's own account, its key replaced or the account
// deleted (package lifecycle).

// transitions are the account's lifecycle changes (package lifecycle)
// made by this instance: its pool, its store's cache and its hub.
func (s *Server) transitions() *lifecycle.Transitions {
	return lifecycle.New(s.pool, s.accounts, s.hub)
}

// DELETE /api/account: the account and everything of it go in one
// transaction (package lifecycle), and every stream of it ends with event:
// deleted, on every instance.
func (s *Server) deleteAccount(w http.ResponseWriter, r *http.Request, in *checked) error {
	acc := in.account
	password, err := parseDeleteAccount(in.body)
	if err != nil {
		return err
	}
	// A stolen session alone must not be enough to delete an account: the
	// password is asked again, under the login throttles, as for a key
	// replacement (ADR 0043).
	if len(password) > devices.MaxPassword {
		return errBadCredentials
	}
	if err := s.throttleAuth(r, acc.Username); err != nil {
		return err
	}
	if err := s.accounts.CheckPassword(r.Context(), acc.ID, password); err != nil {
		return err
	}
	if _, err := s.transitions().Delete(r.Context(), acc.Username, s.cfg.DeletedNameHold); err != nil {
		return err
	}
	s.clearSessionCookie(w)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// PUT /api/account/key: reset and rotation. The key, the revocations,
// their queues, the recovery blob and the speaker's linked flag change in
// one transaction (package lifecycle), or none of them does.
func (s *Server) replaceKey(w http.ResponseWriter, r *http.Request, in *checked) error {
	acc := in.account
	rep, err := parseKeyReplacement(in.body, in.device)
	if err != nil {
		return err
	}
	rep.AccountID = acc.ID
	// Replacing the key locks every other device out: a stolen session
	// alone must not be enough, so the password is checked again, under
	// the login throttles.
	if len(rep.Password) > devices.MaxPassword {
		return errBadCredentials
	}
	if err := s.throttleAuth(r, acc.Username); err != nil {
		return err
	}
	if err := s.accounts.CheckPassword(r.Context(), acc.ID, rep.Password); err != nil {
		return err
	}
	for _, id := range rep.Revoke {
		if _, err := canonical.ParseULID(id); err != nil {
			return errUnknownDevice // never a device; the last check anyway
		}
	}
	if err := s.transitions().ReplaceKey(r.Context(), rep); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"publicKey": b64(rep.PublicKey)})
	return nil
}
