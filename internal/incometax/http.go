package incometax

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/vat"
)

// Company is what the returns need of the company.
type Company struct {
	Name, Form       string
	OrgNumber        *string
	PostalCode, City *string
}

// Handler serves the income tax returns.
type Handler struct {
	ledger  *ledger.Store
	periods *fiscal.Store
	chart   *chart.Store
	company func(ctx context.Context, id uuid.UUID) (Company, error)
	now     func() time.Time
}

// NewHandler returns the income tax handler.
func NewHandler(l *ledger.Store, p *fiscal.Store, c *chart.Store, company func(context.Context, uuid.UUID) (Company, error),
	now func() time.Time) *Handler {
	return &Handler{ledger: l, periods: p, chart: c, company: company, now: now}
}

// year is a fiscal year's accounts as the returns take them.
type year struct {
	period   fiscal.Period
	company  Company
	accounts []Account
	charted  map[string]chart.Account
	unclosed money.Amount
}

// read loads the year of period id for a company of form, refusing
// another form with wrong.
func (h *Handler) read(ctx context.Context, company, id uuid.UUID, form string, wrong apierr.Code) (year, error) {
	var y year
	var err error
	if y.company, err = h.company(ctx, company); err != nil {
		return y, err
	}
	if y.company.Form != form {
		return y, apierr.New(wrong, map[string]any{"legal_form": y.company.Form})
	}
	if y.period, err = h.periods.Get(ctx, company, id); err != nil {
		if apierr.Is(err, apierr.PeriodNotFound) {
			err = apierr.New(apierr.PeriodNotFound, map[string]any{"fiscal_period_id": id, "field": "period_id"})
		}
		return y, err
	}
	list, err := h.chart.List(ctx, company, chart.Filter{Class: -1, Inactive: true})
	if err != nil {
		return y, err
	}
	y.charted = map[string]chart.Account{}
	for _, a := range list {
		y.charted[a.Number] = a
	}
	balances, err := h.ledger.Totals(ctx, company, id, "0000", "9999", true)
	if err != nil {
		return y, err
	}
	results, err := h.ledger.Totals(ctx, company, id, "3000", "8999", false)
	if err != nil {
		return y, err
	}
	// The accounts of classes 3-8 an SIE file declared assets or
	// liabilities are balance accounts: at their closing balance, outside
	// the result.
	sheet := ledger.SheetOf(list)
	kept := balances[:0]
	for _, t := range balances {
		if sheet.Holds(t.Account) {
			kept = append(kept, t)
		}
	}
	balances = kept
	closed, err := h.ledger.Totals(ctx, company, id, "3000", "8999", true)
	if err != nil {
		return y, err
	}
	sru := func(n string) string {
		if a, ok := y.charted[n]; ok && a.SRU != nil {
			return *a.SRU
		}
		return ""
	}
	for _, t := range balances {
		y.accounts = append(y.accounts, Account{Number: t.Account, SRU: sru(t.Account), Amount: t.Closing(), Sheet: sheet[t.Account]})
	}
	for _, t := range results {
		if sheet.InResult(t.Account) {
			y.accounts = append(y.accounts, Account{Number: t.Account, SRU: sru(t.Account), Amount: t.Credit.Sub(t.Debit)})
		}
	}
	for _, t := range closed {
		if sheet.InResult(t.Account) {
			y.unclosed = y.unclosed.Add(t.Credit).Sub(t.Debit)
		}
	}
	return y, nil
}

func (y year) fiscalYear() gen.TaxFiscalYear {
	return gen.TaxFiscalYear{FiscalPeriodId: y.period.ID, Name: y.period.Name, Start: openapi_types.Date{Time: y.period.Start},
		End: openapi_types.Date{Time: y.period.End}, IsClosed: y.period.Closed}
}

