package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/auth"
	"github.com/kontera/kontera/internal/documents"
	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/localpg"
	"github.com/kontera/kontera/internal/parties"
	"github.com/kontera/kontera/internal/pgtest"
	"github.com/kontera/kontera/internal/seal"
	"github.com/kontera/kontera/internal/store"
	"github.com/kontera/kontera/internal/webhooks"
)

// A change of KONTERA_PII_KEY: books written under key A are sealed anew
// under key B by `kontera pii rekey`, after which a server on B reads,
// searches and keeps unique everything as before, and A opens nothing. A
// run with a key that opens nothing changes nothing; a second run with the
// right keys finds nothing left to do.
func TestPIIRekey(t *testing.T) {
	url := pgtest.NewURL(t)
	ownerURL, err := localpg.WithUser(url, localpg.OwnerRole)
	if err != nil {
		t.Fatal(err)
	}
	d, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	keyA, keyB := bytes.Repeat([]byte{0xa1}, 32), bytes.Repeat([]byte{0xb2}, 32)
	boxA, _ := seal.New(keyA)
	boxB, _ := seal.New(keyB)
	token, _, err := auth.NewStore(d, audit.NewStore(d)).CreateKey(context.Background(), auth.NewKey{Email: "pii@example.se",
		Mode: auth.Live, Scopes: auth.Scopes, CompanyAccess: auth.AllMemberships})
	if err != nil {
		t.Fatal(err)
	}
	server := func(key []byte) string {
		srv, err := httpapi.New(httpapi.Config{DB: d, BaseURL: "http://kontera.test", Log: zap.NewNop(),
			Secret: []byte("a-test-secret-of-at-least-32-bytes!"), PIIKey: key, Blobs: documents.FS{Dir: t.TempDir()},
			Webhooks: httpapi.WebhookConfig{Client: webhooks.ClientOptions{Guard: webhooks.Guard{AllowLoopback: true}}}})
		if err != nil {
			t.Fatal(err)
		}
		h := httptest.NewServer(srv)
		t.Cleanup(h.Close)
		return h.URL
	}
	type answer struct {
		status int
		body   map[string]any
		header http.Header
	}
	call := func(api, method, path, ik string, body any) answer {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, api+path, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", ik)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(res.Body).Decode(&out)
		return answer{res.StatusCode, out, res.Header}
	}
	str := func(a answer, path ...string) string {
		var v any = a.body
		for _, p := range path {
			m, _ := v.(map[string]any)
			v = m[p]
		}
		s, _ := v.(string)
		return s
	}
	created := func(a answer) string {
		t.Helper()
		if a.status != 201 {
			t.Fatalf("%d %v", a.status, a.body)
		}
		return str(a, "data", "id")
	}

	// The books under key A: an individual, a sole trader as customer
	// (organisation and VAT numbers built on a personnummer), an employee
	// and a webhook, whose create answer is stored sealed for a replay.
	a := server(keyA)
	company := created(call(a, "POST", "/api/v1/companies", uuid.NewString(), map[string]any{"name": "Nyckelbytet AB",
		"entity_type": "aktiebolag", "vat_registered": false, "f_skatt": true}))
	base := "/api/v1/companies/" + company
	person := created(call(a, "POST", base+"/customers", uuid.NewString(), map[string]any{"name": "Anna Svensson",
		"customer_type": "individual", "personal_number": "811218-9876"}))
	trader := created(call(a, "POST", base+"/customers", uuid.NewString(), map[string]any{"name": "Eks Snickeri",
		"customer_type": "swedish_business", "org_number": "640823-3234", "vat_number": "SE640823323401"}))
	employee := created(call(a, "POST", base+"/employees", uuid.NewString(), map[string]any{"personnummer": "19850312-2387",
		"first_name": "Anna", "last_name": "Lindqvist", "employment_type": "employee", "employment_start": "2024-09-01",
		"salary_type": "monthly", "monthly_salary": 36000, "tax_table_number": 30, "tax_column": 1}))
	hookIK, hookBody := uuid.NewString(), map[string]any{"event_type": "customer.created", "name": "ERP",
		"webhook_url": "https://127.0.0.1:9/kontera"}
	hookAnswer := call(a, "POST", base+"/webhooks", hookIK, hookBody)
	hook, secret := created(hookAnswer), str(hookAnswer, "data", "secret")
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("webhook: %v", hookAnswer.body)
	}

	sealedNow := func() string {
		var s string
		if err := d.Get(&s, `SELECT concat_ws('|', (SELECT string_agg(encode(personal_number_sealed, 'hex') || coalesce(org_number, '')
			|| encode(coalesce(org_number_sealed, ''), 'hex'), ',' ORDER BY id) FROM customers),
			(SELECT string_agg(encode(personnummer_sealed, 'hex') || personnummer_token, ',') FROM employees),
			(SELECT string_agg(encode(secret_sealed, 'hex'), ',') FROM webhooks),
			(SELECT string_agg(encode(body, 'hex'), ',' ORDER BY key) FROM idempotency_keys))`); err != nil {
			t.Fatal(err)
		}
		return s
	}
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "new.key")
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(keyB)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DATABASE_URL", ownerURL)
	rekey := func(current []byte) (string, error) {
		t.Setenv("KONTERA_PII_KEY", hex.EncodeToString(current))
		var out, errOut bytes.Buffer
		err := run(context.Background(), []string{"pii", "rekey", "--new-key-file", keyFile}, &out, &errOut)
		return out.String(), err
	}

	// A key that opens nothing: refused, nothing changed.
	before := sealedNow()
	if _, err := rekey(bytes.Repeat([]byte{0xc3}, 32)); err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("a wrong key: %v", err)
	}
	if sealedNow() != before {
		t.Fatal("a refused rekey changed the sealed values")
	}
	out, err := rekey(keyA)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "2 customers and suppliers, 1 employees, 0 AGI files, 1 webhook secrets") ||
		strings.Contains(out, " 0 stored answers") {
		t.Fatalf("rekey: %s", out)
	}
	if out, err := rekey(keyA); err != nil || !strings.Contains(out, "0 customers and suppliers, 0 employees, 0 AGI files, "+
		"0 webhook secrets, 0 bank sessions, 0 stored answers") {
		t.Fatalf("a second run: %v %s", err, out)
	}

	// Key B opens everything, key A nothing.
	for name, box := range map[string]*seal.Box{"B": boxB, "A": boxA} {
		pn, err := parties.NewStore(d, audit.NewStore(d), box).PersonalNumber(context.Background(), uuid.MustParse(company),
			uuid.MustParse(person))
		if opens := err == nil && pn == "811218-9876"; opens != (name == "B") {
			t.Errorf("key %s and the personnummer: %q %v", name, pn, err)
		}
		c, err := parties.NewStore(d, audit.NewStore(d), box).Addressee(context.Background(), uuid.MustParse(company),
			uuid.MustParse(trader))
		if opens := err == nil && *c.OrgNumber == "640823-3234" && *c.VATNumber == "SE640823323401"; opens != (name == "B") {
			t.Errorf("key %s and the sole trader's numbers: %v", name, err)
		}
		var sealedPN, sealedSecret []byte
		_ = d.Get(&sealedPN, `SELECT personnummer_sealed FROM employees WHERE id = $1`, employee)
		_ = d.Get(&sealedSecret, `SELECT secret_sealed FROM webhooks WHERE id = $1`, hook)
		pnE, errE := box.Open(sealedPN, "employees/"+company+"/"+employee)
		sec, errS := box.Open(sealedSecret, webhooks.SecretContext(uuid.MustParse(company), uuid.MustParse(hook)))
		if opens := errE == nil && string(pnE) == "198503122387" && errS == nil && string(sec) == secret; opens != (name == "B") {
			t.Errorf("key %s: employee %q %v, webhook secret %v", name, pnE, errE, errS)
		}
	}
	// A server on B: the tokens are B's, so the numbers stay unique and
	// searchable, and the stored answer replays with its secret.
	b := server(keyB)
	if r := call(b, "POST", base+"/customers", uuid.NewString(), map[string]any{"name": "Eks igen",
		"customer_type": "swedish_business", "org_number": "19640823-3234"}); r.status != 409 ||
		str(r, "error", "code") != "CUSTOMER_DUPLICATE_ORG_NUMBER" {
		t.Errorf("the sole trader again: %d %v", r.status, r.body)
	}
	if r := call(b, "POST", base+"/employees", uuid.NewString(), map[string]any{"personnummer": "198503122387",
		"first_name": "Anna", "last_name": "L", "employment_type": "employee", "employment_start": "2024-09-01",
		"salary_type": "monthly", "monthly_salary": 36000, "tax_table_number": 30, "tax_column": 1}); r.status != 409 ||
		str(r, "error", "code") != "EMPLOYEE_DUPLICATE_PERSONNUMMER" {
		t.Errorf("the employee again: %d %v", r.status, r.body)
	}
	var party string
	_ = d.Get(&party, `SELECT party_id FROM customers WHERE id = $1`, trader)
	if s := call(b, "POST", base+"/suppliers", uuid.NewString(), map[string]any{"name": "Eks Snickeri",
		"supplier_type": "swedish_business", "org_number": "6408233234"}); s.status != 201 || str(s, "data", "party_id") != party {
		t.Errorf("the sole trader as supplier shares the party %s: %v", party, s.body)
	}
	if r := call(b, "GET", base+"/customers?search=640823-3234", "", nil); r.status != 200 || len(r.body["data"].([]any)) != 1 {
		t.Errorf("search by the sole trader's number: %v", r.body)
	}
	if r := call(b, "POST", base+"/webhooks", hookIK, hookBody); r.header.Get("Idempotent-Replayed") != "true" ||
		str(r, "data", "secret") != secret {
		t.Errorf("the replayed webhook: %d %v", r.status, r.body)
	}
}
