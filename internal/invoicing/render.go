package invoicing

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/pdf"
)

// Letter is what a document prints besides the invoice itself.
type Letter struct {
	Seller Seller
	Buyer  Addressee
	// Original is the credited invoice's number, on a credit note.
	Original string
	// PersonalNumber is the buyer's personnummer, on a ROT/RUT invoice.
	PersonalNumber string
}

// Title is what a document of inv's kind is called.
func Title(inv Invoice) string {
	switch {
	case inv.CreditedID != nil:
		return "Kreditfaktura"
	case inv.DocumentType == "quote":
		return "Offert"
	case inv.DocumentType == "proforma":
		return "Proformafaktura"
	case inv.DocumentType == "delivery_note":
		return "Följesedel"
	}
	return "Faktura"
}

// IsDraft reports whether inv renders as a draft: it has no number yet.
func IsDraft(inv Invoice) bool { return inv.Number == nil }

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// FileName is the name a document of inv is served and archived under:
// faktura-2026-0042.pdf, or faktura-utkast-1a2b3c4d.pdf for a draft.
func FileName(inv Invoice) string {
	stem := map[string]string{"quote": "offert", "proforma": "proformafaktura", "delivery_note": "foljesedel"}[inv.DocumentType]
	if stem == "" {
		stem = "faktura"
	}
	if IsDraft(inv) {
		return stem + "-utkast-" + inv.ID.String()[:8] + ".pdf"
	}
	return stem + "-" + unsafeName.ReplaceAllString(*inv.Number, "_") + ".pdf"
}

// Render lays out inv as a PDF. It reads no clock: the same invoice and
// letter give the same bytes.
func Render(inv Invoice, l Letter) ([]byte, error) {
	r, err := start(inv, l, Title(inv), heading(inv), stamp(inv))
	if err != nil {
		return nil, err
	}
	r.masthead()
	r.lacking()
	r.parties()
	r.lines()
	r.totals()
	r.vatText()
	r.deduction()
	r.notes()
	r.payment()
	return r.d.Bytes()
}

// start begins a document of inv titled title, with the letterhead's
// look; heading names it on every page, created dates it.
func start(inv Invoice, l Letter, title, heading string, created time.Time) (renderer, error) {
	s := l.Seller
	primary := colour(s.Layout.Primary, pdf.Color{R: 0x1a, G: 0x3c, B: 0x5e})
	accent := colour(s.Layout.Accent, primary)
	o := pdf.Options{
		Family: pdf.FamilyOf(s.Layout.Font), Title: heading, Author: s.Name, Subject: inv.CustomerName,
		Created: created, Band: &primary, Running: heading + " · " + s.Name,
		Footer: footer(s), PageLabel: pdf.SwedishPages,
	}
	if IsDraft(inv) {
		o.Watermark = "UTKAST"
	}
	d, err := pdf.New(o)
	if err != nil {
		return renderer{}, err
	}
	return renderer{d: d, inv: inv, l: l, title: title, primary: primary, accent: accent}, nil
}

// stamp is the time the document is dated: when it was issued, else when
// the draft was made. Both belong to the record, so a render is stable.
func stamp(inv Invoice) time.Time {
	if inv.SentAt != nil {
		return *inv.SentAt
	}
	return inv.CreatedAt
}

// heading is the title with the number: "Faktura 2026-0042".
func heading(inv Invoice) string {
	if IsDraft(inv) {
		return Title(inv) + " (utkast)"
	}
	return Title(inv) + " " + *inv.Number
}

func colour(s string, fallback pdf.Color) pdf.Color {
	if c, err := pdf.ParseColor(s); err == nil {
		return c
	}
	return fallback
}

