package invoicing

import (
	"context"
	"strconv"
	"strings"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/money"
)

// The paragraphs of mervärdesskattelagen (2023:200) that say what an
// invoice holds: the full invoice, and the simplified one (förenklad
// faktura).
const (
	RuleFull       = "Mervärdesskattelagen (2023:200) 17 kap. 24 §"
	RuleSimplified = "Mervärdesskattelagen (2023:200) 17 kap. 29 §"
)

// SimplifiedLimit is the most an invoice may total, VAT included and in
// kronor, and still be a simplified invoice (17 kap. 29 §: at most
// 4 000 kr).
var SimplifiedLimit = money.MustParse("4000")

// Party is an invoice's seller or buyer as the law asks the invoice to
// name them.
type Party struct {
	Name                     string
	Street, PostalCode, City string
	Country                  string // ISO 3166-1 alpha-2; "" is Sweden
	HasVATNumber             bool
	// VATRegistered says whether the seller is registered for VAT.
	VATRegistered bool
}

// addressed reports whether p has an address a letter reaches: a street
// line and a city, and in Sweden a postal code.
func (p Party) addressed() bool {
	street, city := strings.TrimSpace(p.Street) != "", strings.TrimSpace(p.City) != ""
	swedish := p.Country == "" || p.Country == "SE"
	return street && city && (!swedish || strings.TrimSpace(p.PostalCode) != "")
}

// Content is how an invoice stands against what the law asks of it.
type Content struct {
	// Missing names each item the invoice lacks, as a field path:
	// company.address, customer.vat_number, items[2].description.
	Missing []string
	// Simplified: the invoice is held to 17 kap. 29 § (a simplified
	// invoice), not 24 §.
	Simplified bool
	// Rule is the paragraph the invoice is held to.
	Rule string
}

// Complete reports whether the invoice holds everything its rule asks.
func (c Content) Complete() bool { return len(c.Missing) == 0 }

// Err is the refusal of an invoice that lacks content, nil when none is
// missing: 400 INVOICE_LEGAL_CONTENT_MISSING naming each item.
func (c Content) Err(inv Invoice) error {
	if c.Complete() {
		return nil
	}
	return apierr.New(apierr.InvoiceLegalContentMissing, map[string]any{"invoice_id": inv.ID, "missing": c.Missing,
		"rule": c.Rule, "simplified": c.Simplified, "field": c.Missing[0]})
}

// LegalContent holds an invoice (or credit note) to what mervärdesskatte-
// lagen asks an invoice to say, given its seller and buyer as they stand.
//
// A full invoice (17 kap. 24 §) names the seller by name and address, and
// by VAT number when the seller is registered; the buyer by name and
// address, and by VAT number when the buyer accounts for the VAT (reverse
// charge, intra-EU supply, triangulation); and the nature of each line.
// The rest the law lists the invoice always says: its date and number
// (taken at issue), the quantity and unit price of each line, base, rate
// and VAT per rate, the reason for zero VAT (printed from the treatment,
// or as exempt for a Swedish sale at 0 %), and the delivery date when
// one is given (left out, the supply was on the invoice date).
//
// A simplified invoice (29 §) names the seller and the nature of the
// lines. It is allowed for a Swedish sale of at most SimplifiedLimit
// kronor with VAT, without a ROT/RUT deduction (Skatteverket's claim
// needs the buyer named); never for a sale where the buyer accounts for
// the VAT or that leaves Sweden, which 29 § and the directive's article
// 220a keep to full invoices.
func LegalContent(inv Invoice, seller, buyer Party) Content {
	c := Content{Rule: RuleFull, Simplified: simplified(inv)}
	miss := func(path string) { c.Missing = append(c.Missing, path) }
	if c.Simplified {
		c.Rule = RuleSimplified
	}
	if strings.TrimSpace(seller.Name) == "" {
		miss("company.name")
	}
	if !c.Simplified {
		if !seller.addressed() {
			miss("company.address")
		}
		if seller.VATRegistered && !seller.HasVATNumber {
			miss("company.vat_number")
		}
		if strings.TrimSpace(buyer.Name) == "" {
			miss("customer.name")
		}
		if !buyer.addressed() {
			miss("customer.address")
		}
		if inv.Treatment.buyerAccounts() && !buyer.HasVATNumber {
			miss("customer.vat_number")
		}
	}
	for i, l := range inv.Lines {
		if l.Type != "text" && strings.TrimSpace(l.Description) == "" {
			miss("items[" + strconv.Itoa(i) + "].description")
		}
	}
	return c
}

// simplified reports whether inv may be a simplified invoice.
func simplified(inv Invoice) bool {
	if inv.Treatment != SwedishSale || !inv.DeductionTotal.IsZero() {
		return false
	}
	total := inv.Total.Abs()
	if inv.Currency != "SEK" {
		if inv.ExchangeRate == nil {
			return false // what it is in kronor is not known yet
		}
		total = inv.ExchangeRate.Convert(total)
	}
	return total.Cmp(SimplifiedLimit) <= 0
}

// buyerAccounts reports whether the buyer accounts for the VAT of a sale
// of kind k, so the invoice must carry the buyer's VAT number.
func (k Kind) buyerAccounts() bool { return k == EUServices || k == EUGoods || k == EUTriangulation }

// Party is the seller as the law's check sees it.
func (s Seller) Party() Party {
	return Party{Name: s.Name, Street: strings.Join(s.Postal.Street, ", "), PostalCode: s.Postal.PostalCode,
		City: s.Postal.City, Country: "SE", HasVATNumber: s.VATNumber != "", VATRegistered: s.VATRegistered}
}

// Party is the buyer as the law's check sees it.
func (a Addressee) Party() Party {
	return Party{Name: a.Name, Street: strings.Join(a.Postal.Street, ", "), PostalCode: a.Postal.PostalCode,
		City: a.Postal.City, Country: a.Postal.Country, HasVATNumber: a.VATNumber != ""}
}

// Legal answers how a draft invoice (read with its lines) stands against
// the law as the company and customer stand now: what issuing it would
// check. ok is false for what is no invoice in the law's sense (quotes,
// proformas, delivery notes) and for what is issued already (it was
// checked when issued).
func (s *Sales) Legal(ctx context.Context, inv Invoice) (c Content, ok bool, err error) {
	if inv.DocumentType != "invoice" || inv.Status != "draft" {
		return Content{}, false, nil
	}
	seller, buyer, err := s.books.Parties(ctx, inv.CompanyID, inv.CustomerID)
	if err != nil {
		return Content{}, false, err
	}
	if inv.Currency != "SEK" && inv.ExchangeRate == nil && s.books.Rate != nil {
		// Issued, it would take the invoice date's rate: what it comes to
		// in kronor decides whether it may be simplified.
		if r, err := s.books.Rate(ctx, inv.Currency, inv.InvoiceDate); err == nil {
			inv.ExchangeRate = &r
		}
	}
	return LegalContent(inv, seller, buyer), true, nil
}
