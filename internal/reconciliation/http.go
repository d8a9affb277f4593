package reconciliation

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/kontera/kontera/gen"
	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/banking"
	"github.com/kontera/kontera/internal/cursor"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Handler serves reconciliation's endpoints.
type Handler struct {
	rec     *Reconciler
	cursors *cursor.Codec
}

// NewHandler returns the handler.
func NewHandler(r *Reconciler, c *cursor.Codec) *Handler { return &Handler{rec: r, cursors: c} }

const itemsList = "reconciliation_items"

func dates(from, to *openapi_types.Date) (*time.Time, *time.Time) {
	var f, t *time.Time
	if from != nil {
		f = &from.Time
	}
	if to != nil {
		t = &to.Time
	}
	return f, t
}

func date(t time.Time) openapi_types.Date { return openapi_types.Date{Time: t} }

func key(s gen.AccountKey) (Key, error) { return ParseKey(string(s)) }

// ListReconciliationAccounts lists the accounts with an outside truth.
func (h *Handler) ListReconciliationAccounts(ctx context.Context, req gen.ListReconciliationAccountsRequestObject) (gen.ListReconciliationAccountsResponseObject, error) {
	from, to := dates(req.Params.DateFrom, req.Params.DateTo)
	list, err := h.rec.Accounts(ctx, req.CompanyId, from, to)
	if err != nil {
		return nil, err
	}
	out := gen.ReconciliationAccountList{Accounts: make([]gen.ReconciliationAccountRow, len(list))}
	for i, s := range list {
		out.Accounts[i] = h.row(s)
		out.DateFrom, out.DateTo = date(s.Window.From), date(s.Window.To)
	}
	return gen.ListReconciliationAccounts200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}

// row is an account's list row.
func (h *Handler) row(s Summary) gen.ReconciliationAccountRow {
	a := s.Account
	r := gen.ReconciliationAccountRow{AccountKey: a.Key.String(), Kind: gen.ReconciliationAccountRowKind(a.Key.Kind),
		AccountNumber: a.Number, Name: a.Name, Currency: a.Currency, LogoUrl: nullable.NewNullNullable[string](),
		SupersededBy: nullable.NewNullNullable[string](), SignedOffThrough: nullable.NewNullNullable[openapi_types.Date]()}
	r.Source = gen.ReconciliationSource{Type: gen.ReconciliationSourceType(a.Source), SyncedAt: envelope.NullableTime(a.SyncedAt),
		Stale: a.Configured() && a.Stale(h.rec.now())}
	counts := gen.ReconciliationOpenCounts{Proposed: s.Picture.Counts[BucketProposed],
		UnmatchedExternal: s.Picture.Counts[BucketUnmatchedExternal], UnmatchedLedger: s.Picture.Counts[BucketUnmatchedLedger]}
	r.Status = gen.ReconciliationStatus{AsOf: date(s.Window.To), OpenCounts: counts,
		UnexplainedDifference: nullable.NewNullNullable[money.Amount]()}
	switch {
	case !a.Configured():
		r.Status.State = gen.ReconciliationStatusStateNotConfigured
	case r.Source.Stale:
		r.Status.State = gen.ReconciliationStatusStateStale
		r.Status.UnexplainedDifference.Set(s.Picture.Unexplained)
	case s.Picture.Unexplained.IsZero() && counts.Proposed+counts.UnmatchedExternal+counts.UnmatchedLedger == 0:
		r.Status.State = gen.ReconciliationStatusStateReconciled
		r.Status.UnexplainedDifference.Set(s.Picture.Unexplained)
	default:
		r.Status.State = gen.ReconciliationStatusStateOpen
		r.Status.UnexplainedDifference.Set(s.Picture.Unexplained)
	}
	if s.Signoff != nil {
		r.SignedOffThrough.Set(date(s.Signoff.ThroughDate))
	}
	return r
}