// footer is the company's identity at the foot of every page: what
// aktiebolagslagen and mervärdesskattelagen ask an invoice to carry.
func footer(s Seller) []string {
	var first []string
	if s.Layout.ShowCompanyName && s.Layout.NameInFooter {
		first = append(first, s.Name)
	}
	first = append(first, s.Address...)
	var second []string
	if s.OrgNumber != "" {
		second = append(second, "Org.nr "+s.OrgNumber)
	}
	if s.VATNumber != "" {
		second = append(second, "Momsreg.nr "+s.VATNumber)
	}
	if s.Aktiebolag && s.Seat != "" {
		second = append(second, "Styrelsens säte: "+s.Seat)
	}
	if s.FSkatt {
		second = append(second, "Godkänd för F-skatt")
	}
	var third []string
	for _, v := range []string{s.Email, s.Phone, s.Web} {
		if v != "" {
			third = append(third, v)
		}
	}
	var out []string
	for _, part := range [][]string{first, second, third} {
		if len(part) > 0 {
			out = append(out, strings.Join(part, " · "))
		}
	}
	if s.Layout.Footer != "" {
		out = append(out, s.Layout.Footer)
	}
	return out
}

type renderer struct {
	d               *pdf.Document
	inv             Invoice
	l               Letter
	title           string
	primary, accent pdf.Color
	// due, when set, is what the payment block asks for instead of the
	// invoice's total (a reminder's).
	due *money.Amount
}

var (
	body  = pdf.Font{Size: 9}
	bold  = pdf.Font{Size: 9, Bold: true}
	small = pdf.Font{Size: 8, Color: pdf.Grey}
	faint = pdf.Font{Size: 9, Color: pdf.Grey}
)

// amount writes a sum in the invoice's currency: "12 500,00 kr".
func (r *renderer) amount(a money.Amount) string {
	if r.inv.Currency == "SEK" {
		return a.Swedish() + " kr"
	}
	return a.Swedish() + " " + r.inv.Currency
}

func (r *renderer) priced() bool { return r.inv.DocumentType != "delivery_note" }

// masthead is the logo or name on the left and the title on the right.
func (r *renderer) masthead() {
	d, s := r.d, r.l.Seller
	top := d.Y()
	left := 0.0
	if s.Layout.ShowLogo && len(s.Logo) > 0 {
		if h, err := d.Image(s.Logo, d.Left(), top, 180, 56, pdf.AlignLeft); err == nil {
			left = h
		}
	}
	if left == 0 && s.Layout.ShowCompanyName && !s.Layout.NameInFooter {
		f := pdf.Font{Size: 15, Bold: true, Color: r.primary}
		d.TextAt(d.Left(), top, 280, s.Name, f, pdf.AlignLeft)
		left = f.Size * 1.3
	}
	title := pdf.Font{Size: 20, Bold: true, Color: r.primary}
	d.TextAt(d.Left()+d.Width()-240, top, 240, r.title, title, pdf.AlignRight)
	right := title.Size * 1.3
	if IsDraft(r.inv) {
		d.TextAt(d.Left()+d.Width()-240, top+right, 240, "UTKAST", pdf.Font{Size: 10, Bold: true, Color: r.accent}, pdf.AlignRight)
		right += 13
	}
	d.SetY(top + max(left, right) + 10)
	if s.Layout.Header != "" {
		d.Text(s.Layout.Header, small)
		d.Space(4)
	}
}

// lacking warns, on a draft invoice, of what the law asks the invoice to
// say and it does not yet: issuing it is refused until it does.
func (r *renderer) lacking() {
	if !IsDraft(r.inv) || r.inv.DocumentType != "invoice" {
		return
	}
	c := LegalContent(r.inv, r.l.Seller.Party(), r.l.Buyer.Party())
	if c.Complete() {
		return
	}
	names := make([]string, len(c.Missing))
	for i, m := range c.Missing {
		names[i] = missingName(m)
	}
	r.d.Text("Uppgifter som krävs saknas ("+c.Rule+"): "+strings.Join(names, ", "),
		pdf.Font{Size: 8.5, Bold: true, Color: r.accent})
	r.d.Space(8)
}

