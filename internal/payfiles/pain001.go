// Package payfiles makes supplier payment files (betalfiler): the
// approved supplier invoices to pay on a day from an account, as one ISO
// 20022 pain.001.001.03 Customer Credit Transfer Initiation, the file
// Swedish banks and Bankgirot take for supplier payments. Bankgirot's own
// LB format is not made: the banks all take pain.001.
package payfiles

import (
	"encoding/xml"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kontera/kontera/internal/money"
)

// Namespace is pain.001.001.03's.
const Namespace = "urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"

// The clearing numbers the Swedish guidelines give the giro systems as
// the creditor's agent.
const (
	BankgiroClearing = "9900"
	PlusgiroClearing = "9960"
)

// Account is where money is paid from or to: exactly one of a bankgiro
// number, a plusgiro number, an IBAN (with the bank's BIC), or a Swedish
// bank account by clearing number.
type Account struct {
	Bankgiro, Plusgiro string
	IBAN, BIC          string
	Clearing, Number   string
}

// Payer is the company paying: its name and organisation number, and the
// account the file debits.
type Payer struct {
	Name      string
	OrgNumber string
	Account   Account
}

// Payment is one transfer: to whom, how much in what currency, and what
// the creditor reads it by: an OCR reference, else a message.
type Payment struct {
	EndToEndID string
	Name       string
	Country    string // ISO 3166-1 alpha-2 of the creditor; "" for SE
	Account    Account
	Amount     money.Amount
	Currency   string
	OCR        string
	Message    string
}

// File is a payment file: its id, when it was made, the payer, and the
// payments by execution date.
type File struct {
	MessageID string
	Created   time.Time
	Payer     Payer
	// Payments by the day they are to be executed; each day is one
	// payment instruction (PmtInf) from the payer's account.
	Payments map[time.Time][]Payment
}

type document struct {
	XMLName xml.Name   `xml:"Document"`
	Xmlns   string     `xml:"xmlns,attr"`
	Init    initiation `xml:"CstmrCdtTrfInitn"`
}

type initiation struct {
	Header header        `xml:"GrpHdr"`
	Infos  []instruction `xml:"PmtInf"`
}

type header struct {
	MsgID     string `xml:"MsgId"`
	Created   string `xml:"CreDtTm"`
	Count     int    `xml:"NbOfTxs"`
	Sum       string `xml:"CtrlSum"`
	Initiator party  `xml:"InitgPty"`
}

type party struct {
	Name    string   `xml:"Nm"`
	Address *address `xml:"PstlAdr,omitempty"`
	Org     *orgID   `xml:"Id>OrgId>Othr,omitempty"`
}

type address struct {
	Country string `xml:"Ctry"`
}

type orgID struct {
	ID     string `xml:"Id"`
	Scheme string `xml:"SchmeNm>Cd"`
}

type instruction struct {
	ID       string        `xml:"PmtInfId"`
	Method   string        `xml:"PmtMtd"`
	Count    int           `xml:"NbOfTxs"`
	Sum      string        `xml:"CtrlSum"`
	Date     string        `xml:"ReqdExctnDt"`
	Debtor   party         `xml:"Dbtr"`
	Account  cashAccount   `xml:"DbtrAcct"`
	Agent    agent         `xml:"DbtrAgt"`
	Charges  string        `xml:"ChrgBr"`
	Payments []transaction `xml:"CdtTrfTxInf"`
}

type cashAccount struct {
	IBAN  string `xml:"Id>IBAN,omitempty"`
	Other *other `xml:"Id>Othr,omitempty"`
}

type other struct {
	ID          string `xml:"Id"`
	SchemeCode  string `xml:"SchmeNm>Cd,omitempty"`
	SchemePrtry string `xml:"SchmeNm>Prtry,omitempty"`
}

type agent struct {
	Institution institution `xml:"FinInstnId"`
}

type institution struct {
	BIC      string    `xml:"BIC,omitempty"`
	Clearing *clearing `xml:"ClrSysMmbId,omitempty"`
	Other    *otherID  `xml:"Othr,omitempty"`
}

type otherID struct {
	ID string `xml:"Id"`
}

type clearing struct {
	System string `xml:"ClrSysId>Cd"`
	Member string `xml:"MmbId"`
}

type transaction struct {
	ID        string      `xml:"PmtId>EndToEndId"`
	Amount    amount      `xml:"Amt>InstdAmt"`
	Agent     *agent      `xml:"CdtrAgt,omitempty"`
	Creditor  party       `xml:"Cdtr"`
	Account   cashAccount `xml:"CdtrAcct"`
	Remitance remittance  `xml:"RmtInf"`
}

type amount struct {
	Currency string `xml:"Ccy,attr"`
	Value    string `xml:",chardata"`
}

