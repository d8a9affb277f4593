package invoicing

import (
	"fmt"
	"strings"

	"github.com/kontera/kontera/internal/identifier"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/peppol"
)

// Sender is the company's Peppol identifier: 0007 and its
// organisationsnummer; zero when it has no valid one.
func Sender(s Seller) peppol.ID {
	id, _ := peppol.OrgID(s.OrgNumber)
	return id
}

// Recipient is where a customer's e-invoices go and why: its own Peppol
// identifier, else 0007 and the organisationsnummer of a Swedish
// business (not a sole trader's, which is a personnummer). Zero when
// there is none.
func Recipient(b Addressee) (peppol.ID, string) {
	if b.PeppolID != "" {
		if id, err := peppol.ParseID(b.PeppolID); err == nil {
			return id, "customer"
		}
	}
	if b.Type == "swedish_business" && !b.SoleTrader {
		if id, ok := peppol.OrgID(b.OrgNumber); ok {
			return id, "org_number"
		}
	}
	return peppol.ID{}, ""
}

// EInvoice is inv as BIS Billing 3.0 writes it: a credit note (381)
// with the signs of the credit, positive, and the original cited; an
// invoice (380) as it stands. Text lines carry no amounts and are left
// out. inv is read with its lines; a draft has no number yet.
func EInvoice(inv Invoice, l Letter) (peppol.Document, error) {
	credit := inv.CreditedID != nil
	sign := func(a money.Amount) money.Amount {
		if credit {
			return a.Neg()
		}
		return a
	}
	seller, buyer := l.Seller, l.Buyer
	recipient, _ := Recipient(buyer)
	d := peppol.Document{Credit: credit, Number: text(inv.Number), IssueDate: inv.InvoiceDate, DueDate: inv.DueDate,
		DeliveryDate: inv.DeliveryDate, Currency: inv.Currency, BuyerReference: text(inv.YourReference),
		OrderReference: text(inv.Marking), Note: text(inv.Notes), Original: l.Original, PaymentID: text(inv.OCR),
		Seller: peppol.Party{Endpoint: Sender(seller), Name: seller.Name, Street: seller.Postal.Street,
			PostalZone: seller.Postal.PostalCode, City: seller.Postal.City, Country: seller.Postal.Country,
			VATNumber: sellerVAT(seller), OrgNumber: identifier.Digits(seller.OrgNumber), FSkatt: seller.FSkatt,
			Email: seller.Email, Phone: seller.Phone},
		Buyer: peppol.Party{Endpoint: recipient, Name: buyer.Name, Street: buyer.Postal.Street,
			PostalZone: buyer.Postal.PostalCode, City: buyer.Postal.City, Country: buyer.Postal.Country,
			VATNumber: compactVAT(buyer.VATNumber), Contact: buyer.Contact, Email: buyer.Email},
		Tax: sign(inv.VAT), Rounding: sign(inv.Rounding), Payable: sign(inv.Total), Deduction: inv.DeductionTotal,
	}
	if seller.Aktiebolag && seller.Seat != "" {
		d.Seller.LegalForm = "Styrelsens säte: " + seller.Seat
	}
	if buyer.Type == "swedish_business" && !buyer.SoleTrader {
		d.Buyer.OrgNumber = identifier.Digits(buyer.OrgNumber)
	}
	if inv.DeliveryCountry != nil {
		d.DeliveryCountry = *inv.DeliveryCountry
	} else if inv.Treatment == EUGoods {
		d.DeliveryCountry = buyer.Postal.Country
	}
	if (inv.Treatment == EUGoods || inv.Treatment == EUTriangulation) && d.DeliveryDate == nil {
		day := inv.InvoiceDate
		d.DeliveryDate = &day
	}
	if credit {
		d.PaymentTerms = "Kreditfaktura"
		if l.Original != "" {
			d.PaymentTerms += " för faktura " + l.Original
		}
		d.PaymentID = ""
	} else {
		d.PaymentTerms = seller.CreditTerm
		d.Payment = means(seller.For(inv.Currency))
	}
	if inv.Currency != "SEK" && inv.ExchangeRate != nil {
		sek := inv.ExchangeRate.Convert(d.Tax)
		d.TaxSEK = &sek
	}
	byKey := map[string]int{}
	for _, ln := range inv.Lines {
		if ln.Type == "text" {
			continue
		}
		cat, pct := category(inv.Treatment, ln.VATRate)
		q, net := ln.Quantity, sign(ln.Net)
		if credit && q.Sign() < 0 {
			q = q.Neg()
		}
		price := ln.UnitPrice
		if price.Sign() < 0 {
			price = price.Neg()
		}
		gross, err := price.MulRound(q.Decimal())
		if err != nil {
			return d, err
		}
		el := peppol.Line{ID: fmt.Sprint(len(d.Lines) + 1), Description: ln.Description, Quantity: q,
			Unit: peppol.Unit(strings.ToLower(strings.TrimSpace(ln.Unit))), Price: price, Net: net, Category: cat, Percent: pct}
		if !ln.Discount.IsZero() {
			el.Discount, el.Allowance = ln.Discount, gross.Sub(net)
		}
		d.Lines = append(d.Lines, el)
		d.LineTotal = d.LineTotal.Add(net)
		key := fmt.Sprintf("%s/%d", cat, pct)
		i, ok := byKey[key]
		if !ok {
			i = len(d.Subtotals)
			byKey[key] = i
			d.Subtotals = append(d.Subtotals, peppol.Subtotal{Category: cat, Percent: pct})
		}
		d.Subtotals[i].Taxable = d.Subtotals[i].Taxable.Add(net)
		d.Subtotals[i].Tax = d.Subtotals[i].Tax.Add(sign(ln.VAT))
	}
	return d, nil
}