// missingName is a missing item's path in words.
func missingName(path string) string {
	if n, ok := map[string]string{"company.name": "säljarens namn", "company.address": "säljarens adress",
		"company.vat_number": "säljarens momsregistreringsnummer", "customer.name": "köparens namn",
		"customer.address": "köparens adress", "customer.vat_number": "köparens momsregistreringsnummer"}[path]; ok {
		return n
	}
	var i int
	if _, err := fmt.Sscanf(path, "items[%d].description", &i); err == nil {
		return fmt.Sprintf("beskrivning på rad %d", i+1)
	}
	return path
}

// parties prints the buyer on the left and the invoice's facts on the right.
func (r *renderer) parties() {
	d, inv, b := r.d, r.inv, r.l.Buyer
	buyer := []pdf.Styled{{Text: b.Name, Font: bold}}
	if b.Contact != "" {
		buyer = append(buyer, pdf.Styled{Text: "Att: " + b.Contact, Font: body})
	}
	for _, a := range b.Address {
		buyer = append(buyer, pdf.Styled{Text: a, Font: body})
	}
	if b.Country != "" && b.Country != "SE" {
		buyer = append(buyer, pdf.Styled{Text: countryName(b.Country), Font: body})
	}
	if b.OrgNumber != "" && b.Country == "SE" {
		buyer = append(buyer, pdf.Styled{Text: "Org.nr " + b.OrgNumber, Font: small})
	}
	if b.VATNumber != "" {
		buyer = append(buyer, pdf.Styled{Text: "Momsreg.nr " + b.VATNumber, Font: small})
	}
	var labels, values []pdf.Styled
	fact := func(label, value string) {
		if value == "" {
			return
		}
		labels = append(labels, pdf.Styled{Text: label, Font: faint})
		values = append(values, pdf.Styled{Text: value, Font: body})
	}
	if !IsDraft(inv) {
		fact(map[bool]string{true: "Nummer", false: "Fakturanummer"}[inv.DocumentType != "invoice"], *inv.Number)
	}
	fact(map[bool]string{true: "Datum", false: "Fakturadatum"}[inv.DocumentType != "invoice"], isoDay(inv.InvoiceDate))
	switch inv.DocumentType {
	case "quote":
		if inv.ValidUntil != nil {
			fact("Giltig till", isoDay(*inv.ValidUntil))
		}
	case "delivery_note":
	default:
		if inv.CreditedID == nil {
			fact("Förfallodatum", isoDay(inv.DueDate))
		}
	}
	if inv.DeliveryDate != nil {
		fact("Leveransdatum", isoDay(*inv.DeliveryDate))
	}
	if r.l.Original != "" {
		fact("Krediterar faktura", r.l.Original)
	}
	fact("Er referens", text(inv.YourReference))
	fact("Vår referens", text(inv.OurReference))
	fact("Märkning", text(inv.Marking))
	if r.showOCR() {
		fact("OCR", *inv.OCR)
	}
	if inv.Currency != "SEK" {
		fact("Valuta", inv.Currency)
	}
	w := d.Width()
	d.Columns(
		pdf.Column{X: 0, W: w * 0.5, Lines: buyer},
		pdf.Column{X: w * 0.58, W: w * 0.17, Lines: labels},
		pdf.Column{X: w * 0.75, W: w * 0.25, Lines: values},
	)
	d.Space(14)
}

func (r *renderer) showOCR() bool {
	return r.l.Seller.Layout.ShowOCR && r.inv.OCR != nil && r.priced() && r.inv.DocumentType != "quote"
}

