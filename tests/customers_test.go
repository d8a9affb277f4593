package tests

import (
	"bytes"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/kontera/kontera/internal/httpapi"
)

func TestCustomerCreateReadAndDefaults(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	r := b.createCustomer(map[string]any{"name": "Byggbolaget i Norrland AB", "customer_type": "swedish_business",
		"org_number": "5563343689", "vat_number": "se556334368901", "email": "faktura@byggbolaget.se",
		"invoice_email_cc_addresses": []string{"ekonomi@byggbolaget.se"}}).status(t, 201)
	id := r.str("data.id")
	if r.str("data.org_number") != "556334-3689" || r.str("data.vat_number") != "SE556334368901" ||
		r.at("data.default_payment_terms") != 30.0 || r.str("data.country") != "SE" || r.str("data.language") != "sv" ||
		r.at("data.personal_number") != nil || r.at("data.vat_number_validated") != false || r.str("data.party_id") == "" {
		t.Fatalf("created customer: %s", r.Body)
	}
	if _, ok := r.JSON["data"].(map[string]any)["party"]; ok {
		t.Fatal("party is embedded without expand")
	}
	if n := b.count(`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'customer.created'`, b.company); n != 1 {
		t.Fatalf("%d customer.created events", n)
	}
	if n := b.count(`SELECT count(*) FROM audit_entries WHERE company_id = $1 AND table_name = 'customers' AND action = 'INSERT'`, b.company); n != 1 {
		t.Fatalf("%d audit rows", n)
	}

	g := b.get(b.path("customers/"+id+"?expand=party,invoices"), b.token).status(t, 200)
	if g.str("data.party.legal_name") != "Byggbolaget i Norrland AB" || g.str("data.party.roles.customer_id") != id ||
		g.at("data.party.roles.supplier_id") != nil || g.list("data.invoices") == nil || len(g.list("data.invoices")) != 0 {
		t.Fatalf("expanded detail: %s", g.Body)
	}
	b.get(b.path("customers/"+id+"?expand=party,orders"), b.token).errorCode(t, 400, "VALIDATION_ERROR")

	// default_payment_terms follows the company's invoice_default_days.
	b.do(req{Method: "PATCH", Path: b.path("settings"), Token: b.token, Body: map[string]any{"invoice_default_days": 14},
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	r = b.createCustomer(map[string]any{"name": "Anna Svensson", "customer_type": "individual"}).status(t, 201)
	if r.at("data.default_payment_terms") != 14.0 || r.at("data.party_id") != nil {
		t.Fatalf("individual: %s", r.Body)
	}

	// language is accepted on create: sv or en.
	if r := b.createCustomer(map[string]any{"name": "Smith Ltd", "customer_type": "non_eu_business", "country": "GB", "language": "en"}).
		status(t, 201); r.str("data.language") != "en" {
		t.Fatalf("language: %s", r.Body)
	}
	b.createCustomer(map[string]any{"name": "Müller", "customer_type": "eu_business", "language": "de"}).errorCode(t, 400, "VALIDATION_ERROR")

	// Another company's key reaches nothing.
	other := b.key("annan@example.se", keySpec{})
	b.get(b.path("customers/"+id), other).errorCode(t, 404, "NOT_FOUND")
	b.get(b.path("customers/"+uuid.NewString()), b.token).errorCode(t, 404, "CUSTOMER_NOT_FOUND")
}

func TestCustomerCreateNeedsKeyAndDryRunStoresNothing(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	body := map[string]any{"name": "Kund AB", "customer_type": "swedish_business", "org_number": orgNumber(1)}
	b.post(b.path("customers"), b.token, body).errorCode(t, 400, "VALIDATION_ERROR")
	r := b.do(req{Method: "POST", Path: b.path("customers?dry_run=true"), Token: b.token, Body: body,
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if r.at("data.dry_run") != true || r.at("data.preview.id") != nil || r.at("data.preview.created_at") != nil ||
		r.at("data.preview.updated_at") != nil || r.str("data.preview.org_number") != orgNumber(1) {
		t.Fatalf("dry run: %s", r.Body)
	}
	for _, q := range []string{`SELECT count(*) FROM customers WHERE company_id = $1`, `SELECT count(*) FROM parties WHERE company_id = $1`,
		`SELECT count(*) FROM events WHERE company_id = $1 AND type = 'customer.created'`} {
		if n := b.count(q, b.company); n != 0 {
			t.Fatalf("%s: %d after a dry run", q, n)
		}
	}
	r = b.createCustomer(map[string]any{"name": "  ", "customer_type": "swedish_business", "org_number": "556334-3688",
		"email": "inte-en-adress"})
	r.errorCode(t, 400, "VALIDATION_ERROR")
	if got := strings.Join(r.issueFields(), " "); got != "body:email:format body:name:minLength body:org_number:luhn" {
		t.Fatalf("issues %s", got)
	}
}

// Rule 1: org_number is unique in the company.
func TestCustomerRule1DuplicateOrgNumber(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	first := b.createCustomer(map[string]any{"name": "Först AB", "customer_type": "swedish_business", "org_number": "556334-3689"}).status(t, 201)
	r := b.createCustomer(map[string]any{"name": "Andra AB", "customer_type": "swedish_business", "org_number": "556334 3689"})
	r.errorCode(t, 409, "CUSTOMER_DUPLICATE_ORG_NUMBER")
	if r.str("error.details.existing_customer_id") != first.str("data.id") {
		t.Fatalf("details: %s", r.Body)
	}
	// Archived customers keep their number.
	b.write("DELETE", "customers/"+first.str("data.id"), nil).status(t, 204)
	b.createCustomer(map[string]any{"name": "Tredje AB", "customer_type": "swedish_business", "org_number": "5563343689"}).
		errorCode(t, 409, "CUSTOMER_DUPLICATE_ORG_NUMBER")
	// A patch onto a taken number is refused too.
	other := b.createCustomer(map[string]any{"name": "Fjärde AB", "customer_type": "swedish_business", "org_number": orgNumber(4)}).status(t, 201)
	b.write("PATCH", "customers/"+other.str("data.id"), map[string]any{"org_number": "556334-3689"}).
		errorCode(t, 409, "CUSTOMER_DUPLICATE_ORG_NUMBER")
	// Another company may hold the same number.
	c2 := b.env.company(b.token, "Andra bolaget AB")
	b.do(req{Method: "POST", Path: "/api/v1/companies/" + c2.String() + "/customers", Token: b.token,
		Body:   map[string]any{"name": "Först AB", "customer_type": "swedish_business", "org_number": "556334-3689"},
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 201)
}

// Rule 2: a personnummer sent as org_number on an individual moves into
// personal_number; a different personal_number in the same body is 400.
func TestCustomerRule2PersonnummerMovesToPersonalNumber(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	r := b.createCustomer(map[string]any{"name": "Anna Svensson", "customer_type": "individual", "org_number": "19811218-9876"}).status(t, 201)
	if r.at("data.org_number") != nil || r.str("data.personal_number") != "********-9876" {
		t.Fatalf("moved: %s", r.Body)
	}
	b.createCustomer(map[string]any{"name": "Bo Ek", "customer_type": "individual", "org_number": "811218-9876",
		"personal_number": personnummer(3)}).errorCode(t, 400, "CUSTOMER_PERSONAL_NUMBER_CONFLICT")
	same := b.createCustomer(map[string]any{"name": "Bo Ek", "customer_type": "individual", "org_number": "811218-9876",
		"personal_number": "8112189876"}).status(t, 201)
	if same.str("data.personal_number") != "********-9876" {
		t.Fatalf("same number twice: %s", same.Body)
	}
	b.createCustomer(map[string]any{"name": "Bo Ek", "customer_type": "individual", "org_number": "556334-3689"}).
		errorCode(t, 400, "VALIDATION_ERROR")
}

// Rule 3: a personnummer as org_number is a sole trader's on
// swedish_business and refused on eu_business and non_eu_business.
func TestCustomerRule3SoleTrader(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	r := b.createCustomer(map[string]any{"name": "Eks Snickeri", "customer_type": "swedish_business",
		"org_number": "811218-9876", "vat_number": "SE811218987601"}).status(t, 201)
	if r.str("data.org_number") != "********-9876" || r.str("data.vat_number") != "SE******987601" || r.at("data.personal_number") != nil {
		t.Fatalf("sole trader: %s", r.Body)
	}
	l := b.get(b.path("customers"), b.token).status(t, 200)
	item := l.list("data")[0].(map[string]any)
	if item["org_number"] != nil || item["vat_number"] != nil {
		t.Fatalf("list shows a sole trader's personnummer: %v", item)
	}
	for _, typ := range []string{"eu_business", "non_eu_business"} {
		b.createCustomer(map[string]any{"name": "Utland", "customer_type": typ, "org_number": personnummer(5)}).
			errorCode(t, 400, "CUSTOMER_ORG_NUMBER_IS_PERSONAL")
	}
	// Changing the sole trader's type to eu_business meets the same rule.
	b.write("PATCH", "customers/"+r.str("data.id"), map[string]any{"customer_type": "eu_business"}).
		errorCode(t, 400, "CUSTOMER_ORG_NUMBER_IS_PERSONAL")
}

// Rule 4: personal_number only on an individual.
func TestCustomerRule4PersonalNumberOnlyForIndividuals(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	for _, typ := range []string{"swedish_business", "eu_business", "non_eu_business"} {
		b.createCustomer(map[string]any{"name": "Bolaget", "customer_type": typ, "personal_number": "811218-9876"}).
			errorCode(t, 400, "CUSTOMER_PERSONAL_NUMBER_NOT_ALLOWED")
	}
	r := b.createCustomer(map[string]any{"name": "Anna", "customer_type": "individual", "personal_number": "811218-9876"}).status(t, 201)
	id := r.str("data.id")
	// The masked value sent back changes nothing; a new number replaces it;
	// null clears it.
	p := b.write("PATCH", "customers/"+id, map[string]any{"personal_number": "********-9876", "notes": "Stamkund"}).status(t, 200)
	if p.str("data.personal_number") != "********-9876" {
		t.Fatalf("masked round trip: %s", p.Body)
	}
	p = b.write("PATCH", "customers/"+id, map[string]any{"personal_number": personnummer(7)}).status(t, 200)
	if want := "********-" + personnummer(7)[7:]; p.str("data.personal_number") != want {
		t.Fatalf("replaced: %s, want %s", p.Body, want)
	}
	b.write("PATCH", "customers/"+id, map[string]any{"personal_number": "811218-9875"}).errorCode(t, 400, "VALIDATION_ERROR")
	// Samordningsnummer (day + 60) pass.
	b.write("PATCH", "customers/"+id, map[string]any{"personal_number": "701063-2391"}).status(t, 200)
	// Leaving individual clears it.
	p = b.write("PATCH", "customers/"+id, map[string]any{"customer_type": "non_eu_business", "country": "no"}).status(t, 200)
	if p.at("data.personal_number") != nil || p.str("data.country") != "NO" {
		t.Fatalf("type change: %s", p.Body)
	}
	if n := b.count(`SELECT count(*) FROM customers WHERE id = $1 AND personal_number_sealed IS NULL`, id); n != 1 {
		t.Fatal("the sealed number outlived the type change")
	}
	b.write("PATCH", "customers/"+id, map[string]any{"personal_number": "811218-9876"}).
		errorCode(t, 400, "CUSTOMER_PERSONAL_NUMBER_NOT_ALLOWED")
}

// Rule 5: an eu_business VAT number is checked in VIES on commit only.
func TestCustomerRule5VIESOnCommitOnly(t *testing.T) {
	t.Parallel()
	fake := newFakeVIES(t)
	b := newPartiesBooks(t, withVIES(fake.client()))
	body := map[string]any{"name": "Muster GmbH", "customer_type": "eu_business", "country": "DE", "vat_number": "DE 123 456 789"}
	r := b.do(req{Method: "POST", Path: b.path("customers?dry_run=true"), Token: b.token, Body: body,
		Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if r.at("data.preview.vat_number_validated") != false || fake.calls.Load() != 0 {
		t.Fatalf("dry run asked VIES (%d calls): %s", fake.calls.Load(), r.Body)
	}
	// The lookup happens with no transaction of the database open: no I/O
	// to the outside inside one (ARCHITECTURE rule 3).
	var open atomic.Int32
	fake.during = func() {
		var n int32
		_ = b.db.Get(&n, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND state LIKE 'idle in transaction%'`)
		open.Add(n)
	}
	r = b.createCustomer(body).status(t, 201)
	if r.at("data.vat_number_validated") != true || fake.calls.Load() != 1 {
		t.Fatalf("commit: %d calls, %s", fake.calls.Load(), r.Body)
	}
	id := r.str("data.id")
	// A new number is checked again; an unknown one is not validated.
	p := b.write("PATCH", "customers/"+id, map[string]any{"vat_number": "DE999999999"}).status(t, 200)
	if p.at("data.vat_number_validated") != false || p.str("meta.warnings.0.code") != "VAT_NUMBER_NOT_VALID" {
		t.Fatalf("invalid number: %s", p.Body)
	}
	// A registry that does not answer leaves it unvalidated, with a warning.
	p = b.createCustomer(map[string]any{"name": "Société SA", "customer_type": "eu_business", "vat_number": "FR12345678901"}).status(t, 201)
	if p.at("data.vat_number_validated") != false || p.str("meta.warnings.0.code") != "VIES_UNAVAILABLE" {
		t.Fatalf("unavailable: %s", p.Body)
	}
	// Non-EU and Swedish customers are never looked up.
	before := fake.calls.Load()
	b.createCustomer(map[string]any{"name": "Nordmann AS", "customer_type": "non_eu_business", "vat_number": "NO123456789MVA"}).status(t, 201)
	if fake.calls.Load() != before {
		t.Fatal("a non-EU number was looked up")
	}

	if n := open.Load(); n != 0 {
		t.Fatalf("%d transactions stood open while VIES was asked", n)
	}
	// A change of type to eu_business asks about the number already stored.
	moved := b.createCustomer(map[string]any{"name": "Flyttat GmbH", "customer_type": "non_eu_business", "vat_number": "DE123456789"}).status(t, 201)
	if moved.at("data.vat_number_validated") != false {
		t.Fatalf("non-EU: %s", moved.Body)
	}
	p = b.write("PATCH", "customers/"+moved.str("data.id"), map[string]any{"customer_type": "eu_business"}).status(t, 200)
	if p.at("data.vat_number_validated") != true {
		t.Fatalf("type change: %s", p.Body)
	}

	// In bulk a registry timeout never fails the item.
	bulk := b.write("POST", "customers/bulk-create", map[string]any{"customers": []any{
		map[string]any{"name": "Rossi SpA", "customer_type": "eu_business", "vat_number": "IT12345678901"},
		map[string]any{"name": "Bianchi SpA", "customer_type": "eu_business", "vat_number": "IT98765432109"},
		map[string]any{"name": "Muster Zwei GmbH", "customer_type": "eu_business", "vat_number": "DE123456789"},
	}}).status(t, 200)
	for i, want := range []bool{false, false, true} {
		if bulk.at("data.results."+strconv.Itoa(i)+".ok") != true || bulk.at("data.results."+strconv.Itoa(i)+".data.vat_number_validated") != want {
			t.Fatalf("bulk item %d: %s", i, bulk.Body)
		}
	}
}

// Offline (no VIES URL), the number is stored unvalidated with a warning.
func TestCustomerVIESOffline(t *testing.T) {
	t.Parallel()
	b := newPartiesBooks(t)
	r := b.createCustomer(map[string]any{"name": "Muster GmbH", "customer_type": "eu_business", "vat_number": "DE123456789"}).status(t, 201)
	if r.at("data.vat_number_validated") != false || r.str("meta.warnings.0.code") != "VIES_UNAVAILABLE" ||
		!strings.Contains(r.str("meta.warnings.0.message_en"), "No EU VAT registry (VIES) is configured") {
		t.Fatalf("offline: %s", r.Body)
	}
}

// The personnummer is sealed at rest and never appears in clear in an
// answer, the audit trail, an event, a stored idempotent answer or a log.
func TestCustomerPersonnummerNeverInClear(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	core := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(&logs), zap.DebugLevel)
	b := newPartiesBooks(t, func(c *httpapi.Config) { c.Log = zap.New(core) })
	clear := []string{"811218-9876", "8112189876", "198112189876", "811218"}
	check := func(what string, s string) {
		t.Helper()
		for _, c := range clear {
			if strings.Contains(s, c) {
				t.Fatalf("%s holds the personnummer in clear (%q): %s", what, c, s)
			}
		}
	}
	r := b.createCustomer(map[string]any{"name": "Anna Svensson", "customer_type": "individual", "personal_number": "19811218-9876"}).status(t, 201)
	check("create answer", string(r.Body))
	id := r.str("data.id")
	check("detail", string(b.get(b.path("customers/"+id+"?expand=party"), b.token).status(t, 200).Body))
	check("list", string(b.get(b.path("customers?search=Anna"), b.token).status(t, 200).Body))
	check("patch answer", string(b.write("PATCH", "customers/"+id, map[string]any{"org_number": "811218-9876"}).status(t, 200).Body))
	check("bulk answer", string(b.write("POST", "customers/bulk-create", map[string]any{"customers": []any{
		map[string]any{"name": "Bo", "customer_type": "individual", "org_number": "811218-9876"},
		map[string]any{"name": "Bad", "customer_type": "individual", "personal_number": "811218-9875"},
	}}).status(t, 200).Body))
	b.write("POST", "customers", map[string]any{"name": "Fel", "customer_type": "swedish_business", "personal_number": "811218-9876"}).
		errorCode(t, 400, "CUSTOMER_PERSONAL_NUMBER_NOT_ALLOWED")

	var dump []string
	for _, q := range []string{
		`SELECT coalesce(old_state::text, '') || coalesce(new_state::text, '') FROM audit_entries WHERE table_name = 'customers'`,
		`SELECT payload::text FROM events WHERE type = 'customer.created'`,
		`SELECT convert_from(body, 'UTF8') FROM idempotency_keys`,
		`SELECT to_jsonb(c)::text FROM customers c`,
		`SELECT encode(personal_number_sealed, 'escape') FROM customers WHERE personal_number_sealed IS NOT NULL`,
	} {
		if err := b.db.SelectContext(b.t.Context(), &dump, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		check(q, strings.Join(dump, "\n"))
	}
	if n := b.count(`SELECT count(*) FROM customers WHERE personal_number_sealed IS NOT NULL`); n != 2 {
		t.Fatalf("%d sealed personnummer, want 2", n)
	}
	check("logs", logs.String())
	if !strings.Contains(logs.String(), "customers") {
		t.Fatal("the log captured nothing; the check above proves nothing")
	}
}
