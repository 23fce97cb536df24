package push

import (
	"context"
	"crypto/ecdh"
	"encoding/base64"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// MaxEndpoint bounds an endpoint URL. The push services of today's
// browsers give a few hundred bytes.
const MaxEndpoint = 1024

// ErrBadSubscription is a subscription the relay does not take; the error
// wrapping it says which part is wrong, without echoing it.
var ErrBadSubscription = errors.New("bad push subscription")

// Subscription is what a browser's PushSubscription gives (RFC 8030's
// endpoint, RFC 8291's keys).
type Subscription struct {
	Endpoint string // https URL of the push service's resource for the device
	P256dh   []byte // the browser's P-256 public key, uncompressed (65 bytes)
	Auth     []byte // the authentication secret (16 bytes)
}

// ParseSubscription checks a subscription as the client sends it: the
// endpoint an https URL of at most MaxEndpoint bytes without user or
// fragment, the keys unpadded base64url (PushSubscription.toJSON()). An
// endpoint whose host is an address literal must be a public address
// unless allowPrivate; a host name is checked when it is dialled, since
// what it resolves to may change (guard.go).
func ParseSubscription(endpoint, p256dh, auth string, allowPrivate bool) (Subscription, error) {
	bad := func(format string, args ...any) (Subscription, error) {
		return Subscription{}, fmt.Errorf("%w: "+format, append([]any{ErrBadSubscription}, args...)...)
	}
	if len(endpoint) > MaxEndpoint || !utf8.ValidString(endpoint) {
		return bad("the endpoint must be a URL of at most %d bytes", MaxEndpoint)
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Opaque != "" || u.User != nil || u.Fragment != "" || strings.ContainsAny(endpoint, " \t\r\n") {
		return bad("the endpoint must be an https URL with a host, no user and no fragment")
	}
	if a, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil && !allowPrivate && !Public(a) {
		return bad("the endpoint's address is not a public one")
	}
	key, err := base64.RawURLEncoding.Strict().DecodeString(p256dh)
	if err != nil || len(key) != 65 {
		return bad("p256dh must be unpadded base64url of an uncompressed P-256 point")
	}
	if _, err := ecdh.P256().NewPublicKey(key); err != nil {
		return bad("p256dh must be unpadded base64url of an uncompressed P-256 point")
	}
	secret, err := base64.RawURLEncoding.Strict().DecodeString(auth)
	if err != nil || len(secret) != 16 {
		return bad("auth must be unpadded base64url of 16 bytes")
	}
	return Subscription{Endpoint: endpoint, P256dh: key, Auth: secret}, nil
}

// Save stores device's subscription, replacing the one it had.
func Save(ctx context.Context, pool *pgxpool.Pool, deviceID string, s Subscription) error {
	_, err := pool.Exec(ctx, `INSERT INTO push_subscriptions (device_id, endpoint, p256dh, auth) VALUES ($1, $2, $3, $4)
		ON CONFLICT (device_id) DO UPDATE SET endpoint = $2, p256dh = $3, auth = $4, created_at = now(), pushed_at = NULL`,
		deviceID, s.Endpoint, s.P256dh, s.Auth)
	return err
}

// Get returns device's subscription, if it has one.
func Get(ctx context.Context, pool *pgxpool.Pool, deviceID string) (Subscription, bool, error) {
	var s Subscription
	err := pool.QueryRow(ctx, `SELECT endpoint, p256dh, auth FROM push_subscriptions WHERE device_id = $1`, deviceID).
		Scan(&s.Endpoint, &s.P256dh, &s.Auth)
	if errors.Is(err, pgx.ErrNoRows) {
		return Subscription{}, false, nil
	}
	return s, err == nil, err
}

// Execer is a pool or a transaction.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Delete deletes device's subscription, if any. A revocation calls it in
// its transaction.
func Delete(ctx context.Context, db Execer, deviceID string) error {
	_, err := db.Exec(ctx, `DELETE FROM push_subscriptions WHERE device_id = $1`, deviceID)
	return err
}
