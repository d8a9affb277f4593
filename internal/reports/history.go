package reports

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/audit"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/jobs"
	"github.com/kontera/kontera/openapi"
)

// Categories are the processing history's categories, in order.
var Categories = []string{"verifikation", "kontoplan", "installningar", "period", "import", "atkomst", "arkiv", "ovrigt"}

// categoryTables are the tables whose audit entries make each category;
// an entry of any other table is ovrigt.
var categoryTables = map[string][]string{
	"verifikation":  {"journal_entries", "journal_lines", "journal_rattelser", "voucher_gap_explanations", "invoices", "supplier_invoices", "bank_transactions", "inbox_items"},
	"kontoplan":     {"accounts", "dimensions", "dimension_values", "dimension_rules"},
	"installningar": {"companies", "company_settings", "company_logos", "cash_accounts", "cash_account_payees", "bank_connections", "webhooks"},
	"period":        {"fiscal_periods", "vat_filings", "tax_deadlines"},
	"import":        {"bank_file_imports", "sie_imports"},
	"atkomst":       {"company_members", "api_keys", "key_grants"},
	"arkiv":         {"documents"},
}

// TableCategory is the category of an audit entry of table.
func TableCategory(table string) string {
	for c, tables := range categoryTables {
		for _, t := range tables {
			if t == table {
				return c
			}
		}
	}
	return "ovrigt"
}

// OperationCategory is the category of an operation of type typ.
func OperationCategory(typ string) string {
	switch {
	case strings.HasPrefix(typ, "import."):
		return "import"
	case strings.HasPrefix(typ, "fiscal_periods."):
		return "period"
	}
	return "ovrigt"
}

// operationTypes are the operation types of category c that the
// operations table may hold; nil for every type.
func operationTypes(c string, known map[string]int) []string {
	out := []string{}
	for t := range known {
		if OperationCategory(t) == c {
			out = append(out, t)
		}
	}
	return out
}

const (
	historyList                   = "behandlingshistorik"
	historyLimit, historyMaxLimit = 100, 500
)

// historyCursor is where the next page of the history starts: after an
// event, the range and category it was made for.
type historyCursor struct {
	cursor.Position
	Key string `json:"k"`
}

