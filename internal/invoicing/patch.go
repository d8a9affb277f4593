package invoicing

import (
	"context"
	"maps"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
)

// Patch is a change of a draft: Apply writes what the body says onto the
// draft as it stands. Items says the lines are replaced, Treatment that
// vat_treatment or delivery_country was sent: either decides the VAT
// treatment again from the customer as it is now; else the treatment
// decided before is kept.
type Patch struct {
	Apply     func(*Draft)
	Items     bool
	Treatment bool
}

// DraftOf is a stored draft as a Draft: what Plan would be asked to store
// it as again.
func DraftOf(inv Invoice) Draft {
	d := Draft{CustomerID: inv.CustomerID, DocumentType: inv.DocumentType, InvoiceDate: inv.InvoiceDate,
		DeliveryDate: inv.DeliveryDate, ValidUntil: inv.ValidUntil, Currency: inv.Currency, ExchangeRate: inv.ExchangeRate,
		YourReference: inv.YourReference, OurReference: inv.OurReference, Marking: inv.Marking, Notes: inv.Notes,
		DefaultDimensions: maps.Clone(inv.DefaultDimensions), SourceQuoteID: inv.SourceQuoteID, Housing: inv.Housing,
		Apartment: inv.Apartment, BRFOrgNumber: inv.BRFOrgNumber}
	due, rounding := inv.DueDate, inv.OreRounding
	d.DueDate, d.OreRounding = &due, &rounding
	if inv.TreatmentOverride {
		d.Treatment = requested(inv.Treatment)
	}
	if inv.DeliveryCountry != nil {
		d.DeliveryCountry = *inv.DeliveryCountry
	}
	d.Lines = make([]DraftLine, len(inv.Lines))
	for i, l := range inv.Lines {
		dl := DraftLine{Text: l.Type == "text", Description: l.Description, RevenueAccount: l.RevenueAccount,
			Dimensions: maps.Clone(l.Dimensions), Deduction: l.Deduction, LaborHours: l.LaborHours, WorkType: l.WorkType,
			AccrualStart: l.AccrualStart, AccrualEnd: l.AccrualEnd, AccrualAccount: l.AccrualBalanceAccount}
		if l.ArticleID != nil {
			// What the line took it keeps, the article as it was then: a
			// draft changed later is not refused for an article archived
			// since, and a zero-rated treatment's account stays the
			// article's, not the line's own.
			dl.ArticleID = l.ArticleID
			dl.Article = &LineArticle{ID: *l.ArticleID, Description: l.Description, Unit: l.Unit, UnitPrice: l.UnitPrice,
				VATRate: l.VATRate, Accounts: map[Kind]string{}, Active: true}
			if l.RevenueAccount != nil {
				dl.Article.Accounts[inv.Treatment] = *l.RevenueAccount
				dl.RevenueAccount = nil
			}
		}
		if !dl.Text {
			q, u, p, disc, rate := l.Quantity, l.Unit, l.UnitPrice, l.Discount, l.VATRate
			dl.Quantity, dl.Unit, dl.UnitPrice, dl.Discount, dl.VATRate = &q, &u, &p, &disc, &rate
		}
		d.Lines[i] = dl
	}
	return d
}

// requested is the treatment a client asks for that decides kind.
func requested(k Kind) Treatment {
	switch k {
	case SwedishSale:
		return Standard
	case EUGoods, EUServices:
		return ReverseCharge
	case EUTriangulation:
		return Triangulation
	}
	return Export
}

// Update changes a draft (Patch) and answers it with the warnings that
// did not fail it. Its customer, currency and type stay; its number, if
// any, and a quote's decision stay. Anything but a draft is 409
// INVOICE_UPDATE_NOT_DRAFT.
func (s *Sales) Update(ctx context.Context, company, id uuid.UUID, p Patch) (Invoice, []Warning, error) {
	old, err := s.store.Get(ctx, company, id, s.today(), true, Hold)
	if err != nil {
		return Invoice{}, nil, err
	}
	if old.Status != "draft" {
		return Invoice{}, nil, apierr.New(apierr.InvoiceUpdateNotDraft, map[string]any{"invoice_id": id,
			"current_status": old.State()})
	}
	d := DraftOf(old)
	p.Apply(&d)
	switch {
	case d.CustomerID != old.CustomerID:
		return Invoice{}, nil, apierr.Field("customer_id", "immutable", "a draft keeps its customer: delete it and create another")
	case d.Currency != old.Currency:
		return Invoice{}, nil, apierr.Field("currency", "immutable", "a draft keeps its currency: delete it and create another")
	case d.DocumentType != old.DocumentType:
		return Invoice{}, nil, apierr.Field("document_type", "immutable", "a draft keeps its type: delete it and create another")
	}
	if !p.Items && !p.Treatment {
		kept := old.Treatment
		d.Keep = &kept
	}
	c, err := s.books.Customer(ctx, company, old.CustomerID)
	if err != nil {
		return Invoice{}, nil, err
	}
	set, err := s.books.Settings(ctx, company)
	if err != nil {
		return Invoice{}, nil, err
	}
	if err := s.takeArticles(ctx, company, &d); err != nil {
		return Invoice{}, nil, err
	}
	if old.DocumentType != "invoice" {
		// A quote or proforma already made keeps being one, whatever the
		// settings say of new ones.
		set.QuotesEnabled, set.ProformaEnabled = nil, nil
	}
	inv, warnings, err := Plan(d, c, set)
	if err != nil {
		return Invoice{}, nil, err
	}
	inv.CompanyID, inv.ID = company, old.ID
	more, err := s.deductionChecks(ctx, inv)
	if err != nil {
		return Invoice{}, nil, err
	}
	warnings = append(warnings, more...)
	if d.Keep != nil {
		inv.TreatmentOverride, inv.BuyerVATValidated = old.TreatmentOverride, old.BuyerVATValidated
	}
	inv.CompanyID, inv.ID, inv.Number, inv.CreatedAt = company, old.ID, old.Number, old.CreatedAt
	if old.QuoteStatus != nil {
		inv.QuoteStatus, inv.QuoteDecidedAt = old.QuoteStatus, old.QuoteDecidedAt
	}
	if p.Items {
		if accounts := revenueAccounts(inv.Lines); len(accounts) > 0 {
			if err := s.books.KnownAccounts(ctx, company, accounts); err != nil {
				return Invoice{}, nil, err
			}
		}
	} else {
		inv.Lines = old.Lines
	}
	stored, err := s.store.Update(ctx, inv, p.Items, s.now().UTC(), s.today())
	if err != nil {
		return Invoice{}, nil, err
	}
	return stored, warnings, s.record(ctx, audit.Update, describe(old)+" ändrades", stored, &old, &stored)
}
