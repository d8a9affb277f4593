package invoicing

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
)

// Draft is what a client asks a new draft to be, before the rules fill
// in what it leaves out.
type Draft struct {
	CustomerID        uuid.UUID
	DocumentType      string // "" is invoice
	InvoiceDate       time.Time
	DueDate           *time.Time
	DeliveryDate      *time.Time
	ValidUntil        *time.Time
	Currency          string // "" is SEK
	ExchangeRate      *money.Rate
	YourReference     *string
	OurReference      *string
	Marking           *string
	Notes             *string
	OreRounding       *bool
	DefaultDimensions ledger.Dimensions
	Treatment         Treatment // "" when not asked
	DeliveryCountry   string
	SelfBilled        bool
	SourceQuoteID     *uuid.UUID // the quote it is made from
	// The home of ROT work: a property designation, or a housing
	// association's organisation number and the apartment.
	Housing, Apartment, BRFOrgNumber *string
	Lines                            []DraftLine
	// Keep, when set, is the VAT treatment decided before, kept as it is
	// (a draft changed without its lines or treatment): not decided again.
	Keep *Kind
}

// DraftLine is a line as asked.
type DraftLine struct {
	Text bool
	// ArticleID is the article the line names; Article is what it takes
	// from it, once looked up (Sales does), each field unless the line
	// gives its own.
	ArticleID      *uuid.UUID
	Article        *LineArticle
	Description    string
	Quantity       *money.Quantity
	Unit           *string
	UnitPrice      *money.Amount
	Discount       *money.Amount // percent
	VATRate        *money.Amount // a fraction: 0.25
	RevenueAccount *string
	Dimensions     ledger.Dimensions
	Deduction      *string       // "rot" or "rut": labour that counts toward it
	LaborHours     *money.Amount // the hours of that labour
	WorkType       *string       // Skatteverket's arbetstyp
	// An accrual period: the line's revenue waits on AccrualAccount
	// (default 2970) and is released month by month.
	AccrualStart, AccrualEnd *time.Time
	AccrualAccount           *string
}

// LineArticle is what a line takes from the article it names: the text,
// unit, price in kronor, the VAT rate under Swedish VAT and the revenue
// account of the invoice's treatment.
type LineArticle struct {
	ID                 uuid.UUID
	Description, Unit  string
	UnitPrice, VATRate money.Amount
	Accounts           map[Kind]string
	Active             bool
}

// Customer is what an invoice needs of its customer.
type Customer struct {
	ID           uuid.UUID
	Name         string
	Buyer        Buyer
	PaymentTerms int // days
}

// Settings are the company's settings an invoice follows.
type Settings struct {
	QuotesEnabled   *bool // false refuses quotes; null does not
	ProformaEnabled *bool
	OreRounding     bool
	ContactPerson   *string
	VATRegistered   bool
	Cash            bool // kontantmetoden
	RotRut          bool // rot_rut_enabled
	DeferBooking    bool // defer_invoice_booking
	// WriteOffLimit is short_payment_write_off_limit: a payment in kronor
	// short of an invoice by at most this closes it (0: never).
	WriteOffLimit money.Amount
}

