// Package webhooks delivers the books' events to the URLs companies
// register: signed, retried on a fixed schedule, and never to an address
// inside the network the server runs in.
package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"syscall"
)

// MaxURL is the longest webhook URL taken.
const MaxURL = 2048

// blocked are the ranges no webhook is delivered to, after an address
// that carries an IPv4 address is judged by it (Unwrap): unspecified,
// private, CGNAT, loopback, link-local (the cloud metadata address among
// them), the IETF's own, documentation, benchmarking, the old 6to4 relay,
// multicast and reserved IPv4; unspecified, loopback, discard-only,
// Teredo, ORCHID, benchmarking, documentation, SRv6, unique-local (AWS's
// fd00:ec2::254 among them), site-local, link-local and multicast IPv6,
// and the local-use NAT64 prefix in any form but its /96: after IANA's
// special-purpose registries, what is not globally reachable, and the
// identifiers (ORCHID) that route nowhere.
var blocked = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
		"172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
		"::/128", "::1/128", "64:ff9b:1::/48", "100::/64", "2001::/32", "2001:2::/48", "2001:10::/28",
		"2001:20::/28", "2001:db8::/32", "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10", "fec0::/10",
		"ff00::/8"} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// The IPv6 ranges whose addresses carry an IPv4 address, and where.
var (
	// compatible is ::a.b.c.d (deprecated) and translated ::ffff:0:a.b.c.d
	// (SIIT); Unmap takes care of mapped ::ffff:a.b.c.d.
	compatible = netip.MustParsePrefix("::/96")
	translated = netip.MustParsePrefix("::ffff:0:0:0/96")
	// nat64 is the well-known NAT64 prefix, localNAT64 the local-use one
	// in its /96 form: the last 32 bits are the address.
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	localNAT64 = netip.MustParsePrefix("64:ff9b:1::/96")
	// sixToFour is 6to4: bits 16-47 are the address.
	sixToFour = netip.MustParsePrefix("2002::/16")
	// loopback4 is what the loopback flag admits of IPv4.
	loopback4 = netip.MustParsePrefix("127.0.0.0/8")
)

// Unwrap is the address ip stands for: the IPv4 address inside an
// IPv4-mapped, IPv4-compatible, IPv4-translated, NAT64 or 6to4 IPv6
// address, else ip. Whatever reaches the IPv4 address through a
// translator or a relay is judged as the IPv4 address itself.
func Unwrap(ip netip.Addr) netip.Addr {
	ip = ip.Unmap()
	if !ip.Is6() {
		return ip
	}
	b := ip.As16()
	switch p := ip.WithZone(""); {
	case compatible.Contains(p), translated.Contains(p), nat64.Contains(p), localNAT64.Contains(p):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	case sixToFour.Contains(p):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})
	}
	return ip
}

// Guard decides which addresses webhooks may reach.
type Guard struct {
	// AllowLoopback admits 127.0.0.0/8 written as IPv4, and ::1, and
	// nothing else: for tests only (KONTERA_WEBHOOK_ALLOW_LOOPBACK),
	// logged at start.
	AllowLoopback bool
	// Resolver looks hosts up at registration; nil is net.DefaultResolver.
	Resolver interface {
		LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
	}
}

// ErrBlocked says an address is one webhooks are never delivered to.
var ErrBlocked = errors.New("webhooks: the address is private, loopback, link-local or otherwise not public")

// Allowed says whether ip may be dialled. An address with a zone names an
// interface of the server's own (fe80::1%eth0, ::1%lo) and is never
// allowed: no range contains it, so it is refused before any is asked.
func (g Guard) Allowed(ip netip.Addr) bool {
	if !ip.IsValid() || ip.Zone() != "" {
		return false
	}
	if g.AllowLoopback && (ip.Is4() && loopback4.Contains(ip) || ip == netip.IPv6Loopback()) {
		return true
	}
	ip = Unwrap(ip)
	for _, p := range blocked {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// Control is a net.Dialer Control function: it refuses the connection
// when the address actually dialled is not Allowed, whatever the name it
// was reached by resolved to before (DNS rebinding) or how it was
// written.
func (g Guard) Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrBlocked, address)
	}
	if !g.Allowed(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrBlocked, ap.Addr())
	}
	return nil
}

// metadataHosts are names of cloud metadata services, refused whatever
// they resolve to.
var metadataHosts = map[string]bool{"metadata.google.internal": true, "metadata.goog": true, "metadata": true,
	"instance-data": true, "instance-data.ec2.internal": true, "metadata.azure.com": true, "localhost": true}

// numericLabel is a label of a host written as a number in another base
// or shortened (0x7f000001, 2130706433, 0177.0.0.1, 127.1): what resolvers
// read as an address, but no canonical address is.
var numericLabel = regexp.MustCompile(`(?i)^(0x[0-9a-f]*|[0-9]+)$`)

// URLProblem is why a webhook URL is refused: the rule and what to tell.
type URLProblem struct{ Rule, Issue string }

func (p *URLProblem) Error() string { return p.Issue }

// CheckURL holds a webhook URL to the rules: https, no userinfo, at most
// MaxURL characters, not a metadata name nor a number written oddly, and a
// host that resolves, to addresses that are all Allowed.
func (g Guard) CheckURL(ctx context.Context, raw string) error {
	bad := func(rule, issue string) error { return &URLProblem{Rule: rule, Issue: issue} }
	if len(raw) > MaxURL {
		return bad("max_length", fmt.Sprintf("at most %d characters", MaxURL))
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "":
		return bad("url", "an absolute https URL")
	case u.Scheme != "https":
		return bad("https", "only https URLs are taken")
	case u.User != nil:
		return bad("userinfo", "no user or password in the URL")
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if metadataHosts[host] || strings.HasSuffix(host, ".localhost") {
		return bad("host", "the host "+host+" is not a public address")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Zone() != "" {
			return bad("zone", "an IPv6 address with a zone (%…) names an interface of the server: never taken")
		}
		if !g.Allowed(ip) {
			return bad("private_address", "the address "+host+" is not public")
		}
		return nil
	}
	labels := strings.Split(host, ".")
	odd := true
	for _, l := range labels {
		odd = odd && numericLabel.MatchString(l)
	}
	if odd {
		return bad("numeric_host", "write an address in its canonical form, or use a name")
	}
	r := g.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return bad("resolve", "the host "+host+" does not resolve")
	}
	for _, a := range addrs {
		if !g.Allowed(a) {
			return bad("private_address", "the host "+host+" resolves to "+Unwrap(a).String()+", which is not public")
		}
	}
	return nil
}
