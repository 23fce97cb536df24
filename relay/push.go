package relay

import (
	"errors"
	"net/http"
	"strings"

	"relay/push"
)

// maxPushBody bounds the body of PUT /api/push: an endpoint of at most
// push.MaxEndpoint bytes, two keys and the JSON around them.
const maxPushBody = 4 << 10

// checkPushContact checks the VAPID subject (RFC 8292, section 2.1): a
// mailto: or https: URI, or nothing (push off).
func checkPushContact(c string) error {
	if c == "" {
		return nil
	}
	if after, ok := strings.CutPrefix(c, "mailto:"); ok && after != "" {
		return nil
	}
	if after, ok := strings.CutPrefix(c, "https://"); ok && after != "" {
		return nil
	}
	return errPushContact
}

var errPushContact = errors.New("relay: the push contact must be a mailto: or https:// URI")

// GET /api/push/key: the relay's VAPID public key, a browser's
// applicationServerKey.
func (s *Server) pushKey(w http.ResponseWriter, r *http.Request, _ *checked) error {
	key, err := s.pusher.PublicKey(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"publicKey": key})
	return nil
}

// GET /api/push: the device's subscription's endpoint, or null.
func (s *Server) getPush(w http.ResponseWriter, r *http.Request, in *checked) error {
	sub, ok, err := push.Get(r.Context(), s.pool, in.device)
	if err != nil {
		return err
	}
	var endpoint *string
	if ok {
		endpoint = &sub.Endpoint
	}
	writeJSON(w, http.StatusOK, map[string]*string{"endpoint": endpoint})
	return nil
}

// PUT /api/push: the device's subscription, replacing the one it had.
func (s *Server) putPush(w http.ResponseWriter, r *http.Request, in *checked) error {
	sub, err := parsePushSubscription(in.body, s.cfg.PushAllowPrivate)
	if err != nil {
		return err
	}
	if err := push.Save(r.Context(), s.pool, in.device, sub); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// DELETE /api/push: the device gets no more pushes. Also when push is off,
// so that a client can always clean up.
func (s *Server) deletePush(w http.ResponseWriter, r *http.Request, in *checked) error {
	if err := push.Delete(r.Context(), s.pool, in.device); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
