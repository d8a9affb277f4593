package reports

import (
	"sort"

	"github.com/kontera/kontera/internal/money"
)

type span struct{ lo, hi string }

func in(n string, spans []span) bool {
	for _, s := range spans {
		if n >= s.lo && n <= s.hi {
			return true
		}
	}
	return false
}

// Field is a row of the income statement: an INK2R field (3.1-3.25)
// with the BAS accounts BAS-kontogruppen couples to it, which follow
// ÅRL's schema for the income statement by nature of expense.
type Field struct {
	Field, SRU, Label string
	spans             []span
}

// The sections of the income statement and the subtotals after them.
const (
	SectionOperatingIncome   = "rorelseintakter"
	SectionOperatingExpenses = "rorelsekostnader"
	SectionFinancial         = "finansiella_poster"
	SectionAppropriations    = "bokslutsdispositioner"
	SectionOther             = "ovriga_poster"
	SectionTax               = "skatt"
)

// IncomeSection is a section of the income statement: its fields, and
// the subtotal that closes it (empty for none).
type IncomeSection struct {
	Key, Title            string
	Fields                []Field
	SubtotalKey, SubLabel string
	subtotalAfterOthers   bool
}

// IncomeLayout is the income statement's sections in order, as the INK2R
// intervals place the accounts (identifiers.md). 8990-8999 only carry
// the result to equity and belong to no field. An account of 3000-8989
// outside every interval (no BAS account is) goes to "other items".
var IncomeLayout = []IncomeSection{
	{Key: SectionOperatingIncome, Title: "Rörelseintäkter, lagerförändringar m.m.", Fields: []Field{
		{"3.1", "7410", "Nettoomsättning", []span{{"3000", "3799"}}},
		{"3.2", "7411", "Förändring av lager av produkter i arbete, färdiga varor och pågående arbete för annans räkning",
			[]span{{"4900", "4909"}, {"4930", "4959"}, {"4970", "4979"}, {"4990", "4999"}}},
		{"3.3", "7412", "Aktiverat arbete för egen räkning", []span{{"3800", "3899"}}},
		{"3.4", "7413", "Övriga rörelseintäkter", []span{{"3900", "3999"}}},
	}},
	{Key: SectionOperatingExpenses, Title: "Rörelsekostnader", SubtotalKey: "rorelseresultat", SubLabel: "Rörelseresultat",
		Fields: []Field{
			{"3.5", "7511", "Råvaror och förnödenheter", []span{{"4000", "4199"}, {"4300", "4799"}, {"4910", "4929"}}},
			{"3.6", "7512", "Handelsvaror", []span{{"4200", "4299"}, {"4960", "4969"}, {"4980", "4989"}}},
			{"3.7", "7513", "Övriga externa kostnader", []span{{"5000", "6999"}}},
			{"3.8", "7514", "Personalkostnader", []span{{"7000", "7699"}}},
			{"3.9", "7515", "Av- och nedskrivningar av materiella och immateriella anläggningstillgångar",
				[]span{{"7700", "7739"}, {"7750", "7789"}, {"7800", "7899"}}},
			{"3.10", "7516", "Nedskrivningar av omsättningstillgångar utöver normala nedskrivningar",
				[]span{{"7740", "7749"}, {"7790", "7799"}}},
			{"3.11", "7517", "Övriga rörelsekostnader", []span{{"7900", "7999"}}},
		}},
	{Key: SectionFinancial, Title: "Finansiella poster", SubtotalKey: "resultat_efter_finansiella_poster",
		SubLabel: "Resultat efter finansiella poster", Fields: []Field{
			{"3.12", "7414", "Resultat från andelar i koncernföretag", []span{{"8000", "8069"}, {"8090", "8099"}}},
			{"3.13", "7415", "Resultat från andelar i intresseföretag och gemensamt styrda företag",
				[]span{{"8100", "8112"}, {"8114", "8117"}, {"8119", "8122"}, {"8124", "8132"}, {"8134", "8169"}, {"8190", "8199"}}},
			{"3.14", "7423", "Resultat från övriga företag som det finns ett ägarintresse i",
				[]span{{"8113", "8113"}, {"8118", "8118"}, {"8123", "8123"}, {"8133", "8133"}}},
			{"3.15", "7416", "Resultat från övriga finansiella anläggningstillgångar", []span{{"8200", "8269"}, {"8290", "8299"}}},
			{"3.16", "7417", "Övriga ränteintäkter och liknande resultatposter", []span{{"8300", "8369"}, {"8390", "8399"}}},
			{"3.17", "7521", "Nedskrivningar av finansiella anläggningstillgångar och kortfristiga placeringar",
				[]span{{"8070", "8089"}, {"8170", "8189"}, {"8270", "8289"}, {"8370", "8389"}}},
			{"3.18", "7522", "Räntekostnader och liknande resultatposter", []span{{"8400", "8499"}}},
		}},
	{Key: SectionAppropriations, Title: "Bokslutsdispositioner", SubtotalKey: "resultat_fore_skatt",
		SubLabel: "Resultat före skatt", subtotalAfterOthers: true, Fields: []Field{
			{"3.19", "7524", "Lämnade koncernbidrag", []span{{"8830", "8839"}}},
			{"3.20", "7419", "Mottagna koncernbidrag", []span{{"8820", "8829"}}},
			{"3.21", "7420", "Återföring av periodiseringsfond", nil},
			{"3.22", "7525", "Avsättning till periodiseringsfond", nil},
			{"3.23", "7421", "Förändring av överavskrivningar", []span{{"8850", "8859"}}},
			{"3.24", "7422", "Övriga bokslutsdispositioner", []span{{"8840", "8849"}, {"8860", "8899"}}},
		}},
	{Key: SectionTax, Title: "Skatter", SubtotalKey: "arets_resultat", SubLabel: "Årets resultat", Fields: []Field{
		{"3.25", "7528", "Skatt på årets resultat", []span{{"8900", "8989"}}},
	}},
}

