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

	"relay/devices"
	"relay/envelope"
	"relay/queue"
)

// apiError is an error the client sees: an HTTP status, a stable code from
// the table in docs/protocol.md and a human message. Handlers return errors;
// writeError is the one place that renders them.
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

func newError(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

// The stable codes. docs/protocol.md lists each with its status and meaning.
var (
	errUnauthenticated  = newError(http.StatusUnauthorized, "unauthenticated", "log in first: this request needs a valid relay_session cookie")
	errBadCredentials   = newError(http.StatusUnauthorized, "bad_credentials", "unknown username or wrong password")
	errUsernameTaken    = newError(http.StatusConflict, "username_taken", "this username is already registered; choose another")
	errUnknownAccount   = newError(http.StatusNotFound, "unknown_account", "no account has this username")
	errUnknownRecipient = newError(http.StatusNotFound, "unknown_recipient", "no account has the username in \"to\"")
	errUnknownDevice    = newError(http.StatusNotFound, "unknown_device", "your account has no live device with this id")
	errDeviceRequired   = newError(http.StatusBadRequest, "device_required", "this request speaks as a device: send its id in the X-Device header")
	errDeviceForbidden  = newError(http.StatusForbidden, "device_forbidden", "the X-Device id is unknown, revoked or not a device of your account")
	errOriginRequired   = newError(http.StatusForbidden, "origin_required", "this request must carry an Origin header")
	errOriginForbidden  = newError(http.StatusForbidden, "origin_forbidden", "requests from this Origin are not allowed")
	errIDConflict       = newError(http.StatusConflict, "id_conflict", "this envelope id was already used for a different envelope; send it with a new id")
	errNotFound         = newError(http.StatusNotFound, "not_found", "no such endpoint")
	errMethodNotAllowed = newError(http.StatusMethodNotAllowed, "method_not_allowed", "this endpoint does not take this method")
	errUnavailable      = newError(http.StatusServiceUnavailable, "unavailable", "the relay cannot reach its database right now; retry in a few seconds (a resent envelope keeps its id)")
)

func badRequest(code, format string, args ...any) *apiError {
	return newError(http.StatusBadRequest, code, format, args...)
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
	switch {
	case errors.As(err, &skew):
		return &apiError{status: http.StatusBadRequest, code: "clock_skew", message: skew.Error(),
			extra: map[string]any{"serverTime": skew.ServerTime.UnixMilli()}}
	case errors.Is(err, envelope.ErrTooLarge):
		return newError(http.StatusRequestEntityTooLarge, "too_large", "%s", err.Error())
	case errors.Is(err, envelope.ErrBadEnvelope):
		return badRequest("bad_envelope", "%s", err.Error())
	case errors.Is(err, devices.ErrBadPublicKey):
		return badRequest("bad_public_key", "%s", err.Error())
	case errors.Is(err, devices.ErrUsernameTaken):
		return errUsernameTaken
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
	case errors.As(err, &tooMany):
		return newError(http.StatusConflict, "too_many_devices",
			"this account already has %d devices, the most allowed; revoke one it no longer uses first", tooMany.Max)
	case errors.Is(err, queue.ErrIDConflict):
		return errIDConflict
	case errors.Is(err, queue.ErrBadAck):
		return badRequest("bad_ack", "%s", err.Error())
	}
	if dbUnavailable(err) {
		return errUnavailable
	}
	return newError(http.StatusInternalServerError, "internal",
		"the relay failed to handle this request; the operator can find it in the log under request id %s", requestID)
}

func tooManyAttempts(retryAfterSeconds int) *apiError {
	return &apiError{status: http.StatusTooManyRequests, code: "too_many_attempts",
		message: fmt.Sprintf("too many login or registration attempts; retry in %d s", retryAfterSeconds),
		header:  map[string]string{"Retry-After": strconv.Itoa(retryAfterSeconds)}}
}

func rateLimited(retryAfterSeconds int) *apiError {
	return &apiError{status: http.StatusTooManyRequests, code: "rate_limited",
		message: fmt.Sprintf("too many envelopes from this account; retry in %d s", retryAfterSeconds),
		header:  map[string]string{"Retry-After": strconv.Itoa(retryAfterSeconds)}}
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
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "conn closed")
}
