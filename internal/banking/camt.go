package banking

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	xcurrency "golang.org/x/text/currency"

	"github.com/kontera/kontera/internal/money"
)

// camt.053 (ISO 20022 BankToCustomerStatement), read by local element
// names so that every camt.053.001.NN namespace reads alike.
type camtDocument struct {
	Statements []camtStatement `xml:"BkToCstmrStmt>Stmt"`
}

type camtStatement struct {
	ID       string        `xml:"Id"`
	IBAN     string        `xml:"Acct>Id>IBAN"`
	Other    string        `xml:"Acct>Id>Othr>Id"`
	Currency string        `xml:"Acct>Ccy"`
	Balances []camtBalance `xml:"Bal"`
	Entries  []camtEntry   `xml:"Ntry"`
}

type camtBalance struct {
	Code   string     `xml:"Tp>CdOrPrtry>Cd"`
	Amount camtAmount `xml:"Amt"`
	Side   string     `xml:"CdtDbtInd"`
	Date   string     `xml:"Dt>Dt"`
}

type camtAmount struct {
	Currency string `xml:"Ccy,attr"`
	Value    string `xml:",chardata"`
}

type camtEntry struct {
	Ref      string        `xml:"NtryRef"`
	Amount   camtAmount    `xml:"Amt"`
	Side     string        `xml:"CdtDbtInd"`
	Reversal bool          `xml:"RvslInd"`
	Status   camtStatus    `xml:"Sts"`
	Booked   string        `xml:"BookgDt>Dt"`
	BookedAt string        `xml:"BookgDt>DtTm"`
	Servicer string        `xml:"AcctSvcrRef"`
	Info     string        `xml:"AddtlNtryInf"`
	Details  []camtDetails `xml:"NtryDtls>TxDtls"`
}

// camtStatus is Sts: text up to version 07, <Cd> from 08.
type camtStatus struct {
	Text string `xml:",chardata"`
	Code string `xml:"Cd"`
}

func (s camtStatus) value() string {
	if c := strings.TrimSpace(s.Code); c != "" {
		return c
	}
	return strings.TrimSpace(s.Text)
}

type camtDetails struct {
	EndToEnd string   `xml:"Refs>EndToEndId"`
	Debtor   string   `xml:"RltdPties>Dbtr>Nm"`
	DebtorP  string   `xml:"RltdPties>Dbtr>Pty>Nm"`
	Creditor string   `xml:"RltdPties>Cdtr>Nm"`
	CredP    string   `xml:"RltdPties>Cdtr>Pty>Nm"`
	DbtrAcct string   `xml:"RltdPties>DbtrAcct>Id>IBAN"`
	CdtrAcct string   `xml:"RltdPties>CdtrAcct>Id>IBAN"`
	Ustrd    []string `xml:"RmtInf>Ustrd"`
	OCR      []string `xml:"RmtInf>Strd>CdtrRefInf>Ref"`
}

// Statement is one account's statement from a bank file: its booked
// entries as transactions, and the balances it states.
type Statement struct {
	Account  string // the IBAN, or the bank's other account id
	IBAN     string // the IBAN, when the statement gives one
	Currency string
	Opening  *money.Amount
	Closing  *money.Amount
	// OpeningDate and ClosingDate are the days the balances are of (zero
	// when the file does not say): the opening at the start of its day,
	// the closing at the end of its.
	OpeningDate, ClosingDate time.Time
	Rows                     []Ingested
	// Pending counts the entries not booked (pending, information only):
	// left out.
	Pending int
}

