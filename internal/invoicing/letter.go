package invoicing

import (
	"strings"

	"github.com/kontera/kontera/internal/parties"
)

// Seller is the company as its documents print it: identity, address,
// the layout settings and where to pay.
type Seller struct {
	Name, OrgNumber, VATNumber string
	// Seat is the registered office (säte) an aktiebolag prints.
	Seat    string
	Address []string
	// Postal is the address in its parts, as an e-invoice writes it.
	Postal              Postal
	Email, Phone, Web   string
	FSkatt, Aktiebolag  bool
	VATRegistered       bool
	Logo                []byte // PNG or JPEG; nil when none is uploaded
	Layout              Layout
	Payment             PayTo            // the company's payment details
	PaymentsByCurrency  map[string]PayTo // invoice_payment_accounts
	LateFee, CreditTerm string           // invoice_late_fee_text, invoice_credit_terms_text
	// Mail is how the company's e-mails are addressed and worded.
	Mail MailSettings
	// Reminders is the company's reminder policy.
	Reminders ReminderPolicy
}

// MailSettings are the invoice_email_* settings.
type MailSettings struct {
	ReplyTo string // invoice_email_reply_to, else the company's email
	CC, BCC []string
	// Texts by language (sv, en): invoice_email_texts.
	Texts map[string]EmailText
}

// EmailText is the wording of an invoice e-mail in one language; an empty
// part takes the built-in text.
type EmailText struct{ Subject, Greeting, Body, Signoff string }

// Layout is how the company's documents look (the invoice_* settings).
type Layout struct {
	ShowLogo, ShowCompanyName, NameInFooter        bool
	ShowOCR, ShowBankgiro, ShowPlusgiro, ShowSwish bool
	Primary, Accent, Font                          string
	Header, Footer                                 string
}

// PayTo is where a customer pays: any of the fields may be empty.
type PayTo struct {
	BankName, Clearing, Account, Bankgiro, Plusgiro, Swish, IBAN, BIC string
}

// For answers the payment details an invoice in currency prints: the
// currency's own account when the settings name one, else the company's.
func (s Seller) For(currency string) PayTo {
	if p, ok := s.PaymentsByCurrency[currency]; ok && p != (PayTo{}) {
		return p
	}
	return s.Payment
}

// SellerOf reads the seller from the company's settings read model; org
// is the organisation number in full (the read model masks a sole
// trader's), logo the uploaded logo or nil.
func SellerOf(m map[string]any, org string, logo []byte) Seller {
	str := func(k string) string {
		v, _ := m[k].(string)
		return strings.TrimSpace(v)
	}
	// A show_* setting never set prints its part: null is "as usual".
	show := func(k string) bool {
		v, ok := m[k].(bool)
		return !ok || v
	}
	on := func(k string) bool {
		v, _ := m[k].(bool)
		return v
	}
	s := Seller{
		Name: str("company_name"), OrgNumber: org, VATNumber: str("vat_number"), Seat: str("registered_office"),
		Email: str("email"), Phone: str("phone"), Web: str("website"),
		FSkatt: on("f_skatt"), VATRegistered: on("vat_registered"), Aktiebolag: m["entity_type"] == "aktiebolag", Logo: logo,
		Layout: Layout{
			ShowLogo: show("invoice_show_logo"), ShowCompanyName: show("invoice_show_company_name"),
			NameInFooter: str("invoice_company_name_position") == "footer",
			ShowOCR:      show("invoice_show_ocr"), ShowBankgiro: show("invoice_show_bankgiro"),
			ShowPlusgiro: show("invoice_show_plusgiro"), ShowSwish: show("invoice_show_swish"),
			Primary: str("invoice_primary_color"), Accent: str("invoice_accent_color"), Font: str("invoice_font_family"),
			Header: str("invoice_header_text"), Footer: str("invoice_footer_text"),
		},
		Payment: PayToOf(m),
		LateFee: str("invoice_late_fee_text"), CreditTerm: str("invoice_credit_terms_text"),
	}
	s.Mail, s.Reminders = mailSettingsOf(m, str), ReminderPolicyOf(m)
	for _, k := range []string{"address_line1", "address_line2"} {
		if v := str(k); v != "" {
			s.Address = append(s.Address, v)
		}
	}
	s.Postal = Postal{Street: s.Address, PostalCode: str("postal_code"), City: str("city"), Country: str("country")}
	if s.Postal.Country == "" {
		s.Postal.Country = "SE"
	}
	if pc := strings.TrimSpace(str("postal_code") + " " + str("city")); pc != "" {
		s.Address = append(s.Address, pc)
	}
	if accounts, ok := m["invoice_payment_accounts"].(map[string]any); ok {
		s.PaymentsByCurrency = map[string]PayTo{}
		for cur, v := range accounts {
			if a, ok := v.(map[string]any); ok {
				s.PaymentsByCurrency[cur] = PayToOf(a)
			}
		}
	}
	return s
}

