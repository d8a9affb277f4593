package chart

import "github.com/kontera/kontera/internal/bas"

// TriangulationAccount is where the middle party's sale in trepartshandel
// books its revenue: BAS has no account for ruta 38 and leaves it to the
// company, so Kontera names one.
const TriangulationAccount = "3107"

// own are the accounts Kontera books on where BAS has none; the chart
// takes one up as it takes up a BAS account (Ensure), with its VAT
// default, so the VAT return puts it in its box.
var own = map[string]bas.Account{TriangulationAccount: ownAccount(TriangulationAccount,
	"Försäljning varor inom EU, trepartshandel (mellanman)", "7410", bas.VAT{Rate: "0", Treatment: "triangulation_eu_goods"})}

func ownAccount(n, name, sru string, vat bas.VAT) bas.Account {
	a := bas.Account{Number: n, Name: name, SRU: sru, VAT: vat}
	a.Type = bas.TypeOf(n, sru)
	a.NormalBalance = bas.NormalBalanceOf(n, name, a.Type)
	return a
}

// lookup is the account n of BAS, or of Kontera's own where BAS has none.
func lookup(n string) (bas.Account, bool) {
	if a, ok := bas.Lookup(n); ok {
		return a, true
	}
	a, ok := own[n]
	return a, ok
}