// Plan settles what a draft will be stored as: the rules of create
// (peer §4.2, §4.5) over the customer and the settings, with the totals
// reckoned and the warnings that do not fail it. It writes nothing; the
// number of a quote, proforma or delivery note is the caller's to take.
func Plan(d Draft, c Customer, s Settings) (Invoice, []Warning, error) {
	inv := Invoice{ID: uuid.New(), DocumentType: d.DocumentType, CustomerID: c.ID, CustomerName: c.Name,
		Status: "draft", InvoiceDate: d.InvoiceDate, DeliveryDate: d.DeliveryDate, ValidUntil: d.ValidUntil,
		Currency: d.Currency, ExchangeRate: d.ExchangeRate, YourReference: d.YourReference,
		OurReference: d.OurReference, Marking: d.Marking, Notes: d.Notes, DefaultDimensions: d.DefaultDimensions,
		SourceQuoteID: d.SourceQuoteID}
	if inv.DocumentType == "" {
		inv.DocumentType = "invoice"
	}
	if inv.Currency == "" {
		inv.Currency = "SEK"
	}
	if inv.DefaultDimensions == nil {
		inv.DefaultDimensions = ledger.Dimensions{}
	}
	if d.SelfBilled {
		return inv, nil, apierr.Field("is_self_billed", "not_supported", "self-billing (självfaktura) is not supported")
	}
	switch {
	case inv.DocumentType == "quote" && s.QuotesEnabled != nil && !*s.QuotesEnabled:
		return inv, nil, apierr.Field("document_type", "quotes_enabled", "quotes are turned off in the company's settings (quotes_enabled)")
	case inv.DocumentType == "proforma" && s.ProformaEnabled != nil && !*s.ProformaEnabled:
		return inv, nil, apierr.Field("document_type", "proforma_enabled", "proformas are turned off in the company's settings (proforma_enabled)")
	}
	if err := planDates(&inv, d, c); err != nil {
		return inv, nil, err
	}
	if inv.Currency == "SEK" && inv.ExchangeRate != nil {
		return inv, nil, apierr.Field("exchange_rate", "currency", "an invoice in SEK takes no exchange rate")
	}
	if inv.OurReference == nil {
		inv.OurReference = s.ContactPerson
	}
	inv.OreRounding = s.OreRounding
	if d.OreRounding != nil {
		inv.OreRounding = *d.OreRounding
	}
	if inv.Currency != "SEK" {
		inv.OreRounding = false // öresavrundning is of kronor
	}

	swedishSet := false
	for _, l := range d.Lines {
		if l.VATRate != nil && l.VATRate.Sign() > 0 {
			swedishSet = true
		}
	}
	var country string
	if d.DeliveryCountry != "" {
		country = d.DeliveryCountry
		inv.DeliveryCountry = &country
	}
	decision := Decision{}
	if d.Keep != nil {
		decision.Kind = *d.Keep
	} else {
		var err error
		if decision, err = Decide(c.Buyer, Ask{Treatment: d.Treatment, DeliveryCountry: country, SwedishRateSet: swedishSet},
			s.VATRegistered); err != nil {
			return inv, nil, err
		}
	}
	inv.Treatment, inv.TreatmentOverride = decision.Kind, d.Treatment != "" || country != ""
	if decision.Kind.buyerAccounts() && d.Keep == nil {
		validated := !decision.Unvalidated
		inv.BuyerVATValidated = &validated
	}

	items := make([]Item, len(d.Lines))
	inv.Lines = make([]Line, len(d.Lines))
	for i, l := range d.Lines {
		line, it, err := planArticleLine(i, l, decision.Kind, inv.Currency)
		if err != nil {
			return inv, nil, err
		}
		if err := planAccrual(i, l, &line, inv.DocumentType, s.Cash); err != nil {
			return inv, nil, err
		}
		items[i], inv.Lines[i] = it, line
	}
	t, err := Compute(items, Options{OreRounding: inv.OreRounding, Date: inv.InvoiceDate})
	if err != nil {
		return inv, nil, apierr.Field("items", "total", "the invoice's total is past 999 999 999 999.99")
	}
	for i := range inv.Lines {
		inv.Lines[i].Net, inv.Lines[i].VAT = t.Lines[i].Net, t.Lines[i].VAT
	}
	if err := checkDeduction(&inv, d, c, s); err != nil {
		return inv, nil, err
	}
	inv.Subtotal, inv.VAT, inv.Rounding, inv.Total, inv.DeductionTotal = t.Subtotal, t.VAT, t.Rounding, t.Total, t.Deduction
	inv.ROTDeduction = t.ROT
	if inv.Currency == "SEK" {
		sek := inv.Total
		inv.TotalSEK = &sek
	} else if inv.ExchangeRate != nil {
		// What the sale's verifikat will come to: each line converted, as
		// IssueLines books it, which a payment's share is reckoned on.
		sale, err := saleOf(inv)
		if err != nil {
			return inv, nil, err
		}
		lines, err := IssueLines(sale)
		if err != nil {
			return inv, nil, err
		}
		sek := kronorOf(lines)
		inv.TotalSEK = &sek
	}
	return inv, decision.Warnings, nil
}