// periodiseringsfond are the accounts of 3.21 and 3.22: a reversal
// (credit) or an allocation (debit), told apart by the account's sign.
var periodiseringsfond = span{"8810", "8819"}

// FieldOf is the income-statement field of account n whose amount (credit
// minus debit) is amt: "" for an account outside every field (8990-8999
// and the balance sheet's classes 1-2). ok is false for an account of the
// result no interval holds: one of 3000-8989, or an internal account of
// class 0 or 9 an import kept as a result account (an obs-konto).
func FieldOf(n string, amt money.Amount) (field string, ok bool) {
	switch {
	case n >= "8990" && n <= "8999", n >= "1000" && n < "3000":
		return "", true
	case n < "3000" || n > "8989":
		return "", false
	}
	if n >= periodiseringsfond.lo && n <= periodiseringsfond.hi {
		if amt.Sign() > 0 {
			return "3.21", true
		}
		return "3.22", true
	}
	for _, s := range IncomeLayout {
		for _, f := range s.Fields {
			if in(n, f.spans) {
				return f.Field, true
			}
		}
	}
	return "", false
}

// Figures are an account's amount now and in the comparison period.
type Figures struct {
	Amount, Previous money.Amount
}

// StatementAccount is an account on a statement row.
type StatementAccount struct {
	Account string
	Figures
}

// IncomeRow is a field of the income statement with its accounts.
type IncomeRow struct {
	Field    Field
	Accounts []StatementAccount
	Figures
}

// IncomeStatement is the laid-out statement: sections with their rows and
// the subtotals, amounts as credit minus debit (income positive, costs
// negative).
type IncomeStatement struct {
	Sections []IncomeStatementSection
	// Totals are the subtotals by key, and nettoomsattning (3.1) and
	// total_revenue (class 3).
	Totals map[string]Figures
}

// IncomeStatementSection is a section as laid out.
type IncomeStatementSection struct {
	IncomeSection
	Rows     []IncomeRow
	Subtotal *Figures
}

// LayIncome lays out the income statement from each account's amount
// (credit minus debit) now and in the comparison period. Accounts
// outside classes 3-8 and 8990-8999 are left out.
func LayIncome(now, previous map[string]money.Amount) IncomeStatement {
	accounts := map[string]Figures{}
	for n, a := range now {
		f := accounts[n]
		f.Amount = a
		accounts[n] = f
	}
	for n, a := range previous {
		f := accounts[n]
		f.Previous = a
		accounts[n] = f
	}
	numbers := make([]string, 0, len(accounts))
	for n := range accounts {
		numbers = append(numbers, n)
	}
	sort.Strings(numbers)
	rows := map[string]*IncomeRow{}
	var other IncomeRow
	other.Field = Field{Label: "Övriga poster utanför INK2R:s fält"}
	out := IncomeStatement{Totals: map[string]Figures{}}
	add := func(r *IncomeRow, n string, f Figures) {
		r.Accounts = append(r.Accounts, StatementAccount{Account: n, Figures: f})
		r.Amount, r.Previous = r.Amount.Add(f.Amount), r.Previous.Add(f.Previous)
	}
	for _, n := range numbers {
		f := accounts[n]
		if f.Amount.IsZero() && f.Previous.IsZero() {
			continue
		}
		if n >= "3000" && n <= "3999" {
			t := out.Totals["total_revenue"]
			out.Totals["total_revenue"] = Figures{t.Amount.Add(f.Amount), t.Previous.Add(f.Previous)}
		}
		// A periodiseringsfond account is placed by its sign now, or its
		// sign last year when it has none now.
		sign := f.Amount
		if sign.IsZero() {
			sign = f.Previous
		}
		field, ok := FieldOf(n, sign)
		switch {
		case !ok:
			add(&other, n, f)
		case field != "":
			if rows[field] == nil {
				rows[field] = &IncomeRow{}
			}
			add(rows[field], n, f)
		}
	}
	var running Figures
	for _, s := range IncomeLayout {
		sec := IncomeStatementSection{IncomeSection: s, Rows: []IncomeRow{}}
		for _, f := range s.Fields {
			r := IncomeRow{Field: f, Accounts: []StatementAccount{}}
			if got := rows[f.Field]; got != nil {
				r.Accounts, r.Figures = got.Accounts, got.Figures
			}
			sec.Rows = append(sec.Rows, r)
			running = Figures{running.Amount.Add(r.Amount), running.Previous.Add(r.Previous)}
			if f.Field == "3.1" {
				out.Totals["nettoomsattning"] = r.Figures
			}
		}
		if s.subtotalAfterOthers && len(other.Accounts) > 0 {
			// The other items come before the subtotal the section closes.
			sec.SubtotalKey, sec.SubLabel = "", ""
			out.Sections = append(out.Sections, sec)
			running = Figures{running.Amount.Add(other.Amount), running.Previous.Add(other.Previous)}
			sec = IncomeStatementSection{IncomeSection: IncomeSection{Key: SectionOther, Title: "Övriga poster",
				SubtotalKey: s.SubtotalKey, SubLabel: s.SubLabel}, Rows: []IncomeRow{other}}
		}
		if sec.SubtotalKey != "" {
			t := running
			sec.Subtotal = &t
			out.Totals[sec.SubtotalKey] = t
		}
		out.Sections = append(out.Sections, sec)
	}
	for _, k := range []string{"nettoomsattning", "total_revenue"} {
		if _, ok := out.Totals[k]; !ok {
			out.Totals[k] = Figures{}
		}
	}
	return out
}
