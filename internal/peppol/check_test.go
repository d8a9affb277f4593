package peppol

import (
	"slices"
	"testing"
	"time"
)

func codes(bs []Blocker) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Code+"@"+b.Field)
	}
	return out
}

// TestCheckBlockers breaks a sound document one way at a time: each
// breach is named by its own rule and field, and by nothing else.
func TestCheckBlockers(t *testing.T) {
	ready := Situation{DocumentType: "invoice", Transport: true}
	cases := []struct {
		want  string
		spoil func(*Document, *Situation)
	}{
		{"PEPPOL_DOCUMENT_TYPE_NOT_SUPPORTED@document_type", func(d *Document, s *Situation) { s.DocumentType = "quote" }},
		{"PEPPOL_TRANSPORT_NOT_CONFIGURED@transport", func(d *Document, s *Situation) { s.Transport = false }},
		{"PEPPOL_RECIPIENT_ID_MISSING@customer.peppol_id", func(d *Document, s *Situation) { d.Buyer.Endpoint = ID{} }},
		{"PEPPOL-EN16931-R010@customer.customer_type", func(d *Document, s *Situation) { d.Buyer.Endpoint, s.Individual = ID{}, true }},
		{"PEPPOL-EN16931-R020@company.org_number", func(d *Document, s *Situation) { d.Seller.Endpoint = ID{} }},
		{"PEPPOL-EN16931-R003@your_reference", func(d *Document, s *Situation) { d.BuyerReference = "" }},
		{"BR-11@customer.country", func(d *Document, s *Situation) { d.Buyer.Country = "" }},
		{"BR-CO-25@due_date", func(d *Document, s *Situation) { d.DueDate = time.Time{} }},
		{"PEPPOL_ROT_RUT_NOT_SUPPORTED@lines.deduction_type", func(d *Document, s *Situation) { d.Deduction = amt("1500.00") }},
		{"SE-R-001@company.vat_number", func(d *Document, s *Situation) { d.Seller.VATNumber = "SE55612345670" }},
		{"SE-R-002@company.vat_number", func(d *Document, s *Situation) { d.Seller.VATNumber = "SE5561234567AB" }},
		{"SE-R-003@company.org_number", func(d *Document, s *Situation) { d.Seller.OrgNumber = "556123456X" }},
		{"SE-R-004@company.org_number", func(d *Document, s *Situation) { d.Seller.OrgNumber = "556123456" }},
		{"SE-R-013@company.org_number", func(d *Document, s *Situation) { d.Seller.OrgNumber = "5561234568" }},
		{"SE-R-006@lines.vat_rate", func(d *Document, s *Situation) { d.Subtotals[0].Percent = 10 }},
		{"SE-R-009@company.bankgiro", func(d *Document, s *Situation) { d.Payment[0].Account = "123456" }},
		{"BR-S-02@company.vat_number", func(d *Document, s *Situation) { d.Seller.VATNumber = "" }},
		{"BR-AE-02@customer.vat_number", func(d *Document, s *Situation) {
			*d = zeroRated(ReverseCharge)
			d.Buyer.VATNumber = ""
		}},
		{"BR-IC-02@customer.vat_number", func(d *Document, s *Situation) {
			*d = zeroRated(IntraEU)
			d.Buyer.VATNumber = ""
		}},
	}
	if got := Check(sample(), ready); len(got) > 0 {
		t.Fatalf("a sound document has blockers: %v", codes(got))
	}
	for _, c := range cases {
		d, s := sample(), ready
		c.spoil(&d, &s)
		if got := codes(Check(d, s)); !slices.Equal(got, []string{c.want}) {
			t.Errorf("want exactly %s, got %v", c.want, got)
		}
	}
}
