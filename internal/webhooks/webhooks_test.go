package webhooks

import (
	"context"
	"encoding/base64"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// resolver answers every host with addrs.
type resolver []string

func (r resolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, a := range r {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

func TestAllowed(t *testing.T) {
	g := Guard{}
	for _, a := range []string{"127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1",
		"0.0.0.0", "198.18.0.1", "224.0.0.1", "255.255.255.255", "::", "::1", "fd00:ec2::254", "fe80::1", "ff02::1",
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b::7f00:1"} {
		if g.Allowed(netip.MustParseAddr(a)) {
			t.Errorf("%s allowed", a)
		}
	}
	for _, a := range []string{"93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "64:ff9b::5db8:d822", "8.8.8.8"} {
		if !g.Allowed(netip.MustParseAddr(a)) {
			t.Errorf("%s refused", a)
		}
	}
	if u := Unwrap(netip.MustParseAddr("64:ff9b::a9fe:a9fe")); u.String() != "169.254.169.254" {
		t.Fatalf("NAT64 unwrapped to %s", u)
	}
}

// addressForms are the ways of writing an address the guard knows of,
// with whether it is taken with the loopback flag off and on (on admits
// 127.0.0.0/8 written as IPv4, and ::1: nothing else, in no other form).
var addressForms = []struct {
	host    string
	off, on bool
}{
	// An IPv6 zone names an interface of the server's own: never.
	{"::1%lo", false, false}, {"::1%1", false, false}, {"fe80::1%eth0", false, false},
	{"fd00:ec2::254%eth0", false, false}, {"::%lo", false, false}, {"ff02::1%eth0", false, false},
	{"2606:4700:4700::1111%eth0", false, false}, {"fe80::1%25", false, false},
	// An IPv4 address inside an IPv6 one is judged as itself.
	{"::ffff:127.0.0.1", false, false}, {"::ffff:127.0.0.2", false, false}, {"::ffff:169.254.169.254", false, false},
	{"::127.0.0.1", false, false}, {"::a9fe:a9fe", false, false}, {"::10.0.0.1", false, false},
	{"::ffff:0:127.0.0.1", false, false}, {"::ffff:0:a00:1", false, false},
	{"64:ff9b::7f00:1", false, false}, {"64:ff9b::a9fe:a9fe", false, false},
	{"64:ff9b:1::7f00:1", false, false}, {"64:ff9b:1::a9fe:a9fe", false, false},
	{"64:ff9b:1:7f00:0:100::", false, false}, {"64:ff9b:1:abcd::808:808", false, false},
	{"2002:7f00:1::", false, false}, {"2002:a9fe:a9fe::1", false, false}, {"2002:c0a8:101::", false, false},
	// ... and a public one inside is public.
	{"::ffff:8.8.8.8", true, true}, {"::8.8.8.8", true, true}, {"::ffff:0:808:808", true, true},
	{"64:ff9b::808:808", true, true}, {"64:ff9b:1::808:808", true, true}, {"2002:808:808::1", true, true},
	// Loopback, only with the flag.
	{"127.0.0.1", false, true}, {"127.0.0.2", false, true}, {"127.255.255.254", false, true}, {"::1", false, true},
	// Never, flag or not.
	{"0.0.0.0", false, false}, {"10.1.2.3", false, false}, {"100.64.0.1", false, false}, {"169.254.169.254", false, false},
	{"172.31.255.255", false, false}, {"192.0.0.170", false, false}, {"192.0.2.1", false, false},
	{"192.88.99.1", false, false}, {"192.168.0.1", false, false}, {"198.18.0.1", false, false},
	{"198.51.100.7", false, false}, {"203.0.113.9", false, false}, {"224.0.0.251", false, false},
	{"240.0.0.1", false, false}, {"255.255.255.255", false, false},
	{"::", false, false}, {"fd00:ec2::254", false, false}, {"fc00::1", false, false}, {"fe80::1", false, false},
	{"fec0::1", false, false}, {"ff02::1", false, false}, {"100::1", false, false}, {"2001:db8::1", false, false},
	{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false, false}, {"2001:2::1", false, false}, {"3fff::1", false, false},
	{"5f00::1", false, false},
	// Public.
	{"8.8.8.8", true, true}, {"93.184.216.34", true, true}, {"2606:4700:4700::1111", true, true},
	{"2a00:1450:400f:80d::200e", true, true},
}

// Every form is judged alike at registration (an address literal in the
// URL, or what a name resolves to), at PATCH (the same check) and at
// dial, with the loopback flag off and on.
func TestEveryFormOfAnAddress(t *testing.T) {
	ctx := context.Background()
	for _, c := range addressForms {
		for _, flag := range []bool{false, true} {
			want := c.off
			if flag {
				want = c.on
			}
			g := Guard{AllowLoopback: flag, Resolver: resolver{"93.184.216.34"}}
			host := c.host
			if strings.Contains(host, ":") {
				host = "[" + strings.ReplaceAll(host, "%", "%25") + "]"
			}
			if err := g.CheckURL(ctx, "https://"+host+":8443/hook"); (err == nil) != want {
				t.Errorf("registration of %s (loopback flag %v): %v", c.host, flag, err)
			}
			if err := g.Control("tcp", net.JoinHostPort(c.host, "8443"), nil); (err == nil) != want ||
				err != nil && !errors.Is(err, ErrBlocked) {
				t.Errorf("dial of %s (loopback flag %v): %v", c.host, flag, err)
			}
			if a, err := netip.ParseAddr(c.host); err == nil {
				// A name that resolves to the address is judged by it.
				g.Resolver = resolver{a.String()}
				if err := g.CheckURL(ctx, "https://hooks.example.se/"); (err == nil) != want {
					t.Errorf("a name resolving to %s (loopback flag %v): %v", c.host, flag, err)
				}
			}
		}
	}
	var p *URLProblem
	if err := (Guard{AllowLoopback: true}).CheckURL(ctx, "https://[::1%25lo]/"); !errors.As(err, &p) || p.Rule != "zone" {
		t.Fatalf("a zoned address: %v", err)
	}
}

// Registration refuses what the spec names, and a public host passes.
func TestCheckURL(t *testing.T) {
	public := Guard{Resolver: resolver{"93.184.216.34"}}
	ctx := context.Background()
	if err := public.CheckURL(ctx, "https://hooks.example.se/kontera"); err != nil {
		t.Fatal(err)
	}
	refused := map[string]string{
		"http://hooks.example.se/kontera":                      "https",
		"https://user:pw@hooks.example.se/":                    "userinfo",
		"https://127.0.0.1/":                                   "private_address",
		"https://10.0.0.1/":                                    "private_address",
		"https://169.254.169.254/latest/meta-data":             "private_address",
		"https://[::1]/":                                       "private_address",
		"https://[::ffff:127.0.0.1]/":                          "private_address",
		"https://0x7f000001/":                                  "numeric_host",
		"https://2130706433/":                                  "numeric_host",
		"https://0177.0.0.1/":                                  "numeric_host",
		"https://127.1/":                                       "numeric_host",
		"https://metadata.google.internal/computeMetadata/v1/": "host",
		"https://localhost:8443/":                              "host",
		"https://" + strings.Repeat("a", MaxURL) + ".se/":      "max_length",
		"not a url":                                            "url",
	}
	for u, rule := range refused {
		err := public.CheckURL(ctx, u)
		var p *URLProblem
		if !errors.As(err, &p) || p.Rule != rule {
			t.Errorf("%s: %v, want %s", u, err, rule)
		}
	}
	private := Guard{Resolver: resolver{"93.184.216.34", "10.1.2.3"}}
	if err := private.CheckURL(ctx, "https://hooks.example.se/"); err == nil {
		t.Fatal("a host with one private address was taken")
	}
	if err := (Guard{Resolver: resolver{}}).CheckURL(ctx, "https://nowhere.example.se/"); err == nil {
		t.Fatal("a host that does not resolve was taken")
	}
}

// The dial itself is refused for a blocked address, whatever a name
// resolved to before: a rebinding resolver gains nothing.
func TestControlRefusesTheDial(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	d := net.Dialer{Timeout: time.Second, Control: Guard{}.Control}
	if _, err := d.Dial("tcp", ln.Addr().String()); !errors.Is(err, ErrBlocked) {
		t.Fatalf("dialled loopback: %v", err)
	}
	d.Control = Guard{AllowLoopback: true}.Control
	c, err := d.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("the flag did not admit loopback: %v", err)
	}
	c.Close()
}

// Our signature is Stripe's scheme keyed by the secret string; the
// Standard Webhooks one is keyed by its decoded bytes (vectors computed
// with Python's hmac).
func TestSignatures(t *testing.T) {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	body := []byte(`{"id":"d1","type":"webhook.test"}`)
	at := time.Date(2026, 3, 31, 8, 0, 0, 0, time.UTC)
	if got := Signature(secret, at, body); got != "t=1774944000,v1=cb756fa649bd02b1748e3e6506ef6bc40511186c616271db59d04cbff56d2e26" {
		t.Fatalf("signature %s", got)
	}
	got, err := StandardSignature(secret, "msg_1", at, body)
	if err != nil || got != "v1,7L2sg4jusXbNp/2/B03IAyhciFs7msoagxsLvAna+K4=" {
		t.Fatalf("standard signature %s %v", got, err)
	}
	s, err := NewSecret()
	if err != nil || !strings.HasPrefix(s, SecretPrefix) {
		t.Fatal(s, err)
	}
	if b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, SecretPrefix)); err != nil || len(b) != 32 {
		t.Fatalf("secret %s: %d bytes %v", s, len(b), err)
	}
}

