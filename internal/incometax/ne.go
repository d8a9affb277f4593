package incometax

import (
	"github.com/kontera/kontera/internal/bas"
	"github.com/kontera/kontera/internal/money"
)

// neField is a field of the NE appendix with its SRU code.
type neField struct {
	field, sru string
}

// NEFields are the NE appendix's fields in form order: the balance sheet
// B1-B16, then the result R1-R11.
var NEFields = []neField{
	{"B1", "7200"}, {"B2", "7210"}, {"B3", "7211"}, {"B4", "7212"}, {"B5", "7213"}, {"B6", "7240"}, {"B7", "7250"},
	{"B8", "7260"}, {"B9", "7280"}, {"B10", "7300"}, {"B11", "7320"}, {"B12", "7330"}, {"B13", "7380"},
	{"B14", "7381"}, {"B15", "7382"}, {"B16", "7383"},
	{"R1", "7400"}, {"R2", "7401"}, {"R3", "7402"}, {"R4", "7403"}, {"R5", "7500"}, {"R6", "7501"}, {"R7", "7502"},
	{"R8", "7503"}, {"R9", "7504"}, {"R10", "7505"}, {"R11", "7440"},
}

// NEFieldOf is the NE field of account n (identifiers.md's table), "" for
// none (8990-8999 carry the result to equity). A sales account falls in
// R1 when it is subject to VAT (taxable says so), else in R2. Every
// balance account and every result account of 3000-8989 has one field,
// so the R fields sum to R11.
func NEFieldOf(n string, taxable bool) string {
	g2, g3 := n[:2], n[:3]
	switch {
	case g2 == "10":
		return "B1"
	case n == "1130" || n == "1140" || n == "1180" || n == "1291":
		return "B3"
	case g2 == "11":
		return "B2"
	case g2 == "12":
		return "B4"
	case g2 == "13":
		return "B5"
	case g2 == "14":
		return "B6"
	case g2 == "15":
		return "B7"
	case g2 == "16" || g2 == "17" || g2 == "18":
		return "B8"
	case g2 == "19":
		return "B9"
	case g2 == "20":
		return "B10"
	case g2 == "21":
		return "B11"
	case g2 == "22":
		return "B12"
	case g2 == "23" || g3 == "241" || g3 == "248":
		return "B13"
	case g2 == "25" || g2 == "26" || g3 == "271" || g3 == "273":
		return "B14"
	case g3 >= "244" && g3 <= "247":
		return "B15"
	case n < "3000":
		return "B16"
	case n < "4000" && g2 != "38":
		if taxable {
			return "R1"
		}
		return "R2"
	case g2 == "38":
		return "R2"
	case n < "5000":
		return "R5"
	case n < "7000":
		return "R6"
	case n < "7700":
		return "R7"
	case g3 == "777" || g3 == "782":
		return "R9"
	case n < "7900":
		return "R10"
	case n < "8000":
		return "R6"
	case n < "8400":
		return "R4"
	case n < "8990":
		return "R8"
	}
	return ""
}

// creditB are the balance fields of equity and liabilities, which count
// credit balances as positive.
var creditB = map[string]bool{"B10": true, "B11": true, "B12": true, "B13": true, "B14": true, "B15": true, "B16": true}

// incomeR are the R fields that count credit as positive; the others
// count costs as positive.
var incomeR = map[string]bool{"R1": true, "R2": true, "R3": true, "R4": true}

// NE is a sole trader's appendix: each field in whole kronor and the
// accounts behind it.
type NE struct {
	Fields    map[string]int64
	Breakdown map[string][]string
	Warnings  []Warning
}

// BuildNE draws the NE appendix from the year's accounts (as BuildINK2
// takes them); taxable says which sales accounts carry VAT. unclosed is
// the year's result not yet moved to equity, part of B10.
func BuildNE(accounts []Account, taxable func(string) bool, unclosed money.Amount) NE {
	out := NE{Fields: map[string]int64{}, Breakdown: map[string][]string{}}
	sums := map[string]money.Amount{}
	for _, a := range accounts {
		if a.Amount.IsZero() {
			continue
		}
		f := NEFieldOf(a.Number, taxable(a.Number))
		switch a.Sheet {
		case "":
		case bas.Asset:
			f = "B8" // övriga fordringar: no BAS group holds it
		default:
			f = "B16" // övriga skulder
		}
		if f == "" {
			continue
		}
		v := a.Amount
		switch {
		case creditB[f]: // equity and liabilities: credit balances
			v = v.Neg()
		case f[0] == 'R' && !incomeR[f]:
			v = v.Neg()
		}
		sums[f] = sums[f].Add(v)
		out.Breakdown[f] = append(out.Breakdown[f], a.Number)
	}
	sums["B10"] = sums["B10"].Add(unclosed)
	for f, v := range sums {
		out.Fields[f] = v.Kronor()
	}
	// R11, the booked result, from the fields as filed.
	r11 := out.Fields["R1"] + out.Fields["R2"] + out.Fields["R3"] + out.Fields["R4"]
	for _, f := range []string{"R5", "R6", "R7", "R8", "R9", "R10"} {
		r11 -= out.Fields[f]
	}
	out.Fields["R11"] = r11
	for _, f := range NEFields {
		if _, ok := out.Fields[f.field]; !ok {
			out.Fields[f.field] = 0
		}
	}
	out.Warnings = append(out.Warnings, Warning{Code: "NE_R3_NOT_DERIVED",
		Message: "R3 (bil- och bostadsförmån m.m.) och NE-bilagans skattemässiga justeringar (R12 och framåt) härleds inte ur bokföringen."})
	return out
}

// Codes are the NE fields by SRU code, the zero fields left out, as the
// SRU file takes them.
func (n NE) Codes() map[string]int64 {
	out := map[string]int64{}
	for _, f := range NEFields {
		if v := n.Fields[f.field]; v != 0 {
			out[f.sru] = v
		}
	}
	return out
}
