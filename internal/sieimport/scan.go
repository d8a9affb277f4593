package sieimport

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/chart"
	"github.com/kontera/kontera/internal/fiscal"
	"github.com/kontera/kontera/internal/ledger"
	"github.com/kontera/kontera/internal/money"
	"github.com/kontera/kontera/internal/sie"
)

// MaxErrors is how many problems a refused file lists.
const MaxErrors = 100

// Span is a fiscal year as a file's #RAR names it.
type Span struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// Account is a #KONTO with what the file says of it.
type Account struct {
	Number string `json:"number"`
	Name   string `json:"name,omitempty"`
	Type   string `json:"type,omitempty"` // #KTYP: T, S, K or I
	SRU    string `json:"sru,omitempty"`
	// TypeLine is the line of the #KTYP, for a refusal of its type.
	TypeLine int `json:"type_line,omitempty"`
}

// Dimension is a #DIM or #UNDERDIM.
type Dimension struct {
	No     int    `json:"no"`
	Name   string `json:"name"`
	Parent int    `json:"parent,omitempty"`
}

// Object is an #OBJEKT, or an object a row names without one.
type Object struct {
	Dim  int    `json:"dim"`
	Code string `json:"code"`
	Name string `json:"name,omitempty"`
}

// Amount is an account's balance as the file states it; Period (YYYYMM)
// for a #PSALDO.
type Amount struct {
	Account string       `json:"account"`
	Period  string       `json:"period,omitempty"`
	Amount  money.Amount `json:"amount"`
}

// Series is what the file's vouchers hold of one series.
type Series struct {
	Count int `json:"count"`
	Min   int `json:"min"`
	Max   int `json:"max"`
	// Unnumbered vouchers (a 4I file's empty number) are numbered by the
	// ledger.
	Unnumbered int `json:"unnumbered,omitempty"`
	// Internal is a series a program kept for itself (a symbol or digits
	// for a name, every voucher with the same number or none): the
	// ledger numbers its vouchers in file order.
	Internal bool        `json:"internal,omitempty"`
	numbers  map[int]int // voucher number → the line of its first #VER
	repeated []sie.Problem
	zero     int // vouchers numbered 0
}

// Summary is what pass 1 learns of a file: everything but the vouchers
// themselves, which pass 2 reads again.
type Summary struct {
	Encoding   sie.Encoding `json:"encoding"`
	Program    string       `json:"program,omitempty"`
	Type       string       `json:"sie_type,omitempty"`
	Name       string       `json:"company_name,omitempty"`
	OrgNumber  string       `json:"org_number,omitempty"`
	Years      map[int]Span `json:"years,omitempty"`
	Accounts   []Account    `json:"accounts,omitempty"`
	Dimensions []Dimension  `json:"dimensions,omitempty"`
	Objects    []Object     `json:"objects,omitempty"`
	Opening    []Amount     `json:"opening,omitempty"`  // #IB 0
	Closing    []Amount     `json:"closing,omitempty"`  // #UB 0
	Results    []Amount     `json:"results,omitempty"`  // #RES 0
	Previous   []Amount     `json:"previous,omitempty"` // #UB -1
	// PrevOpening (#IB -1) and PrevResults (#RES -1) are the year
	// before's other figures: with #UB -1, what that year holds when the
	// company's books lack it.
	PrevOpening []Amount           `json:"previous_opening,omitempty"`
	PrevResults []Amount           `json:"previous_results,omitempty"`
	Months      []Amount           `json:"months,omitempty"`   // #PSALDO 0 without objects
	Vouchers    int                `json:"vouchers"`           // #VER
	Rows        int                `json:"rows"`               // rows booked
	ZeroRows    int                `json:"zero_rows"`          // rows of 0.00, counted not booked
	Empty       int                `json:"empty_vouchers"`     // vouchers of zero rows only
	Corrected   int                `json:"corrected_vouchers"` // with #BTRANS or #RTRANS
	Series      map[string]*Series `json:"series,omitempty"`
	First       *time.Time         `json:"first_date,omitempty"`
	Last        *time.Time         `json:"last_date,omitempty"`
	Offset      int64              `json:"voucher_offset"` // of the first #VER
	Line        int                `json:"voucher_line"`
	Used        []string           `json:"used_accounts,omitempty"` // accounts rows book
	Checksum    bool               `json:"checksum"`
	Warnings    []Warning          `json:"warnings,omitempty"`
	// YearLine is the line of #RAR 0, for a refusal of the year.
	YearLine int `json:"year_line,omitempty"`
	// Outside are the accounts of classes 0 and 9 the file keeps balances
	// on (#IB, #UB, #KTYP T or S): outside the balance sheet BAS has,
	// their rows are booked on the suspense account. A class 0 or 9
	// account the file uses otherwise is a result account of its own.
	Outside  []string `json:"outside_accounts,omitempty"`
	outside  map[string]bool
	accounts map[string]int
	objects  map[Object]bool
	used     map[string]bool
	// unheld are the #OBJEKT codes the register cannot hold as a client
	// writes them, decided at the end by whether a row uses them;
	// tagged the codes rows use.
	unheld  []heldObject
	tagged  map[Object]int
	sru     []map[string]any
	emptied []map[string]any
	// resultOpening are the #IB 0 on classes 3-8, refused at the end
	// unless the file declares the account T or S.
	resultOpening []opening
	balance       map[string]money.Amount // each account's running balance
	bad           func(sie.Problem)
}

