package tests

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/mail"
)

// remind runs the server's reminders as the clock stands.
func (b *partiesBooks) remind() int {
	b.t.Helper()
	n, err := b.server.SendReminders(context.Background())
	if err != nil {
		b.t.Fatalf("reminding: %v", err)
	}
	return n
}

// exact is what account stands at (debit − credit), to the öre.
func (b *partiesBooks) exact(account string) string {
	b.t.Helper()
	var s string
	if err := b.db.QueryRow(`SELECT coalesce(sum(l.debit_amount - l.credit_amount), 0)::text FROM journal_lines l
		JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.journal_entry_id
		WHERE l.company_id = $1 AND l.account_number = $2 AND e.status = 'posted' AND l.struck_by_rattelse_id IS NULL`, b.company, account).Scan(&s); err != nil {
		b.t.Fatal(err)
	}
	return s
}

// An invoice of 10 000 due 2026-03-31, reminders at 30 and 45 days, a
// 60 kr fee and 10 % interest a year. Level 1 on 2026-04-30: fee 60,
// interest 10 000 × 10 % × 30 / 365 = 82,19; level 2 on 2026-05-15:
// no fee, interest for the 15 days since, 10 000 × 10 % × 15 / 365 =
// 41,10. Each level once. Paying 10 000 + 60 + 82,19 + 41,10 =
// 10 183,29 books D 1930 10 183,29 / C 1510 10 000, C 3990 60,
// C 8313 123,29.
func TestInvoiceReminders(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	b := newPartiesBooks(t, clock(func() time.Time { return now }), mailVia(mail.Drop{Dir: dir}))
	b.write("PATCH", "settings", map[string]any{"reminder_fee_amount": 61}).errorCode(t, 400, "VALIDATION_ERROR")
	b.write("PATCH", "settings", map[string]any{"send_invoice_reminders": true, "reminder_days_level_1": 30,
		"reminder_days_level_2": 45, "reminder_fee_enabled": true, "reminder_fee_amount": 60,
		"reminder_interest_rate_override": 10, "invoice_late_fee_text": "Påminnelseavgift 60 kr enligt avtal.",
		"bankgiro": "5050-1055"}).status(t, 200)
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business",
		"email": "ekonomi@kund.se"}).status(t, 201).str("data.id")
	id := b.createInvoice(consulting(customer, map[string]any{"items": []any{map[string]any{"description": "Konsulttimmar",
		"quantity": 8, "unit": "tim", "unit_price": 1000}}})).status(t, 201).str("data.id")
	b.markSent(id).status(t, 200)
	number := b.get(b.path("invoices/"+id), b.token).str("data.invoice_number")

	now = time.Date(2026, 4, 29, 9, 0, 0, 0, time.UTC)
	if b.remind() != 0 {
		t.Fatal("reminded 29 days after the due date")
	}
	now = time.Date(2026, 4, 30, 9, 0, 0, 0, time.UTC)
	if b.remind() != 1 || b.remind() != 0 {
		t.Fatal("level 1 is sent once, on day 30")
	}
	if b.deliver() != 1 {
		t.Fatal("the reminder was not handed on")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
	if len(files) != 1 {
		t.Fatalf("%d .eml files", len(files))
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	m := parseMessage(t, string(raw))
	if m.Subject != "Påminnelse: faktura "+number+" från Handelsbolaget AB" || !strings.Contains(m.Text, "10 142,19 kr") {
		t.Errorf("the reminder e-mail: %q\n%s", m.Subject, m.Text)
	}
	text := pdfText(t, m.PDF)
	for _, want := range []string{"Påminnelse", number, "10 000,00 kr", "60,00 kr", "82,19 kr", "10 142,19 kr",
		"Dröjsmålsränta 10 % per år", "5050-1055", "Påminnelseavgift 60 kr enligt avtal.", "snarast"} {
		if !strings.Contains(text, want) {
			t.Errorf("the Påminnelse PDF lacks %q:\n%s", want, text)
		}
	}

	now = time.Date(2026, 5, 15, 9, 0, 0, 0, time.UTC)
	if b.remind() != 1 || b.remind() != 0 {
		t.Fatal("level 2 is sent once, on day 45")
	}
	now = time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC)
	if b.remind() != 0 {
		t.Fatal("level 3 is off")
	}
	rs := b.get(b.path("invoices/"+id+"/reminders"), b.token).status(t, 200).list("data.reminders")
	if len(rs) != 2 {
		t.Fatalf("%d reminders", len(rs))
	}
	for i, want := range []struct {
		day            string
		fee, interest  float64
		overdue, level float64
	}{{"2026-04-30", 60, 82.19, 30, 1}, {"2026-05-15", 0, 41.10, 45, 2}} {
		r := rs[i].(map[string]any)
		if r["sent_on"] != want.day || r["fee"] != want.fee || r["interest"] != want.interest ||
			r["days_overdue"] != want.overdue || r["level"] != want.level || r["interest_rate"] != 10.0 {
			t.Errorf("reminder %d: %v", i+1, r)
		}
	}

	// An öre beyond the invoice and its reminders' charges would be the
	// customer's credit.
	over := b.do(req{Method: "POST", Path: b.path("invoices/" + id + "/mark-paid?dry_run=true"), Token: b.token,
		Body: map[string]any{"amount": 10183.30, "payment_date": "2026-07-01"}, Header: map[string]string{"Idempotency-Key": newKey()}}).status(t, 200)
	if over.at("data.preview.customer_credit.amount") != 0.01 {
		t.Fatalf("an öre over: %s", over.Body)
	}
	paid := b.markPaid(id, map[string]any{"amount": 10183.29, "payment_date": "2026-07-01"}).status(t, 200)
	if paid.str("data.status") != "paid" {
		t.Fatalf("paid: %s", paid.Body)
	}
	for account, want := range map[string]string{"1930": "10183.29", "1510": "0.00", "3990": "-60.00", "8313": "-123.29"} {
		if got := b.exact(account); got != want {
			t.Errorf("%s stands at %s, want %s", account, got, want)
		}
	}
}

