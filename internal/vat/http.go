package vat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Skatteverket is the tax agency's side of a filed return: its decision
// on the return of a period. The deployment has no connection unless one
// is configured; Offline answers SKATTEVERKET_NOT_CONNECTED.
type Skatteverket interface {
	Decided(ctx context.Context, orgNr string, p Period) (*Decision, error)
}

// Decision is Skatteverket's decided return of a period.
type Decision struct {
	DecidedOn time.Time
	Filed     map[string]int64
}

// Offline is the Skatteverket of a deployment with no connection.
type Offline struct{}

// Decided answers that no connection exists.
func (Offline) Decided(context.Context, string, Period) (*Decision, error) {
	return nil, apierr.New(apierr.SkatteverketNotConnected, nil)
}

// Handler serves the VAT return's endpoints.
type Handler struct {
	returns *Returns
	skv     Skatteverket
}

// NewHandler returns the VAT handler.
func NewHandler(r *Returns, skv Skatteverket) *Handler {
	if skv == nil {
		skv = Offline{}
	}
	return &Handler{returns: r, skv: skv}
}

func query(kind gen.VatPeriodType, year, number int, fp *openapi_types.UUID) Query {
	return Query{Type: string(kind), Year: year, Number: number, FiscalPeriodID: fp}
}

// GetVatDeclaration answers the return of a period.
func (h *Handler) GetVatDeclaration(ctx context.Context, req gen.GetVatDeclarationRequestObject) (gen.GetVatDeclarationResponseObject, error) {
	p := req.Params
	d, err := h.returns.Declare(ctx, uuid.UUID(req.CompanyId), query(p.PeriodType, p.Year, p.Period, p.FiscalPeriodId))
	if err != nil {
		return nil, err
	}
	out := gen.VatDeclaration{Period: wirePeriod(d.Period), AccountingMethod: gen.VatDeclarationAccountingMethod(d.Declarant.AccountingMethod),
		Rutor: convert[gen.VatRutor](boxes(d.Return.Exact, true)), RutorFiled: convert[gen.VatRutorFiled](boxes(d.Return.Filed, true)),
		Filing: nullable.NewNullNullable[gen.VatFiling](), ChangedSinceFiling: d.Changed}
	accounts := map[string][]gen.VatBoxAccount{}
	for box, list := range d.Return.Accounts {
		if box == "49" {
			continue
		}
		accounts["ruta"+box] = make([]gen.VatBoxAccount, len(list))
		for i, a := range list {
			accounts["ruta"+box][i] = gen.VatBoxAccount{AccountNumber: a.Account, AccountName: d.Names[a.Account], Amount: a.Amount}
		}
	}
	out.Accounts = convert[gen.VatBoxAccounts](accounts)
	if d.Filing != nil {
		out.Filing = nullable.NewNullableWithValue(wireFiling(*d.Filing))
	}
	return gen.GetVatDeclaration200JSONResponse{Body: gen.VatDeclarationResponse{Meta: envelope.Meta(ctx), Data: out}}, nil
}

// GetVatDeclarationEskd answers the return as an eSKD file.
func (h *Handler) GetVatDeclarationEskd(ctx context.Context, req gen.GetVatDeclarationEskdRequestObject) (gen.GetVatDeclarationEskdResponseObject, error) {
	p := req.Params
	b, per, err := h.returns.ESKD(ctx, uuid.UUID(req.CompanyId), query(p.PeriodType, p.Year, p.Period, p.FiscalPeriodId))
	if err != nil {
		return nil, err
	}
	disp := fmt.Sprintf(`attachment; filename="momsdeklaration-%s.xml"`, per.Redovisningsperiod())
	return gen.GetVatDeclarationEskd200ApplicationxmlResponse{Body: bytes.NewReader(b), ContentLength: int64(len(b)),
		Headers: gen.GetVatDeclarationEskd200ResponseHeaders{ContentDisposition: &disp}}, nil
}

// ListVatFilings lists the filed periods.
func (h *Handler) ListVatFilings(ctx context.Context, req gen.ListVatFilingsRequestObject) (gen.ListVatFilingsResponseObject, error) {
	list, err := h.returns.Filings(ctx, uuid.UUID(req.CompanyId))
	if err != nil {
		return nil, err
	}
	out := make([]gen.VatFiling, len(list))
	for i, f := range list {
		out[i] = wireFiling(f)
	}
	return gen.ListVatFilings200JSONResponse{Body: gen.VatFilingListResponse{Meta: envelope.Meta(ctx), Data: out}}, nil
}