// ReadCamt053 reads a camt.053 statement file: each statement's booked
// entries (Sts BOOK), signed by CdtDbtInd (a reversal turns it), the text
// from the entry's information or remittance, the counterparty's name,
// the OCR reference of structured remittance, and as external id the
// servicer's reference, else the entry reference, else a hash of what the
// entry says. A file that is not camt.053 answers an error naming why.
func ReadCamt053(r io.Reader) ([]Statement, error) {
	var doc camtDocument
	dec := xml.NewDecoder(r)
	// r is text Text has decoded already (from a byte-order mark, UTF-8
	// or Windows-1252), whatever the declaration says: the encodings it
	// reads are taken as said, any other is refused.
	dec.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		switch strings.ToLower(label) {
		case "utf-8", "utf8", "utf-16", "utf-16le", "utf-16be", "windows-1252", "cp1252", "iso-8859-1", "latin1",
			"iso-8859-15", "us-ascii":
			return in, nil
		}
		return nil, fmt.Errorf("camt.053: the XML says encoding %q; UTF-8, UTF-16 and Windows-1252 are read", label)
	}
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("camt.053: %w", err)
	}
	if len(doc.Statements) == 0 {
		return nil, fmt.Errorf("camt.053: no BkToCstmrStmt/Stmt in the file")
	}
	var out []Statement
	for si, s := range doc.Statements {
		st := Statement{Account: strings.TrimSpace(s.IBAN), IBAN: strings.TrimSpace(s.IBAN), Currency: strings.TrimSpace(s.Currency)}
		if st.Account == "" {
			st.Account = strings.TrimSpace(s.Other)
		}
		for _, b := range s.Balances {
			a, err := camtSigned(b.Amount.Value, first(b.Amount.Currency, s.Currency), b.Side, false)
			if err != nil {
				return nil, &EntryError{Statement: si + 1, Balance: b.Code, Issue: err.Error()}
			}
			switch b.Code {
			case "OPBD", "PRCD":
				// The opening booked balance, or the closing balance of the
				// statement before (PRCD), which is the same figure.
				if st.Opening != nil && b.Code == "PRCD" {
					continue
				}
				st.Opening = &a
				if d, err := time.Parse(time.DateOnly, strings.TrimSpace(b.Date)); err == nil {
					st.OpeningDate = d
				}
			case "CLBD":
				st.Closing = &a
				if d, err := time.Parse(time.DateOnly, strings.TrimSpace(b.Date)); err == nil {
					st.ClosingDate = d
				}
			}
		}
		seen := map[string]int{}
		for ei, e := range s.Entries {
			if e.Status.value() != "BOOK" {
				st.Pending++
				continue
			}
			row, err := camtRow(e, s.Currency)
			if err != nil {
				return nil, &EntryError{Statement: si + 1, Entry: ei + 1, Ref: first(e.Servicer, e.Ref), Issue: err.Error()}
			}
			// Two entries alike in all but position keep apart.
			if n := seen[row.ExternalID]; n > 0 {
				row.ExternalID = fmt.Sprintf("%s#%d", row.ExternalID, n+1)
			}
			seen[row.ExternalID]++
			st.Rows = append(st.Rows, row)
		}
		out = append(out, st)
	}
	return out, nil
}