type remittance struct {
	Message string     `xml:"Ustrd,omitempty"`
	Ref     *reference `xml:"Strd>CdtrRefInf,omitempty"`
}

type reference struct {
	Code string `xml:"Tp>CdOrPrtry>Cd"`
	Ref  string `xml:"Ref"`
}

// Build writes f as pain.001.001.03: one PmtInf per execution day, in
// date order, its payments in the order given.
func Build(f File) ([]byte, error) {
	days := make([]time.Time, 0, len(f.Payments))
	for d := range f.Payments {
		days = append(days, d)
	}
	sort.Slice(days, func(i, j int) bool { return days[i].Before(days[j]) })
	debtor := party{Name: clip(f.Payer.Name, 70)}
	if f.Payer.OrgNumber != "" {
		debtor.Org = &orgID{ID: digits(f.Payer.OrgNumber), Scheme: "BANK"}
	}
	from, fromAgent, err := account(f.Payer.Account)
	if err != nil {
		return nil, fmt.Errorf("payfiles: the payer's account: %w", err)
	}
	if fromAgent == nil {
		fromAgent = &agent{institution{Other: &otherID{"NOTPROVIDED"}}}
	}
	doc := document{Xmlns: Namespace, Init: initiation{Header: header{MsgID: clip(f.MessageID, 35),
		Created: f.Created.UTC().Format("2006-01-02T15:04:05"), Initiator: debtor}}}
	var total money.Amount
	for i, d := range days {
		in := instruction{ID: clip(fmt.Sprintf("%s-%d", f.MessageID, i+1), 35), Method: "TRF", Date: d.Format(time.DateOnly),
			Debtor: debtor, Account: from, Agent: *fromAgent, Charges: "SLEV"}
		var sum money.Amount
		for _, p := range f.Payments[d] {
			to, toAgent, err := account(p.Account)
			if err != nil {
				return nil, fmt.Errorf("payfiles: payment %s: %w", p.EndToEndID, err)
			}
			if p.Amount.Sign() <= 0 {
				return nil, fmt.Errorf("payfiles: payment %s: the amount %s is not above 0", p.EndToEndID, p.Amount)
			}
			t := transaction{ID: clip(p.EndToEndID, 35), Amount: amount{Currency: p.Currency, Value: p.Amount.String()},
				Agent: toAgent, Creditor: party{Name: clip(p.Name, 70)}, Account: to}
			if p.Country != "" && p.Country != "SE" {
				t.Creditor.Address = &address{p.Country}
			}
			if p.OCR != "" {
				t.Remitance.Ref = &reference{Code: "SCOR", Ref: clip(p.OCR, 35)}
			} else {
				t.Remitance.Message = clip(p.Message, 140)
			}
			in.Payments = append(in.Payments, t)
			sum = sum.Add(p.Amount)
		}
		in.Count, in.Sum = len(in.Payments), sum.String()
		doc.Init.Header.Count += in.Count
		total = total.Add(sum)
		doc.Init.Infos = append(doc.Init.Infos, in)
	}
	if doc.Init.Header.Count == 0 {
		return nil, fmt.Errorf("payfiles: a file of no payments")
	}
	doc.Init.Header.Sum = total.String()
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}

// account is a as pain.001 names it: the account and its agent (nil
// when the file need not name one).
func account(a Account) (cashAccount, *agent, error) {
	switch {
	case a.Bankgiro != "":
		return cashAccount{Other: &other{ID: digits(a.Bankgiro), SchemePrtry: "BGNR"}},
			&agent{institution{Clearing: &clearing{System: "SESBA", Member: BankgiroClearing}}}, nil
	case a.Plusgiro != "":
		return cashAccount{Other: &other{ID: digits(a.Plusgiro), SchemeCode: "BBAN"}},
			&agent{institution{Clearing: &clearing{System: "SESBA", Member: PlusgiroClearing}}}, nil
	case a.IBAN != "":
		var ag *agent
		if a.BIC != "" {
			ag = &agent{institution{BIC: a.BIC}}
		}
		return cashAccount{IBAN: strings.ReplaceAll(a.IBAN, " ", "")}, ag, nil
	case a.Clearing != "" && a.Number != "":
		c := digits(a.Clearing)
		return cashAccount{Other: &other{ID: c + digits(a.Number), SchemeCode: "BBAN"}},
			&agent{institution{Clearing: &clearing{System: "SESBA", Member: c}}}, nil
	}
	return cashAccount{}, nil, fmt.Errorf("no bankgiro, plusgiro, IBAN or clearing and account number")
}

// digits keeps the digits of s: giro and account numbers are written
// with dashes and spaces.
func digits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// clip cuts s to n characters, as the schema's MaxNText allows.
func clip(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}