// A receiver's check: the header as sent verifies, with a second v1 of
// another secret beside it too; a changed body, another secret, a stale
// or future timestamp, or a header without t or v1 does not.
func TestVerify(t *testing.T) {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	body := []byte(`{"id":"d1","type":"webhook.test"}`)
	at := time.Date(2026, 3, 31, 8, 0, 0, 0, time.UTC)
	h := Signature(secret, at, body)
	const tol = 5 * time.Minute
	if err := Verify(secret, h, body, at.Add(4*time.Minute), tol); err != nil {
		t.Fatal(err)
	}
	if err := Verify(secret, "t=1774944000,v1=00ff,v1="+strings.TrimPrefix(h, "t=1774944000,v1="), body, at, tol); err != nil {
		t.Fatalf("a second signature beside: %v", err)
	}
	for name, c := range map[string]struct {
		secret, header string
		body           []byte
		now            time.Time
	}{
		"body":   {secret, h, []byte(`{"id":"d2","type":"webhook.test"}`), at},
		"secret": {"whsec_other", h, body, at},
		"stale":  {secret, h, body, at.Add(tol + time.Second)},
		"future": {secret, h, body, at.Add(-tol - time.Second)},
		"no t":   {secret, strings.TrimPrefix(h, "t=1774944000,"), body, at},
		"no v1":  {secret, "t=1774944000", body, at},
		"empty":  {secret, "", body, at},
		"odd t":  {secret, strings.Replace(h, "t=1774944000", "t=17749440x0", 1), body, at},
	} {
		if err := Verify(c.secret, c.header, c.body, c.now, tol); !errors.Is(err, ErrSignature) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The schedule: 1 m, 5 m, 30 m, 2 h, 12 h, 24 h, 48 h, then dead; the
// answers' meaning.
func TestSchedule(t *testing.T) {
	now := time.Date(2026, 3, 31, 8, 0, 0, 0, time.UTC)
	want := []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 12 * time.Hour, 24 * time.Hour, 48 * time.Hour}
	var total time.Duration
	for i, w := range want {
		next, ok := Next(i+1, now)
		if !ok || next.Sub(now) != w {
			t.Fatalf("after attempt %d: %v %v", i+1, next.Sub(now), ok)
		}
		total += w
	}
	if _, ok := Next(8, now); ok || total != 5196*time.Minute {
		t.Fatalf("the eighth attempt is the last; total %v", total)
	}
	for _, c := range []struct {
		status  int
		blocked bool
		attempt int
		want    Outcome
	}{
		{200, false, 1, Outcome{State: Delivered}}, {204, false, 3, Outcome{State: Delivered}},
		{500, false, 1, Outcome{State: Failed}}, {0, false, 7, Outcome{State: Failed}}, {503, false, 8, Outcome{State: Dead}},
		{410, false, 1, Outcome{State: Dead, Disable: "gone"}}, {302, false, 1, Outcome{State: Dead, Disable: "redirect"}},
		{0, true, 1, Outcome{State: Dead, Disable: "blocked_address"}}, {404, false, 2, Outcome{State: Failed}},
	} {
		if got := Judge(c.status, c.blocked, c.attempt); got != c.want {
			t.Errorf("%+v: %+v", c, got)
		}
	}
}
