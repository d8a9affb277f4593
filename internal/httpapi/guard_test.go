package httpapi

import (
	"net"
	"net/http/httptest"
	"net/netip"
	"testing"
)

// Only what trusted proxies appended to X-Forwarded-For names the client;
// a client's own entries further left, or the header from an untrusted
// peer, do not.
func TestClientAddress(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32")}
	for _, c := range []struct {
		peer, xff string
		want      string
	}{
		{"203.0.113.9:5000", "", "203.0.113.9"},
		{"203.0.113.9:5000", "198.51.100.1", "203.0.113.9"}, // not a proxy of ours: the header is the client's
		{"10.1.2.3:5000", "198.51.100.1", "198.51.100.1"},
		{"10.1.2.3:5000", "1.2.3.4, 198.51.100.1", "198.51.100.1"}, // 1.2.3.4 is what the client wrote
		{"10.1.2.3:5000", "198.51.100.1, 192.0.2.7", "198.51.100.1"},
		{"10.1.2.3:5000", "", "10.1.2.3"},
		{"10.1.2.3:5000", "not-an-address", "10.1.2.3"},
		{"[::ffff:10.1.2.3]:5000", "198.51.100.1", "198.51.100.1"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.peer
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := clientAddress(r, trusted); got != c.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %s, want %s", c.peer, c.xff, got, c.want)
		}
		// Without trusted proxies the header never counts: the peer is
		// the client.
		peer, _, _ := net.SplitHostPort(c.peer)
		if got := clientAddress(r, nil); got != peer {
			t.Errorf("peer %s, X-Forwarded-For %q, no trusted proxies: %s", c.peer, c.xff, got)
		}
	}
}
