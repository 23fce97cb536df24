package relay

import (
	"net/http"

	"relay/canonical"
	"relay/devices"
)

// /api/sessions: logging in and out.

// POST /api/sessions
func (s *Server) login(w http.ResponseWriter, r *http.Request, in *checked) error {
	var c credentials
	if err := decodeJSON(in.body, &c); err != nil {
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
func (s *Server) logout(w http.ResponseWriter, r *http.Request, _ *checked) error {
	c, _ := r.Cookie(sessionCookie)
	if err := s.accounts.Logout(r.Context(), c.Value); err != nil {
		return err
	}
	s.clearSessionCookie(w)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