// lines is the table of the invoice's lines; a delivery note's has no prices.
func (r *renderer) lines() {
	t := pdf.Table{Head: r.primary, Size: 8.5}
	if r.priced() {
		t.Cols = []pdf.Col{{Title: "Beskrivning", Width: 0.40}, {Title: "Antal", Width: 0.09, Align: pdf.AlignRight},
			{Title: "Enhet", Width: 0.08}, {Title: "À-pris", Width: 0.13, Align: pdf.AlignRight},
			{Title: "Rabatt", Width: 0.08, Align: pdf.AlignRight}, {Title: "Moms", Width: 0.07, Align: pdf.AlignRight},
			{Title: "Belopp", Width: 0.15, Align: pdf.AlignRight}}
	} else {
		t.Cols = []pdf.Col{{Title: "Beskrivning", Width: 0.70}, {Title: "Antal", Width: 0.15, Align: pdf.AlignRight},
			{Title: "Enhet", Width: 0.15}}
	}
	for _, ln := range r.inv.Lines {
		if ln.Type == "text" {
			t.Rows = append(t.Rows, pdf.Row{Cells: []string{ln.Description}, Muted: true})
			continue
		}
		desc := ln.Description
		if ln.Deduction != nil {
			desc += " (" + strings.ToUpper(*ln.Deduction) + ")"
		}
		if !r.priced() {
			t.Rows = append(t.Rows, pdf.Row{Cells: []string{desc, ln.Quantity.Swedish(), ln.Unit}})
			continue
		}
		discount := ""
		if !ln.Discount.IsZero() {
			discount = percent(ln.Discount) + " %"
		}
		t.Rows = append(t.Rows, pdf.Row{Cells: []string{desc, ln.Quantity.Swedish(), ln.Unit, ln.UnitPrice.Swedish(),
			discount, ln.VATRate.SwedishPercent() + " %", ln.Net.Swedish()}})
	}
	r.d.Table(t)
	r.d.Space(8)
}

// percent writes a percentage without trailing zeros: 25, 12,5.
func percent(a money.Amount) string {
	s := strings.TrimSuffix(a.Swedish(), ",00")
	if strings.Contains(s, ",") {
		s = strings.TrimSuffix(s, "0")
	}
	return s
}

// totals are the sums on the right: net, VAT per rate, öresavrundning,
// the total and, on a ROT/RUT invoice, what the buyer pays after the
// deduction.
func (r *renderer) totals() {
	if !r.priced() {
		return
	}
	inv := r.inv
	type rate struct{ of, net, vat money.Amount }
	rates := map[string]*rate{}
	var keys []string
	for _, ln := range inv.Lines {
		if ln.Type == "text" {
			continue
		}
		k := ln.VATRate.SwedishPercent()
		if rates[k] == nil {
			rates[k] = &rate{of: ln.VATRate}
			keys = append(keys, k)
		}
		rates[k].net, rates[k].vat = rates[k].net.Add(ln.Net), rates[k].vat.Add(ln.VAT)
	}
	sort.Slice(keys, func(i, j int) bool { return rates[keys[i]].of.Cmp(rates[keys[j]].of) > 0 })
	var labels, values []pdf.Styled
	row := func(label, value string, f pdf.Font) {
		labels = append(labels, pdf.Styled{Text: label, Font: f, Align: pdf.AlignRight})
		values = append(values, pdf.Styled{Text: value, Font: f, Align: pdf.AlignRight})
	}
	row("Summa exkl. moms", r.amount(inv.Subtotal), body)
	for _, k := range keys {
		if inv.Treatment.ZeroRated() && k == "0" {
			continue
		}
		row(fmt.Sprintf("Moms %s %% på %s", k, rates[k].net.Swedish()), r.amount(rates[k].vat), body)
	}
	if !inv.Rounding.IsZero() {
		row("Öresavrundning", r.amount(inv.Rounding), body)
	}
	total := pdf.Font{Size: 11, Bold: true, Color: r.primary}
	switch {
	case inv.CreditedID != nil:
		row("Att kreditera", r.amount(inv.Total), total)
	case !inv.DeductionTotal.IsZero():
		row("Summa inkl. moms", r.amount(inv.Total), bold)
		row("Avgår skattereduktion", r.amount(inv.DeductionTotal.Neg()), body)
		row("Att betala", r.amount(inv.Total.Sub(inv.DeductionTotal)), total)
	case inv.DocumentType == "quote":
		row("Summa inkl. moms", r.amount(inv.Total), total)
	default:
		row("Att betala", r.amount(inv.Total), total)
	}
	w := r.d.Width()
	r.d.Columns(pdf.Column{X: w * 0.35, W: w * 0.40, Lines: labels}, pdf.Column{X: w * 0.75, W: w * 0.25, Lines: values})
	r.d.Space(10)
}