// RecordVatFiling marks a period as filed.
func (h *Handler) RecordVatFiling(ctx context.Context, req gen.RecordVatFilingRequestObject) (gen.RecordVatFilingResponseObject, error) {
	b := req.Body
	f, err := h.returns.File(ctx, uuid.UUID(req.CompanyId), query(b.PeriodType, b.Year, b.Period, b.FiscalPeriodId),
		b.FiledOn.Time, envelope.Text(b.Reference))
	if err != nil {
		return nil, err
	}
	w := wireFiling(f.Filing)
	out := gen.VatFilingRecorded{DeadlineId: w.DeadlineId, PeriodType: w.PeriodType, Year: w.Year, Period: w.Period,
		TaxPeriod: w.TaxPeriod, PeriodStart: w.PeriodStart, PeriodEnd: w.PeriodEnd, FiledOn: w.FiledOn,
		Source: gen.VatFilingRecordedSource(w.Source), Reference: w.Reference, RutorFiled: w.RutorFiled,
		Created: f.Created, Changed: f.Changed}
	meta := envelope.Meta(ctx)
	if f.Unlocked {
		meta = envelope.WithAdvice(meta, "VAT_PERIOD_NOT_LOCKED",
			"Bokföringen är inte låst för den deklarerade perioden; det som deklarerats kan fortfarande ändras.",
			"The bookkeeping lock leaves the filed period open; what was filed can still change in the books.",
			"Move the lock date to the period's last day with PATCH /settings/bookkeeping-lock.")
	}
	return gen.RecordVatFiling200JSONResponse{Meta: meta, Data: out}, nil
}

// UnmarkVatFiling removes a manual filed mark.
func (h *Handler) UnmarkVatFiling(ctx context.Context, req gen.UnmarkVatFilingRequestObject) (gen.UnmarkVatFilingResponseObject, error) {
	p := req.Params
	f, err := h.returns.Unmark(ctx, uuid.UUID(req.CompanyId), query(p.PeriodType, p.Year, p.Period, nil))
	if err != nil {
		return nil, err
	}
	return gen.UnmarkVatFiling200JSONResponse{Meta: envelope.Meta(ctx),
		Data: gen.VatFilingUnmarked{DeadlineId: envelope.Nullable(f.DeadlineID), Unmarked: true}}, nil
}

// GetVatSettlementProposal answers the proposed settlement verifikat.
func (h *Handler) GetVatSettlementProposal(ctx context.Context, req gen.GetVatSettlementProposalRequestObject) (gen.GetVatSettlementProposalResponseObject, error) {
	p := req.Params
	pr, err := h.returns.Propose(ctx, uuid.UUID(req.CompanyId), query(p.PeriodType, p.Year, p.Period, p.FiscalPeriodId))
	if err != nil {
		return nil, err
	}
	out := gen.VatSettlementProposal{Period: wirePeriod(pr.Period), PeriodLabel: pr.Period.Label(),
		EntryDate: openapi_types.Date{Time: pr.EntryDate}, Description: pr.Description,
		Lines: wireLines(pr.Lines, pr.Declaration.Names), FiledNet: int(pr.FiledNet), RoundingAmount: pr.Rounding,
		IsEmpty: pr.Empty(), ExistingEntries: make([]gen.VatSettlementEntry, len(pr.Existing)),
		BookingStatus: gen.VatSettlementProposalBookingStatusNone, Fingerprint: pr.Fingerprint()}
	for i, e := range pr.Existing {
		out.ExistingEntries[i] = gen.VatSettlementEntry{JournalEntryId: e.ID, VoucherSeries: e.Series,
			VoucherNumber: e.Number, EntryDate: openapi_types.Date{Time: e.Date}, Reversed: e.Reversed}
	}
	if pr.Booked() != nil {
		out.BookingStatus = gen.VatSettlementProposalBookingStatusBooked
	}
	return gen.GetVatSettlementProposal200JSONResponse{Body: gen.VatSettlementProposalResponse{Meta: envelope.Meta(ctx), Data: out}}, nil
}

// BookVatSettlement books the settlement verifikat as proposed.
func (h *Handler) BookVatSettlement(ctx context.Context, req gen.BookVatSettlementRequestObject) (gen.BookVatSettlementResponseObject, error) {
	b := req.Body
	pr, e, err := h.returns.Settle(ctx, uuid.UUID(req.CompanyId), query(b.PeriodType, b.Year, b.Period, b.FiscalPeriodId),
		b.ExpectedFingerprint)
	if err != nil {
		return nil, err
	}
	out := gen.VatSettlementBooked{JournalEntryId: nullable.NewNullNullable[openapi_types.UUID](),
		VoucherSeries: e.Series, VoucherNumber: nullable.NewNullNullable[int](),
		EntryDate: openapi_types.Date{Time: pr.EntryDate}, PeriodLabel: pr.Period.Label(), FiledNet: int(pr.FiledNet),
		RoundingAmount: pr.Rounding, Lines: wireLines(pr.Lines, pr.Declaration.Names)}
	if !store.IsDryRun(ctx) {
		out.JournalEntryId = nullable.NewNullableWithValue(e.ID)
		out.VoucherNumber = nullable.NewNullableWithValue(e.Number)
	}
	return gen.BookVatSettlement200JSONResponse{Meta: envelope.Meta(ctx), Data: out}, nil
}