// planDates settles the dates: a quote's validity (its due date), an
// invoice's due date from the customer's terms, never before the invoice
// date.
func planDates(inv *Invoice, d Draft, c Customer) error {
	if inv.DocumentType == "quote" {
		if d.ValidUntil == nil {
			return apierr.Field("valid_until", "required", "a quote needs valid_until")
		}
		if d.ValidUntil.Before(d.InvoiceDate) {
			return apierr.Field("valid_until", "after_invoice_date", "must be on or after invoice_date")
		}
		open := "open"
		inv.QuoteStatus = &open
		inv.DueDate = *d.ValidUntil
		return nil
	}
	if d.ValidUntil != nil {
		return apierr.Field("valid_until", "quote_only", "only a quote has valid_until")
	}
	inv.DueDate = d.InvoiceDate.AddDate(0, 0, c.PaymentTerms)
	if d.DueDate != nil {
		inv.DueDate = *d.DueDate
	}
	if inv.DueDate.Before(inv.InvoiceDate) {
		return apierr.Field("due_date", "after_invoice_date", "must be on or after invoice_date")
	}
	return nil
}

// planArticleLine is planLine for a line that may name an article: what
// the line leaves out it takes from the article, the revenue account
// that of the invoice's treatment (checked against the VAT return's box
// when the article was written). Under a zero-rated treatment the line
// takes no rate from the article: it carries 0 %.
func planArticleLine(i int, l DraftLine, kind Kind, currency string) (Line, Item, error) {
	a := l.Article
	if a == nil {
		if l.ArticleID != nil {
			return Line{}, Item{}, errors.New("invoicing: the article of line " + strconv.Itoa(i) + " was not looked up")
		}
		return planLine(i, l, kind)
	}
	at := func(name string) string { return "items." + strconv.Itoa(i) + "." + name }
	if l.Text {
		return Line{}, Item{}, apierr.Field(at("article_id"), "text", "a text line names no article")
	}
	if l.Description == "" {
		l.Description = a.Description
	}
	if l.Unit == nil {
		u := a.Unit
		l.Unit = &u
	}
	if l.UnitPrice == nil {
		if currency != "SEK" {
			return Line{}, Item{}, apierr.Field(at("unit_price"), "required",
				"the article's price is in kronor: give the line's unit_price in "+currency)
		}
		p := a.UnitPrice
		l.UnitPrice = &p
	}
	if l.VATRate == nil && !kind.ZeroRated() {
		r := a.VATRate
		l.VATRate = &r
	}
	own := l.RevenueAccount != nil
	line, it, err := planLine(i, l, kind)
	if err != nil {
		return line, it, err
	}
	if account := a.Accounts[kind]; !own && account != "" {
		line.RevenueAccount = &account
	}
	id := a.ID
	line.ArticleID = &id
	return line, it, nil
}

