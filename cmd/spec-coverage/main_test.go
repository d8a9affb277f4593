package main

import (
	"bytes"
	"strings"
	"testing"
)

const sample = `### Customers

| Method and path | Scope | Summary |
|---|---|---|
| GET /companies/{companyId}/customers | customers:read | list |
| PATCH /companies/{companyId}/customers/{id} | customers:write | partial update |
| POST .../customers/bulk-create | customers:write | up to 50 |

Same six operations as customers under /companies/{companyId}/suppliers (scope suppliers:read).

| Path | Summary |
|---|---|
| /reports/balance-sheet, /reports/balance-sheet/pdf | balance sheet |
| GET /api/v1/health | health |

**PATCH /api/v1/companies/{companyId}/settings** (companies:write): partial update.

Paths named only by name: GET /reconciliation/accounts (keys), GET /reconciliation/accounts/{accountKey}, GET .../items (buckets), GET /skatteverket-style filed VAT declarations path.
`

func TestNamed(t *testing.T) {
	var got []string
	for _, e := range Named(sample) {
		got = append(got, e.String())
	}
	want := []string{
		"GET /api/v1/companies/{companyId}/customers",
		"PATCH /api/v1/companies/{companyId}/customers/{id}",
		"POST /api/v1/companies/{companyId}/customers/bulk-create",
		"GET /api/v1/companies/{companyId}/suppliers",
		"PATCH /api/v1/companies/{companyId}/suppliers/{id}",
		"POST /api/v1/companies/{companyId}/suppliers/bulk-create",
		"GET /api/v1/companies/{companyId}/reports/balance-sheet",
		"GET /api/v1/companies/{companyId}/reports/balance-sheet/pdf",
		"GET /api/v1/health",
		"PATCH /api/v1/companies/{companyId}/settings",
		"GET /api/v1/companies/{companyId}/reconciliation/accounts",
		"GET /api/v1/companies/{companyId}/reconciliation/accounts/{accountKey}",
		"GET /api/v1/companies/{companyId}/reconciliation/accounts/{accountKey}/items",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("named:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestReport(t *testing.T) {
	doc := []byte(`{"paths":{"/api/v1/companies/{companyId}/customers/{customerId}":{"patch":{}},"/api/v1/health":{"get":{}},"/api/v1/companies/{companyId}/voucher-gap-explanations":{"post":{}}}}`)
	have, err := documented(doc)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	report(&out, Named(sample), have)
	s := out.String()
	if !strings.Contains(s, "have     PATCH /api/v1/companies/{companyId}/customers/{id}") ||
		!strings.Contains(s, "MISSING  GET /api/v1/companies/{companyId}/customers\n") ||
		!strings.Contains(s, "2 of 13 endpoints") || !strings.Contains(s, "reports 2;") ||
		!strings.Contains(s, "1 more are Kontera's extensions") || !strings.Contains(s, "extends  POST /api/v1/companies/{companyId}/voucher-gap-explanations\n") {
		t.Fatalf("report:\n%s", s)
	}
}
