// Package ledger is the posting engine and the books it keeps: journal
// entries (verifikationer) from draft to posted, gapless voucher numbers,
// storno, correction and the logged inline rättelse, period locks and
// year-end, and the ledger reports. Every other domain posts through
// Store.Post inside its own unit of work; the database enforces the same
// rules again, so no code path can break the books.
package ledger

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/envelope"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/store"
)

// Status is where an entry is in its life.
type Status string

// The statuses of a journal entry.
const (
	Draft     Status = "draft"
	Posted    Status = "posted"
	Cancelled Status = "cancelled"
)

// Source types the ledger itself writes; a client may not claim them.
const (
	SourceManual         = "manual"
	SourceStorno         = "storno"
	SourceCorrection     = "correction"
	SourceOpeningBalance = "opening_balance"
	SourceYearEnd        = "year_end"
	// SourceAppropriation moves last year's result to retained earnings
	// at the start of the next year (vinstdisposition).
	SourceAppropriation = "result_appropriation"
)

// yearEndSources are what the year-end writes: the closing entry, the
// cash-method cut-off and the currency revaluation (and their reversals),
// and the next year's opening balance and result appropriation. They go into
// a locked period, follow from the books rather than from a caller, and
// change only when the year-end runs again.
var yearEndSources = map[string]bool{SourceYearEnd: true, SourceOpeningBalance: true, SourceAppropriation: true,
	SourceCashCutoff: true, SourceRevaluation: true}

// clientSources are the source types a client may name on create: what
// created the entry, outside the ledger.
var clientSources = map[string]bool{
	SourceManual: true, "bank_transaction": true, "inbox_item": true, "invoice_created": true, "invoice_paid": true,
	"invoice_cash_payment": true, "supplier_invoice_registered": true, "supplier_invoice_paid": true,
	"supplier_invoice_cash_payment": true, "supplier_invoice_privately_paid": true, "salary_payment": true,
	"webshop_order": true, "expense_claim": true, "reminder_fee": true, "import": true,
}

// engineSources are the source types only the ledger and the other
// domains' engines post with.
var engineSources = map[string]bool{
	SourceOpeningBalance: true, SourceYearEnd: true, SourceAppropriation: true, SourceRevaluation: true, SourceCashCutoff: true,
	SourceStorno: true, SourceCorrection: true, "credit_note": true, "supplier_credit_note": true, "system": true,
	"accrual": true, "vat_settlement": true, "rot_rut_payout": true, "rot_rut_reclaim": true, "expense_payout": true,
	"stripe_payout": true, "invoice_batch_payment": true, "supplier_invoice_batch_payment": true, "customer_credit_refund": true,
	"depreciation": true, "asset_disposal": true,
}

// ClientSources lists the source types a client may send, sorted.
func ClientSources() []string { return sortedKeys(clientSources) }

// EngineSources lists the source types only Kontera's engines post with,
// sorted.
func EngineSources() []string { return sortedKeys(engineSources) }

// keepsDate are the source types whose date is part of what they are: a
// year-end or opening-balance entry on another day would be wrong.
var keepsDate = map[string]bool{SourceOpeningBalance: true, SourceYearEnd: true, SourceAppropriation: true,
	"vat_settlement": true, SourceCashCutoff: true, SourceRevaluation: true}

// needsNoDocument are the source types the ledger generates from other
// entries; they never have an underlag of their own to miss.
var needsNoDocument = map[string]bool{SourceStorno: true, SourceOpeningBalance: true, SourceYearEnd: true,
	SourceAppropriation: true, SourceCashCutoff: true, SourceRevaluation: true}

// MaxLines is the most lines one entry from a client may have.
const MaxLines = 1000

// MaxEngineLines is the most lines an entry the ledger writes itself may
// have: a closing entry or opening balance has a line per account used.
const MaxEngineLines = 20000

// MaxChainDepth is how many stornos and corrections may stack on an
// original before allow_deep_chain is needed.
const MaxChainDepth = 3

// ValidDimensionCode reports whether s has the shape of a dimension
// value's code a client writes.
func ValidDimensionCode(s string) bool { return dimensionCode.MatchString(s) }

// MaxHeldDimensionCode is the longest code the dimension register holds:
// a client writes 20 characters at most, but an SIE import keeps the
// longer codes other programs write.
const MaxHeldDimensionCode = 100

