package relay

import (
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"
)

// /api/recovery: the recovery blob, which keeps an account usable when
// its devices go (ADR 0043, docs/security.md, "A person who lost their
// browser"), with a device's linked flag (devices.go) and the replacement
// of the account key (account.go).

// PUT /api/recovery
func (s *Server) putRecovery(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	acc, err := s.session(r)
	if err != nil {
		return err
	}
	data, err := readBody(w, r, maxJSON)
	if err != nil {
		return err
	}
	blob, err := parseRecoveryBody(data)
	if err != nil {
		return err
	}
	if err := s.accounts.SetRecovery(r.Context(), acc.ID, blob); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// GET /api/recovery. Every fetch after the session check takes a token
// from the account's bucket, one that finds no blob too.
func (s *Server) getRecovery(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	acc, err := s.session(r)
	if err != nil {
		return err
	}
	if res, retry := s.recoveryLimits.reserve(acc.ID, s.now()); res == nil {
		return tooManyFetches(retry)
	}
	rec, err := s.accounts.GetRecovery(r.Context(), acc.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"blob": b64(rec.Blob), "updatedAt": rec.UpdatedAt.UTC().Format(time.RFC3339)})
	return nil
}

// DELETE /api/recovery
func (s *Server) deleteRecovery(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	acc, err := s.session(r)
	if err != nil {
		return err
	}
	if err := s.accounts.DeleteRecovery(r.Context(), acc.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