func mailSettingsOf(m map[string]any, str func(string) string) MailSettings {
	ms := MailSettings{ReplyTo: str("invoice_email_reply_to"), CC: strings_(m["invoice_email_cc_addresses"]),
		BCC: strings_(m["invoice_email_bcc_addresses"])}
	if ms.ReplyTo == "" {
		ms.ReplyTo = str("email")
	}
	if texts, ok := m["invoice_email_texts"].(map[string]any); ok {
		ms.Texts = map[string]EmailText{}
		for lang, v := range texts {
			t, _ := v.(map[string]any)
			get := func(k string) string {
				s, _ := t[k].(string)
				return strings.TrimSpace(s)
			}
			ms.Texts[lang] = EmailText{Subject: get("subject"), Greeting: get("greeting"), Body: get("body"), Signoff: get("signoff")}
		}
	}
	return ms
}

// strings_ reads a JSON array of strings, skipping anything else.
func strings_(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok && strings.TrimSpace(s) != "" {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}

// PayToOf reads payment details (a PaymentAccount) from their JSON form.
func PayToOf(m map[string]any) PayTo {
	str := func(k string) string {
		v, _ := m[k].(string)
		return strings.TrimSpace(v)
	}
	return PayTo{BankName: str("bank_name"), Clearing: str("clearing_number"), Account: str("account_number"),
		Bankgiro: str("bankgiro"), Plusgiro: str("plusgiro"), Swish: str("swish"), IBAN: str("iban"), BIC: str("bic")}
}

// Postal is an address in its parts: the street lines, postal code,
// city and country (ISO 3166-1 alpha-2).
type Postal struct {
	Street                    []string
	PostalCode, City, Country string
}

// Addressee is the customer as a document prints them.
type Addressee struct {
	Name, Contact string
	Address       []string
	Postal        Postal
	Country       string
	// Type is the customer type; SoleTrader a swedish_business whose
	// organisation number is the owner's personnummer.
	Type       string
	SoleTrader bool
	// PeppolID is the customer's own Peppol identifier, "" when unset.
	PeppolID             string
	OrgNumber, VATNumber string
	Email                string
	CC, BCC              []string
	Language             string
	// Individual is a private person: the greeting uses the first name.
	Individual bool
}

// AddresseeOf reads the addressee from the customer, whose numbers the
// caller has opened (parties.Store.Addressee).
func AddresseeOf(c parties.Customer) Addressee {
	a := Addressee{Name: c.Name, Country: c.Country, Language: c.Language, CC: c.CC, BCC: c.BCC,
		Individual: c.Type == parties.Individual}
	val := func(p *string) string {
		if p == nil {
			return ""
		}
		return strings.TrimSpace(*p)
	}
	a.Contact, a.OrgNumber, a.VATNumber, a.Email = val(c.ContactPerson), val(c.OrgNumber), val(c.VATNumber), val(c.Email)
	a.Type, a.SoleTrader, a.PeppolID = string(c.Type), c.SoleTrader(), val(c.PeppolID)
	for _, l := range []string{val(c.Line1), val(c.Line2)} {
		if l != "" {
			a.Address = append(a.Address, l)
		}
	}
	a.Postal = Postal{Street: a.Address, PostalCode: val(c.PostalCode), City: val(c.City), Country: c.Country}
	if pc := strings.TrimSpace(val(c.PostalCode) + " " + val(c.City)); pc != "" {
		a.Address = append(a.Address, pc)
	}
	return a
}
