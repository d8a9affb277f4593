package invoicing

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/mail"
	"github.com/kontera/kontera/internal/pdf"
)

// reminderTexts is the built-in wording of reminder e-mails.
var reminderTexts = map[string]EmailText{
	"sv": {Subject: "Påminnelse: faktura {fakturanummer} från {företag}",
		Body: "Hej {förnamn}!\n\nVi har ännu inte fått betalt för faktura {fakturanummer}, som förföll {förfallodatum}. " +
			"Att betala nu: {belopp}. Påminnelsen finns som PDF i det här mejlet. Har du redan betalat kan du bortse från den.\n\n" +
			"Med vänliga hälsningar\n{företag}"},
	"en": {Subject: "Reminder: invoice {fakturanummer} from {företag}",
		Body: "Hello {förnamn},\n\nWe have not yet received payment of invoice {fakturanummer}, due on {förfallodatum}. " +
			"Now due: {belopp}. The reminder is attached as a PDF. If you have already paid, please disregard it.\n\n" +
			"Kind regards\n{företag}"},
}

// Remind sends the company's reminders due on today, in the transaction
// of ctx, and answers how many it queued: for each overdue invoice the
// next level that is due (NextLevel), once, e-mailed with a Påminnelse
// PDF. The fee is charged with the first reminder only, and fee and
// interest only on invoices in kronor; interest runs from the due date,
// or the last reminder, to today. A customer without an e-mail address
// is not reminded. Another replica running the company's reminders at
// the same time makes this one do nothing.
func (s *Sales) Remind(ctx context.Context, company uuid.UUID, today time.Time) (int, error) {
	if ok, err := s.store.HoldReminders(ctx, company); err != nil || !ok {
		return 0, err
	}
	seller, err := s.shelf.Seller(ctx, company)
	if err != nil || !seller.Reminders.On || s.shelf.Mail.Mode == "off" {
		return 0, err
	}
	overdue, err := s.store.OverdueOn(ctx, company, today)
	if err != nil {
		return 0, err
	}
	sent := 0
	for _, o := range overdue {
		level := NextLevel(seller.Reminders, o.Due, today, o.Sent)
		if level == 0 {
			continue
		}
		ok, err := s.remind(ctx, company, seller, o, level, today)
		if err != nil {
			return sent, err
		}
		if ok {
			sent++
		}
	}
	return sent, nil
}

// remind queues reminder level of overdue invoice o and records it;
// false when its customer has no e-mail address.
func (s *Sales) remind(ctx context.Context, company uuid.UUID, seller Seller, o Overdue, level int, today time.Time) (bool, error) {
	inv, err := s.store.Get(ctx, company, o.ID, today, false, Read)
	if err != nil {
		return false, err
	}
	buyer, err := s.shelf.Buyer(ctx, inv.CompanyID, inv.CustomerID)
	if err != nil || buyer.Email == "" {
		return false, err
	}
	p := seller.Reminders
	r := Reminder{CompanyID: inv.CompanyID, InvoiceID: inv.ID, Level: level, SentOn: today,
		DaysOverdue: int(today.Sub(o.Due).Hours() / 24), Remaining: o.Remaining}
	if inv.Currency == "SEK" {
		if !o.FeeCharged {
			r.Fee = p.Fee
		}
		if p.Rate != nil {
			r.Rate = p.Rate
			if r.Interest, err = Interest(o.Remaining, *p.Rate, int(today.Sub(o.Since).Hours()/24)); err != nil {
				return false, err
			}
		}
	}
	fees, interest, err := s.store.Outstanding(ctx, inv.CompanyID, inv.ID)
	if err != nil {
		return false, err
	}
	owed := o.Remaining.Add(fees).Add(interest).Add(r.Claim())
	rr := renderer{inv: inv}
	ph := Placeholders{Number: text(inv.Number), Customer: buyer.Name, FirstName: firstName(buyer), Company: seller.Name,
		Due: isoDay(inv.DueDate), Amount: rr.amount(owed), Document: "Faktura"}
	lang := buyer.Language
	if _, ok := reminderTexts[lang]; !ok {
		lang = "sv"
	}
	own, def := p.Texts[level], reminderTexts[lang]
	subject, body := def.Subject, def.Body
	if own.Subject != "" {
		subject = own.Subject
	}
	if strings.TrimSpace(own.Body) != "" {
		body = own.Body
	}
	id := uuid.New()
	e := mail.Email{CompanyID: inv.CompanyID, ID: id, InvoiceID: &inv.ID, Kind: "reminder", ReminderLevel: &level,
		FromName: seller.Name, To: buyer.Email, Cc: distinct(buyer.Email, buyer.CC, seller.Mail.CC),
		Bcc: distinct(buyer.Email, buyer.BCC, seller.Mail.BCC), Subject: strings.Join(strings.Fields(ph.fill(subject)), " "),
		Body: ph.fill(body), MessageID: mail.MessageID(id.String(), s.shelf.Mail.From)}
	if seller.Mail.ReplyTo != "" {
		e.ReplyTo = &seller.Mail.ReplyTo
	}
	if _, err := s.shelf.Mail.Queue(ctx, e); err != nil {
		return false, err
	}
	r.EmailID = &id
	return true, s.store.InsertReminder(ctx, r)
}