func camtRow(e camtEntry, currency string) (Ingested, error) {
	amount, err := camtSigned(e.Amount.Value, first(e.Amount.Currency, currency), e.Side, e.Reversal)
	if err != nil {
		return Ingested{}, err
	}
	day := strings.TrimSpace(e.Booked)
	if day == "" && len(strings.TrimSpace(e.BookedAt)) >= 10 {
		day = strings.TrimSpace(e.BookedAt)[:10]
	}
	date, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return Ingested{}, fmt.Errorf("the booking date %q", day)
	}
	row := Ingested{Date: date, Amount: amount, Currency: strings.TrimSpace(e.Amount.Currency)}
	if row.Currency == "" {
		row.Currency = currency
	}
	var texts []string
	if t := strings.TrimSpace(e.Info); t != "" {
		texts = append(texts, t)
	}
	for _, d := range e.Details {
		for _, u := range d.Ustrd {
			if u = strings.TrimSpace(u); u != "" {
				texts = append(texts, u)
			}
		}
		// The other party: who paid us, or whom we paid.
		name, account := first(d.Creditor, d.CredP), d.CdtrAcct
		if amount.Sign() > 0 {
			name, account = first(d.Debtor, d.DebtorP), d.DbtrAcct
		}
		if name != "" && row.MerchantName == nil {
			row.MerchantName = &name
		}
		if account != "" && row.CounterpartyAccount == nil {
			row.CounterpartyAccount = &account
		}
		for _, o := range d.OCR {
			if o = strings.TrimSpace(o); o != "" && row.Reference == nil {
				row.Reference = &o
			}
		}
		if ref := strings.TrimSpace(d.EndToEnd); ref != "" && ref != "NOTPROVIDED" && row.Reference == nil {
			row.Reference = &ref
		}
	}
	if len(texts) > 0 {
		d := strings.Join(texts, " ")
		row.Description = &d
	} else if row.MerchantName != nil {
		row.Description = row.MerchantName
	}
	row.ExternalID = first(strings.TrimSpace(e.Servicer), strings.TrimSpace(e.Ref))
	if row.ExternalID == "" {
		h := sha256.New()
		fmt.Fprintf(h, "%s|%s|%s|%s", day, amount, row.Currency, strings.Join(texts, "|"))
		row.ExternalID = "camt:" + hex.EncodeToString(h.Sum(nil))[:32]
	}
	return row, nil
}

// EntryError is an entry or balance of a camt.053 file that cannot be
// read: where it is and why.
type EntryError struct {
	Statement int    // 1-based
	Entry     int    // 1-based; 0 for a balance
	Balance   string // the balance's code, for a balance
	Ref       string // the entry's servicer or entry reference
	Issue     string
}

func (e *EntryError) Error() string {
	at := fmt.Sprintf("statement %d, entry %d", e.Statement, e.Entry)
	if e.Entry == 0 {
		at = fmt.Sprintf("statement %d, balance %s", e.Statement, e.Balance)
	}
	if e.Ref != "" {
		at += " (" + e.Ref + ")"
	}
	return "camt.053: " + at + ": " + e.Issue
}

// camtAmountForm is ISO 20022's amount: unsigned, plain digits, at most 18
// of them with at most 5 decimals. No sign (CdtDbtInd gives it), no
// exponent.
var camtAmountForm = regexp.MustCompile(`^[0-9]{1,18}(\.[0-9]{1,5})?$`)

// camtSigned is a camt amount (always positive) in currency, signed by its
// side: DBIT is money out; a reversal turns the sign. An amount outside
// ISO 20022's form, or with more decimals than the currency has (other
// than zeros), cannot be read.
func camtSigned(value, currency, side string, reversal bool) (money.Amount, error) {
	v := strings.TrimSpace(value)
	if !camtAmountForm.MatchString(v) || len(strings.ReplaceAll(v, ".", "")) > 18 {
		return money.Amount{}, fmt.Errorf("the amount %q is not an ISO 20022 amount (unsigned digits, at most 5 decimals)", value)
	}
	if i := strings.IndexByte(v, '.'); i >= 0 {
		decimals := 2
		if u, err := xcurrency.ParseISO(strings.TrimSpace(currency)); err == nil {
			decimals, _ = xcurrency.Standard.Rounding(u)
		}
		frac := v[i+1:]
		if len(frac) > decimals && strings.Trim(frac[decimals:], "0") != "" {
			return money.Amount{}, fmt.Errorf("the amount %q has more decimals than %s has (%d)", value, currency, decimals)
		}
		v = strings.TrimRight(strings.TrimRight(v, "0"), ".")
	}
	a, err := money.Parse(v)
	if err != nil {
		return a, fmt.Errorf("the amount %q", value)
	}
	switch strings.TrimSpace(side) {
	case "DBIT":
		a = a.Neg()
	case "CRDT":
	default:
		return a, fmt.Errorf("CdtDbtInd %q is neither CRDT nor DBIT", side)
	}
	if reversal {
		a = a.Neg()
	}
	return a, nil
}

func first(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}
