package relay

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/puddle/v2"

	"relay/devices"
	"relay/envelope"
	"relay/invites"
	"relay/keypackages"
	"relay/mlsgroup"
	"relay/queue"
	"relay/reports"
)

// apiError is an error the client sees: an HTTP status, a stable code from
// the table below and a human message. Handlers return errors; writeError
// is the one place that renders them.
type apiError struct {
	status  int
	code    string
	message string
	// extra fields of the JSON answer, such as serverTime for clock_skew.
	extra map[string]any
	// header lines to set, such as Retry-After.
	header map[string]string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

// errorCode is a stable API error code, an index into codes.
type errorCode int

// The codes in the order of docs/protocol.md, "Error codes".
const (
	codeBadJSON errorCode = iota
	codeBadUsername
	codeBadPassword
	codeBadPublicKey
	codeBadInvite
	codeBadDeviceName
	codeBadDeviceUpdate
	codeBadRecoveryBlob
	codeBadRevokeList
	codeBadPushSubscription
	codeBadQuery
	codeBadEnvelope
	codeTooManyRecipients
	codeBadCommit
	codeBadWelcome
	codeBadKeyPackages
	codeBadGroup
	codeBadGroupInfo
	codeBadAttachment
	codeBadAttachmentSize
	codeBadFinish
	codeBadPart
	codeBadReport
	codeSelfReport
	codeClockSkew
	codeDeviceRequired
	codeBadAck
	codeBadLastEventID
	codeUnauthenticated
	codeBadCredentials
	codeDeviceForbidden
	codeOriginRequired
	codeOriginForbidden
	codeAccountDisabled
	codeRegistrationClosed
	codeInviteRequired
	codeInvalidInvite
	codeAttachmentQuota
	codeUnknownAccount
	codeUnknownRecipient
	codeUnknownDevice
	codeUnknownGroup
	codeUnknownAttachment
	codeNoRecovery
	codePushDisabled
	codeNotFound
	codeMethodNotAllowed
	codeRequestTimeout
	codeUsernameTaken
	codeUsernameHeld
	codeTooManyDevices
	codeCursorAhead
	codeEpochChanged
	codeIDConflict
	codeReportConflict
	codeStaleEpoch
	codeEpochAhead
	codeTooManyKeyPackages
	codeAttachmentIncomplete
	codeAttachmentFinished
	codeAccountDeleted
	codeTooLarge
	codeAttachmentTooLarge
	codeBadRange
	codeTooManyAttempts
	codeRateLimited
	codeInternal
	codeUnavailable
	codeNotReady
	codeShuttingDown
	numCodes
)

// codes is the one table of API errors. The name is what clients switch on,
// so it never changes meaning; docs/protocol.md lists every name with the
// same status (TestErrorTableMatchesProtocol). The message is the default;
// the builders below give a more precise one where they know more.
var codes = [numCodes]struct {
	name    string
	status  int
	message string
}{
	codeBadJSON:              {"bad_json", http.StatusBadRequest, "the request body is not valid JSON (malformed, invalid UTF-8, or a name given twice)"},
	codeBadUsername:          {"bad_username", http.StatusBadRequest, "a username is 3 to 32 characters from a-z, 0-9 and _"},
	codeBadPassword:          {"bad_password", http.StatusBadRequest, fmt.Sprintf("a password is %d to %d bytes long", devices.MinPassword, devices.MaxPassword)},
	codeBadPublicKey:         {"bad_public_key", http.StatusBadRequest, "the public key is not standard base64 of an uncompressed P-256 point"},
	codeBadInvite:            {"bad_invite", http.StatusBadRequest, "an invite code is 20 letters and digits, such as 7K2QD-9XW4M-RT8VB-3HNPF; case, dashes and spaces do not matter"},
	codeBadDeviceName:        {"bad_device_name", http.StatusBadRequest, fmt.Sprintf("a device name is 1 to %d bytes of printable UTF-8", devices.MaxDeviceName)},
	codeBadDeviceUpdate:      {"bad_device_update", http.StatusBadRequest, "a device update is {\"name\": \"…\"} and/or {\"linked\": true}, nothing else"},
	codeBadRecoveryBlob:      {"bad_recovery_blob", http.StatusBadRequest, fmt.Sprintf("a recovery blob is standard base64 of 1 to %d bytes", devices.MaxRecoveryBlob)},
	codeBadRevokeList:        {"bad_revoke_list", http.StatusBadRequest, fmt.Sprintf("revoke lists at most %d device ids, and not the device speaking", devices.MaxRevoke)},
	codeBadPushSubscription:  {"bad_push_subscription", http.StatusBadRequest, "a push subscription is {\"endpoint\": an https URL, \"p256dh\" and \"auth\": unpadded base64url keys}"},
	codeBadQuery:             {"bad_query", http.StatusBadRequest, "the query is not one this endpoint takes; see docs/protocol.md"},
	codeBadEnvelope:          {"bad_envelope", http.StatusBadRequest, "the envelope is not of the shape POST /api/messages takes"},
	codeTooManyRecipients:    {"too_many_recipients", http.StatusBadRequest, "a list in \"to\" names more usernames than this relay takes in one envelope"},
	codeBadCommit:            {"bad_commit", http.StatusBadRequest, "the body of a commit is one MLS message (RFC 9420): version mls10, a public or private message whose content type is commit"},
	codeBadWelcome:           {"bad_welcome", http.StatusBadRequest, "the body of a welcome is one MLS message (RFC 9420) of version mls10 and wire format mls_welcome"},
	codeBadKeyPackages:       {"bad_key_packages", http.StatusBadRequest, fmt.Sprintf("key packages are standard base64 of 1 to %d bytes each, at most %d one-time ones per request", keypackages.MaxSize, keypackages.MaxOneTime)},
	codeBadGroup:             {"bad_group", http.StatusBadRequest, "a group id is 43 characters of unpadded base64url encoding 32 bytes"},
	codeBadGroupInfo:         {"bad_group_info", http.StatusBadRequest, fmt.Sprintf("a GroupInfo is {\"epoch\": an integer from 0 to 2^63-1, \"info\": standard base64 of 1 to %d bytes}", mlsgroup.MaxInfo)},
	codeBadAttachment:        {"bad_attachment", http.StatusBadRequest, "an attachment id is 22 characters of unpadded base64url encoding 16 bytes"},
	codeBadAttachmentSize:    {"bad_attachment_size", http.StatusBadRequest, "an attachment is started with {\"size\": its length in bytes, an integer of 1 or more}"},
	codeBadFinish:            {"bad_finish", http.StatusBadRequest, "an attachment is finished with no body, {\"to\": [usernames]} or {\"device\": the id of another device of your account}"},
	codeBadPart:              {"bad_part", http.StatusBadRequest, "a part is given by its index, a plain decimal number from 0, and is partSize bytes long but for the last, which holds the rest"},
	codeBadReport:            {"bad_report", http.StatusBadRequest, "the report is not of the shape POST /api/reports takes; see docs/protocol.md"},
	codeSelfReport:           {"self_report", http.StatusBadRequest, "a report is about another account than your own: \"about\" names you"},
	codeClockSkew:            {"clock_skew", http.StatusBadRequest, "the time in the envelope id is too far from the server's time; check the device clock"},
	codeDeviceRequired:       {"device_required", http.StatusBadRequest, "this request speaks as a device: send its id in the X-Device header"},
	codeBadAck:               {"bad_ack", http.StatusBadRequest, "upTo must be a seq this device was given"},
	codeBadLastEventID:       {"bad_last_event_id", http.StatusBadRequest, "Last-Event-ID must be a seq in plain decimal; drop it to replay the whole queue"},
	codeUnauthenticated:      {"unauthenticated", http.StatusUnauthorized, "log in first: this request needs a valid relay_session cookie"},
	codeBadCredentials:       {"bad_credentials", http.StatusUnauthorized, "unknown username or wrong password"},
	codeDeviceForbidden:      {"device_forbidden", http.StatusForbidden, "the X-Device id is unknown, revoked or not a device of your account"},
	codeOriginRequired:       {"origin_required", http.StatusForbidden, "this request must carry an Origin header"},
	codeOriginForbidden:      {"origin_forbidden", http.StatusForbidden, "requests from this Origin are not allowed"},
	codeAccountDisabled:      {"account_disabled", http.StatusForbidden, "the relay's operator disabled this account; nothing can be sent or received until they enable it again: ask them"},
	codeRegistrationClosed:   {"registration_closed", http.StatusForbidden, "this relay takes no new accounts: its operator closed registration; an existing account can still log in"},
	codeInviteRequired:       {"invite_required", http.StatusForbidden, "this relay creates accounts only with an invite code from its operator: send it as \"invite\""},
	codeInvalidInvite:        {"invalid_invite", http.StatusForbidden, "this invite code is unknown, used up or expired: ask the relay's operator for a new one"},
	codeAttachmentQuota:      {"attachment_quota_exceeded", http.StatusForbidden, "this account stores as many bytes of attachments as the relay allows: delete some, or wait for them to expire"},
	codeUnknownAccount:       {"unknown_account", http.StatusNotFound, "no account has this username"},
	codeUnknownRecipient:     {"unknown_recipient", http.StatusNotFound, "no account has the username in \"to\""},
	codeUnknownDevice:        {"unknown_device", http.StatusNotFound, "your account has no live device with this id"},
	codeUnknownGroup:         {"unknown_group", http.StatusNotFound, "no GroupInfo is stored for this group"},
	codeUnknownAttachment:    {"unknown_attachment", http.StatusNotFound, "no attachment has this id, or it expired or was deleted, or it is not yours to change"},
	codeNoRecovery:           {"no_recovery", http.StatusNotFound, "this account has no recovery blob"},
	codePushDisabled:         {"push_disabled", http.StatusNotFound, "this relay sends no push notifications (its operator has not set --push-contact)"},
	codeNotFound:             {"not_found", http.StatusNotFound, "no such endpoint"},
	codeMethodNotAllowed:     {"method_not_allowed", http.StatusMethodNotAllowed, "this endpoint does not take this method"},
	codeRequestTimeout:       {"request_timeout", http.StatusRequestTimeout, "the request body did not arrive in time; send it again"},
	codeUsernameTaken:        {"username_taken", http.StatusConflict, "this username is already registered; choose another"},
	codeUsernameHeld:         {"username_held", http.StatusConflict, "this username belonged to an account that was deleted, and is held back for a while so that nobody takes it over; choose another"},
	codeTooManyDevices:       {"too_many_devices", http.StatusConflict, "this account already has the most devices allowed; revoke one it no longer uses first"},
	codeCursorAhead:          {"cursor_ahead", http.StatusConflict, "the cursor is beyond the last seq this relay has given this device"},
	codeEpochChanged:         {"epoch_changed", http.StatusConflict, "the ACK names another history of this device's queue than the relay's (its database was restored or failed over); nothing was deleted: open the stream again and resynchronise"},
	codeIDConflict:           {"id_conflict", http.StatusConflict, "this envelope id was already used for a different envelope; send it with a new id"},
	codeReportConflict:       {"report_conflict", http.StatusConflict, "this report id was already used for a different report: send the new report with a new id"},
	codeStaleEpoch:           {"stale_epoch", http.StatusConflict, "this commit's epoch is not the group's current epoch, given as currentEpoch: apply the commits of the group you have not applied yet and commit again"},
	codeEpochAhead:           {"epoch_ahead", http.StatusConflict, "this GroupInfo's epoch is past the group's epoch on the relay, given as groupEpoch: store it once its commit is accepted"},
	codeTooManyKeyPackages:   {"too_many_key_packages", http.StatusConflict, fmt.Sprintf("a device holds at most %d one-time key packages; publish fewer", keypackages.MaxOneTime)},
	codeAttachmentIncomplete: {"attachment_incomplete", http.StatusConflict, "parts of this attachment have not arrived; they are given as missing"},
	codeAttachmentFinished:   {"attachment_finished", http.StatusConflict, "this attachment is finished: its parts cannot change"},
	codeAccountDeleted:       {"account_deleted", http.StatusGone, "this account was deleted"},
	codeTooLarge:             {"too_large", http.StatusRequestEntityTooLarge, "the request body is too large"},
	codeAttachmentTooLarge:   {"attachment_too_large", http.StatusRequestEntityTooLarge, "the attachment is larger than this relay stores"},
	codeBadRange:             {"bad_range", http.StatusRequestedRangeNotSatisfiable, "the Range header is not one range of bytes within the attachment"},
	codeTooManyAttempts:      {"too_many_attempts", http.StatusTooManyRequests, "too many login or registration attempts; retry later"},
	codeRateLimited:          {"rate_limited", http.StatusTooManyRequests, "too many envelopes from this account; retry later"},
	codeInternal:             {"internal", http.StatusInternalServerError, "the relay failed to handle this request"},
	codeUnavailable:          {"unavailable", http.StatusServiceUnavailable, "the relay cannot reach its database right now; retry in a few seconds (a resent envelope keeps its id)"},
	codeNotReady:             {"not_ready", http.StatusServiceUnavailable, "this instance should not take traffic yet"},
	codeShuttingDown:         {"shutting_down", http.StatusServiceUnavailable, "this relay instance is shutting down; open the stream again (any instance will do)"},
}

// err is c's error with the default message.
func (c errorCode) err() *apiError {
	e := codes[c]
	return &apiError{status: e.status, code: e.name, message: e.message}
}

// errorf is c's error with a message that says what exactly was wrong. The
// message must not echo client bytes.
func (c errorCode) errorf(format string, args ...any) *apiError {
	ae := c.err()
	ae.message = fmt.Sprintf(format, args...)
	return ae
}

// The codes whose message never varies, as the errors handlers return.
var (
	errBadJSON            = codeBadJSON.err()
	errBadUsername        = codeBadUsername.err()
	errBadPassword        = codeBadPassword.err()
	errBadDeviceName      = codeBadDeviceName.err()
	errBadRecoveryBlob    = codeBadRecoveryBlob.err()
	errNoRecovery         = codeNoRecovery.err()
	errPushDisabled       = codePushDisabled.err()
	errDeviceRequired     = codeDeviceRequired.err()
	errUnauthenticated    = codeUnauthenticated.err()
	errBadCredentials     = codeBadCredentials.err()
	errDeviceForbidden    = codeDeviceForbidden.err()
	errOriginRequired     = codeOriginRequired.err()
	errOriginForbidden    = codeOriginForbidden.err()
	errUnknownAccount     = codeUnknownAccount.err()
	errUnknownRecipient   = codeUnknownRecipient.err()
	errUnknownDevice      = codeUnknownDevice.err()
	errUnknownGroup       = codeUnknownGroup.err()
	errUnknownAttachment  = codeUnknownAttachment.err()
	errBadAttachment      = codeBadAttachment.err()
	errNotFound           = codeNotFound.err()
	errMethodNotAllowed   = codeMethodNotAllowed.err()
	errRequestTimeout     = codeRequestTimeout.err()
	errUsernameTaken      = codeUsernameTaken.err()
	errUsernameHeld       = codeUsernameHeld.err()
	errAccountDeleted     = codeAccountDeleted.err()
	errAccountDisabled    = codeAccountDisabled.err()
	errBadInvite          = codeBadInvite.err()
	errRegistrationClosed = codeRegistrationClosed.err()
	errInviteRequired     = codeInviteRequired.err()
	errInvalidInvite      = codeInvalidInvite.err()
	errIDConflict         = codeIDConflict.err()
	errUnavailable        = codeUnavailable.err()
	errShuttingDown       = codeShuttingDown.err()
)

// The builders of the codes that carry a parameter.

// clockSkew carries the server's time, so the client can correct its clock
// (ADR 0011).
func clockSkew(skew *envelope.SkewError) *apiError {
	ae := codeClockSkew.errorf("%s", skew.Error())
	ae.extra = map[string]any{"serverTime": skew.ServerTime.UnixMilli()}
	return ae
}

// unknownRecipient names the first username of a "to" list that is no
// account's (ADR 0106); the message does not, as no message echoes a
// client's bytes.
func unknownRecipient(username string) *apiError {
	ae := codeUnknownRecipient.errorf("a username in the list in \"to\", given as username, is no account's; nothing was sent")
	ae.extra = map[string]any{"username": username}
	return ae
}

func tooManyDevices(max int) *apiError {
	return codeTooManyDevices.errorf("this account already has %d devices, the most allowed; revoke one it no longer uses first", max)
}

// tooLarge is a request body over limit bytes.
func tooLarge(limit int64) *apiError {
	return codeTooLarge.errorf("the request body is larger than %d bytes", limit)
}

func tooManyAttempts(retryAfterSeconds int) *apiError {
	return retryAfter(codeTooManyAttempts.errorf("too many login or registration attempts; retry in %d s", retryAfterSeconds), retryAfterSeconds)
}

// tooManyFetches refuses a fetch of the recovery blob over the account's
// budget (docs/protocol.md, "GET /api/recovery").
func tooManyFetches(retryAfterSeconds int) *apiError {
	return retryAfter(codeTooManyAttempts.errorf("too many fetches of this account's recovery blob; retry in %d s", retryAfterSeconds), retryAfterSeconds)
}

func rateLimited(retryAfterSeconds int) *apiError {
	return retryAfter(codeRateLimited.errorf("too many envelopes from this account; retry in %d s", retryAfterSeconds), retryAfterSeconds)
}

func retryAfter(ae *apiError, seconds int) *apiError {
	ae.header = map[string]string{"Retry-After": strconv.Itoa(seconds)}
	return ae
}

// internalError names the request id, under which the operator finds the
// cause in the log; the cause itself stays there.
func internalError(requestID string) *apiError {
	return codeInternal.errorf("the relay failed to handle this request; the operator can find it in the log under request id %s", requestID)
}

// toAPIError maps an error from any layer to what the client sees. Errors it
// does not know become a generic 500 with the request id, so nothing internal
// (SQL, stack traces) reaches the client.
func toAPIError(err error, requestID string) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var skew *envelope.SkewError
	var tooMany *devices.TooManyDevicesError
	var tooManyKP *keypackages.TooManyError
	var badReport *reports.FieldError
	switch {
	case errors.As(err, &skew):
		return clockSkew(skew)
	case errors.Is(err, envelope.ErrTooLarge):
		return codeTooLarge.errorf("%s", err.Error())
	case errors.Is(err, envelope.ErrTooManyRecipients):
		return codeTooManyRecipients.errorf("%s", err.Error())
	case errors.Is(err, envelope.ErrBadEnvelope):
		return codeBadEnvelope.errorf("%s", err.Error())
	case errors.Is(err, devices.ErrBadPublicKey):
		return codeBadPublicKey.errorf("%s", err.Error())
	case errors.Is(err, devices.ErrUsernameTaken):
		return errUsernameTaken
	case errors.Is(err, devices.ErrUsernameHeld):
		return errUsernameHeld
	case errors.Is(err, devices.ErrAccountDeleted):
		return errAccountDeleted
	case errors.Is(err, devices.ErrAccountDisabled):
		return errAccountDisabled
	case errors.Is(err, invites.ErrInvalid):
		return errInvalidInvite
	case errors.Is(err, devices.ErrBadCredentials):
		return errBadCredentials
	case errors.Is(err, devices.ErrUnauthenticated):
		return errUnauthenticated
	case errors.Is(err, devices.ErrUnknownAccount):
		return errUnknownAccount
	case errors.Is(err, devices.ErrDeviceForbidden):
		return errDeviceForbidden
	case errors.Is(err, devices.ErrUnknownDevice):
		return errUnknownDevice
	case errors.Is(err, devices.ErrNoRecovery):
		return errNoRecovery
	case errors.As(err, &tooMany):
		return tooManyDevices(tooMany.Max)
	case errors.As(err, &tooManyKP):
		ae := codeTooManyKeyPackages.errorf("this device holds %d one-time key packages, and may hold at most %d; publish fewer", tooManyKP.Have, keypackages.MaxOneTime)
		ae.extra = map[string]any{"oneTime": tooManyKP.Have, "max": keypackages.MaxOneTime}
		return ae
	case errors.Is(err, keypackages.ErrDeviceGone):
		return errDeviceForbidden
	case errors.Is(err, queue.ErrIDConflict):
		return errIDConflict
	case errors.Is(err, queue.ErrBadAck):
		return codeBadAck.errorf("%s", err.Error())
	case errors.As(err, &badReport):
		return codeBadReport.errorf("%s", badReport.Error())
	case errors.Is(err, reports.ErrNotJSON):
		return codeBadJSON.errorf("%s", err.Error())
	case errors.Is(err, reports.ErrConflict):
		return codeReportConflict.err()
	}
	if dbUnavailable(err) {
		return errUnavailable
	}
	return internalError(requestID)
}

// dbUnavailable reports whether err says the database cannot be reached (as
// opposed to a query that failed): the client should retry later.
func dbUnavailable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08: connection exception; 57P01-03: shutting down or
		// starting up.
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	}
	var connErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connErr) || errors.As(err, &netErr) || pgconn.Timeout(err) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		// a connection pgx closed after an earlier failure, such as the
		// rest of a transaction whose backend was terminated
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, net.ErrClosed) ||
		// the pool is closed: this instance is shutting down, another
		// can take the retry
		errors.Is(err, puddle.ErrClosedPool)
}