// vatText says why an invoice carries no Swedish VAT, with both VAT
// numbers where the buyer accounts for it.
func (r *renderer) vatText() {
	var lines []string
	switch r.inv.Treatment {
	case EUServices, EUGoods:
		lines = append(lines, "Omvänd betalningsskyldighet")
		if r.inv.Treatment == EUGoods {
			lines[0] += " – unionsintern varuförsäljning, undantagen från skatteplikt"
		}
		lines = append(lines, fmt.Sprintf("Säljarens momsreg.nr: %s · Köparens momsreg.nr: %s",
			orDash(r.l.Seller.VATNumber), orDash(r.l.Buyer.VATNumber)))
	case EUTriangulation:
		lines = append(lines, "Omvänd betalningsskyldighet – unionsintern trepartshandel (artikel 141 i direktiv 2006/112/EG); "+
			"köparen redovisar mervärdesskatten",
			fmt.Sprintf("Säljarens momsreg.nr: %s · Köparens momsreg.nr: %s", orDash(r.l.Seller.VATNumber), orDash(r.l.Buyer.VATNumber)))
	case ExportOfGoods:
		lines = append(lines, "Export av varor – ingen svensk mervärdesskatt tas ut")
	case ExportOfServices:
		lines = append(lines, "Tjänsten är omsatt utomlands – ingen svensk mervärdesskatt tas ut")
	case SwedishSale:
		// 17 kap. 24 §: a line without VAT says why; in a Swedish sale it
		// is exempt from VAT.
		if r.l.Seller.VATRegistered && r.priced() && zeroRatedLine(r.inv.Lines) {
			lines = append(lines, "Rader utan moms avser omsättning som är undantagen från skatteplikt enligt mervärdesskattelagen")
		}
	}
	for i, l := range lines {
		f := small
		if i == 0 {
			f = bold
		}
		r.d.Text(l, f)
	}
	if len(lines) > 0 {
		r.d.Space(8)
	}
}

// zeroRatedLine reports whether a priced line carries no VAT.
func zeroRatedLine(lines []Line) bool {
	for _, l := range lines {
		if l.Type != "text" && l.VATRate.IsZero() {
			return true
		}
	}
	return false
}

// deduction is the ROT/RUT block Skatteverket's rules ask the invoice
// to carry: the labour cost, the deduction, the buyer's personnummer and
// the property or bostadsrätt.
func (r *renderer) deduction() {
	inv := r.inv
	if inv.DeductionTotal.IsZero() {
		return
	}
	kinds := map[string]bool{}
	labour, hours := money.Amount{}, money.Amount{}
	for _, ln := range inv.Lines {
		if ln.Deduction == nil {
			continue
		}
		kinds[strings.ToUpper(*ln.Deduction)] = true
		labour = labour.Add(ln.Net).Add(ln.VAT)
		if ln.LaborHours != nil {
			hours = hours.Add(*ln.LaborHours)
		}
	}
	var names []string
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	r.d.Text("Skattereduktion för "+strings.Join(names, " och ")+"-arbete", pdf.Font{Size: 9, Bold: true, Color: r.primary})
	facts := []string{"Arbetskostnad inkl. moms: " + r.amount(labour)}
	if !hours.IsZero() {
		facts = append(facts, "Arbetade timmar: "+strings.TrimSuffix(hours.Swedish(), ",00"))
	}
	facts = append(facts, "Begärd skattereduktion: "+r.amount(inv.DeductionTotal))
	if r.l.PersonalNumber != "" {
		facts = append(facts, "Personnummer: "+r.l.PersonalNumber)
	}
	if inv.Housing != nil {
		facts = append(facts, "Fastighetsbeteckning: "+*inv.Housing)
	}
	if inv.BRFOrgNumber != nil {
		facts = append(facts, "Bostadsrättsföreningens org.nr: "+*inv.BRFOrgNumber)
	}
	if inv.Apartment != nil {
		facts = append(facts, "Lägenhetsnummer: "+*inv.Apartment)
	}
	for _, f := range facts {
		r.d.Text(f, body)
	}
	r.d.Text("Skattereduktionen förutsätter att Skatteverket godkänner den; beviljas den inte betalar köparen mellanskillnaden.", small)
	r.d.Space(8)
}

