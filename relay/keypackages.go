package relay

import (
	"net/http"

	"relay/canonical"
	"relay/keypackages"
)

// The key package endpoints (docs/protocol.md, "Key packages"; ADR 0099):
// a device publishes MLS key packages, learns how many it has left, and a
// sender claims one for each device of an account it adds to a group. The
// packages are opaque bytes to the relay (package keypackages).

// maxKeyPackagesRequest bounds a publication's body: a hundred packages of
// ciphersuite 2 take about 45 KiB of base64; larger ones are published in
// several requests.
const maxKeyPackagesRequest = 128 << 10

// claimsPerMinute is each account's budget of claims. One claim serves one
// account added to one group; the budget bounds how fast anyone can use up
// another account's one-time packages (the last-resort one still serves
// after that, docs/security.md).
const claimsPerMinute = 60

// keyPackagesHeld is the answer of a publication and of GET
// /api/keypackages.
type keyPackagesHeld struct {
	OneTime    int  `json:"oneTime"`
	LastResort bool `json:"lastResort"`
	Max        int  `json:"max"`
}

func heldJSON(c keypackages.Count) keyPackagesHeld {
	return keyPackagesHeld{OneTime: c.OneTime, LastResort: c.LastResort, Max: keypackages.MaxOneTime}
}

// POST /api/keypackages
func (s *Server) publishKeyPackages(w http.ResponseWriter, r *http.Request, in *checked) error {
	oneTime, lastResort, err := parseKeyPackages(in.body)
	if err != nil {
		return err
	}
	c, err := keypackages.Publish(r.Context(), s.pool, in.device, oneTime, lastResort)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, heldJSON(c))
	return nil
}

// GET /api/keypackages
func (s *Server) keyPackagesHeld(w http.ResponseWriter, r *http.Request, in *checked) error {
	c, err := keypackages.Held(r.Context(), s.pool, in.device)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, heldJSON(c))
	return nil
}

type claimedJSON struct {
	Device     string  `json:"device"`
	KeyPackage *string `json:"keyPackage"` // null: the device published none
	LastResort bool    `json:"lastResort"`
}

// POST /api/keypackages/claim. A claim of an account is allowed to whoever
// may send to it (POST /api/messages): a deleted account answers as a
// send to it does, a disabled one is claimed from as it is sent to.
func (s *Server) claimKeyPackages(w http.ResponseWriter, r *http.Request, in *checked) error {
	username, err := parseClaim(in.body)
	if err != nil {
		return err
	}
	// Every claim past the checks above takes a token, one that names no
	// account too: the budget also bounds probing for names.
	if res, retry := s.claimLimits.reserve(in.account.ID, s.now()); res == nil {
		return retryAfter(codeRateLimited.errorf("too many key package claims from this account; retry in %d s", retry), retry)
	}
	to, err := s.accounts.Lookup(r.Context(), username)
	if err != nil {
		return err // unknown_account, account_deleted
	}
	claimed, err := keypackages.Claim(r.Context(), s.pool, to.ID, in.device)
	if err != nil {
		return err
	}
	out := make([]claimedJSON, 0, len(claimed))
	for _, c := range claimed {
		cj := claimedJSON{Device: c.Device, LastResort: c.LastResort}
		if c.Data != nil {
			kp := b64(c.Data)
			cj.KeyPackage = &kp
		}
		out = append(out, cj)
	}
	writeJSON(w, http.StatusOK, map[string]any{"username": to.Username, "devices": out})
	return nil
}

// parseKeyPackages reads the body of POST /api/keypackages:
// {"oneTime": ["<base64>", …], "lastResort": "<base64>"}, either optional
// but not both, each package standard padded base64 of 1 to
// keypackages.MaxSize bytes, at most keypackages.MaxOneTime one-time ones.
func parseKeyPackages(data []byte) (oneTime [][]byte, lastResort []byte, err error) {
	var body struct {
		OneTime    []string `json:"oneTime"`
		LastResort *string  `json:"lastResort"`
	}
	if err := decodeJSON(data, &body); err != nil {
		return nil, nil, err
	}
	if len(body.OneTime) == 0 && body.LastResort == nil {
		return nil, nil, codeBadKeyPackages.errorf("nothing to publish: give oneTime, lastResort or both")
	}
	if len(body.OneTime) > keypackages.MaxOneTime {
		return nil, nil, codeBadKeyPackages.errorf("at most %d one-time key packages per request", keypackages.MaxOneTime)
	}
	decode := func(s string) ([]byte, bool) {
		if len(s) > (keypackages.MaxSize+2)/3*4 {
			return nil, false // bound the work before decoding
		}
		b, err := canonical.DecodeStdBase64(s)
		return b, err == nil && len(b) > 0 && len(b) <= keypackages.MaxSize
	}
	for i, s := range body.OneTime {
		b, ok := decode(s)
		if !ok {
			return nil, nil, codeBadKeyPackages.errorf("oneTime[%d] is not standard base64 of 1 to %d bytes", i, keypackages.MaxSize)
		}
		oneTime = append(oneTime, b)
	}
	if body.LastResort != nil {
		var ok bool
		if lastResort, ok = decode(*body.LastResort); !ok {
			return nil, nil, codeBadKeyPackages.errorf("lastResort is not standard base64 of 1 to %d bytes", keypackages.MaxSize)
		}
	}
	return oneTime, lastResort, nil
}

// parseClaim reads the body of POST /api/keypackages/claim: {"username":
// "bob"}, the account whose devices' key packages are claimed.
func parseClaim(data []byte) (string, error) {
	var body struct {
		Username *string `json:"username"`
	}
	if err := decodeJSON(data, &body); err != nil {
		return "", err
	}
	if body.Username == nil {
		return "", errBadUsername
	}
	if err := checkUsername(*body.Username); err != nil {
		return "", err
	}
	return *body.Username, nil
}