// category is the VAT category of a line at rate (a fraction) in a sale
// of kind k: Swedish VAT by rate, exempt at 0 %; reverse charge for EU
// services and the middle party's sale in trepartshandel, intra-EU supply
// for goods, export for sales outside the EU.
func category(k Kind, rate money.Amount) (peppol.Category, int) {
	switch k {
	case EUServices:
		return peppol.ReverseCharge, 0
	case EUGoods:
		return peppol.IntraEU, 0
	case EUTriangulation:
		// The middle party's supply: the buyer accounts for the VAT (AE),
		// as article 141 has it.
		return peppol.ReverseCharge, 0
	case ExportOfGoods, ExportOfServices:
		return peppol.Export, 0
	}
	pct := int(rate.InÖre()) // a fraction's hundredths are its percent
	if pct == 0 {
		return peppol.Exempt, 0
	}
	return peppol.Standard, pct
}

// means are the ways to pay an e-invoice states: bankgiro and plusgiro
// as credit transfers (30), an IBAN as a SEPA transfer (58).
func means(p PayTo) []peppol.PaymentMeans {
	var out []peppol.PaymentMeans
	if p.Bankgiro != "" {
		out = append(out, peppol.PaymentMeans{Code: "30", Account: identifier.Digits(p.Bankgiro), Branch: "SE:BANKGIRO"})
	}
	if p.Plusgiro != "" {
		out = append(out, peppol.PaymentMeans{Code: "30", Account: identifier.Digits(p.Plusgiro), Branch: "SE:PLUSGIRO"})
	}
	if p.IBAN != "" {
		out = append(out, peppol.PaymentMeans{Code: "58", Account: strings.ReplaceAll(strings.ToUpper(p.IBAN), " ", ""),
			Branch: strings.ToUpper(p.BIC)})
	}
	return out
}

// sellerVAT is the company's VAT number as it stands in the settings;
// without one, a VAT-registered company's is SE, its organisationsnummer
// and 01, which is how Skatteverket forms every Swedish one.
func sellerVAT(s Seller) string {
	if v := compactVAT(s.VATNumber); v != "" || !s.VATRegistered {
		return v
	}
	if org := identifier.Digits(s.OrgNumber); len(org) == 10 {
		return "SE" + org + "01"
	}
	return ""
}

func compactVAT(s string) string { return strings.ToUpper(strings.ReplaceAll(s, " ", "")) }