// GetReconciliationAccount reconciles one account through a day.
func (h *Handler) GetReconciliationAccount(ctx context.Context, req gen.GetReconciliationAccountRequestObject) (gen.GetReconciliationAccountResponseObject, error) {
	k, err := key(req.AccountKey)
	if err != nil {
		return nil, err
	}
	from, to := dates(req.Params.DateFrom, req.Params.DateTo)
	s, err := h.rec.Summarize(ctx, req.CompanyId, k, from, to)
	if err != nil {
		return nil, err
	}
	out, err := h.detail(ctx, req.CompanyId, s)
	if err != nil {
		return nil, err
	}
	return gen.GetReconciliationAccount200JSONResponse{Data: out, Meta: envelope.Meta(ctx)}, nil
}

func (h *Handler) detail(ctx context.Context, company uuid.UUID, s Summary) (gen.ReconciliationAccountDetail, error) {
	row := h.row(s)
	in := s.Account.Input
	out := gen.ReconciliationAccountDetail{AccountKey: row.AccountKey, Kind: gen.ReconciliationAccountDetailKind(row.Kind),
		AccountNumber: row.AccountNumber, Name: row.Name, Currency: row.Currency, LogoUrl: row.LogoUrl, Source: row.Source,
		Status: row.Status, SupersededBy: row.SupersededBy, SignedOffThrough: row.SignedOffThrough,
		DateFrom: date(s.Window.From), DateTo: date(s.Window.To), ExternalBalance: in.ExternalBalance,
		LedgerBalance: in.LedgerBalance, Difference: in.ExternalBalance.Sub(in.LedgerBalance),
		UnexplainedDifference: s.Picture.Unexplained, IsReconciled: s.Picture.Unexplained.IsZero(),
		Bridge: bridge(s.Picture.Bridge), Counts: map[string]int{}, OlderUnmatchedCount: s.Older,
		HistoryStart: envelope.NullableDate(s.Account.HistoryStart), LastCovered: envelope.NullableDate(s.Account.LastCovered),
		Skattekonto: nullable.NewNullNullable[gen.SkattekontoBlock](), Bank: nullable.NewNullNullable[gen.BankReconciliationStatus](),
		Signoff: nullable.NewNullNullable[gen.ReconciliationSignoff]()}
	out.ExternalBalanceSource = gen.ReconciliationAccountDetailExternalBalanceSource(s.Account.ExternalFrom)
	if s.Account.ExternalFrom == "" {
		out.ExternalBalanceSource = gen.Movements
	}
	for _, b := range Buckets {
		out.Counts[b] = s.Picture.Counts[b]
	}
	switch {
	case s.Account.Key.Kind == KindSkattekonto && s.Account.Configured():
		b := gen.SkattekontoBlock{Saldo: in.ExternalBalance, HistoryStart: date(*s.Account.HistoryStart),
			OpeningSaldo: *s.Account.OpeningSaldo, OpeningDifference: in.OpeningDifference}
		for _, x := range in.Ext {
			if x.Upcoming {
				b.UpcomingTotal, b.UpcomingCount = b.UpcomingTotal.Add(x.Amount), b.UpcomingCount+1
			}
		}
		out.Skattekonto.Set(b)
	case s.Account.Key.Kind == KindBank:
		st, err := h.rec.status(ctx, company, s.Account, s.Window)
		if err != nil {
			return out, err
		}
		out.Bank.Set(wireStatus(st))
	}
	if s.Signoff != nil {
		out.Signoff.Set(wireSignoff(*s.Signoff, s.Drift))
	}
	return out, nil
}

func bridge(lines []BridgeLine) []gen.ReconciliationBridgeLine {
	out := make([]gen.ReconciliationBridgeLine, len(lines))
	for i, l := range lines {
		out[i] = gen.ReconciliationBridgeLine{Key: gen.ReconciliationBridgeLineKey(l.Key), LabelSv: l.LabelSV, LabelEn: l.LabelEN,
			Amount: l.Amount, Count: l.Count, ItemsBucket: nullable.NewNullNullable[gen.ReconciliationBucket]()}
		if l.Bucket != nil {
			out[i].ItemsBucket.Set(gen.ReconciliationBucket(*l.Bucket))
		}
	}
	return out
}

