package sieimport

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/sie"
)

// target finds the year a file goes into: the one #RAR 0 names, or for
// a file without #RAR the existing year that holds all its dates. Nil
// when it is still to be made, which prepare does: opened beside the
// company's years, or, when the company's books are empty, by moving its
// first year onto the file's (move). A company's history comes in from
// its first year this way, whatever year it was created in.
func (im *Importer) target(ctx context.Context, company uuid.UUID, s *Summary) (p, move *fiscal.Period, err error) {
	all, err := im.periods.List(ctx, company)
	if err != nil {
		return nil, nil, err
	}
	if y, ok := s.Years[0]; ok {
		span := fiscal.Span{Start: y.Start, End: y.End}
		for _, p := range all {
			if p.Start.Equal(y.Start) && p.End.Equal(y.End) {
				return &p, nil, nil
			}
		}
		_, err := fiscal.Place(span, all)
		if err == nil {
			return nil, nil, nil
		}
		if len(all) == 1 && all[0].State() == fiscal.Open {
			n, cerr := im.ledger.Entries(ctx, company, all[0].ID)
			if cerr != nil {
				return nil, nil, cerr
			}
			if n == 0 {
				if err := fiscal.CheckShape(span, true); err != nil {
					return nil, nil, err
				}
				return nil, &all[0], nil
			}
		}
		if e, ok := apierr.As(err); ok {
			d := map[string]any{"file_year_start": y.Start.Format(time.DateOnly), "file_year_end": y.End.Format(time.DateOnly)}
			for k, v := range e.Details {
				d[k] = v
			}
			err = apierr.New(e.Code, d)
		}
		return nil, nil, err
	}
	if s.First == nil {
		return nil, nil, apierr.New(apierr.SIEImportInvalidFile, map[string]any{"errors": []sie.Problem{{Record: "#RAR",
			Issue: "the file names no fiscal year (#RAR 0) and holds no vouchers to place it by"}}})
	}
	for _, p := range all {
		if !s.First.Before(p.Start) && !s.Last.After(p.End) {
			return &p, nil, nil
		}
	}
	return nil, nil, apierr.New(apierr.SIEImportInvalidFile, map[string]any{"errors": []sie.Problem{{Record: "#RAR",
		Issue: fmt.Sprintf("the file names no fiscal year (#RAR 0), and no fiscal year of the company holds all its dates %s – %s; create that year first",
			s.First.Format(time.DateOnly), s.Last.Format(time.DateOnly))}}})
}

// WarnOpeningDiffers: the file's opening balance of an account differs
// from the closing balance of the year before in the books.
const WarnOpeningDiffers = "SIE_OPENING_BALANCE_DIFFERS"

// WarnPreviousYearNotKept: the file's year before (#RAR -1) could not be
// kept as the company's year before.
const WarnPreviousYearNotKept = "SIE_PREVIOUS_YEAR_NOT_KEPT"