func (y year) warnings(ws []Warning) []gen.TaxWarning {
	if y.period.YearEndAt == nil {
		ws = append(ws, Warning{Code: "YEAR_END_NOT_RUN",
			Message: "Bokslutet är inte kört för räkenskapsåret; siffrorna kan ändras."})
	}
	out := make([]gen.TaxWarning, len(ws))
	for i, w := range ws {
		accounts := w.Accounts
		if accounts == nil {
			accounts = []string{}
		}
		out[i] = gen.TaxWarning{Code: gen.TaxWarningCode(w.Code), Message: w.Message, Accounts: accounts}
	}
	return out
}

func ints(m map[string]int64) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = int(v)
	}
	return out
}

func sruRef(company uuid.UUID, report string, period uuid.UUID) gen.SruFileRef {
	return gen.SruFileRef{Download: fmt.Sprintf("/api/v1/companies/%s/reports/%s/sru?period_id=%s", company, report, period),
		ContentType: "application/zip", Files: []string{"INFO.SRU", "BLANKETTER.SRU"}}
}

func (y year) ink2() INK2 {
	return BuildINK2(y.period.Start.Format("20060102"), y.period.End.Format("20060102"), y.accounts, y.unclosed)
}

// GetInk2 answers an aktiebolag's INK2 fields for a fiscal year.
func (h *Handler) GetInk2(ctx context.Context, req gen.GetInk2RequestObject) (gen.GetInk2ResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	y, err := h.read(ctx, company, req.Params.PeriodId, "aktiebolag", apierr.TaxDeclINK2WrongLegalForm)
	if err != nil {
		return nil, err
	}
	r := y.ink2()
	out := gen.Ink2{FiscalYear: y.fiscalYear(), FormPeriod: FormPeriod(y.period.End), Ink2: ints(r.Main), Ink2r: ints(r.R),
		Ink2s: ints(r.S), Breakdown: r.Breakdown, Warnings: y.warnings(r.Warnings),
		Totals: gen.Ink2Totals{TotalAssets: r.Assets, TotalEquityLiabilities: r.EquityLiabilities,
			OperatingResult: r.OperatingResult, AretsResultat: r.Result},
		CompanyInfo: gen.TaxCompanyInfo{Name: y.company.Name, OrgNumber: envelope.Nullable(y.company.OrgNumber),
			LegalForm: y.company.Form},
		SruFile: sruRef(company, "ink2", y.period.ID)}
	return gen.GetInk2200JSONResponse{Body: gen.Ink2Response{Meta: envelope.Meta(ctx), Data: out}}, nil
}

// GetInk2Sru answers INK2 as SRU files.
func (h *Handler) GetInk2Sru(ctx context.Context, req gen.GetInk2SruRequestObject) (gen.GetInk2SruResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	y, err := h.read(ctx, company, req.Params.PeriodId, "aktiebolag", apierr.TaxDeclINK2WrongLegalForm)
	if err != nil {
		return nil, err
	}
	r := y.ink2()
	p := FormPeriod(y.period.End)
	b, err := SRU(y.filer(), []Form{{ID: "INK2-" + p, Fields: r.Main}, {ID: "INK2R-" + p, Fields: r.R},
		{ID: "INK2S-" + p, Fields: r.S}}, h.now())
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf(`attachment; filename="ink2-%d.zip"`, y.period.End.Year())
	return gen.GetInk2Sru200ApplicationzipResponse{Body: bytes.NewReader(b), ContentLength: int64(len(b)),
		Headers: gen.GetInk2Sru200ResponseHeaders{ContentDisposition: &name}}, nil
}

// filer is the SRU file's sender: 16 and the organisationsnummer, or a
// sole trader's personnummer with its century.
func (y year) filer() Filer {
	digits := ""
	if y.company.OrgNumber != nil {
		digits = strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, *y.company.OrgNumber)
	}
	if len(digits) == 10 {
		if y.company.Form == "enskild_firma" {
			century := "19"
			if digits[:2] <= y.period.End.Format("06") {
				century = "20"
			}
			digits = century + digits
		} else {
			digits = "16" + digits
		}
	}
	f := Filer{Number: digits, Name: y.company.Name}
	if y.company.PostalCode != nil {
		f.PostalCode = *y.company.PostalCode
	}
	if y.company.City != nil {
		f.City = *y.company.City
	}
	return f
}