func wireStatus(s Status) gen.BankReconciliationStatus {
	out := gen.BankReconciliationStatus{BankTransactionTotal: s.BankTotal, IgnoredTransactionTotal: s.IgnoredTotal,
		IgnoredTransactionCount: s.IgnoredCount, Gl1930Balance: s.LedgerBalance, Gl1930PeriodMovement: s.LedgerMovement,
		Gl1930OpeningBalance: s.LedgerOpening, Gl1930CorrectionAdjustment: s.CorrectionAdjustment, Difference: s.Difference,
		IsReconciled: s.Reconciled(), MatchedCount: s.MatchedCount, UnmatchedTransactionCount: s.UnmatchedTxCount,
		UnmatchedTransactionTotal: s.UnmatchedTxTotal, UnmatchedGlLineCount: s.UnmatchedLedgerCount}
	out.UnmatchedGlLineTotal.Set(s.UnmatchedLedgerTotal)
	out.UnexplainedDifference.Set(s.Unexplained)
	return out
}

// SignoffsAt is SignedAt as the document shows sign-offs: what the
// bokslutsbilagor carry per account.
func (r *Reconciler) SignoffsAt(ctx context.Context, company uuid.UUID, day time.Time) (map[string]gen.ReconciliationSignoff, error) {
	signed, err := r.SignedAt(ctx, company, day)
	out := make(map[string]gen.ReconciliationSignoff, len(signed))
	for account, s := range signed {
		out[account] = wireSignoff(s, nil)
	}
	return out, err
}

func wireSignoff(s Signoff, drift *Drift) gen.ReconciliationSignoff {
	out := gen.ReconciliationSignoff{Id: s.ID, AccountKey: s.AccountKey, ThroughDate: date(s.ThroughDate),
		Note: envelope.Nullable(s.Note), Forced: s.Forced, ExternalBalance: s.External, LedgerBalance: s.Ledger,
		Difference: s.Difference, UnexplainedDifference: s.Unexplained, SignedAt: s.SignedAt,
		SupersededAt: envelope.NullableTime(s.SupersededAt), ReopenedAt: envelope.NullableTime(s.ReopenedAt),
		ReopenReason: envelope.Nullable(s.ReopenReason), IsActive: s.Active(),
		ReopenedBy: nullable.NewNullNullable[gen.ReconciliationActor](), Drift: nullable.NewNullNullable[gen.ReconciliationDrift]()}
	_ = unmarshal(s.BridgeJSON, &out.Bridge)
	_ = unmarshal(s.ItemsJSON, &out.Items)
	_ = unmarshal(s.SignedBy, &out.SignedBy)
	if len(s.ReopenedBy) > 0 && string(s.ReopenedBy) != "null" {
		var a gen.ReconciliationActor
		if unmarshal(s.ReopenedBy, &a) == nil {
			out.ReopenedBy.Set(a)
		}
	}
	if drift != nil {
		out.Drift.Set(gen.ReconciliationDrift{LedgerBalance: drift.LedgerBalance, Amount: drift.Amount})
	}
	return out
}

// ListReconciliationItems lists an account's items by bucket.
func (h *Handler) ListReconciliationItems(ctx context.Context, req gen.ListReconciliationItemsRequestObject) (gen.ListReconciliationItemsResponseObject, error) {
	k, err := key(req.AccountKey)
	if err != nil {
		return nil, err
	}
	p := req.Params
	f := ItemFilter{Limit: cursor.Limit(p.Limit, 50, 200)}
	f.From, f.To = dates(p.DateFrom, p.DateTo)
	if p.Bucket != nil {
		f.Bucket = string(*p.Bucket)
	}
	var pos ItemCursor
	if h.cursors.DecodeParam(itemsList, p.Cursor, &pos) {
		f.After = &pos
	}
	s, items, more, err := h.rec.Items(ctx, req.CompanyId, k, f)
	if err != nil {
		return nil, err
	}
	out := gen.ReconciliationItemsResponse{}
	out.Data.Items = make([]gen.ReconciliationItem, len(items))
	for i, e := range items {
		out.Data.Items[i] = wireItem(k, e)
	}
	next := ""
	if more {
		last := items[len(items)-1]
		next = h.cursors.Encode(itemsList, ItemCursor{Date: last.Date, Side: last.Side, ID: last.ID})
	}
	out.Data.DateFrom, out.Data.DateTo = date(s.Window.From), date(s.Window.To)
	out.Data.OlderUnmatchedCount, out.Data.HasMore = s.Older, more
	out.Data.Bucket = nullable.NewNullNullable[gen.ReconciliationBucket]()
	if p.Bucket != nil {
		out.Data.Bucket.Set(*p.Bucket)
	}
	out.Data.NextCursor = nullable.NewNullNullable[string]()
	if next != "" {
		out.Data.NextCursor.Set(next)
	}
	out.Meta = envelope.Page(ctx, next)
	return gen.ListReconciliationItems200JSONResponse(out), nil
}

