package relay

import (
	"fmt"
	"net/http"
)

// Who may register (ADR 0117), and GET /api/registration, which tells
// clients before they ask.

// Registration is who may create an account on this relay.
type Registration string

const (
	// RegistrationOpen: anyone may, as before there was a choice.
	RegistrationOpen Registration = "open"
	// RegistrationInvite: whoever gives an invite code that `relay admin
	// invites create` made, with a use left.
	RegistrationInvite Registration = "invite"
	// RegistrationClosed: no one. Existing accounts log in, add and link
	// devices, restore and reset their keys as before: none of that
	// creates an account.
	RegistrationClosed Registration = "closed"
)

// ParseRegistration reads a mode as the flag --registration takes it.
func ParseRegistration(s string) (Registration, error) {
	switch r := Registration(s); r {
	case RegistrationOpen, RegistrationInvite, RegistrationClosed:
		return r, nil
	}
	return "", fmt.Errorf("registration is open, invite or closed, not %q", s)
}

type registrationJSON struct {
	Mode Registration `json:"mode"`
}

// GET /api/registration: public, so that a client shows the invite
// field, or says that registration is closed, before anyone types.
func (s *Server) getRegistration(w http.ResponseWriter, _ *http.Request, _ *checked) error {
	writeJSON(w, http.StatusOK, registrationJSON{Mode: s.cfg.Registration})
	return nil
}