func (h *Handler) ne(ctx context.Context, company, id uuid.UUID) (year, NE, error) {
	y, err := h.read(ctx, company, id, "enskild_firma", apierr.TaxDeclNEWrongLegalForm)
	if err != nil {
		return y, NE{}, err
	}
	taxable := func(n string) bool {
		a, ok := y.charted[n]
		if !ok {
			return false
		}
		if a.VATRate != nil && a.VATRate.Sign() > 0 {
			return true
		}
		switch vat.BoxOf(vat.Account{Number: n, Box: a.VATBox, Treatment: a.VATTreatment, Rate: a.VATRate}) {
		case "05", "06", "07", "08":
			return true
		}
		return false
	}
	return y, BuildNE(y.accounts, taxable, y.unclosed), nil
}

// GetNeBilaga answers a sole trader's NE appendix for a fiscal year.
func (h *Handler) GetNeBilaga(ctx context.Context, req gen.GetNeBilagaRequestObject) (gen.GetNeBilagaResponseObject, error) {
	company := uuid.UUID(req.CompanyId)
	y, n, err := h.ne(ctx, company, req.Params.PeriodId)
	if err != nil {
		return nil, err
	}
	org := y.company.OrgNumber
	if f := y.filer(); len(f.Number) == 12 {
		masked := f.Number[:8] + "-XXXX"
		org = &masked
	}
	out := gen.NeBilaga{FiscalYear: y.fiscalYear(), FormPeriod: FormPeriod(y.period.End), Sru: ints(n.Codes()),
		Breakdown: n.Breakdown, Warnings: y.warnings(n.Warnings),
		CompanyInfo: gen.TaxCompanyInfo{Name: y.company.Name, OrgNumber: envelope.Nullable(org), LegalForm: y.company.Form},
		SruFile:     sruRef(company, "ne-bilaga", y.period.ID)}
	out.Rutor = gen.NeRutor{R1: int(n.Fields["R1"]), R2: int(n.Fields["R2"]), R3: int(n.Fields["R3"]), R4: int(n.Fields["R4"]),
		R5: int(n.Fields["R5"]), R6: int(n.Fields["R6"]), R7: int(n.Fields["R7"]), R8: int(n.Fields["R8"]), R9: int(n.Fields["R9"]),
		R10: int(n.Fields["R10"]), R11: int(n.Fields["R11"])}
	out.Balans = gen.NeBalans{B1: int(n.Fields["B1"]), B2: int(n.Fields["B2"]), B3: int(n.Fields["B3"]),
		B4: int(n.Fields["B4"]), B5: int(n.Fields["B5"]), B6: int(n.Fields["B6"]), B7: int(n.Fields["B7"]),
		B8: int(n.Fields["B8"]), B9: int(n.Fields["B9"]), B10: int(n.Fields["B10"]), B11: int(n.Fields["B11"]),
		B12: int(n.Fields["B12"]), B13: int(n.Fields["B13"]), B14: int(n.Fields["B14"]), B15: int(n.Fields["B15"]),
		B16: int(n.Fields["B16"])}
	return gen.GetNeBilaga200JSONResponse{Body: gen.NeBilagaResponse{Meta: envelope.Meta(ctx), Data: out}}, nil
}

// GetNeBilagaSru answers the NE appendix as SRU files.
func (h *Handler) GetNeBilagaSru(ctx context.Context, req gen.GetNeBilagaSruRequestObject) (gen.GetNeBilagaSruResponseObject, error) {
	y, n, err := h.ne(ctx, uuid.UUID(req.CompanyId), req.Params.PeriodId)
	if err != nil {
		return nil, err
	}
	b, err := SRU(y.filer(), []Form{{ID: "NE-" + FormPeriod(y.period.End), Fields: n.Codes()}}, h.now())
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf(`attachment; filename="ne-%d.zip"`, y.period.End.Year())
	return gen.GetNeBilagaSru200ApplicationzipResponse{Body: bytes.NewReader(b), ContentLength: int64(len(b)),
		Headers: gen.GetNeBilagaSru200ResponseHeaders{ContentDisposition: &name}}, nil
}