func wireItem(k Key, e Entry) gen.ReconciliationItem {
	out := gen.ReconciliationItem{ItemId: e.ID, Side: gen.ReconciliationItemSide(e.Side), Bucket: gen.ReconciliationBucket(e.Bucket),
		Date: date(e.Date), Amount: e.Amount, AwaitingExternal: e.Awaiting, Description: nullable.NewNullNullable[string](),
		Voucher: nullable.NewNullNullable[string](), EntryStatus: nullable.NewNullNullable[gen.JournalEntryStatus](),
		LinkedJournalEntryId: nullable.NewNullNullable[openapi_types.UUID](), LinkedJournalEntryIds: orEmpty(e.LinkedEntryIDs),
		LinkedExternalIds: orEmpty(e.LinkedExternalIDs), Proposal: nullable.NewNullNullable[gen.ReconciliationProposal](),
		LinkProblem: nullable.NewNullNullable[gen.ReconciliationLinkProblem](), Actions: []gen.ReconciliationItemActions{}}
	if e.Side == "external" {
		out.ItemType = gen.ReconciliationItemItemTypeBankTransaction
		if k.Kind == KindSkattekonto {
			out.ItemType = gen.ReconciliationItemItemTypeSkattekontoTransaction
		}
		if e.Ext.Description != "" {
			out.Description.Set(e.Ext.Description)
		}
		if len(e.LinkedEntryIDs) > 0 {
			out.LinkedJournalEntryId.Set(e.LinkedEntryIDs[0])
		}
	} else {
		out.ItemType = gen.ReconciliationItemItemTypeJournalEntry
		out.Description.Set(e.Led.Description)
		out.Voucher.Set(e.Led.Voucher)
		out.EntryStatus.Set(gen.JournalEntryStatus(e.Led.Status))
	}
	if e.Proposal != nil {
		out.Proposal.Set(wireProposal(*e.Proposal))
	}
	if e.LinkProblem != "" {
		out.LinkProblem.Set(gen.ReconciliationLinkProblem(e.LinkProblem))
	}
	switch {
	case e.Bucket == BucketMatched && e.Side == "external":
		out.Actions = append(out.Actions, gen.Unlink)
	case e.Bucket == BucketIgnored:
		out.Actions = append(out.Actions, gen.Unignore)
	case e.Bucket == BucketProposed:
		out.Actions = append(out.Actions, gen.AcceptProposal, gen.Link)
	case e.Bucket == BucketUnmatchedExternal || e.Bucket == BucketUnmatchedLedger || e.Bucket == BucketUpcoming && e.Side == "ledger":
		out.Actions = append(out.Actions, gen.Link)
	}
	if e.Side == "external" && (e.Bucket == BucketProposed || e.Bucket == BucketUnmatchedExternal || e.Bucket == BucketUpcoming) {
		out.Actions = append(out.Actions, gen.Ignore)
	}
	return out
}

