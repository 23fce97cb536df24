package push_test

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"relay/push"
)

// TestMain fails the package when a test leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestPublic: the addresses the relay pushes to without
// --push-allow-private, and those it never dials.
func TestPublic(t *testing.T) {
	for _, c := range []struct {
		addr   string
		public bool
	}{
		{"93.184.215.14", true}, {"2606:4700::1111", true}, {"8.8.8.8", true},
		{"127.0.0.1", false}, {"::1", false}, {"10.1.2.3", false}, {"172.16.0.1", false}, {"192.168.1.1", false},
		{"169.254.169.254", false}, {"fe80::1", false}, {"fc00::1", false}, {"0.0.0.0", false}, {"::", false},
		{"100.64.0.1", false}, {"224.0.0.1", false}, {"255.255.255.255", false}, {"::ffff:127.0.0.1", false},
		{"::ffff:10.0.0.1", false}, {"64:ff9b::a00:1", false}, {"2002:7f00:1::", false}, {"198.18.0.1", false},
	} {
		if got := push.Public(netip.MustParseAddr(c.addr)); got != c.public {
			t.Errorf("Public(%s) = %v, want %v", c.addr, got, c.public)
		}
	}
}

// TestParseSubscription: what the relay takes as a subscription, and
// that every refusal is ErrBadSubscription.
func TestParseSubscription(t *testing.T) {
	const key = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
	const auth = "BTBZMqHH6r4Tts7J_aSIgg"
	for _, c := range []struct {
		endpoint, p256dh, auth string
		allowPrivate, ok       bool
	}{
		{"https://fcm.googleapis.com/fcm/send/abc", key, auth, false, true},
		{"https://push.example:8443/x?y=1", key, auth, false, true},
		{"https://localhost/x", key, auth, false, true}, // a name: checked when dialled
		{"https://127.0.0.1/x", key, auth, false, false},
		{"https://127.0.0.1/x", key, auth, true, true},
		{"https://[::1]/x", key, auth, false, false},
		{"https://[fe80::1%25eth0]/x", key, auth, false, false},
		{"http://push.example/x", key, auth, false, false},
		{"https:///x", key, auth, false, false},
		{"https://u:p@push.example/x", key, auth, false, false},
		{"https://push.example/x#frag", key, auth, false, false},
		{"https://push.example/" + strings.Repeat("a", push.MaxEndpoint), key, auth, false, false},
		{"https://push.example/x", key + "=", auth, false, false},
		{"https://push.example/x", key[:len(key)-1] + "A", auth, false, false}, // not on the curve
		{"https://push.example/x", key, auth[:20], false, false},
		{"https://push.example/x", key, auth + "==", false, false},
		{"https://push.example/x", strings.ReplaceAll(key, "_", "/"), auth, false, false},
	} {
		_, err := push.ParseSubscription(c.endpoint, c.p256dh, c.auth, c.allowPrivate)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, push.ErrBadSubscription)) {
			t.Errorf("%q %q %q private=%v: %v, want ok=%v", c.endpoint, c.p256dh, c.auth, c.allowPrivate, err, c.ok)
		}
	}
}