// GetSkatteverketVatDeclaration answers the filed return of a period.
func (h *Handler) GetSkatteverketVatDeclaration(ctx context.Context, req gen.GetSkatteverketVatDeclarationRequestObject) (gen.GetSkatteverketVatDeclarationResponseObject, error) {
	p := req.Params
	company := uuid.UUID(req.CompanyId)
	d, err := h.returns.Declare(ctx, company, query(p.PeriodType, p.Year, p.Period, nil))
	if err != nil {
		return nil, err
	}
	org, err := ESKDOrgNr(d.Declarant.OrgNumber, d.Declarant.SoleTrader())
	if err != nil {
		return nil, err
	}
	state := gen.GetSkatteverketVatDeclarationParamsStateSubmitted
	if p.State != nil {
		state = *p.State
	}
	out := gen.SkatteverketVatDeclaration{Redovisare: org, Redovisningsperiod: d.Period.Redovisningsperiod(),
		Submitted: nullable.NewNullNullable[gen.SkatteverketSubmitted](), Decided: nullable.NewNullNullable[gen.SkatteverketDecided]()}
	if state != gen.GetSkatteverketVatDeclarationParamsStateSubmitted {
		dec, err := h.skv.Decided(ctx, org, d.Period)
		if err != nil {
			return nil, err
		}
		if dec != nil {
			out.Decided = nullable.NewNullableWithValue(gen.SkatteverketDecided{DecidedOn: openapi_types.Date{Time: dec.DecidedOn},
				Rutor: convert[gen.VatRutorFiled](boxes(dec.Filed, true))})
		}
	}
	if state != gen.GetSkatteverketVatDeclarationParamsStateDecided && d.Filing != nil {
		w := wireFiling(*d.Filing)
		out.Submitted = nullable.NewNullableWithValue(gen.SkatteverketSubmitted{FiledOn: w.FiledOn,
			Source: gen.SkatteverketSubmittedSource(w.Source), Reference: w.Reference, RutorFiled: w.RutorFiled})
	}
	return gen.GetSkatteverketVatDeclaration200JSONResponse{Meta: envelope.Meta(ctx), Data: out}, nil
}

func wirePeriod(p Period) gen.VatPeriod {
	return gen.VatPeriod{Type: gen.VatPeriodType(p.Type), Year: p.Year, Period: p.Number,
		Start: openapi_types.Date{Time: p.Start}, End: openapi_types.Date{Time: p.End}, Label: p.Label(),
		TaxPeriod: p.TaxPeriod(), Redovisningsperiod: p.Redovisningsperiod()}
}

func wireFiling(f Filing) gen.VatFiling {
	p := f.Period()
	out := gen.VatFiling{DeadlineId: envelope.Nullable(f.DeadlineID), PeriodType: gen.VatPeriodType(f.PeriodType),
		Year: p.Year, Period: p.Number, TaxPeriod: p.TaxPeriod(), PeriodStart: openapi_types.Date{Time: f.Start},
		PeriodEnd: openapi_types.Date{Time: f.End}, FiledOn: openapi_types.Date{Time: f.FiledOn},
		Source: gen.VatFilingSource(f.Source), Reference: envelope.Nullable(f.Reference),
		RutorFiled: nullable.NewNullNullable[gen.VatRutorFiled]()}
	if f.Snapshot.Filed != nil {
		out.RutorFiled = nullable.NewNullableWithValue(convert[gen.VatRutorFiled](boxes(f.Snapshot.Filed, true)))
	}
	return out
}

func wireLines(lines []Line, names map[string]string) []gen.VatSettlementLine {
	out := make([]gen.VatSettlementLine, len(lines))
	for i, l := range lines {
		out[i] = gen.VatSettlementLine{AccountNumber: l.Account, AccountName: names[l.Account], DebitAmount: l.Debit,
			CreditAmount: l.Credit, LineDescription: nullable.NewNullNullable[string]()}
		if l.Description != "" {
			out[i].LineDescription = nullable.NewNullableWithValue(l.Description)
		}
	}
	return out
}

// boxes keys a return's boxes as the API names them (ruta05 …), every
// box present.
func boxes[T int64 | money.Amount](m map[string]T, all bool) map[string]T {
	out := make(map[string]T, len(Boxes))
	for _, b := range Boxes {
		if v, ok := m[b]; ok || all {
			out["ruta"+b] = v
		}
	}
	return out
}

