package relay

import (
	"net/http"
	"time"
)

// /api/recovery: the recovery blob, which keeps an account usable when
// its devices go (ADR 0043, docs/security.md, "A person who lost their
// browser"), with a device's linked flag (devices.go) and the replacement
// of the account key (account.go).

// PUT /api/recovery
func (s *Server) putRecovery(w http.ResponseWriter, r *http.Request, in *checked) error {
	blob, err := parseRecoveryBody(in.body)
	if err != nil {
		return err
	}
	if err := s.accounts.SetRecovery(r.Context(), in.account.ID, blob); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// GET /api/recovery. Every fetch after the session check takes a token
// from the account's bucket, one that finds no blob too.
func (s *Server) getRecovery(w http.ResponseWriter, r *http.Request, in *checked) error {
	acc := in.account
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
func (s *Server) deleteRecovery(w http.ResponseWriter, r *http.Request, in *checked) error {
	if err := s.accounts.DeleteRecovery(r.Context(), in.account.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