func wireProposal(p Proposal) gen.ReconciliationProposal {
	out := gen.ReconciliationProposal{ExternalIds: p.ExternalIDs, JournalEntryIds: p.EntryIDs, Confidence: conf(p.Confidence),
		Method: gen.ReconciliationMethod(p.Method), Reasons: p.Reasons, Allocations: wireAllocations(p.Allocations)}
	if out.Reasons == nil {
		out.Reasons = []string{}
	}
	return out
}

func wireAllocations(as []Allocation) []gen.ReconciliationAllocation {
	out := make([]gen.ReconciliationAllocation, len(as))
	for i, a := range as {
		out[i] = gen.ReconciliationAllocation{ExternalId: a.ExternalID, JournalEntryId: a.EntryID, Amount: a.Amount}
	}
	return out
}

// conf is hundredths as the API's number (0.97).
func conf(c int) gen.ReconciliationConfidence { return gen.ReconciliationConfidence(float32(c) / 100) }

// hundredths reads a threshold (0-1) as hundredths, rounded.
func hundredths(f float32) int { return int(f*100 + 0.5) }

func orEmpty(ids []uuid.UUID) []openapi_types.UUID {
	if ids == nil {
		return []openapi_types.UUID{}
	}
	return ids
}

// CreateReconciliationLinks links outside rows to verifikat.
func (h *Handler) CreateReconciliationLinks(ctx context.Context, req gen.CreateReconciliationLinksRequestObject) (gen.CreateReconciliationLinksResponseObject, error) {
	k, err := key(req.AccountKey)
	if err != nil {
		return nil, err
	}
	b := req.Body
	lr := LinkRequest{UseProposals: b.UseProposals != nil && *b.UseProposals, Threshold: DefaultThreshold}
	if b.ConfidenceThreshold != nil {
		lr.Threshold = hundredths(*b.ConfidenceThreshold)
	}
	if b.Pairs != nil {
		for _, p := range *b.Pairs {
			pair := Pair{ExternalIDs: p.ExternalIds, EntryIDs: p.JournalEntryIds}
			if p.Allocations != nil {
				for _, a := range *p.Allocations {
					pair.Allocations = append(pair.Allocations, Allocation{ExternalID: a.ExternalId, EntryID: a.JournalEntryId, Amount: a.Amount})
				}
			}
			lr.Pairs = append(lr.Pairs, pair)
		}
	}
	res, err := h.rec.Link(ctx, req.CompanyId, k, lr)
	if err != nil {
		return nil, err
	}
	out := gen.ReconciliationLinksResponse{}
	out.Data.DryRun, out.Data.Considered = store.IsDryRun(ctx), res.Considered
	out.Data.Applied, out.Data.Skipped = []gen.ReconciliationAppliedPair{}, skipped(res.Skipped)
	for _, a := range res.Applied {
		ap := gen.ReconciliationAppliedPair{LinkId: a.Pair.ExternalIDs[0], SetId: a.SetID, ExternalIds: a.Pair.ExternalIDs,
			JournalEntryIds: a.Pair.EntryIDs, Allocations: wireAllocations(a.Allocations),
			Method: gen.ReconciliationMethod(methodOr(a.Pair.Method)), Confidence: nullable.NewNullNullable[gen.ReconciliationConfidence]()}
		if a.Pair.Confidence != nil {
			ap.Confidence.Set(conf(*a.Pair.Confidence))
		}
		out.Data.Applied = append(out.Data.Applied, ap)
	}
	out.Meta = envelope.Meta(ctx)
	return gen.CreateReconciliationLinks200JSONResponse(out), nil
}

func methodOr(m string) string {
	if m == "" {
		return MethodManual
	}
	return m
}

func skipped(ss []Skipped) []gen.ReconciliationSkippedPair {
	out := make([]gen.ReconciliationSkippedPair, len(ss))
	for i, s := range ss {
		out[i] = gen.ReconciliationSkippedPair{Code: gen.ReconciliationSkippedPairCode(s.Code), Message: s.Message,
			Pair: gen.ReconciliationPairIds{ExternalIds: orEmpty(s.Pair.ExternalIDs), JournalEntryIds: orEmpty(s.Pair.EntryIDs)}}
	}
	return out
}

