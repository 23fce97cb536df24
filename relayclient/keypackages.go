package relayclient

import (
	"context"
	"encoding/base64"
	"net/http"
)

// KeyPackagesHeld is what a device holds on the relay: its one-time key
// packages, whether it has a last-resort one, and the most it may hold.
type KeyPackagesHeld struct {
	OneTime    int  `json:"oneTime"`
	LastResort bool `json:"lastResort"`
	Max        int  `json:"max"`
}

// ClaimedKeyPackage is one device's key package handed out by a claim.
// KeyPackage is nil when the device published none.
type ClaimedKeyPackage struct {
	Device     string `json:"device"`
	KeyPackage []byte `json:"keyPackage"`
	LastResort bool   `json:"lastResort"`
}

// PublishKeyPackages stores one-time key packages of c.Device and, when
// lastResort is not nil, replaces its last-resort one.
func (c *Client) PublishKeyPackages(ctx context.Context, oneTime [][]byte, lastResort []byte) (KeyPackagesHeld, error) {
	body := map[string]any{}
	if len(oneTime) > 0 {
		enc := make([]string, len(oneTime))
		for i, b := range oneTime {
			enc[i] = base64.StdEncoding.EncodeToString(b)
		}
		body["oneTime"] = enc
	}
	if lastResort != nil {
		body["lastResort"] = base64.StdEncoding.EncodeToString(lastResort)
	}
	var out KeyPackagesHeld
	err := c.Do(ctx, http.MethodPost, "/api/keypackages", body, &out)
	return out, err
}

// KeyPackages tells what c.Device holds, so that it can top up.
func (c *Client) KeyPackages(ctx context.Context) (KeyPackagesHeld, error) {
	var out KeyPackagesHeld
	err := c.Do(ctx, http.MethodGet, "/api/keypackages", nil, &out)
	return out, err
}

// ClaimKeyPackages takes one key package for each live device of username
// (but c.Device), to add them to a group.
func (c *Client) ClaimKeyPackages(ctx context.Context, username string) ([]ClaimedKeyPackage, error) {
	var out struct {
		Devices []ClaimedKeyPackage `json:"devices"`
	}
	err := c.Do(ctx, http.MethodPost, "/api/keypackages/claim", map[string]string{"username": username}, &out)
	return out.Devices, err
}