// opening is an #IB 0 on an account of classes 3-8, and its line.
type opening struct {
	account string
	line    int
}

// heldObject is an #OBJEKT whose code only an import's register holds,
// and where it stands.
type heldObject struct {
	Object
	line int
}

// Warning is something an import tells about a file without refusing
// it.
type Warning struct {
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	MessageEn string         `json:"message_en"`
	Details   map[string]any `json:"details,omitempty"`
}

// UnmarshalJSON reads a warning as stored, also by a release before the
// Swedish message was called message (message_sv): an import's warnings
// are kept with it for good.
func (w *Warning) UnmarshalJSON(b []byte) error {
	type plain Warning
	var v struct {
		plain
		Legacy string `json:"message_sv"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*w = Warning(v.plain)
	if w.Message == "" {
		w.Message = v.Legacy
	}
	return nil
}

// The warnings an import gives.
const (
	WarnGap        = "SIE_VOUCHER_GAP"
	WarnRenumbered = "SIE_IMPORT_RENUMBERED"
	WarnOrgNumber  = "SIE_ORG_NUMBER_MISMATCH"
	WarnOpening    = "SIE_OPENING_BALANCE_KEPT"
	// WarnOpeningUnbalanced: the file's #IB did not balance; the
	// difference went to the suspense account.
	WarnOpeningUnbalanced = "SIE_OPENING_BALANCE_UNBALANCED"
	WarnZeroRows          = "SIE_ZERO_ROWS_SKIPPED"
	WarnEmpty             = "SIE_EMPTY_VOUCHERS_SKIPPED"
	WarnMismatch          = "SIE_BALANCE_MISMATCH"
	// WarnOutside: accounts of classes 0 and 9 holding balances were
	// booked on the suspense account, each row naming its account.
	WarnOutside = "SIE_ACCOUNT_OUTSIDE_CHART"
	// WarnSRU: an #SRU code the chart cannot hold (0, letters) was read
	// as no code.
	WarnSRU = "SIE_SRU_CODE_IGNORED"
	// WarnNumbered: a series' vouchers were numbered by the ledger, their
	// file numbers kept in source_id.
	WarnNumbered = "SIE_VOUCHER_RENUMBERED"
	// WarnObjectsSkipped: #OBJEKT codes the register cannot hold, used by
	// no row, were left out.
	WarnObjectsSkipped = "SIE_OBJECTS_SKIPPED"
	// WarnTypeFromFile: accounts of classes 3-8 the file declares an
	// asset or a liability (#KTYP T or S) were kept so, on the balance
	// sheet.
	WarnTypeFromFile = "SIE_ACCOUNT_TYPE_FROM_FILE"
)

// Scan is pass 1: it reads a whole file (in encoding enc) and answers
// what it holds, or every problem that refuses it (the first MaxErrors):
// syntax, a voucher whose rows do not sum to 0, a duplicate voucher
// number, a number that is not a number, a date outside the year (#RAR
// 0), an #IB on classes 3-8 the file does not declare T or S, an account
// or object code the books cannot hold, a checksum that does not match, a
// truncated file.
func Scan(r io.Reader, enc sie.Encoding) (*Summary, []sie.Problem, error) {
	s := &Summary{Encoding: enc, Years: map[int]Span{}, Series: map[string]*Series{}, accounts: map[string]int{},
		objects: map[Object]bool{}, used: map[string]bool{}, tagged: map[Object]int{}, balance: map[string]money.Amount{}}
	var probs []sie.Problem
	bad := func(p sie.Problem) {
		if len(probs) < MaxErrors {
			probs = append(probs, p)
		}
	}
	s.bad = bad
	rd := sie.NewReader(r, enc)
	var vouchers []sie.Record // held until #RAR is surely read: it may follow them in a careless file
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if p, ok := sie.AsProblem(err); ok {
			bad(*p)
			if rec.Label != "#VER" {
				continue
			}
		} else if err != nil {
			return nil, nil, err
		}
		if rec.Label == "#VER" {
			if s.Vouchers == 0 {
				s.Offset, s.Line = rec.Offset, rec.Line
			}
			s.Vouchers++
			vouchers = append(vouchers, rec)
			if len(vouchers) >= 1000 {
				for _, v := range vouchers {
					s.voucher(v)
				}
				vouchers = vouchers[:0]
			}
			continue
		}
		s.record(rec, bad)
	}
	for _, v := range vouchers {
		s.voucher(v)
	}
	s.Checksum = rd.Checksummed()
	s.finish()
	sort.SliceStable(probs, func(i, j int) bool { return probs[i].Line < probs[j].Line })
	return s, probs, nil
}

// record takes in one record outside the vouchers.
func (s *Summary) record(rec sie.Record, bad func(sie.Problem)) {
	issue := func(msg string) { bad(sie.Problem{Line: rec.Line, Record: rec.Label, Issue: msg}) }
	switch rec.Label {
	case "#PROGRAM":
		s.Program = strings.TrimSpace(rec.Text(0) + " " + rec.Text(1))
	case "#SIETYP":
		s.Type = rec.Text(0)
	case "#FNAMN":
		s.Name = rec.Text(0)
	case "#ORGNR":
		s.OrgNumber = rec.Text(0)
	case "#RAR":
		y, err := strconv.Atoi(rec.Text(0))
		start, ok1 := sie.Date(rec.Text(1))
		end, ok2 := sie.Date(rec.Text(2))
		if err != nil || !ok1 || !ok2 || end.Before(start) {
			issue("#RAR needs a year number and two dates YYYYMMDD, the first not after the second")
			return
		}
		if y == 0 {
			if err := fiscal.CheckShape(fiscal.Span{Start: start, End: end}, true); err != nil {
				issue("the fiscal year " + start.Format(time.DateOnly) + " – " + end.Format(time.DateOnly) +
					" cannot be kept: a year ends on the last day of a month, after it starts, and lasts at most " +
					strconv.Itoa(fiscal.MaxMonths) + " months")
				return
			}
			s.YearLine = rec.Line
		}
		s.Years[y] = Span{Start: start, End: end}
	case "#KONTO", "#KTYP", "#SRU":
		n := rec.Text(0)
		if !bas.ValidNumber(n) {
			issue("the account " + strconv.Quote(n) + " is not four digits: the chart cannot hold it")
			return
		}
		a := s.account(n)
		switch rec.Label {
		case "#KONTO":
			a.Name = strings.TrimSpace(rec.Text(1))
			if utf8.RuneCountInString(a.Name) > 200 {
				issue("the account name is longer than 200 characters")
			}
		case "#KTYP":
			a.Type, a.TypeLine = strings.ToUpper(rec.Text(1)), rec.Line
		case "#SRU":
			code := rec.Text(1)
			if !chart.ValidSRU(code) {
				// Programs write 0 (or a form's letter code) for an
				// account without a field; the chart keeps none.
				s.sru = append(s.sru, map[string]any{"account": n, "code": code, "line": rec.Line})
				return
			}
			if a.SRU == "" {
				a.SRU = code
			}
		}
	case "#DIM", "#UNDERDIM":
		no, err := strconv.Atoi(rec.Text(0))
		if err != nil || no < 1 || no > 9999 {
			issue("the dimension number " + strconv.Quote(rec.Text(0)) + " is not a number from 1 to 9999")
			return
		}
		d := Dimension{No: no, Name: strings.TrimSpace(rec.Text(1))}
		if rec.Label == "#UNDERDIM" {
			if d.Parent, err = strconv.Atoi(rec.Text(2)); err != nil {
				issue("#UNDERDIM needs the number of its superior dimension")
				return
			}
		}
		s.Dimensions = append(s.Dimensions, d)
	case "#OBJEKT":
		no, err := strconv.Atoi(rec.Text(0))
		if err != nil || no < 1 || no > 9999 {
			issue("the dimension number " + strconv.Quote(rec.Text(0)) + " is not a number from 1 to 9999")
			return
		}
		o := Object{Dim: no, Code: rec.Text(1), Name: strings.TrimSpace(rec.Text(2))}
		if utf8.RuneCountInString(o.Name) > 200 {
			issue("the object name is longer than 200 characters")
			return
		}
		k := Object{Dim: o.Dim, Code: o.Code}
		if s.objects[k] {
			return
		}
		if !ledger.ValidDimensionCode(o.Code) {
			// Kept if a row uses it and the register can hold it; which
			// is known at the end.
			s.unheld = append(s.unheld, heldObject{Object: o, line: rec.Line})
			s.objects[k] = true
			return
		}
		s.objects[k] = true
		s.Objects = append(s.Objects, o)
	case "#IB", "#UB", "#RES", "#PSALDO":
		b, p := sie.ParseBalance(rec)
		if p != nil {
			bad(*p)
			return
		}
		if !bas.ValidNumber(b.Account) {
			issue("the account " + strconv.Quote(b.Account) + " is not four digits: the chart cannot hold it")
			return
		}
		if rec.Label == "#IB" && b.Year == 0 && b.Account[0] >= '3' && b.Account[0] <= '8' && !b.Amount.IsZero() {
			// Fine when the file declares the account an asset or a
			// liability, which #KTYP may do further down.
			s.resultOpening = append(s.resultOpening, opening{account: b.Account, line: rec.Line})
		}
		if b.Amount.OverMax() {
			issue("the balance is past the largest an account may hold, " + money.Max.String())
			return
		}
		a := Amount{Account: b.Account, Period: b.Period, Amount: b.Amount}
		switch {
		case rec.Label == "#IB" && b.Year == 0:
			if !s.move(b.Account, b.Amount) {
				issue("the opening balances of " + b.Account + " add up past the largest an account may hold, " + money.Max.String())
				return
			}
			s.Opening = append(s.Opening, a)
		case rec.Label == "#UB" && b.Year == 0:
			s.Closing = append(s.Closing, a)
		case rec.Label == "#UB" && b.Year == -1:
			s.Previous = append(s.Previous, a)
		case rec.Label == "#IB" && b.Year == -1:
			s.PrevOpening = append(s.PrevOpening, a)
		case rec.Label == "#RES" && b.Year == -1:
			s.PrevResults = append(s.PrevResults, a)
		case rec.Label == "#RES" && b.Year == 0:
			s.Results = append(s.Results, a)
		case rec.Label == "#PSALDO" && b.Year == 0 && len(b.Objects) == 0:
			s.Months = append(s.Months, a)
		}
	}
}

func (s *Summary) account(n string) *Account {
	i, ok := s.accounts[n]
	if !ok {
		i = len(s.Accounts)
		s.accounts[n] = i
		s.Accounts = append(s.Accounts, Account{Number: n})
	}
	return &s.Accounts[i]
}

// move adds amount to account's running balance, false when that passes
// the largest balance the books hold.
func (s *Summary) move(account string, amount money.Amount) bool {
	b := s.balance[account].Add(amount)
	s.balance[account] = b
	return !b.OverMax()
}

// IsOutside reports whether the file keeps balances on account outside
// BAS's balance sheet (class 0 or 9 with #IB, #UB or #KTYP T/S): its rows
// go to the suspense account.
func (s *Summary) IsOutside(account string) bool {
	if account == "" || (account[0] != '0' && account[0] != '9') {
		return false
	}
	if s.outside == nil {
		s.outside = map[string]bool{}
		for _, a := range s.Outside {
			s.outside[a] = true
		}
	}
	return s.outside[account]
}

// Sheet is the balance sheet as the file has it: BAS's classes 1-2 and
// the accounts of classes 3-8 the file declares an asset or a liability
// (chart.FileType), which the import keeps so.
func (s *Summary) Sheet() ledger.Sheet {
	var out ledger.Sheet
	for _, a := range s.Accounts {
		if t, ok := chart.FileType(a.Number, a.Type); ok {
			if out == nil {
				out = ledger.Sheet{}
			}
			out[a.Number] = t
		}
	}
	return out
}

// fromFile refuses an #IB 0 on a result account and warns of the
// accounts of classes 3-8 the file keeps on the balance sheet.
func (s *Summary) fromFile() {
	sheet := s.Sheet()
	for _, o := range s.resultOpening {
		if !sheet.Holds(o.account) {
			s.bad(sie.Problem{Line: o.line, Record: "#IB", Issue: "an opening balance (#IB) on " + o.account +
				": classes 3-8 are result accounts, which open at 0, unless #KTYP declares the account T or S"})
		}
	}
	if len(sheet) == 0 {
		return
	}
	accounts := make([]map[string]any, 0, len(sheet))
	for _, n := range sortedKeys(sheet) {
		accounts = append(accounts, map[string]any{"account": n, "type": sheet[n]})
	}
	s.Warnings = append(s.Warnings, Warning{Code: WarnTypeFromFile,
		Message:   fmt.Sprintf("%d konton i klass 3-8 är tillgångar eller skulder enligt filens #KTYP (T, S) och hålls i balansräkningen med sina in- och utgående balanser.", len(accounts)),
		MessageEn: fmt.Sprintf("%d accounts of classes 3-8 are assets or liabilities by the file's #KTYP (T, S) and are kept on the balance sheet with their opening and closing balances.", len(accounts)),
		Details:   map[string]any{"accounts": accounts}})
}

// findOutside decides which class 0 and 9 accounts the file keeps
// balances on.
func (s *Summary) findOutside() {
	set := map[string]bool{}
	for _, a := range s.Accounts {
		if (a.Number[0] == '0' || a.Number[0] == '9') && (a.Type == "T" || a.Type == "S") {
			set[a.Number] = true
		}
	}
	for _, list := range [][]Amount{s.Opening, s.Closing, s.Previous, s.PrevOpening} {
		for _, a := range list {
			if a.Account[0] == '0' || a.Account[0] == '9' {
				set[a.Account] = true
			}
		}
	}
	s.Outside, s.outside = sortedKeys(set), nil
	if len(s.Outside) > 0 {
		s.Warnings = append(s.Warnings, Warning{Code: WarnOutside,
			Message:   fmt.Sprintf("%d konton i klass 0 eller 9 har balanser i filen (#IB, #UB, #KTYP T/S) och bokfördes på %s; varje rad nämner sitt konto.", len(s.Outside), Suspense),
			MessageEn: fmt.Sprintf("%d accounts of class 0 or 9 hold balances in the file (#IB, #UB, #KTYP T/S) and were booked on %s; each row names its account.", len(s.Outside), Suspense),
			Details:   map[string]any{"accounts": s.Outside, "account": Suspense}})
	}
}