// DeleteReconciliationLink removes a link set.
func (h *Handler) DeleteReconciliationLink(ctx context.Context, req gen.DeleteReconciliationLinkRequestObject) (gen.DeleteReconciliationLinkResponseObject, error) {
	k, err := key(req.AccountKey)
	if err != nil {
		return nil, err
	}
	u, err := h.rec.Unlink(ctx, req.CompanyId, k, req.LinkId)
	if err != nil {
		return nil, err
	}
	out := gen.ReconciliationLinkDeletedOrDryRunResponse{Meta: envelope.Meta(ctx)}
	out.Data.ExternalId, out.Data.PreviousJournalEntryId = u.ExternalID, envelope.Nullable(u.PreviousEntry)
	return gen.DeleteReconciliationLink200JSONResponse(out), nil
}

// IgnoreReconciliationItem sets an outside row's ignored flag.
func (h *Handler) IgnoreReconciliationItem(ctx context.Context, req gen.IgnoreReconciliationItemRequestObject) (gen.IgnoreReconciliationItemResponseObject, error) {
	k, err := key(req.AccountKey)
	if err != nil {
		return nil, err
	}
	res, err := h.rec.Ignore(ctx, req.CompanyId, k, req.ItemId, req.Body.Ignored)
	if err != nil {
		return nil, err
	}
	out := gen.ReconciliationItemIgnoredOrDryRunResponse{Meta: envelope.Meta(ctx)}
	out.Data.ExternalId, out.Data.IsIgnored = res.ExternalID, res.Ignored
	return gen.IgnoreReconciliationItem200JSONResponse(out), nil
}

// SignOffReconciliationAccount signs an account off through a day.
func (h *Handler) SignOffReconciliationAccount(ctx context.Context, req gen.SignOffReconciliationAccountRequestObject) (gen.SignOffReconciliationAccountResponseObject, error) {
	k, err := key(req.AccountKey)
	if err != nil {
		return nil, err
	}
	b := req.Body
	sr := SignRequest{Through: b.ThroughDate.Time, Note: b.Note, Force: b.Force != nil && *b.Force, External: b.ExternalBalance}
	s, err := h.rec.SignOff(ctx, req.CompanyId, k, sr)
	if err != nil {
		return nil, err
	}
	out := gen.ReconciliationSignoffResponse{Meta: envelope.Meta(ctx)}
	out.Data.DryRun = store.IsDryRun(ctx)
	out.Data.Signoff, out.Data.WouldSign = nullable.NewNullNullable[gen.ReconciliationSignoff](), nullable.NewNullNullable[gen.ReconciliationSignoff]()
	if out.Data.DryRun {
		out.Data.WouldSign.Set(wireSignoff(s.Signoff, nil))
	} else {
		out.Data.Signoff.Set(wireSignoff(s.Signoff, nil))
	}
	return gen.SignOffReconciliationAccount200JSONResponse(out), nil
}

// ListReconciliationSignoffs lists an account's sign-offs.
func (h *Handler) ListReconciliationSignoffs(ctx context.Context, req gen.ListReconciliationSignoffsRequestObject) (gen.ListReconciliationSignoffsResponseObject, error) {
	k, err := key(req.AccountKey)
	if err != nil {
		return nil, err
	}
	p := req.Params
	list, err := h.rec.Signoffs(ctx, req.CompanyId, k, p.IncludeReopened != nil && *p.IncludeReopened, cursor.Limit(p.Limit, 50, 200))
	if err != nil {
		return nil, err
	}
	out := gen.ReconciliationSignoffListResponse{Meta: envelope.Meta(ctx)}
	out.Data.Signoffs = make([]gen.ReconciliationSignoff, len(list))
	for i, s := range list {
		out.Data.Signoffs[i] = wireSignoff(s, nil)
	}
	return gen.ListReconciliationSignoffs200JSONResponse(out), nil
}