// RemindingCompanies answers the companies that send reminders.
func (s *Sales) RemindingCompanies(ctx context.Context) ([]uuid.UUID, error) {
	return s.store.RemindingCompanies(ctx)
}

// Reminders answers an invoice's reminders.
func (s *Sales) Reminders(ctx context.Context, company, id uuid.UUID) ([]Reminder, error) {
	if _, err := s.store.Get(ctx, company, id, s.today(), false, Read); err != nil {
		return nil, err
	}
	return s.store.Reminders(ctx, company, id)
}

// ReminderPDF renders reminder level of an invoice, as the e-mail that
// carries it attaches it, and answers its file name.
func (s *Sales) ReminderPDF(ctx context.Context, company, id uuid.UUID, level int) ([]byte, string, error) {
	inv, err := s.store.Get(ctx, company, id, s.today(), false, Read)
	if err != nil {
		return nil, "", err
	}
	all, err := s.store.Reminders(ctx, company, id)
	if err != nil {
		return nil, "", err
	}
	var upTo []Reminder
	for _, r := range all {
		if r.Level <= level {
			upTo = append(upTo, r)
		}
	}
	if len(upTo) == 0 || upTo[len(upTo)-1].Level != level {
		return nil, "", apierr.New(apierr.InvoiceEmailNotFound, map[string]any{"invoice_id": id, "level": level})
	}
	l, err := s.letter(ctx, inv)
	if err != nil {
		return nil, "", err
	}
	b, err := RenderReminder(inv, l, upTo)
	return b, fmt.Sprintf("paminnelse-%d-%s", level, strings.TrimPrefix(FileName(inv), "faktura-")), err
}

// RenderReminder lays out the last of reminders (the earlier ones give
// their fees and interest) of inv: what is left of the invoice, the
// charges, what to pay now, and how.
func RenderReminder(inv Invoice, l Letter, reminders []Reminder) ([]byte, error) {
	last := reminders[len(reminders)-1]
	title := "Påminnelse"
	if last.Level > 1 {
		title = fmt.Sprintf("Påminnelse %d", last.Level)
	}
	r, err := start(inv, l, title, title+" – faktura "+text(inv.Number), last.SentOn)
	if err != nil {
		return nil, err
	}
	r.masthead()
	r.d.Text(fmt.Sprintf("Vi har ännu inte fått betalt för faktura %s, som förföll %s (%d dagar sedan). "+
		"Betala det som står nedan snarast. Har du redan betalat kan du bortse från den här påminnelsen.",
		text(inv.Number), isoDay(inv.DueDate), last.DaysOverdue), body)
	r.d.Space(10)
	t := pdf.Table{Head: r.primary, Size: 9, Cols: []pdf.Col{{Title: "Avser", Width: 0.75}, {Title: "Belopp", Width: 0.25, Align: pdf.AlignRight}}}
	owed := last.Remaining
	t.Rows = append(t.Rows, pdf.Row{Cells: []string{"Kvar att betala av faktura " + text(inv.Number) + ", förföll " +
		isoDay(inv.DueDate), r.amount(last.Remaining)}})
	for _, rem := range reminders {
		if rem.Fee.Sign() > 0 {
			t.Rows = append(t.Rows, pdf.Row{Cells: []string{fmt.Sprintf("Påminnelseavgift (påminnelse %d, %s)", rem.Level,
				isoDay(rem.SentOn)), r.amount(rem.Fee)}})
			owed = owed.Add(rem.Fee)
		}
		if rem.Interest.Sign() > 0 && rem.Rate != nil {
			t.Rows = append(t.Rows, pdf.Row{Cells: []string{fmt.Sprintf("Dröjsmålsränta %s %% per år, till %s", percent(*rem.Rate),
				isoDay(rem.SentOn)), r.amount(rem.Interest)}})
			owed = owed.Add(rem.Interest)
		}
	}
	t.Rows = append(t.Rows, pdf.Row{Cells: []string{"Att betala", r.amount(owed)}, Bold: true})
	r.d.Table(t)
	r.d.Space(10)
	if l.Seller.LateFee != "" {
		r.d.Text(l.Seller.LateFee, small)
		r.d.Space(6)
	}
	r.due = &owed
	r.payment()
	return r.d.Bytes()
}