// previousYear handles the year before the file's. When the company's
// books hold it, the file's #IB 0 is compared with its closing balances,
// a warning for each account that differs (other programs' files
// sometimes do). When they do not and the file gives that year's
// balances (#RAR -1 with #IB -1, #UB -1, #RES -1), it becomes the
// company's year before, closed outside Kontera and holding just those
// balances: an opening balance and one verifikat of the year's change on
// its last day, so the statements' comparison columns show last year. It
// answers the year it made, if any.
func (im *Importer) previousYear(ctx context.Context, i *Import, p fiscal.Period, s *Summary, sheet ledger.Sheet) (*uuid.UUID, []Warning, error) {
	prev, err := im.periods.Covering(ctx, i.CompanyID, p.Start.AddDate(0, 0, -1))
	if err != nil {
		return nil, nil, err
	}
	if prev.ID != uuid.Nil {
		w, err := im.openingAgainst(ctx, i.CompanyID, prev, s, sheet)
		return nil, w, err
	}
	y, ok := s.Years[-1]
	if !ok || !y.End.Equal(p.Start.AddDate(0, 0, -1)) || len(s.Previous)+len(s.PrevResults) == 0 {
		return nil, nil, nil
	}
	span := fiscal.Span{Start: y.Start, End: y.End}
	made, _, err := im.periods.Open(ctx, i.CompanyID, "", span)
	if e, ok := apierr.As(err); ok {
		return nil, []Warning{{Code: WarnPreviousYearNotKept,
			Message:   "Filens föregående år (#RAR -1) kunde inte läggas in som företagets föregående år (" + string(e.Code) + ").",
			MessageEn: "The file's year before (#RAR -1) could not be kept as the company's year before (" + string(e.Code) + ").",
			Details:   e.Details}}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if im.books.PeriodsChanged != nil {
		if err := im.books.PeriodsChanged(ctx, i.CompanyID); err != nil {
			return nil, nil, err
		}
	}
	series, err := im.books.DefaultSeries(ctx, i.CompanyID)
	if err != nil {
		return nil, nil, err
	}
	var warnings []Warning
	id := i.ID
	var entries []ledger.BatchEntry
	opening, diff := balanceLines(s.PrevOpening, true, sheet)
	if len(opening) > 0 {
		opening = settle(opening, diff, false)
		warnings = append(warnings, unbalanced(diff, "#IB -1")...)
		entries = append(entries, ledger.BatchEntry{Import: &id, Input: ledger.Input{PeriodID: made.ID, Date: made.Start,
			Description: "Ingående balans enligt SIE-fil (#IB -1)", Series: ledger.OpeningSeries,
			SourceType: ledger.SourceOpeningBalance, Lines: opening}})
	}
	change := map[string]money.Amount{}
	for _, a := range s.Previous {
		change[a.Account] = change[a.Account].Add(a.Amount)
	}
	for _, a := range s.PrevOpening {
		change[a.Account] = change[a.Account].Sub(a.Amount)
	}
	for _, a := range s.PrevResults {
		change[a.Account] = change[a.Account].Add(a.Amount)
	}
	var list []Amount
	for _, acct := range sortedKeys(change) {
		list = append(list, Amount{Account: acct, Amount: change[acct]})
	}
	lines, diff := balanceLines(list, false, sheet)
	if len(lines) > 0 {
		// A file's #UB -1 usually carries the year's result in equity
		// already (2099): the rows then miss the result, which 8999 Årets
		// resultat takes, as a year-end's closing entry has it.
		var result money.Amount
		for _, a := range list {
			if sheet.InResult(a.Account) && a.Account != ledger.ClosingAccount {
				result = result.Add(a.Amount)
			}
		}
		carried := !diff.IsZero() && diff.Cmp(result) == 0
		lines = settle(lines, diff, carried)
		if !carried {
			warnings = append(warnings, unbalanced(diff, "#UB -1, #RES -1")...)
		}
		src := "sie:-1"
		entries = append(entries, ledger.BatchEntry{Import: &id, Input: ledger.Input{PeriodID: made.ID, Date: made.End,
			Description: "Årets förändring enligt SIE-fil (#UB -1, #RES -1)", Series: series, SourceType: "import",
			SourceID: &src, Lines: lines}})
	}
	if _, err := im.ledger.PostBatch(ctx, i.CompanyID, entries); err != nil {
		return nil, nil, err
	}
	if _, err := im.periods.CloseExternally(ctx, i.CompanyID, made); err != nil {
		return nil, nil, err
	}
	return &made.ID, warnings, nil
}

// balanceLines are the lines that book amounts (debit positive) on their
// accounts, classes 0 and 9 left out, and what they sum to; opening keeps
// the accounts sheet holds on the balance sheet only.
func balanceLines(amounts []Amount, opening bool, sheet ledger.Sheet) ([]ledger.Line, money.Amount) {
	sum := map[string]money.Amount{}
	for _, a := range amounts {
		c := a.Account[0]
		if c == '0' || c == '9' || (opening && !sheet.Holds(a.Account)) {
			continue
		}
		sum[a.Account] = sum[a.Account].Add(a.Amount)
	}
	var lines []ledger.Line
	var total money.Amount
	for _, acct := range sortedKeys(sum) {
		if l, ok := ledger.Side(acct, sum[acct]); ok {
			l.SortOrder = len(lines)
			lines = append(lines, l)
			total = total.Add(sum[acct])
		}
	}
	return lines, total
}

// settle balances lines that sum to diff: on 8999 Årets resultat when
// the difference is the year's result already carried to equity, else
// on the suspense account, to be looked into.
func settle(lines []ledger.Line, diff money.Amount, result bool) []ledger.Line {
	account, text := Suspense, "Differens i SIE-filens saldon, att utreda"
	if result {
		account, text = ledger.ClosingAccount, "Årets resultat enligt SIE-fil"
	}
	if l, ok := ledger.Side(account, diff.Neg()); ok {
		l.SortOrder = len(lines)
		l.Description = &text
		lines = append(lines, l)
	}
	return lines
}

// unbalanced warns of figures that did not sum to zero, their difference
// booked on the suspense account.
func unbalanced(diff money.Amount, what string) []Warning {
	if diff.IsZero() {
		return nil
	}
	return []Warning{{Code: WarnOpeningUnbalanced,
		Message:   "Filens " + what + " går inte jämnt ut; differensen " + diff.String() + " bokfördes på " + Suspense + " att utreda.",
		MessageEn: "The file's " + what + " does not balance; the difference " + diff.String() + " was booked on " + Suspense + ", to be looked into.",
		Details:   map[string]any{"difference": diff, "account": Suspense, "records": what}}}
}

// openingAgainst compares the file's opening balance (#IB 0) with the
// closing balances of the year before in the books: each balance-sheet
// account outside equity on its own, equity (2000-2099) as a whole with
// the year's result when that year's year-end has not carried it there.
func (im *Importer) openingAgainst(ctx context.Context, company uuid.UUID, prev fiscal.Period, s *Summary, sheet ledger.Sheet) ([]Warning, error) {
	if len(s.Opening) == 0 {
		return nil, nil
	}
	bal, err := im.ledger.Balances(ctx, company, prev.ID)
	if err != nil {
		return nil, err
	}
	books, file := map[string]money.Amount{}, map[string]money.Amount{}

	key := func(acct string) string {
		if sheet.InResult(acct) {
			return equity // the year's result, not yet carried there
		}
		return groupOf(acct)
	}
	for _, b := range bal {
		books[key(b.Account)] = books[key(b.Account)].Add(b.Amount)
	}
	for _, a := range s.Opening {
		if !s.IsOutside(a.Account) {
			file[key(a.Account)] = file[key(a.Account)].Add(a.Amount)
		}
	}
	return differing(file, books, func(k string, f, b money.Amount) Warning {
		return Warning{Code: WarnOpeningDiffers,
			Message:   fmt.Sprintf("Filens ingående balans på %s är %s; föregående år i böckerna slutade på %s.", k, f, b),
			MessageEn: fmt.Sprintf("The file's opening balance of %s is %s; the year before in the books closed at %s.", k, f, b),
			Details:   map[string]any{"account": k, "file": f, "books": b, "difference": f.Sub(b), "previous_period_id": prev.ID}}
	}), nil
}

// differing warns (with warn) of each account or group where file and
// books differ, the suspense account aside (what waits there is warned
// of already).
func differing(file, books map[string]money.Amount, warn func(k string, file, books money.Amount) Warning) []Warning {
	keys := map[string]bool{}
	for k := range books {
		keys[k] = true
	}
	for k := range file {
		keys[k] = true
	}
	var out []Warning
	for _, k := range sortedKeys(keys) {
		if k != Suspense && file[k].Cmp(books[k]) != 0 {
			out = append(out, warn(k, file[k], books[k]))
		}
	}
	return out
}

// vacant refuses a file's year that holds posted entries already
// (SIE_IMPORT_PERIOD_NOT_EMPTY), unless all it holds are the balances an
// import of the year after made of it (#RAR -1): the file of the year
// itself replaces them, so a company's years import in any order.
func (im *Importer) vacant(ctx context.Context, company, period uuid.UUID) error {
	n, imports, err := im.ledger.PostedIn(ctx, company, period)
	if err != nil || n == 0 {
		return err
	}
	if len(imports) == 1 {
		made, err := im.Imports.Made(ctx, company, period)
		if err != nil {
			return err
		}
		if made != nil && made.ID == imports[0] {
			return nil
		}
	}
	return notEmpty(period, n, imports)
}

// replaceMade makes room in p for the file of the year itself, when all
// p holds are the balances another import made of it: p, closed outside
// Kontera, is opened again, and those balances are reversed on behalf of
// the import that made them (so the pair leaves the year's SIE export,
// as an undone import's do). It answers the import that made them, if
// any.
func (im *Importer) replaceMade(ctx context.Context, i *Import, p fiscal.Period) (*uuid.UUID, error) {
	made, err := im.Imports.Made(ctx, i.CompanyID, p.ID)
	if err != nil || made == nil || made.ID == i.ID {
		return nil, err
	}
	held, err := im.periods.Hold(ctx, i.CompanyID, p.ID)
	if err != nil {
		return nil, err
	}
	if held.Closed && held.ClosedExternally {
		if _, err := im.periods.Reopen(ctx, i.CompanyID, held); err != nil {
			return nil, err
		}
	}
	entries, err := im.ledger.Imported(ctx, i.CompanyID, made.ID, &p.ID, nil, ledger.MaxEngineLines)
	if err != nil {
		return nil, err
	}
	return &made.ID, im.storno(ctx, made, entries)
}

// closingAgainst compares, when the company's books hold the year after
// the file's with an opening balance, the file's closing balances (#UB
// 0) with it: a year imported after the one following it is checked as
// that one was against it (equity as a whole, with the file's result
// when its #UB does not carry it).
func (im *Importer) closingAgainst(ctx context.Context, company uuid.UUID, p fiscal.Period, s *Summary, sheet ledger.Sheet) ([]Warning, error) {
	if len(s.Closing) == 0 {
		return nil, nil
	}
	next, err := im.periods.Covering(ctx, company, p.End.AddDate(0, 0, 1))
	if err != nil || next.ID == uuid.Nil {
		return nil, err
	}
	ib, err := im.ledger.Opening(ctx, company, next.ID)
	if err != nil || ib == nil {
		return nil, err
	}
	books, file := map[string]money.Amount{}, map[string]money.Amount{}
	for _, l := range ib.Lines {
		if sheet.Holds(l.Account) {
			books[groupOf(l.Account)] = books[groupOf(l.Account)].Add(l.Debit).Sub(l.Credit)
		}
	}
	var total money.Amount
	for _, a := range s.Closing {
		if sheet.Holds(a.Account) {
			file[groupOf(a.Account)] = file[groupOf(a.Account)].Add(a.Amount)
			total = total.Add(a.Amount)
		}
	}
	if !total.IsZero() {
		// The file's balance sheet waits for its result: equity takes it.
		for _, a := range s.Results {
			if sheet.InResult(a.Account) && !s.IsOutside(a.Account) {
				file[equity] = file[equity].Add(a.Amount)
			}
		}
	}
	return differing(file, books, func(k string, f, b money.Amount) Warning {
		return Warning{Code: WarnOpeningDiffers,
			Message:   fmt.Sprintf("Filens utgående balans på %s är %s; året efter i böckerna öppnar med %s.", k, f, b),
			MessageEn: fmt.Sprintf("The file's closing balance of %s is %s; the year after in the books opens with %s.", k, f, b),
			Details:   map[string]any{"account": k, "file": f, "books": b, "difference": f.Sub(b), "next_period_id": next.ID}}
	}), nil
}