// ReopenReconciliationSignoff reopens a sign-off.
func (h *Handler) ReopenReconciliationSignoff(ctx context.Context, req gen.ReopenReconciliationSignoffRequestObject) (gen.ReopenReconciliationSignoffResponseObject, error) {
	k, err := key(req.AccountKey)
	if err != nil {
		return nil, err
	}
	reason := strings.TrimSpace(req.Body.Reason)
	if reason == "" {
		return nil, apierr.Field("reason", "min_length", "say why the sign-off is reopened")
	}
	s, err := h.rec.Reopen(ctx, req.CompanyId, k, req.SignoffId, reason)
	if err != nil {
		return nil, err
	}
	return gen.ReopenReconciliationSignoff200JSONResponse{Data: wireSignoff(s, nil), Meta: envelope.Meta(ctx)}, nil
}

// RunBankReconciliation runs the bank matching and links what it is sure of.
func (h *Handler) RunBankReconciliation(ctx context.Context, req gen.RunBankReconciliationRequestObject) (gen.RunBankReconciliationResponseObject, error) {
	b := req.Body
	rr := RunRequest{Account: b.AccountNumber}
	rr.From, rr.To = dates(b.DateFrom, b.DateTo)
	if b.ConfidenceThreshold != nil {
		t := hundredths(*b.ConfidenceThreshold)
		rr.Threshold = &t
	}
	res, err := h.rec.BankRun(ctx, req.CompanyId, rr)
	if err != nil {
		return nil, err
	}
	out := gen.BankReconciliationRunResponse{Meta: envelope.Meta(ctx)}
	out.Data.DryRun, out.Data.Matches, out.Data.Errors = store.IsDryRun(ctx), []gen.BankReconciliationMatch{}, skipped(res.Skipped)
	out.Data.SkippedBelowThreshold, out.Data.ConfidenceThreshold = res.BelowBar, conf(res.Threshold)
	for _, m := range res.Matches {
		out.Data.Matches = append(out.Data.Matches, gen.BankReconciliationMatch{TransactionId: m.Tx.ID, TransactionDate: date(m.Tx.Date),
			TransactionDescription: envelope.Nullable(m.Tx.Description), TransactionAmount: m.Amount, JournalEntryId: m.Entry.EntryID,
			VoucherNumber: m.Entry.Number, VoucherSeries: m.Entry.Series, EntryDate: date(m.Entry.Date),
			EntryDescription: m.Entry.Description, Method: gen.ReconciliationMethod(m.Method), Confidence: conf(m.Conf)})
	}
	out.Data.Applied = len(out.Data.Matches)
	return gen.RunBankReconciliation200JSONResponse(out), nil
}

// GetBankReconciliationStatus compares a cash account's rows with the books.
func (h *Handler) GetBankReconciliationStatus(ctx context.Context, req gen.GetBankReconciliationStatusRequestObject) (gen.GetBankReconciliationStatusResponseObject, error) {
	p := req.Params
	from, to := dates(p.DateFrom, p.DateTo)
	s, err := h.rec.BankStatus(ctx, req.CompanyId, from, to, p.AccountNumber)
	if err != nil {
		return nil, err
	}
	return gen.GetBankReconciliationStatus200JSONResponse{Data: wireStatus(s), Meta: envelope.Meta(ctx)}, nil
}

// ImportSkattekontoStatement imports a skattekonto statement.
func (h *Handler) ImportSkattekontoStatement(ctx context.Context, req gen.ImportSkattekontoStatementRequestObject) (gen.ImportSkattekontoStatementResponseObject, error) {
	f, ok := banking.FileFrom(ctx)
	if !ok {
		return nil, apierr.Field("file", "required", "send the statement as multipart/form-data, in a part named file")
	}
	res, err := h.rec.ImportStatement(ctx, req.CompanyId, f.Bytes)
	if err != nil {
		return nil, err
	}
	out := gen.SkattekontoImportResponse{Meta: envelope.Meta(ctx)}
	d := &out.Data
	d.DryRun, d.Encoding, d.Delimiter = store.IsDryRun(ctx), res.Statement.Encoding, res.Statement.Delimiter
	d.Added, d.Duplicates, d.Drawn, d.Saldo, d.HistoryStart = res.Added, res.Dup, res.Drawn, res.Saldo, date(res.HistoryStart)
	d.Opening = nullable.NewNullNullable[gen.SkattekontoOpening]()
	if o := res.Statement.Opening; o != nil {
		d.Opening.Set(gen.SkattekontoOpening{Date: date(o.Date), Saldo: o.Saldo})
	}
	d.Rows = make([]gen.SkattekontoImportRow, len(res.Rows))
	for i, r := range res.Rows {
		d.Rows[i] = gen.SkattekontoImportRow{Line: r.Line, Date: date(r.Date), Description: r.Description, Amount: r.Amount,
			SaldoAfter: envelope.Nullable(r.Saldo), Upcoming: r.Upcoming, Status: gen.SkattekontoImportRowStatus(r.Status),
			Id: envelope.Nullable(r.ID)}
	}
	return gen.ImportSkattekontoStatement200JSONResponse(out), nil
}

