package relay

import (
	"net/http"
	"unicode"
	"unicode/utf8"

	"relay/canonical"
	"relay/devices"
)

// /api/devices: the account's devices, added, listed, renamed or linked,
// and revoked.

type deviceJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	PublicKey  string `json:"publicKey"`
	CreatedAt  int64  `json:"createdAt"`
	LastSeenAt *int64 `json:"lastSeenAt"`
	Linked     bool   `json:"linked"`
}

// POST /api/devices
func (s *Server) addDevice(w http.ResponseWriter, r *http.Request, in *checked) error {
	var body struct {
		PublicKey string `json:"publicKey"`
		Name      string `json:"name"`
	}
	if err := decodeJSON(in.body, &body); err != nil {
		return err
	}
	if !validDeviceName(body.Name) {
		return errBadDeviceName
	}
	key, err := devices.ParsePublicKey(body.PublicKey)
	if err != nil {
		return err
	}
	d, err := s.accounts.AddDevice(r.Context(), in.account.ID, body.Name, key)
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
func (s *Server) listDevices(w http.ResponseWriter, r *http.Request, in *checked) error {
	list, err := s.accounts.Devices(r.Context(), in.account.ID)
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
func (s *Server) revokeDevice(w http.ResponseWriter, r *http.Request, in *checked) error {
	id := in.params.ByName("id")
	if _, err := canonical.ParseULID(id); err != nil {
		return errUnknownDevice
	}
	if err := s.transitions().RevokeDevice(r.Context(), in.account.ID, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// PATCH /api/devices/:id: a new name for any live device of the account;
// "linked": true only from the device itself, which alone knows it holds
// the account key.
func (s *Server) updateDevice(w http.ResponseWriter, r *http.Request, in *checked) error {
	u, err := parseDeviceUpdate(in.body)
	if err != nil {
		return err
	}
	id := in.params.ByName("id")
	// Device ids are canonical ULIDs; anything else is no device, and
	// PostgreSQL would refuse a NUL or invalid UTF-8 with a 500.
	if _, err := canonical.ParseULID(id); err != nil {
		return errUnknownDevice
	}
	if u.Linked {
		var deviceErr error
		switch r.Header.Get("X-Device") {
		case "":
			deviceErr = errDeviceRequired
		case id:
		default:
			deviceErr = errDeviceForbidden
		}
		if deviceErr != nil {
			// 404 comes first in the documented order.
			live, err := s.accounts.IsLiveDevice(r.Context(), in.account.ID, id)
			if err != nil {
				return err
			}
			if !live {
				return errUnknownDevice
			}
			return deviceErr
		}
	}
	if err := s.accounts.UpdateDevice(r.Context(), in.account.ID, id, u.Name, u.Linked); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