// HeldDimensionCode reports whether the dimension register can hold s: a
// code a client may write, or any other 1-100 printable characters that
// are not all blank, which is what other programs' files carry (a dot, a
// slash, a space, letters of other alphabets). Control characters are
// never held: they are what a file's broken encoding leaves.
func HeldDimensionCode(s string) bool {
	if ValidDimensionCode(s) {
		return true
	}
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxHeldDimensionCode || strings.TrimSpace(s) == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// Dimensions tag a line: SIE dimension number ("1" cost centre, "6"
// project, 20 and up the company's own) to value code.
type Dimensions map[string]string

// Value stores the dimensions as a JSON object.
func (d Dimensions) Value() (driver.Value, error) {
	if d == nil {
		return "{}", nil
	}
	b, err := json.Marshal(map[string]string(d))
	return string(b), err
}

// Scan reads a jsonb column.
func (d *Dimensions) Scan(src any) error {
	m := map[string]string{}
	if err := store.ScanJSON(src, &m); err != nil {
		return err
	}
	*d = m
	return nil
}

// Line is a row of a verifikat.
type Line struct {
	ID               uuid.UUID     `db:"id"`
	SortOrder        int           `db:"sort_order"`
	Account          string        `db:"account_number"`
	Debit            money.Amount  `db:"debit_amount"`
	Credit           money.Amount  `db:"credit_amount"`
	Description      *string       `db:"line_description"`
	Currency         *string       `db:"currency"`
	AmountInCurrency *money.Amount `db:"amount_in_currency"`
	ExchangeRate     *money.Rate   `db:"exchange_rate"`
	TaxCode          *string       `db:"tax_code"`
	Dimensions       Dimensions    `db:"dimensions"`
	AddedBy          *uuid.UUID    `db:"added_by_rattelse_id"`
	StruckBy         *uuid.UUID    `db:"struck_by_rattelse_id"`
}

// Entry is a journal entry (verifikation) with its current lines.
type Entry struct {
	ID                 uuid.UUID  `db:"id"`
	CompanyID          uuid.UUID  `db:"company_id"`
	PeriodID           uuid.UUID  `db:"fiscal_period_id"`
	Series             string     `db:"voucher_series"`
	Number             int        `db:"voucher_number"`
	Date               time.Time  `db:"entry_date"`
	Description        string     `db:"description"`
	Status             Status     `db:"status"`
	SourceType         string     `db:"source_type"`
	SourceID           *string    `db:"source_id"`
	Notes              *string    `db:"notes"`
	ReversesID         *uuid.UUID `db:"reverses_id"`
	ReversedByID       *uuid.UUID `db:"reversed_by_id"`
	CorrectionOfID     *uuid.UUID `db:"correction_of_id"`
	ChainDepth         int        `db:"chain_depth"`
	NoDocumentRequired bool       `db:"no_document_required"`
	// HasDocument: a current document is underlag of it (the archive's,
	// read where the entry is read; see Store.HasDocument).
	HasDocument      bool       `db:"has_document"`
	NoDocumentReason *string    `db:"no_document_reason"`
	PostedAt         *time.Time `db:"posted_at"`
	CancelledAt      *time.Time `db:"cancelled_at"`
	CreatedAt        time.Time  `db:"created_at"`
	UpdatedAt        time.Time  `db:"updated_at"`
	// Poster is who posted the entry; empty on drafts and on entries
	// posted before Kontera kept it.
	Poster
	Counterparty
	// RattelseCount is how many inline rättelser were made, where the
	// query read it.
	RattelseCount int    `db:"rattelse_count"`
	Lines         []Line `db:"-"`
	// Struck are the lines struck by an inline rättelse, where read.
	Struck []Line `db:"-"`
	// Rattelser are the entry's inline rättelser, oldest first, where
	// read (the journal register).
	Rattelser []Rattelse `db:"-"`
}

// Poster is who posted an entry: the person behind the key and the key's
// label, as they were then.
type Poster struct {
	PostedByType   *string    `db:"posted_by_type"`
	PostedByUserID *uuid.UUID `db:"posted_by_user_id"`
	PostedByEmail  *string    `db:"posted_by_email"`
	PostedByLabel  *string    `db:"posted_by_label"`
}

// Counterparty is a verifikat's motpart (BFL 5 kap. 7 §): a name, and the
// customer or supplier it is, if any.
type Counterparty struct {
	CounterpartyName       *string    `db:"counterparty_name"`
	CounterpartyCustomerID *uuid.UUID `db:"counterparty_customer_id"`
	CounterpartySupplierID *uuid.UUID `db:"counterparty_supplier_id"`
}

// Named reports whether a counterparty is given.
func (c Counterparty) Named() bool {
	return c.CounterpartyName != nil || c.CounterpartyCustomerID != nil || c.CounterpartySupplierID != nil
}

// Voucher is the entry's voucher as people write it: "A12"; a draft has
// none yet.
func (e Entry) Voucher() string {
	if e.Number == 0 {
		return ""
	}
	return fmt.Sprintf("%s%d", e.Series, e.Number)
}

// Totals returns the sums of the lines' debits and credits.
func Totals(lines []Line) (debit, credit money.Amount) {
	for _, l := range lines {
		debit, credit = debit.Add(l.Debit), credit.Add(l.Credit)
	}
	return debit, credit
}

// Input is a journal entry as a caller describes it, before the ledger
// has checked it: a draft to create or replace, or an entry to post.
type Input struct {
	// ID is the new entry's id; unset, the ledger picks one. An engine
	// names it beforehand to write its own rows pointing at the entry
	// first and post last, so the verifikat's locks are held shortest.
	ID uuid.UUID
	// PeriodID is the fiscal period; an engine posting (Post) may leave
	// it out for the one holding Date.
	PeriodID    uuid.UUID
	Date        time.Time
	Description string
	// Series is one uppercase letter; empty means the company's default
	// for the source type.
	Series     string
	SourceType string // empty means manual
	SourceID   *string
	Notes      *string
	// Counterparty is the motpart; with a customer or supplier and no
	// name, the party's name is kept.
	Counterparty Counterparty
	Lines        []Line
	// Last says nothing in the unit of work reads the entry after Post:
	// its posting may then close the unit (store.Closing), holding the
	// voucher series and the balances for one statement and the COMMIT.
	Last bool
	// ReversesID, CorrectionOfID and ChainDepth link an entry the ledger
	// posts itself to the entry it reverses or corrects.
	ReversesID     *uuid.UUID
	CorrectionOfID *uuid.UUID
	ChainDepth     int
}

var (
	seriesPattern    = regexp.MustCompile(`^[A-Z]$`)
	engineSeries     = regexp.MustCompile(`^[^\s\p{Cc}]{1,10}$`)
	dimensionNumber  = regexp.MustCompile(`^[1-9][0-9]{0,3}$`)
	currencyPattern  = regexp.MustCompile(`^[A-Z]{3}$`)
	maxDescription   = 500
	maxNotes         = 2000
	maxCounterparty  = 200
	maxSourceID      = 200
	maxTaxCodeLength = 40

	// dimensionCode is the shape of a dimension value's code: letters A-Ö
	// (either case; codes are case-sensitive), digits, _, + and -.
	dimensionCode = regexp.MustCompile(`^[A-Za-zÅÄÖåäö0-9_+-]{1,20}$`)
)

// Check normalises in and applies the rules every entry keeps, in the
// order a caller fixes them: the shape of the fields, no negative
// amounts, one side per line, then the balance. engine is true when the
// ledger or another domain's engine posts, which may use engine-owned
// source types.
func Check(in *Input, engine bool) error {
	var issues []apierr.Issue
	field := func(f, rule, msg string) {
		issues = append(issues, apierr.Issue{Field: f, In: "body", Rule: rule, Issue: msg})
	}

	in.Description = strings.TrimSpace(in.Description)
	if in.Description == "" || len([]rune(in.Description)) > maxDescription {
		field("description", "length", fmt.Sprintf("must be 1-%d characters", maxDescription))
	}
	// A client names one letter; the engines may write a file's own
	// series (SIE allows letters, digits or a short word such as LEV1).
	if in.Series != "" && !engine && !seriesPattern.MatchString(in.Series) {
		field("voucher_series", "pattern", "must be one uppercase letter A-Z")
	}
	if in.Series != "" && engine && !engineSeries.MatchString(in.Series) {
		field("voucher_series", "pattern", "must be 1-10 characters without blanks")
	}
	if in.SourceType == "" {
		in.SourceType = SourceManual
	}
	switch {
	case clientSources[in.SourceType]:
	case engineSources[in.SourceType] && engine:
	case engineSources[in.SourceType]:
		field("source_type", "engine_owned", in.SourceType+" entries are written by Kontera itself")
	default:
		field("source_type", "enum", "unknown source type "+in.SourceType)
	}
	if in.SourceID != nil && (*in.SourceID == "" || len(*in.SourceID) > maxSourceID) {
		field("source_id", "length", fmt.Sprintf("must be 1-%d characters", maxSourceID))
	}
	cp := &in.Counterparty
	cp.CounterpartyName = envelope.Text(cp.CounterpartyName)
	if cp.CounterpartyName != nil && len([]rune(*cp.CounterpartyName)) > maxCounterparty {
		field("counterparty.name", "length", fmt.Sprintf("must be 1-%d characters", maxCounterparty))
	}
	if cp.CounterpartyCustomerID != nil && cp.CounterpartySupplierID != nil {
		field("counterparty", "one_of", "name a customer or a supplier, not both")
	}
	in.Notes = envelope.Text(in.Notes)
	if in.Notes != nil && len([]rune(*in.Notes)) > maxNotes {
		field("notes", "length", fmt.Sprintf("must be at most %d characters", maxNotes))
	}
	switch {
	case len(in.Lines) == 0:
		field("lines", "min_items", "an entry needs lines")
	case len(in.Lines) > MaxLines && !engine:
		field("lines", "max_items", fmt.Sprintf("an entry has at most %d lines", MaxLines))
	case len(in.Lines) > MaxEngineLines:
		field("lines", "max_items", fmt.Sprintf("an entry has at most %d lines", MaxEngineLines))
	}
	issues = append(issues, lineShapes(in.Lines, "lines", engine)...)
	if len(issues) > 0 {
		return apierr.Validation(issues...)
	}
	if err := CheckAmounts(in.Lines, "lines"); err != nil {
		return err
	}
	for i := range in.Lines {
		in.Lines[i].SortOrder = i
	}
	if err := CheckBalance(in.Lines); err != nil {
		return err
	}
	// The year-end's own entries carry whole balances, each within the
	// bound the database holds every balance to; their totals may pass it.
	if d, _ := Totals(in.Lines); d.OverMax() && !yearEndSources[in.SourceType] {
		return apierr.Validation(apierr.Issue{Field: "lines", In: "body", Rule: "max_total",
			Issue: fmt.Sprintf("the entry's total %s is past the largest amount an entry may book, %s", d, money.Max)})
	}
	return nil
}

// lineShapes checks each line's fields other than its amounts; an
// engine's lines may carry any code the dimension register holds.
func lineShapes(lines []Line, at string, engine bool) []apierr.Issue {
	var issues []apierr.Issue
	for i := range lines {
		l := &lines[i]
		f := func(name string) string { return fmt.Sprintf("%s[%d].%s", at, i, name) }
		add := func(name, rule, msg string) {
			issues = append(issues, apierr.Issue{Field: f(name), In: "body", Rule: rule, Issue: msg})
		}
		if !bas.ValidNumber(l.Account) {
			add("account_number", "pattern", "must be four digits")
		}
		l.Description = envelope.Text(l.Description)
		if l.Description != nil && len([]rune(*l.Description)) > maxDescription {
			add("line_description", "length", fmt.Sprintf("must be at most %d characters", maxDescription))
		}
		if l.Currency != nil && !currencyPattern.MatchString(*l.Currency) {
			add("currency", "pattern", "must be an ISO 4217 code such as EUR")
		}
		if (l.AmountInCurrency != nil || l.ExchangeRate != nil) && l.Currency == nil {
			add("currency", "required", "amount_in_currency and exchange_rate need currency")
		}
		if (l.AmountInCurrency == nil) != (l.ExchangeRate == nil) {
			missing := "exchange_rate"
			if l.AmountInCurrency == nil {
				missing = "amount_in_currency"
			}
			add(missing, "required", "amount_in_currency and exchange_rate are given together, so the kronor amount can be checked")
		}
		l.TaxCode = envelope.Text(l.TaxCode)
		if l.TaxCode != nil && len(*l.TaxCode) > maxTaxCodeLength {
			add("tax_code", "length", fmt.Sprintf("must be at most %d characters", maxTaxCodeLength))
		}
		for k, v := range l.Dimensions {
			if !dimensionNumber.MatchString(k) {
				add("dimensions", "pattern", "keys are SIE dimension numbers such as \"1\" or \"6\", not "+k)
			}
			if !ValidDimensionCode(v) && !(engine && HeldDimensionCode(v)) {
				add("dimensions", "pattern", "value codes are 1-20 characters A-Ö, digits, _, + or -")
			}
		}
	}
	return issues
}

// CheckAmounts refuses negative amounts, then lines with an amount on both
// sides or on neither, an amount past money.Max, and a foreign-currency
// line whose kronor amount is not amount_in_currency × exchange_rate to
// within öre rounding, naming the line.
func CheckAmounts(lines []Line, at string) error {
	for i, l := range lines {
		if l.Debit.Sign() < 0 || l.Credit.Sign() < 0 {
			side := "debit_amount"
			if l.Debit.Sign() >= 0 {
				side = "credit_amount"
			}
			return apierr.New(apierr.JournalLineNegativeAmount, map[string]any{
				"line": i, "field": fmt.Sprintf("%s[%d].%s", at, i, side)})
		}
	}
	for i, l := range lines {
		if l.Debit.Sign() > 0 && l.Credit.Sign() > 0 {
			return apierr.New(apierr.JournalLineBothSidesNonzero, map[string]any{"line": i,
				"field": fmt.Sprintf("%s[%d]", at, i)})
		}
		if l.Debit.IsZero() && l.Credit.IsZero() {
			return apierr.Validation(apierr.Issue{Field: fmt.Sprintf("%s[%d]", at, i), In: "body", Rule: "one_side",
				Issue: "a line needs a debit_amount or a credit_amount greater than 0"})
		}
		side, amount := "debit_amount", l.Debit
		if l.Credit.Sign() > 0 {
			side, amount = "credit_amount", l.Credit
		}
		if amount.OverMax() {
			return apierr.Validation(apierr.Issue{Field: fmt.Sprintf("%s[%d].%s", at, i, side), In: "body",
				Rule: "maximum", Issue: "must be at most " + money.Max.String()})
		}
		if l.AmountInCurrency != nil && l.ExchangeRate != nil && !l.ExchangeRate.Matches(*l.AmountInCurrency, amount) {
			return apierr.Validation(apierr.Issue{Field: fmt.Sprintf("%s[%d].%s", at, i, side), In: "body",
				Rule: "exchange", Issue: fmt.Sprintf("%s × %s is %s kronor, not %s", l.AmountInCurrency.Abs(),
					l.ExchangeRate, l.ExchangeRate.Convert(l.AmountInCurrency.Abs()), amount)})
		}
	}
	return nil
}

// CheckBalance refuses lines whose debits and credits differ, or sum to
// nothing.
func CheckBalance(lines []Line) error {
	d, c := Totals(lines)
	if d.Cmp(c) != 0 || d.IsZero() {
		return apierr.New(apierr.JournalEntryNotBalanced, map[string]any{
			"total_debit": d, "total_credit": c, "difference": d.Sub(c)})
	}
	return nil
}

// Accounts returns the distinct account numbers of lines, in first-use
// order.
func Accounts(lines []Line) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lines {
		if !seen[l.Account] {
			seen[l.Account] = true
			out = append(out, l.Account)
		}
	}
	return out
}