// ListSkattekontoTransactions lists the skattekonto's rows.
func (h *Handler) ListSkattekontoTransactions(ctx context.Context, req gen.ListSkattekontoTransactionsRequestObject) (gen.ListSkattekontoTransactionsResponseObject, error) {
	from, to := dates(req.Params.DateFrom, req.Params.DateTo)
	all, err := h.rec.store.TaxRows(ctx, req.CompanyId)
	if err != nil {
		return nil, err
	}
	rows := within(all, from, to)
	out := gen.SkattekontoTransactionListResponse{Meta: envelope.Meta(ctx)}
	out.Data.Transactions = make([]gen.SkattekontoTransaction, len(rows))
	for i, r := range rows {
		out.Data.Transactions[i] = wireTax(r)
	}
	out.Data.Saldo, out.Data.HistoryStart = nullable.NewNullNullable[gen.Amount](), nullable.NewNullNullable[openapi_types.Date]()
	if saldo, start := saldoOf(all); !start.IsZero() {
		out.Data.Saldo.Set(saldo)
		out.Data.HistoryStart.Set(date(start))
	}
	return gen.ListSkattekontoTransactions200JSONResponse(out), nil
}

func wireTax(r TaxRow) gen.SkattekontoTransaction {
	return gen.SkattekontoTransaction{Id: r.ID, Date: date(r.Date), Description: r.Description, Amount: r.Amount,
		SaldoAfter: envelope.Nullable(r.Saldo), Kind: gen.SkattekontoTransactionKind(r.Kind), Upcoming: r.Upcoming,
		Source: gen.SkattekontoTransactionSource(r.Source), IsIgnored: r.Ignored, CreatedAt: r.CreatedAt}
}

// CreateSkattekontoTransaction adds a skattekonto row by hand.
func (h *Handler) CreateSkattekontoTransaction(ctx context.Context, req gen.CreateSkattekontoTransactionRequestObject) (gen.CreateSkattekontoTransactionResponseObject, error) {
	b := req.Body
	r, err := h.rec.AddTaxRow(ctx, req.CompanyId, ManualRow{Date: b.Date.Time, Description: strings.TrimSpace(b.Description),
		Amount: b.Amount, Saldo: b.SaldoAfter})
	if err != nil {
		return nil, err
	}
	return gen.CreateSkattekontoTransaction201JSONResponse{Data: wireTax(r), Meta: envelope.Meta(ctx)}, nil
}

// DeleteSkattekontoTransaction deletes a skattekonto row added by hand.
func (h *Handler) DeleteSkattekontoTransaction(ctx context.Context, req gen.DeleteSkattekontoTransactionRequestObject) (gen.DeleteSkattekontoTransactionResponseObject, error) {
	r, err := h.rec.DeleteTaxRow(ctx, req.CompanyId, req.TransactionId)
	if err != nil {
		return nil, err
	}
	out := gen.SkattekontoTransactionDeletedOrDryRunResponse{Meta: envelope.Meta(ctx)}
	out.Data.Id, out.Data.Deleted = r.ID, true
	return gen.DeleteSkattekontoTransaction200JSONResponse(out), nil
}
