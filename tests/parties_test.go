package tests

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/vies"
)

// partiesBooks is a company with a key, ready for customers and suppliers.
type partiesBooks struct {
	*env
	token   string
	company uuid.UUID
}

func newPartiesBooks(t *testing.T, opts ...option) *partiesBooks {
	e := newEnv(t, opts...)
	token := e.key("kund@example.se", keySpec{})
	return &partiesBooks{env: e, token: token, company: e.company(token, "Handelsbolaget AB")}
}

// vatQuarterly makes the company VAT-registered, filing quarterly, under
// the VAT number its organisation number gives (in SQL: the test company
// is made without a number to register with).
func (b *partiesBooks) vatQuarterly() {
	b.t.Helper()
	if _, err := b.db.Exec(`UPDATE companies SET org_number = '559421-6409' WHERE id = $1`, b.company); err != nil {
		b.t.Fatal(err)
	}
	if _, err := b.db.Exec(`UPDATE company_settings SET vat_registered = true, moms_period = 'quarterly',
		vat_number = 'SE559421640901' WHERE company_id = $1`, b.company); err != nil {
		b.t.Fatal(err)
	}
}

func (b *partiesBooks) path(p string) string {
	return fmt.Sprintf("/api/v1/companies/%s/%s", b.company, p)
}

// write sends a write with a fresh Idempotency-Key.
func (b *partiesBooks) write(method, p string, body any) *response {
	b.t.Helper()
	return b.do(req{Method: method, Path: b.path(p), Token: b.token, Body: body, Header: map[string]string{"Idempotency-Key": newKey()}})
}

// createCustomer creates a customer an invoice can be issued to: one
// with a postal address (mervärdesskattelagen asks every invoice above
// 4 000 kr to name it), unless body sends address_line1 itself.
func (b *partiesBooks) createCustomer(body map[string]any) *response {
	b.t.Helper()
	return b.write("POST", "customers", addressed(body))
}

// addressed is body with a postal address where it has none.
func addressed(body map[string]any) map[string]any {
	if _, ok := body["address_line1"]; ok {
		return body
	}
	out := map[string]any{"address_line1": "Kundvägen 7", "postal_code": "411 04", "city": "Göteborg"}
	for k, v := range body {
		out[k] = v
	}
	return out
}

// luhnDigit is the Luhn check digit of payload.
func luhnDigit(payload string) string {
	sum := 0
	for i := len(payload) - 1; i >= 0; i-- {
		d := int(payload[i] - '0')
		if (len(payload)-1-i)%2 == 0 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return fmt.Sprint((10 - sum%10) % 10)
}

// orgNumber is a valid aktiebolag organisationsnummer, one per n.
func orgNumber(n int) string {
	p := fmt.Sprintf("5569%05d", n)
	return p[:6] + "-" + p[6:] + luhnDigit(p)
}

// personnummer is a valid personnummer for a day of 1981, one per n.
func personnummer(n int) string {
	p := fmt.Sprintf("8103%02d%03d", 1+n%28, n%1000)
	return p[:6] + "-" + p[6:] + luhnDigit(p)
}

func withVIES(c vies.Checker) option { return func(cfg *httpapi.Config) { cfg.VIES = c } }

// fakeVIES is the EU registry on loopback: DE123456789 is valid, any
// other German number invalid, Italian numbers hang past the client's
// timeout, and every other state is unavailable.
type fakeVIES struct {
	*httptest.Server
	calls atomic.Int32
	// during, when set, runs at every lookup, before the answer.
	during func()
}

func newFakeVIES(t *testing.T) *fakeVIES {
	f := &fakeVIES{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.calls.Add(1)
		if f.during != nil {
			f.during()
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/ms/DE/vat/123456789":
			fmt.Fprint(w, `{"isValid":true,"userError":"VALID","name":"Muster GmbH","address":"Berlin","requestIdentifier":"WAPI1"}`)
		case strings.HasPrefix(r.URL.Path, "/ms/DE/"):
			fmt.Fprint(w, `{"isValid":false,"userError":"INVALID"}`)
		case strings.HasPrefix(r.URL.Path, "/ms/IT/"): // a registry that does not answer in time
			select {
			case <-time.After(30 * time.Second):
			case <-r.Context().Done():
			}
			fmt.Fprint(w, `{"isValid":true,"userError":"VALID"}`)
		default:
			fmt.Fprint(w, `{"isValid":false,"userError":"MS_UNAVAILABLE"}`)
		}
	}))
	t.Cleanup(f.Close)
	return f
}

// client asks the fake with a timeout the answering numbers meet on a
// loaded machine too; Italy's never answer within it.
func (f *fakeVIES) client() vies.Checker { return vies.NewClient(f.URL, 2*time.Second) }
