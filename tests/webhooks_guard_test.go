package tests

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/webhooks"
)

// guardForms are webhook hosts as a tenant may write them, with whether
// registration takes them with the loopback flag off and on.
var guardForms = []struct {
	host    string
	off, on bool
}{
	{"[::1%25lo]", false, false}, {"[::1%251]", false, false}, {"[fe80::1%25eth0]", false, false},
	{"[fd00:ec2::254%25eth0]", false, false}, {"[::%25lo]", false, false}, {"[ff02::1%25eth0]", false, false},
	{"[::127.0.0.1]", false, false}, {"[::ffff:0:127.0.0.1]", false, false}, {"[2002:7f00:1::]", false, false},
	{"[::ffff:127.0.0.1]", false, false}, {"[64:ff9b::7f00:1]", false, false}, {"[64:ff9b:1::a9fe:a9fe]", false, false},
	{"[2002:a9fe:a9fe::]", false, false}, {"[::a00:1]", false, false},
	{"127.0.0.1", false, true}, {"127.0.0.2", false, true}, {"[::1]", false, true},
	{"10.0.0.1", false, false}, {"169.254.169.254", false, false}, {"[fd00:ec2::254]", false, false},
	{"[fe80::1]", false, false}, {"[::]", false, false}, {"0x7f000001", false, false}, {"localhost", false, false},
	{"8.8.8.8", true, true}, {"[2606:4700:4700::1111]", true, true}, {"[2002:808:808::1]", true, true},
	{"[64:ff9b::808:808]", true, true},
}

// Every form of an address is held to the same rule at registration, at
// PATCH and at dial, with the loopback flag off and on; a zoned ::1 with
// a receiver listening there is never reached, and what the tenant reads
// of the refused delivery is "connection failed".
func TestWebhookAddressForms(t *testing.T) {
	t.Parallel()
	v6 := newReceiverOn(t, "[::1]:0")
	for _, flag := range []bool{false, true} {
		b := newHookBooks(t, 0, func(c *httpapi.Config) { c.Webhooks.Client.Guard.AllowLoopback = flag })
		existing := b.write("POST", "webhooks", map[string]any{"event_type": "invoice.paid",
			"webhook_url": "https://8.8.4.4/x", "name": "Publik"}).status(t, 201).str("data.id")
		for _, f := range guardForms {
			want := f.off
			if flag {
				want = f.on
			}
			u := "https://" + f.host + ":8443/hook"
			r := b.write("POST", "webhooks", map[string]any{"event_type": "invoice.paid", "webhook_url": u, "name": "x"})
			p := b.write("PATCH", "webhooks/"+existing, map[string]any{"webhook_url": u})
			for what, res := range map[string]*response{"registration": r, "PATCH": p} {
				switch {
				case want && res.Status/100 != 2:
					t.Errorf("%s of %s (flag %v): %d %s", what, u, flag, res.Status, clip(res.Body))
				case !want && (res.Status != 400 || res.str("error.code") != "VALIDATION_ERROR" ||
					len(res.issueFields()) != 1 || !strings.Contains(res.issueFields()[0], ":webhook_url:")):
					t.Errorf("%s of %s (flag %v) taken: %d %s", what, u, flag, res.Status, clip(res.Body))
				}
			}
		}

		// At dial: rows that got past registration some other way.
		box, err := seal.New(piiKey)
		if err != nil {
			t.Fatal(err)
		}
		var hooks []string
		urls := []string{"https://[::127.0.0.1]:8443/x", "https://[::ffff:0:127.0.0.1]:8443/x", "https://[2002:7f00:1::]:8443/x"}
		if v6 != nil {
			_, port, _ := net.SplitHostPort(strings.TrimPrefix(v6.URL, "https://"))
			urls = append(urls, "https://[::1%25lo]:"+port+"/x", "https://[::1%251]:"+port+"/x")
		}
		for _, u := range urls {
			id := uuid.New()
			if _, err := b.db.Exec(`INSERT INTO webhooks (company_id, id, name, event_type, webhook_url, secret_sealed,
				api_version_pinned) VALUES ($1, $2, 'Förbi regeln', 'invoice.paid', $3, $4, '2026-05-12')`,
				b.company, id, u, box.Seal([]byte("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
					webhooks.SecretContext(b.company, id))); err != nil {
				t.Fatal(err)
			}
			hooks = append(hooks, id.String())
		}
		for i, h := range hooks {
			row := b.settle(h, b.test(h), "dead", 10*time.Second)
			w := b.get(b.path("webhooks/"+h), b.token).status(t, 200)
			if row["error"] != "connection failed" || row["response_status"] != nil ||
				w.at("data.disabled_reason") != "blocked_address" {
				t.Errorf("%s (flag %v): delivery %v, webhook %s", urls[i], flag, row, w.Body)
			}
		}
	}
	if v6 != nil && len(v6.all()) != 0 {
		t.Fatalf("the receiver on ::1 was reached %d times", len(v6.all()))
	}
}

// newReceiverOn is a TLS receiver listening on addr, or nil where addr
// cannot be listened on (a machine without IPv6).
func newReceiverOn(t *testing.T, addr string) *receiver {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Logf("no receiver on %s: %v", addr, err)
		return nil
	}
	rc := &receiver{got: make(chan struct{}, 100)}
	rc.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		rc.mu.Lock()
		rc.hits = append(rc.hits, hit{At: time.Now()})
		rc.mu.Unlock()
	}))
	rc.Listener.Close()
	rc.Listener = ln
	rc.StartTLS()
	t.Cleanup(rc.Close)
	return rc
}
