package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lib/pq"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/kontera/kontera/internal/httpapi"
)

// A sole trader's organisation number is the owner's personnummer, and
// its VAT number holds it too: both are sealed like a personnummer. No
// answer, audit snapshot, event, party or row of the database holds the
// digits in clear, nor does a log line; a masked number sent back changes
// nothing; the number still keeps customers unique and names the party
// its supplier record shares.
func TestSoleTraderNumbersSealed(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.DebugLevel)
	b := newPartiesBooks(t, func(c *httpapi.Config) { c.Log = zap.New(core) })
	clear := []string{"8112189876", "811218-9876", "19811218", "SE811218987601"}
	r := b.createCustomer(map[string]any{"name": "Eks Snickeri", "customer_type": "swedish_business",
		"org_number": "811218-9876", "vat_number": "SE811218987601"}).status(t, 201)
	id := r.str("data.id")
	if r.str("data.org_number") != "********-9876" || r.str("data.vat_number") != "SE******987601" {
		t.Fatalf("created: %s", r.Body)
	}
	detail := b.get(b.path("customers/"+id+"?expand=party"), b.token).status(t, 200)
	if detail.str("data.org_number") != "********-9876" || detail.str("data.party.org_number") != "********-9876" ||
		detail.str("data.party.vat_number") != "SE******987601" {
		t.Fatalf("detail: %s", detail.Body)
	}
	// What was read, sent back, is no change.
	p := b.write("PATCH", "customers/"+id, map[string]any{"org_number": "********-9876", "vat_number": "SE******987601",
		"name": "Eks Snickeri och Bygg"}).status(t, 200)
	if p.str("data.org_number") != "********-9876" || p.str("data.vat_number") != "SE******987601" {
		t.Fatalf("patched: %s", p.Body)
	}
	// The number, written another way, is still the same customer's.
	b.createCustomer(map[string]any{"name": "Eks igen", "customer_type": "swedish_business", "org_number": "19811218-9876"}).
		errorCode(t, 409, "CUSTOMER_DUPLICATE_ORG_NUMBER")
	// A supplier record of the same sole trader shares the party.
	s := b.write("POST", "suppliers", map[string]any{"name": "Eks Snickeri", "supplier_type": "swedish_business",
		"org_number": "19811218-9876"}).status(t, 201)
	if s.str("data.party_id") != detail.str("data.party_id") || s.str("data.org_number") != "********-9876" {
		t.Fatalf("supplier: %s (customer's party %s)", s.Body, detail.str("data.party_id"))
	}
	// The whole number finds it, written either way; its digits in part
	// do not.
	for q, want := range map[string]int{"811218-9876": 1, "198112189876": 1, "8112": 0} {
		found := b.get(b.path("customers?search="+q), b.token).status(t, 200).list("data")
		if len(found) != want {
			t.Errorf("search %q found %d customers, want %d", q, len(found), want)
		}
	}
	// Another type cannot take the sealed number along unseen.
	b.write("PATCH", "customers/"+id, map[string]any{"customer_type": "eu_business"}).
		errorCode(t, 400, "CUSTOMER_ORG_NUMBER_IS_PERSONAL")

	// A personnummer's change shows in the audit trail's changed_fields,
	// not its value.
	ind := b.createCustomer(map[string]any{"name": "Anna Ek", "customer_type": "individual", "personal_number": "811218-9876"}).
		status(t, 201).str("data.id")
	b.write("PATCH", "customers/"+ind, map[string]any{"personal_number": personnummer(7)}).status(t, 200)
	var changed pq.StringArray
	if err := b.db.GetContext(context.Background(), &changed, `SELECT changed_fields FROM audit_entries
		WHERE record_id = $1 AND action = 'UPDATE' ORDER BY created_at DESC LIMIT 1`, ind); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(changed, ","), "personal_number") {
		t.Fatalf("changed_fields of a new personnummer: %v", changed)
	}

	trail := b.get(b.path("audit-trail?limit=200"), b.token).status(t, 200)
	list := b.get(b.path("customers"), b.token).status(t, 200)
	sups := b.get(b.path("suppliers/"+s.str("data.id")), b.token).status(t, 200)
	for name, body := range map[string]string{"create": string(r.Body), "detail": string(detail.Body), "patch": string(p.Body),
		"audit trail": string(trail.Body), "list": string(list.Body), "supplier": string(sups.Body)} {
		for _, c := range clear {
			if strings.Contains(body, c) {
				t.Errorf("%s shows %s: %s", name, c, body)
			}
		}
	}
	// The server's log lines, with every field.
	for _, l := range logs.All() {
		line := fmt.Sprint(l.Message, l.ContextMap())
		for _, c := range clear {
			if strings.Contains(line, c) {
				t.Errorf("a log line shows %s: %s", c, line)
			}
		}
	}
	if logs.Len() == 0 {
		t.Fatal("no log lines were captured")
	}
	// Every row of every table, as text; the stored responses decoded.
	var tables []string
	if err := b.db.SelectContext(context.Background(), &tables, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`); err != nil {
		t.Fatal(err)
	}
	like := pq.Array([]string{"%8112189876%", "%811218-9876%", "%19811218%"})
	for _, table := range tables {
		var n int
		if err := b.db.GetContext(context.Background(), &n, fmt.Sprintf(`SELECT count(*) FROM %s x WHERE x::text LIKE ANY($1)`,
			pq.QuoteIdentifier(table)), like); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if n > 0 {
			t.Errorf("%d rows of %s hold the personnummer in clear", n, table)
		}
	}
	var n int
	if err := b.db.GetContext(context.Background(), &n, `SELECT count(*) FROM idempotency_keys
		WHERE convert_from(body, 'UTF8') LIKE ANY($1)`, like); err != nil || n > 0 {
		t.Errorf("%d stored responses hold the personnummer in clear (%v)", n, err)
	}
}

// Numbers stored in clear before they were sealed are sealed when the
// server starts, their party with them.
func TestSealLegacyNumbers(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	id := b.createCustomer(map[string]any{"name": "Gamla Firman", "customer_type": "swedish_business",
		"org_number": "556334-3689"}).status(t, 201).str("data.id")
	ctx := context.Background()
	// As a row written before migration 00015 holds it.
	if _, err := b.db.ExecContext(ctx, `UPDATE customers SET org_number = '811218-9876', vat_number = 'SE811218987601',
		org_key = '8112189876' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if _, err := b.db.ExecContext(ctx, `UPDATE parties SET org_number = '811218-9876', identity = 'org:SE:8112189876'
		WHERE id = (SELECT party_id FROM customers WHERE id = $1)`, id); err != nil {
		t.Fatal(err)
	}
	n, err := b.server.SealLegacy(ctx)
	if err != nil || n != 1 {
		t.Fatalf("sealed %d records: %v", n, err)
	}
	if n, _ := b.server.SealLegacy(ctx); n != 0 {
		t.Fatalf("a second start sealed %d records again", n)
	}
	var clear int
	if err := b.db.GetContext(ctx, &clear, `SELECT count(*) FROM customers c JOIN parties p ON p.id = c.party_id
		WHERE c::text LIKE '%8112189876%' OR c::text LIKE '%811218-9876%' OR p::text LIKE '%8112189876%'
		   OR p::text LIKE '%811218-9876%'`); err != nil || clear != 0 {
		t.Fatalf("%d rows still in clear (%v)", clear, err)
	}
	r := b.get(b.path("customers/"+id+"?expand=party"), b.token).status(t, 200)
	if r.str("data.org_number") != "********-9876" || r.str("data.party.vat_number") != "SE******987601" {
		t.Fatalf("after sealing: %s", r.Body)
	}
	// The sealed number is the same sole trader's as one sent now.
	b.createCustomer(map[string]any{"name": "Dubblett", "customer_type": "swedish_business", "org_number": "811218-9876"}).
		errorCode(t, 409, "CUSTOMER_DUPLICATE_ORG_NUMBER")
}
