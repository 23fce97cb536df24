package relayclient

import (
	"context"
	"encoding/base64"
	"net/http"
)

// GroupInfo is a group's GroupInfo as the relay stores it: its epoch, and
// its bytes as the members encrypted them.
type GroupInfo struct {
	Epoch uint64 `json:"epoch"`
	Info  []byte `json:"info"`
}

func groupInfoPath(group []byte) string {
	return "/api/groups/" + base64.RawURLEncoding.EncodeToString(group) + "/info"
}

// PutGroupInfo stores info, encrypted by the caller, as the GroupInfo of
// group at epoch, speaking as c.Device. A later one already stored is
// stale_epoch (Error.CurrentEpoch), an epoch the group has not reached on
// the relay epoch_ahead (Error.GroupEpoch).
func (c *Client) PutGroupInfo(ctx context.Context, group []byte, epoch uint64, info []byte) error {
	return c.Do(ctx, http.MethodPut, groupInfoPath(group), GroupInfo{Epoch: epoch, Info: info}, nil)
}

// GetGroupInfo reads the GroupInfo stored for group: unknown_group when
// there is none.
func (c *Client) GetGroupInfo(ctx context.Context, group []byte) (GroupInfo, error) {
	var out GroupInfo
	err := c.Do(ctx, http.MethodGet, groupInfoPath(group), nil, &out)
	return out, err
}
