package relay

import (
	"net/http"
)

// GET /api/contacts: the accounts this one has exchanged envelopes with.

type contactJSON struct {
	Username  string `json:"username"`
	PublicKey string `json:"publicKey"`
	Since     int64  `json:"since"`
}

// GET /api/contacts
func (s *Server) listContacts(w http.ResponseWriter, r *http.Request, in *checked) error {
	list, err := s.accounts.Contacts(r.Context(), in.account.ID)
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
