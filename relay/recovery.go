package relay

import (
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"relay/canonical"
	"relay/devices"
)

// The endpoints that keep an account usable when devices go (ADR 0043,
// docs/security.md, "A person who lost their browser"): the recovery blob,
// a device's name and linked flag, and the replacement of the account key.

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

// PATCH /api/devices/:id: a new name for any live device of the account;
// "linked": true only from the device itself, which alone knows it holds
// the account key.
func (s *Server) updateDevice(w http.ResponseWriter, r *http.Request, p httprouter.Params) error {
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
	u, err := parseDeviceUpdate(data)
	if err != nil {
		return err
	}
	id := p.ByName("id")
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
			live, err := s.accounts.IsLiveDevice(r.Context(), acc.ID, id)
			if err != nil {
				return err
			}
			if !live {
				return errUnknownDevice
			}
			return deviceErr
		}
	}
	if err := s.accounts.UpdateDevice(r.Context(), acc.ID, id, u.Name, u.Linked); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// PUT /api/account/key: reset and rotation. The key, the revocations,
// their queues, the recovery blob and the speaker's linked flag change in
// one transaction (package lifecycle), or none of them does.
func (s *Server) replaceKey(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	acc, dev, err := s.speaker(r, false)
	if err != nil {
		return err
	}
	data, err := readBody(w, r, maxJSON)
	if err != nil {
		return err
	}
	rep, err := parseKeyReplacement(data, dev)
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