// convert turns a map keyed by the API's field names into the generated
// struct of those fields: the boxes are data here, fields there.
func convert[T any](m any) T {
	var out T
	b, _ := json.Marshal(m)
	_ = json.Unmarshal(b, &out)
	return out
}

func euQuery(kind gen.PsPeriodType, year, number int) Query {
	return Query{Type: string(kind), Year: year, Number: number}
}

// GetEuSalesList answers the EU sales list of a month or quarter.
func (h *Handler) GetEuSalesList(ctx context.Context, req gen.GetEuSalesListRequestObject) (gen.GetEuSalesListResponseObject, error) {
	p := req.Params
	l, err := h.returns.EUList(ctx, uuid.UUID(req.CompanyId), euQuery(p.PeriodType, p.Year, p.Period))
	if err != nil {
		return nil, err
	}
	text := func(s string) nullable.Nullable[string] {
		if s == "" {
			return nullable.NewNullNullable[string]()
		}
		return nullable.NewNullableWithValue(s)
	}
	missing := l.Filer.Missing()
	out := gen.EuSalesList{Period: wirePeriod(l.Period), PeriodCode: PeriodCode(l.Period),
		Filer: gen.EuSalesFiler{VatNumber: text(l.Filer.VATNumber), Name: text(l.Filer.Name), Phone: text(l.Filer.Phone),
			Email: text(l.Filer.Email), Missing: make([]gen.EuSalesFilerMissing, len(missing))},
		Rows: make([]gen.EuSalesRow, len(l.List.Rows)), Errors: make([]gen.EuSalesError, len(l.List.Errors)),
		Warnings: make([]gen.EuSalesError, len(l.List.Warnings)),
		CsvReady: len(missing) == 0 && len(l.List.Errors) == 0}
	for i, m := range missing {
		out.Filer.Missing[i] = gen.EuSalesFilerMissing(m)
	}
	value := func(has bool, v int64) nullable.Nullable[int] {
		if !has {
			return nullable.NewNullNullable[int]()
		}
		return nullable.NewNullableWithValue(int(v))
	}
	for i, r := range l.List.Rows {
		out.Rows[i] = gen.EuSalesRow{BuyerVatNumber: r.VATNumber, CustomerIds: r.CustomerIDs, CustomerName: r.CustomerName,
			Goods: value(r.HasGoods, r.Goods), Triangulation: value(r.HasTriang, r.Triangulation),
			Services: value(r.HasServices, r.Services), InvoiceCount: r.Invoices}
	}
	for i, e := range l.List.Errors {
		out.Errors[i] = gen.EuSalesError{CustomerId: e.CustomerID, CustomerName: e.CustomerName, InvoiceIds: e.InvoiceIDs,
			Code: gen.EuSalesErrorCode(e.Code), Issue: e.Issue}
	}
	for i, e := range l.List.Warnings {
		out.Warnings[i] = gen.EuSalesError{CustomerId: e.CustomerID, CustomerName: e.CustomerName, InvoiceIds: e.InvoiceIDs,
			Code: gen.EuSalesErrorCode(e.Code), Issue: e.Issue}
	}
	out.Totals.Goods, out.Totals.Triangulation, out.Totals.Services = int(l.List.Goods), int(l.List.Triangulation), int(l.List.Services)
	for _, c := range []struct {
		box  string
		list int64
	}{{"35", l.List.Goods}, {"38", l.List.Triangulation}, {"39", l.List.Services}} {
		out.CrossCheck = append(out.CrossCheck, gen.EuSalesCrossCheck{Box: gen.EuSalesCrossCheckBox(c.box),
			VatReturn: int(l.Boxes[c.box]), List: int(c.list), Difference: int(l.Boxes[c.box] - c.list)})
	}
	return gen.GetEuSalesList200JSONResponse{Body: gen.EuSalesListResponse{Meta: envelope.Meta(ctx), Data: out}}, nil
}

// GetEuSalesListCsv answers the EU sales list as Skatteverket's file.
func (h *Handler) GetEuSalesListCsv(ctx context.Context, req gen.GetEuSalesListCsvRequestObject) (gen.GetEuSalesListCsvResponseObject, error) {
	p := req.Params
	l, err := h.returns.EUList(ctx, uuid.UUID(req.CompanyId), euQuery(p.PeriodType, p.Year, p.Period))
	if err != nil {
		return nil, err
	}
	b, err := CSV(l.Filer, l.Period, l.List)
	if err != nil {
		return nil, err
	}
	disp := fmt.Sprintf(`attachment; filename="periodisk-sammanstallning-%s.csv"`, PeriodCode(l.Period))
	return gen.GetEuSalesListCsv200TextcsvCharsetIso88591Response{Body: bytes.NewReader(b), ContentLength: int64(len(b)),
		Headers: gen.GetEuSalesListCsv200ResponseHeaders{ContentDisposition: &disp}}, nil
}