// An invoice due 2026-03-31 falls overdue on 2026-04-01: invoice.overdue
// is announced that day, once, whatever the sweeps after; a paid one, a
// draft and one overdue for longer than the look-back are not announced.
// The feed carries it, valid against the document, with the invoice.
func TestInvoiceOverdueEvent(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	h := newHookBooks(t, 0, clock(func() time.Time { return now })) // its dispatcher puts events in the feed
	b := &partiesBooks{env: h.env, token: h.token, company: h.company}
	customer := b.createCustomer(map[string]any{"name": "Kund AB", "customer_type": "swedish_business"}).
		status(t, 201).str("data.id")
	issue := func(due string) string {
		id := b.createInvoice(consulting(customer, map[string]any{"due_date": due})).status(t, 201).str("data.id")
		b.markSent(id).status(t, 200)
		return id
	}
	late := issue("2026-03-31")
	paid := issue("2026-03-31")
	b.write("POST", "invoices/"+paid+"/mark-paid", map[string]any{"amount": b.get(b.path("invoices/"+paid), b.token).
		at("data.total"), "payment_date": "2026-03-20"}).status(t, 200)
	b.createInvoice(consulting(customer, map[string]any{"due_date": "2026-03-31"})).status(t, 201)
	old := issue("2026-03-10")
	sweep := func() int {
		n, err := b.server.AnnounceOverdue(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	now = time.Date(2026, 3, 31, 23, 0, 0, 0, time.UTC) // 1 April in Stockholm
	if n := sweep(); n != 1 {
		t.Fatalf("on 1 April %d announced, want 1 (due 31 March)", n)
	}
	// Due 10 March, 22 days late on 1 April: beyond the look-back.
	if r := b.get(b.path("invoices/"+old), b.token).status(t, 200); r.str("data.status") != "overdue" {
		t.Fatalf("the old invoice: %s", r.Body)
	}
	if n := sweep(); n != 0 {
		t.Fatalf("a second sweep announced %d", n)
	}
	now = time.Date(2026, 4, 20, 9, 0, 0, 0, time.UTC)
	if n := sweep(); n != 0 {
		t.Fatalf("later sweeps announced %d", n)
	}
	events := h.fedOf("invoice.overdue", 1)
	if len(events) != 1 || b.count(`SELECT count(*) FROM events WHERE type = 'invoice.overdue'`) != 1 {
		t.Fatalf("%d invoice.overdue events: %v", len(events), events)
	}
	e := events[0]["data"].(map[string]any)["object"].(map[string]any)
	if e["invoice"].(map[string]any)["id"] != late || e["days_overdue"] != 1.0 {
		t.Fatalf("the event: %v", e)
	}
}