// Storno returns the lines that cancel lines: the same accounts and
// amounts on the other side.
func Storno(lines []Line) []Line {
	out := make([]Line, len(lines))
	for i, l := range lines {
		s := l
		s.ID, s.AddedBy, s.StruckBy = uuid.Nil, nil, nil
		s.Debit, s.Credit = l.Credit, l.Debit
		if l.AmountInCurrency != nil {
			neg := l.AmountInCurrency.Neg()
			s.AmountInCurrency = &neg
		}
		s.SortOrder = i
		out[i] = s
	}
	return out
}

// NextDepth is the chain depth of an entry that reverses or corrects e;
// CORRECTION_CHAIN_TOO_DEEP when it reaches MaxChainDepth and the caller
// did not allow a deep chain.
func NextDepth(e Entry, allowDeep bool) (int, error) {
	d := e.ChainDepth + 1
	if d >= MaxChainDepth && !allowDeep {
		return d, apierr.New(apierr.CorrectionChainTooDeep, map[string]any{
			"journal_entry_id": e.ID, "chain_depth": e.ChainDepth, "max_depth": MaxChainDepth - 1})
	}
	return d, nil
}

// Reversible says whether e may be reversed or corrected by storno.
func Reversible(e Entry) error {
	if e.Status != Posted {
		return apierr.New(apierr.JournalEntryNotPosted, map[string]any{
			"journal_entry_id": e.ID, "current_status": e.Status})
	}
	if e.ReversedByID != nil {
		return apierr.New(apierr.EntryAlreadyReversed, map[string]any{
			"journal_entry_id": e.ID, "reversed_by_id": *e.ReversedByID})
	}
	return nil
}

// OpeningSeries is the voucher series of every year's opening balance,
// whichever door made it (the year-end, the API, an SIE import): the
// peer books it as A1, but then series A of a year starts at 2 in the
// books and in an SIE export, which readers report as a gap, and a file
// imported into the year collides with it.
const OpeningSeries = "IB"

// DefaultSeries picks the voucher series of an entry whose caller named
// none: IB for an opening balance, else the company's per-source
// default, else its default, else A.
func DefaultSeries(source string, perSource map[string]string, fallback *string) string {
	if source == SourceOpeningBalance {
		return OpeningSeries
	}
	if s, ok := perSource[source]; ok && seriesPattern.MatchString(s) {
		return s
	}
	if fallback != nil && seriesPattern.MatchString(*fallback) {
		return *fallback
	}
	return "A"
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
