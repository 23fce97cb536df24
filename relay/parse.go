package relay

import (
	"encoding/json"
	"slices"
	"strconv"

	"relay/canonical"
	"relay/devices"
	"relay/push"
)

// parseLastEventID reads the Last-Event-ID header of a stream request: a seq
// in plain decimal, 0 when absent. A seq beyond head is no error: the
// device's history went back under its client (a restore, a failover: ADR
// 0086), so ahead is true and the stream replays the whole queue.
func parseLastEventID(v string, head int64) (last int64, ahead bool, err error) {
	if v == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != v {
		return 0, false, codeBadLastEventID.errorf(
			"Last-Event-ID must be a seq this device has received, in plain decimal; drop it to replay the whole queue")
	}
	if n > head {
		return 0, true, nil
	}
	return n, false, nil
}

// maxAckEpoch bounds the epoch an ACK names. The relay's are 16 hex
// digits; clients compare them for equality only, so the relay does too,
// and any other string is simply not the current epoch.
const maxAckEpoch = 64

// parseAck reads the body of POST /api/ack: {"upTo": seq, "epoch": "…"},
// decoded like every JSON body (decodeJSON). epoch is optional ("" when
// absent): the history the client's cursor belongs to (ADR 0090). The
// range check against the device's head is queue.Ack's, the epoch's the
// handler's.
func parseAck(data []byte) (upTo int64, epoch string, err error) {
	var body struct {
		UpTo  *int64  `json:"upTo"`
		Epoch *string `json:"epoch"`
	}
	if err := decodeJSON(data, &body); err != nil {
		return 0, "", err
	}
	if body.UpTo == nil {
		return 0, "", codeBadAck.errorf("upTo (the last seq to delete) is required")
	}
	if *body.UpTo < 0 {
		return 0, "", codeBadAck.errorf("upTo must not be negative")
	}
	if body.Epoch != nil {
		if *body.Epoch == "" || len(*body.Epoch) > maxAckEpoch {
			return 0, "", codeBadAck.errorf("epoch, when given, is the one the stream or GET /api/queue told (1 to %d bytes)", maxAckEpoch)
		}
		epoch = *body.Epoch
	}
	return *body.UpTo, epoch, nil
}

// parseRecoveryBlob decodes a recovery blob from the wire: standard padded
// base64 of 1 to devices.MaxRecoveryBlob bytes, else bad_recovery_blob. The
// relay looks no further: the blob is opaque to it.
func parseRecoveryBlob(s string) ([]byte, error) {
	b, err := canonical.DecodeStdBase64(s)
	if err != nil || len(b) == 0 || len(b) > devices.MaxRecoveryBlob {
		return nil, errBadRecoveryBlob
	}
	return b, nil
}

// parseRecoveryBody reads the body of PUT /api/recovery: {"blob": "<base64>"}.
func parseRecoveryBody(data []byte) ([]byte, error) {
	var body struct {
		Blob *string `json:"blob"`
	}
	if err := decodeJSON(data, &body); err != nil {
		return nil, err
	}
	if body.Blob == nil {
		return nil, errBadRecoveryBlob
	}
	return parseRecoveryBlob(*body.Blob)
}

// deviceUpdate is the body of PATCH /api/devices/:id.
type deviceUpdate struct {
	Name   *string // nil: keep the name
	Linked bool    // the device says it holds the account key
}