// planLine checks line i and answers it as stored and as its totals see
// it. A left-out rate is 25 % under Swedish VAT and 0 % under a
// zero-rated treatment, which takes no other.
func planLine(i int, l DraftLine, kind Kind) (Line, Item, error) {
	at := func(name string) string { return "items." + strconv.Itoa(i) + "." + name }
	line := Line{ID: uuid.New(), SortOrder: i, Type: "product", Description: l.Description,
		RevenueAccount: l.RevenueAccount, Dimensions: l.Dimensions, VATRate: money.Amount{}}
	if line.Dimensions == nil {
		line.Dimensions = ledger.Dimensions{}
	}
	if l.Description == "" {
		return line, Item{}, apierr.Field(at("description"), "required", "a line needs a description, or an article_id to take it from")
	}
	if l.Text {
		line.Type = "text"
		one, _ := money.ParseQuantity("1")
		line.Quantity, line.Unit = one, "st"
		if l.Quantity != nil || l.UnitPrice != nil || l.VATRate != nil || l.Discount != nil || l.RevenueAccount != nil ||
			l.Deduction != nil || l.LaborHours != nil || l.WorkType != nil {
			return line, Item{}, apierr.Field(at("line_type"), "text", "a text line carries a description only")
		}
		return line, Item{Text: true}, nil
	}
	switch {
	case l.Quantity == nil:
		return line, Item{}, apierr.Field(at("quantity"), "required", "a product line needs a quantity")
	case l.Quantity.Sign() <= 0:
		return line, Item{}, apierr.Field(at("quantity"), "exclusiveMinimum", "must be greater than 0")
	case l.Unit == nil:
		return line, Item{}, apierr.Field(at("unit"), "required", "a product line needs a unit")
	case l.UnitPrice == nil:
		return line, Item{}, apierr.Field(at("unit_price"), "required", "a product line needs a unit_price")
	}
	line.Quantity, line.Unit, line.UnitPrice = *l.Quantity, *l.Unit, *l.UnitPrice
	if l.Discount != nil {
		line.Discount = *l.Discount
	}
	rate := 25
	if kind.ZeroRated() {
		rate = 0
	}
	if l.VATRate != nil {
		rate = int(l.VATRate.InÖre())
		if kind.ZeroRated() && rate != 0 {
			return line, Item{}, apierr.Field(at("vat_rate"), "zero_rated", fmt.Sprintf(
				"a sale treated as %s carries no Swedish VAT: leave vat_rate out or send 0", kind))
		}
	}
	line.VATRate = money.Öre(int64(rate))
	if l.RevenueAccount != nil && kind.ZeroRated() {
		return line, Item{}, apierr.Field(at("revenue_account"), "zero_rated", "a zero-rated sale books on its treatment's account ("+kind.Revenue()+")")
	}
	line.Deduction, line.LaborHours, line.WorkType = l.Deduction, l.LaborHours, l.WorkType
	item := Item{Quantity: line.Quantity, UnitPrice: line.UnitPrice, Discount: line.Discount, VATRate: rate}
	if l.Deduction != nil {
		item.Deduction = Deduction(*l.Deduction)
	} else if l.LaborHours != nil || l.WorkType != nil {
		return line, Item{}, rotRut(at("deduction_type"), "required", "labor_hours and work_type belong to a ROT or RUT line")
	}
	return line, item, nil
}

// SettingsOf reads the settings an invoice follows from the company's
// settings read model (column name to JSON value; null is unset).
func SettingsOf(m map[string]any) Settings {
	flag := func(k string) *bool {
		if b, ok := m[k].(bool); ok {
			return &b
		}
		return nil
	}
	s := Settings{QuotesEnabled: flag("quotes_enabled"), ProformaEnabled: flag("proforma_enabled")}
	if b := flag("ore_rounding"); b != nil {
		s.OreRounding = *b
	}
	if b := flag("vat_registered"); b != nil {
		s.VATRegistered = *b
	}
	if b := flag("defer_invoice_booking"); b != nil {
		s.DeferBooking = *b
	}
	if b := flag("rot_rut_enabled"); b != nil {
		s.RotRut = *b
	}
	s.Cash = m["accounting_method"] == "cash"
	if n, ok := m["short_payment_write_off_limit"].(json.Number); ok {
		s.WriteOffLimit, _ = money.Parse(n.String())
	}
	if p, ok := m["contact_person"].(string); ok && p != "" {
		s.ContactPerson = &p
	}
	return s
}
