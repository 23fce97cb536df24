package relay

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"relay/canonical"
	"relay/devices"
)

// Who is asking: the Origin allowlist, the session cookie and the device
// named by X-Device (docs/protocol.md, "Origin" and "Session").

// normalizeOrigin reduces an origin to scheme://host[:port] in lower case,
// the form browsers send.
func normalizeOrigin(o string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(o))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("want scheme://host[:port]")
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return "", errors.New("an origin has no path, query or user")
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// checkOrigin enforces the Origin allowlist on a request that changes state
// (docs/protocol.md, "Origin").
func (s *Server) checkOrigin(r *http.Request) error {
	o := r.Header.Get("Origin")
	if o == "" {
		return errOriginRequired
	}
	n, err := normalizeOrigin(o)
	if err != nil || !s.origins[n] {
		return errOriginForbidden
	}
	return nil
}

const sessionCookie = "relay_session"

// session returns the account behind the request's session cookie.
func (s *Server) session(r *http.Request) (devices.Account, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return devices.Account{}, errUnauthenticated
	}
	return s.accounts.Authenticate(r.Context(), c.Value)
}

// speaker checks the session and the device a request speaks as, in one
// query, keeping the documented order: 401 unauthenticated, then 400
// device_required, then 403 device_forbidden. The device id comes from
// X-Device or, for streams, from ?device=.
func (s *Server) speaker(r *http.Request, allowQuery bool) (devices.Account, string, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return devices.Account{}, "", errUnauthenticated
	}
	id := r.Header.Get("X-Device")
	if id == "" && allowQuery {
		id = r.URL.Query().Get("device")
	}
	lookup := id
	if _, err := canonical.ParseULID(id); err != nil {
		lookup = "" // never matches; the session is still checked first
	}
	acc, live, err := s.accounts.AuthenticateDevice(r.Context(), c.Value, lookup)
	switch {
	case err != nil:
		return devices.Account{}, "", err
	case id == "":
		return devices.Account{}, "", errDeviceRequired
	case !live:
		return devices.Account{}, "", errDeviceForbidden
	}
	return acc, id, nil
}

func (s *Server) setSessionCookie(w http.ResponseWriter, sess devices.Session) {
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: sess.Token, Path: "/",
		Expires: sess.Expires, MaxAge: int(devices.SessionTTL / time.Second),
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteStrictMode,
	})
}

func (s *Server) clearSessionCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteStrictMode,
	})
}