// parseDeviceUpdate reads the body of PATCH /api/devices/:id. Unlike other
// bodies, a member it does not know is refused (bad_device_update): a
// client that sends one expects a change this relay would not make.
func parseDeviceUpdate(data []byte) (deviceUpdate, error) {
	var members map[string]json.RawMessage
	if err := decodeJSON(data, &members); err != nil {
		return deviceUpdate{}, err
	}
	var body struct {
		Name   *string `json:"name"`
		Linked *bool   `json:"linked"`
	}
	if err := decodeJSON(data, &body); err != nil {
		return deviceUpdate{}, err
	}
	if len(members) == 0 {
		return deviceUpdate{}, codeBadDeviceUpdate.errorf("the update is empty: give \"name\" or \"linked\": true")
	}
	for k := range members {
		if k != "name" && k != "linked" {
			return deviceUpdate{}, codeBadDeviceUpdate.errorf("a device update has only \"name\" and \"linked\"")
		}
	}
	if _, ok := members["linked"]; ok && (body.Linked == nil || !*body.Linked) {
		return deviceUpdate{}, codeBadDeviceUpdate.errorf("\"linked\" can only be true: a device stops holding the account key by being revoked")
	}
	if _, ok := members["name"]; ok && body.Name == nil {
		return deviceUpdate{}, codeBadDeviceUpdate.errorf("\"name\" must be a string")
	}
	if body.Name != nil && !validDeviceName(*body.Name) {
		return deviceUpdate{}, errBadDeviceName
	}
	return deviceUpdate{Name: body.Name, Linked: body.Linked != nil}, nil
}

// parseKeyReplacement reads the body of PUT /api/account/key, spoken by
// device speaker, in the documented order: bad_public_key, bad_revoke_list,
// bad_recovery_blob. Whether the listed devices exist is the database's
// to say, in the transaction.
func parseKeyReplacement(data []byte, speaker string) (devices.KeyReplacement, error) {
	var body struct {
		PublicKey string   `json:"publicKey"`
		Revoke    []string `json:"revoke"`
		Recovery  *string  `json:"recovery"`
		Password  string   `json:"password"`
	}
	if err := decodeJSON(data, &body); err != nil {
		return devices.KeyReplacement{}, err
	}
	key, err := devices.ParsePublicKey(body.PublicKey)
	if err != nil {
		return devices.KeyReplacement{}, codeBadPublicKey.errorf("%s", err.Error())
	}
	revoke := make([]string, 0, len(body.Revoke))
	for _, id := range body.Revoke {
		if id == speaker {
			return devices.KeyReplacement{}, codeBadRevokeList.errorf("the device speaking cannot revoke itself while it replaces the key")
		}
		if !slices.Contains(revoke, id) {
			revoke = append(revoke, id)
		}
		if len(revoke) > devices.MaxRevoke {
			return devices.KeyReplacement{}, codeBadRevokeList.errorf("revoke lists more than %d devices", devices.MaxRevoke)
		}
	}
	var recovery []byte
	if body.Recovery != nil {
		if recovery, err = parseRecoveryBlob(*body.Recovery); err != nil {
			return devices.KeyReplacement{}, err
		}
	}
	return devices.KeyReplacement{Speaker: speaker, PublicKey: key, Revoke: revoke, Recovery: recovery, Password: body.Password}, nil
}

// parseDeleteAccount reads DELETE /api/account's body, {"password": "…"},
// and returns the password (docs/protocol.md, "DELETE /api/account"). A
// body without one is a wrong password, as for PUT /api/account/key.
func parseDeleteAccount(data []byte) (string, error) {
	var body struct {
		Password string `json:"password"`
	}
	if err := decodeJSON(data, &body); err != nil {
		return "", err
	}
	return body.Password, nil
}

// parsePushSubscription reads the body of PUT /api/push: {"endpoint",
// "p256dh", "auth"}, as strings (docs/protocol.md, "PUT /api/push"). An
// endpoint whose host is a non-public address literal is refused unless
// allowPrivate.
func parsePushSubscription(data []byte, allowPrivate bool) (push.Subscription, error) {
	var body struct {
		Endpoint *string `json:"endpoint"`
		P256dh   *string `json:"p256dh"`
		Auth     *string `json:"auth"`
	}
	if err := decodeJSON(data, &body); err != nil {
		return push.Subscription{}, err
	}
	if body.Endpoint == nil || body.P256dh == nil || body.Auth == nil {
		return push.Subscription{}, codeBadPushSubscription.errorf("endpoint, p256dh and auth are all required")
	}
	sub, err := push.ParseSubscription(*body.Endpoint, *body.P256dh, *body.Auth, allowPrivate)
	if err != nil {
		return push.Subscription{}, codeBadPushSubscription.errorf("%s", err.Error())
	}
	return sub, nil
}