// GetBehandlingshistorik answers the processing history of a fiscal year.
func (h *Handler) GetBehandlingshistorik(ctx context.Context, req gen.GetBehandlingshistorikRequestObject) (gen.GetBehandlingshistorikResponseObject, error) {
	company, p := uuid.UUID(req.CompanyId), req.Params
	per, err := h.period(ctx, company, p.PeriodId)
	if err != nil {
		return nil, err
	}
	from, to, mode := per.Start.Time, per.End.Time, "fiscal_year"
	if p.FromDate != nil || p.ToDate != nil {
		mode = "date_range"
		if p.FromDate != nil {
			from = p.FromDate.Time
		}
		if p.ToDate != nil {
			to = p.ToDate.Time
		}
	}
	if to.Before(from) {
		return nil, apierr.Validation(apierr.Issue{Field: "to_date", In: "query", Rule: "order", Issue: "must not be before from_date"})
	}
	end := to.AddDate(0, 0, 1)
	category := ""
	if p.Category != nil {
		category = string(*p.Category)
	}
	c, err := h.company(ctx, company)
	if err != nil {
		return nil, err
	}
	tally, err := h.src.Audit.Tally(ctx, company, from, end)
	if err != nil {
		return nil, err
	}
	opTally, err := h.src.Operations.Tally(ctx, company, from, end)
	if err != nil {
		return nil, err
	}
	out := gen.Behandlingshistorik{Mode: gen.BehandlingshistorikMode(mode), GeneratedAt: h.src.Now().UTC(),
		AppVersion: openapi.APIVersion, Events: []gen.HistoryEvent{}}
	out.Company.Name, out.Company.OrgNumber = c.Name, envelope.Nullable(c.OrgNumber)
	out.Period.FiscalPeriodId, out.Period.Name, out.Period.Start, out.Period.End = per.Id, per.Name, per.Start, per.End
	out.Range.From, out.Range.To = openapi_types.Date{Time: from}, openapi_types.Date{Time: to}
	counts := map[string]int{}
	for t, n := range tally {
		counts[TableCategory(t)] += n
	}
	for t, n := range opTally {
		counts[OperationCategory(t)] += n
	}
	out.ByCategory = gen.HistoryByCategory{Verifikation: counts["verifikation"], Kontoplan: counts["kontoplan"],
		Installningar: counts["installningar"], Period: counts["period"], Import: counts["import"], Atkomst: counts["atkomst"],
		Arkiv: counts["arkiv"], Ovrigt: counts["ovrigt"]}
	for _, cat := range Categories {
		if category == "" || category == cat {
			out.TotalEvents += counts[cat]
		}
	}
	// Which tables and operation types the category asks for.
	var tables, types []string
	except := false
	switch category {
	case "":
	case "ovrigt":
		for _, ts := range categoryTables {
			tables = append(tables, ts...)
		}
		except, types = true, operationTypes(category, opTally)
	default:
		tables, types = append([]string{}, categoryTables[category]...), operationTypes(category, opTally)
	}
	limit := cursor.Limit(p.Limit, historyLimit, historyMaxLimit)
	key := from.Format(time.DateOnly) + "/" + to.Format(time.DateOnly) + "/" + category
	var after *cursor.Position
	if at := new(historyCursor); h.cursors.DecodeParam(historyList, p.Cursor, at) && at.Key == key {
		after = &at.Position
	}
	entries, err := h.src.Audit.Chronicle(ctx, company, from, end, tables, except, after, limit)
	if err != nil {
		return nil, err
	}
	ops, err := h.src.Operations.Chronicle(ctx, company, from, end, types, after, limit)
	if err != nil {
		return nil, err
	}
	events := make([]gen.HistoryEvent, 0, len(entries)+len(ops))
	for _, e := range entries {
		events = append(events, auditEvent(e))
	}
	for _, o := range ops {
		events = append(events, operationEvent(o))
	}
	sort.Slice(events, func(i, j int) bool {
		if !events[i].CreatedAt.Equal(events[j].CreatedAt) {
			return events[i].CreatedAt.Before(events[j].CreatedAt)
		}
		return strings.Compare(events[i].Id.String(), events[j].Id.String()) < 0
	})
	next := ""
	if len(events) > limit {
		events = events[:limit]
		last := events[len(events)-1]
		next = h.cursors.Encode(historyList, historyCursor{Position: cursor.Position{At: last.CreatedAt, ID: last.Id}, Key: key})
	}
	out.Events = events
	return gen.GetBehandlingshistorik200JSONResponse{Body: gen.BehandlingshistorikResponse{Meta: envelope.Page(ctx, next), Data: out}}, nil
}

func auditEvent(e audit.Entry) gen.HistoryEvent {
	table := ""
	if e.Table != nil {
		table = *e.Table
	}
	fields := []string(e.ChangedFields)
	if fields == nil {
		fields = []string{}
	}
	return gen.HistoryEvent{Id: e.ID, Source: gen.HistoryEventSourceAudit, Category: gen.HistoryEventCategory(TableCategory(table)),
		Action: string(e.Action), TableName: envelope.Nullable(e.Table), RecordId: envelope.Nullable(e.RecordID),
		Description: envelope.Nullable(e.Description), ActorType: envelope.NullableEnum[gen.ActorType](e.ActorType),
		ActorLabel: envelope.Nullable(e.ActorLabel), ActorEmail: envelope.Nullable(e.ActorEmail), ChangedFields: fields,
		Operation: nullable.NewNullNullable[gen.HistoryOperation](), CreatedAt: e.CreatedAt.UTC()}
}

func operationEvent(o jobs.Operation) gen.HistoryEvent {
	op := gen.HistoryOperation{Type: gen.OperationType(o.Type), Status: gen.OperationStatus(o.Status), CompletedAt: nullable.NewNullNullable[time.Time]()}
	if o.CompletedAt != nil {
		op.CompletedAt = nullable.NewNullableWithValue(o.CompletedAt.UTC())
	}
	return gen.HistoryEvent{Id: o.ID, Source: gen.HistoryEventSourceOperation, Category: gen.HistoryEventCategory(OperationCategory(o.Type)),
		Action: o.Type, TableName: nullable.NewNullNullable[string](), RecordId: nullable.NewNullableWithValue(o.ID.String()),
		Description: nullable.NewNullNullable[string](), ActorType: nullable.NewNullNullable[gen.ActorType](),
		ActorLabel: nullable.NewNullNullable[string](), ActorEmail: nullable.NewNullNullable[string](), ChangedFields: []string{},
		Operation: nullable.NewNullableWithValue(op), CreatedAt: o.CreatedAt.UTC()}
}