func (r *renderer) notes() {
	if n := text(r.inv.Notes); n != "" {
		r.d.Text(n, body)
		r.d.Space(8)
	}
}

// payment is where and how to pay: bankgiro, plusgiro, Swish as the
// settings show them, IBAN and BIC, the OCR, and the company's terms.
func (r *renderer) payment() {
	inv, s := r.inv, r.l.Seller
	if !r.priced() || inv.DocumentType == "quote" || inv.CreditedID != nil {
		return
	}
	p := s.For(inv.Currency)
	var labels, values []pdf.Styled
	fact := func(label, value string) {
		if value != "" {
			labels = append(labels, pdf.Styled{Text: label, Font: faint})
			values = append(values, pdf.Styled{Text: value, Font: body})
		}
	}
	if s.Layout.ShowBankgiro {
		fact("Bankgiro", p.Bankgiro)
	}
	if s.Layout.ShowPlusgiro {
		fact("Plusgiro", p.Plusgiro)
	}
	if s.Layout.ShowSwish {
		fact("Swish", p.Swish)
	}
	fact("IBAN", p.IBAN)
	fact("BIC", p.BIC)
	if p.Account != "" {
		fact("Bankkonto", strings.TrimSpace(strings.Join([]string{p.BankName, p.Clearing, p.Account}, " ")))
	}
	if r.showOCR() {
		fact("OCR-nummer", *inv.OCR)
	}
	due := inv.Total.Sub(inv.DeductionTotal)
	if r.due != nil {
		due = *r.due
	}
	fact("Att betala", r.amount(due))
	if r.due == nil {
		fact("Senast", isoDay(inv.DueDate))
	} else {
		fact("Senast", "snarast")
	}
	r.d.Ensure(float64(len(labels))*12 + 30)
	r.d.Rule(r.accent)
	r.d.Space(6)
	r.d.Text("Betalningsuppgifter", pdf.Font{Size: 9, Bold: true, Color: r.primary})
	w := r.d.Width()
	r.d.Columns(pdf.Column{X: 0, W: w * 0.2, Lines: labels}, pdf.Column{X: w * 0.2, W: w * 0.8, Lines: values})
	if r.showOCR() {
		r.d.Text("Ange OCR-numret som referens när du betalar.", small)
	}
	for _, t := range []string{s.CreditTerm, s.LateFee} {
		if t != "" {
			r.d.Space(4)
			r.d.Text(t, small)
		}
	}
}

func isoDay(t time.Time) string { return t.Format(time.DateOnly) }

func text(p *string) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(*p)
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// countryName is the Swedish name of the countries invoices most often
// go to; others print their ISO code, which a post office reads as well.
func countryName(code string) string {
	names := map[string]string{"NO": "Norge", "DK": "Danmark", "FI": "Finland", "DE": "Tyskland", "GB": "Storbritannien",
		"US": "USA", "NL": "Nederländerna", "FR": "Frankrike", "ES": "Spanien", "IT": "Italien", "PL": "Polen",
		"EE": "Estland", "IS": "Island", "IE": "Irland", "BE": "Belgien", "AT": "Österrike", "CH": "Schweiz"}
	if n, ok := names[code]; ok {
		return n
	}
	return code
}
