package push

import (
	"context"
	"encoding/base64"
	"fmt"

	webpush "github.com/SherClockHolmes/webpush-go"
)

// vapidKeys is the relay's VAPID key pair (RFC 8292), unpadded base64url:
// the private P-256 scalar and the uncompressed public point.
type vapidKeys struct {
	private, public string
}

func b64url(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// PublicKey returns the relay's VAPID public key, unpadded base64url of
// the uncompressed P-256 point: a browser's applicationServerKey. The pair
// is made the first time any instance needs it and kept in the database,
// so every instance and every restart uses the same.
func (p *Pusher) PublicKey(ctx context.Context) (string, error) {
	k, err := p.vapid(ctx)
	if err != nil {
		return "", err
	}
	return k.public, nil
}

func (p *Pusher) vapid(ctx context.Context) (*vapidKeys, error) {
	p.mu.Lock()
	k := p.keys
	p.mu.Unlock()
	if k != nil {
		return k, nil
	}
	priv, pub, err := webpush.GenerateVAPIDKeys()
	if err != nil {
		return nil, fmt.Errorf("making the VAPID key pair: %w", err)
	}
	// Two instances starting at once: the first insert wins, and both
	// read it back.
	if _, err := p.pool().Exec(ctx, `INSERT INTO push_vapid (id, private_key, public_key) VALUES (1, $1, $2)
		ON CONFLICT (id) DO NOTHING`, priv, pub); err != nil {
		return nil, fmt.Errorf("storing the VAPID key pair: %w", err)
	}
	k = &vapidKeys{}
	if err := p.pool().QueryRow(ctx, `SELECT private_key, public_key FROM push_vapid WHERE id = 1`).Scan(&k.private, &k.public); err != nil {
		return nil, fmt.Errorf("reading the VAPID key pair: %w", err)
	}
	p.mu.Lock()
	p.keys = k
	p.mu.Unlock()
	return k, nil
}
