package push

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrForbiddenAddress is a push endpoint that resolved to an address the
// relay does not connect to (without --push-allow-private): loopback,
// private, link-local, unspecified and other non-public ranges. The check
// runs when the connection is dialled, on the address actually dialled, so
// a name that resolves to a public address at registration and to a
// private one later (DNS rebinding) is refused too.
var ErrForbiddenAddress = errors.New("push endpoint resolves to an address that is not public")

// nonPublic are ranges beyond what netip's predicates name: shared (CGNAT),
// IETF protocol assignments, benchmarking, reserved, and NAT64, whose
// addresses lead to IPv4 ones the predicates would refuse.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2002::/16"), // 6to4: embeds an IPv4 address
}

// Public reports whether a is an address the relay may push to without
// --push-allow-private.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// requestTimeout bounds one request to a push service, connection
// included: a push service that hangs holds a worker this long at most.
const requestTimeout = 10 * time.Second

// newClient returns the HTTP client pushes go through: no proxy from the
// environment (it would be dialled instead of the endpoint, and the
// address check would see the proxy), no redirects, every dialled address
// checked unless allowPrivate, and roots as the trusted CAs (nil: the
// system's).
func newClient(allowPrivate bool, roots *x509.CertPool) *http.Client {
	dialer := &net.Dialer{
		Timeout: requestTimeout,
		Control: func(_, address string, _ syscall.RawConn) error {
			if allowPrivate {
				return nil
			}
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !Public(ap.Addr()) {
				return ErrForbiddenAddress
			}
			return nil
		},
	}
	tr := &http.Transport{
		DialContext:         dialer.DialContext,
		TLSClientConfig:     &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:   true,
		TLSHandshakeTimeout: requestTimeout,
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     90 * time.Second,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   requestTimeout,
		// A redirect is answered as it is, and fails as a push: following
		// it could lead anywhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
