package relay

import (
	"errors"
	"math"
	"net/http"

	"relay/canonical"
	"relay/mlsgroup"
)

// The GroupInfo store (docs/protocol.md, "Group info"; ADR 0101): members
// keep their group's latest GroupInfo on the relay, encrypted, so that a
// device that fell behind can rejoin by an external commit. Knowing the
// group id is the capability: the relay keeps no membership to check.

// maxGroupInfoRequest bounds a PUT's body: mlsgroup.MaxInfo bytes are
// 87,384 characters of base64, and the epoch and the JSON around them
// take a few more.
const maxGroupInfoRequest = 96 << 10

// groupInfoPutsPerHour is each account's budget of stores. A member
// stores one after each commit it makes; the budget bounds what one
// account can add to the table before the purge takes it (60 rows of up
// to 64 KiB an hour), and still covers linking a device to 60 chats at
// once, the rest following within the hour.
const groupInfoPutsPerHour = 60

// groupInfoGetsPerMinute is each account's budget of reads: a device that
// fell behind reads one per group it rejoins.
const groupInfoGetsPerMinute = 60

type groupInfoJSON struct {
	Epoch uint64 `json:"epoch"`
	Info  string `json:"info"`
}

// PUT /api/groups/:group/info
func (s *Server) putGroupInfo(w http.ResponseWriter, r *http.Request, in *checked) error {
	id, err := groupID(in)
	if err != nil {
		return err
	}
	epoch, info, err := parseGroupInfo(in.body)
	if err != nil {
		return err
	}
	if res, retry := s.groupInfoPuts.reserve(in.account.ID, s.now()); res == nil {
		return retryAfter(codeRateLimited.errorf("too many GroupInfo stores from this account; retry in %d s", retry), retry)
	}
	err = mlsgroup.PutInfo(r.Context(), s.pool, id, epoch, info, s.now())
	var stale *mlsgroup.InfoStaleError
	var ahead *mlsgroup.EpochAheadError
	switch {
	case errors.As(err, &stale):
		ae := codeStaleEpoch.errorf("a GroupInfo of epoch %d, later than this one, is stored; nothing was changed", stale.Current)
		ae.extra = map[string]any{"currentEpoch": stale.Current}
		return ae
	case errors.As(err, &ahead):
		ae := codeEpochAhead.errorf("the group is at epoch %d on the relay: store a GroupInfo once the commit that makes its epoch is accepted", ahead.Group)
		ae.extra = map[string]any{"groupEpoch": ahead.Group}
		return ae
	case err != nil:
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// GET /api/groups/:group/info
func (s *Server) getGroupInfo(w http.ResponseWriter, r *http.Request, in *checked) error {
	id, err := groupID(in)
	if err != nil {
		return err
	}
	if res, retry := s.groupInfoGets.reserve(in.account.ID, s.now()); res == nil {
		return retryAfter(codeRateLimited.errorf("too many GroupInfo reads from this account; retry in %d s", retry), retry)
	}
	info, err := mlsgroup.GetInfo(r.Context(), s.pool, id)
	if errors.Is(err, mlsgroup.ErrUnknownGroup) {
		return errUnknownGroup
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, groupInfoJSON{Epoch: info.Epoch, Info: b64(info.Data)})
	return nil
}

// groupID reads the group id in the path.
func groupID(in *checked) ([]byte, error) {
	id, err := mlsgroup.ParseID(in.params.ByName("group"))
	if err != nil {
		return nil, codeBadGroup.errorf("%s", err.Error())
	}
	return id, nil
}

// parseGroupInfo reads the body of PUT /api/groups/:group/info:
// {"epoch": n, "info": "<base64>"}, decoded like every JSON body
// (decodeJSON); both members are required, epoch an integer from 0 to
// 2^63-1 (the relay's epochs are PostgreSQL bigints), info standard
// padded base64 of 1 to mlsgroup.MaxInfo bytes.
func parseGroupInfo(data []byte) (epoch uint64, info []byte, err error) {
	var body struct {
		Epoch *uint64 `json:"epoch"`
		Info  *string `json:"info"`
	}
	if err := decodeJSON(data, &body); err != nil {
		return 0, nil, err
	}
	if body.Epoch == nil || body.Info == nil {
		return 0, nil, codeBadGroupInfo.errorf("epoch and info are both required")
	}
	if *body.Epoch > math.MaxInt64 {
		return 0, nil, codeBadGroupInfo.errorf("epoch is at most 2^63-1")
	}
	if len(*body.Info) > (mlsgroup.MaxInfo+2)/3*4 {
		return 0, nil, codeBadGroupInfo.errorf("info is at most %d bytes", mlsgroup.MaxInfo) // before decoding
	}
	info, err = canonical.DecodeStdBase64(*body.Info)
	if err != nil || len(info) == 0 || len(info) > mlsgroup.MaxInfo {
		return 0, nil, codeBadGroupInfo.errorf("info is not standard base64 of 1 to %d bytes", mlsgroup.MaxInfo)
	}
	return *body.Epoch, info, nil
}
