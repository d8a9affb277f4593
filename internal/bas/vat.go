package bas

// VAT is an account's default VAT: the rate as a decimal fraction ("0.25")
// and the treatment invoices and purchases booked on it get. The zero
// value means the account carries no VAT default.
type VAT struct {
	Rate      string
	Treatment string
}

// None reports whether v is no default.
func (v VAT) None() bool { return v.Treatment == "" }

// Treatments are the VAT treatments an account default may name.
var Treatments = []string{
	"standard_25", "reduced_12", "reduced_6", "exempt", "reverse_charge_domestic", "reverse_charge_eu_goods",
	"reverse_charge_eu_services", "reverse_charge_non_eu_services", "export_goods", "export_services", "vmb",
	"rental_voluntary", "oss", "triangulation_eu_goods", "own_use", "import_goods",
}

// vatOf holds the defaults of the BAS accounts whose very meaning fixes a
// VAT treatment: the sales accounts split by rate and market (30-34) and
// the purchase accounts for reverse charge and import (44-45). Other
// accounts leave VAT to the document being booked.
var vatOf = map[string]VAT{
	"3001": {"0.25", "standard_25"}, "3002": {"0.12", "reduced_12"}, "3003": {"0.06", "reduced_6"},
	"3004": {"0", "exempt"},
	"3105": {"0", "export_goods"}, "3106": {"0.25", "standard_25"}, "3108": {"0", "reverse_charge_eu_goods"},
	"3211": {"0.25", "vmb"}, "3212": {"0.25", "vmb"},
	"3305": {"0", "export_services"}, "3308": {"0", "reverse_charge_eu_services"},
	"3401": {"0.25", "own_use"}, "3402": {"0.12", "own_use"}, "3403": {"0.06", "own_use"}, "3404": {"0", "exempt"},
	"4415": {"0.25", "reverse_charge_domestic"}, "4416": {"0.12", "reverse_charge_domestic"},
	"4417": {"0.06", "reverse_charge_domestic"},
	"4425": {"0.25", "reverse_charge_domestic"}, "4426": {"0.12", "reverse_charge_domestic"},
	"4427": {"0.06", "reverse_charge_domestic"},
	"4515": {"0.25", "reverse_charge_eu_goods"}, "4516": {"0.12", "reverse_charge_eu_goods"},
	"4517": {"0.06", "reverse_charge_eu_goods"}, "4518": {"0", "reverse_charge_eu_goods"},
	"4531": {"0.25", "reverse_charge_non_eu_services"}, "4532": {"0.12", "reverse_charge_non_eu_services"},
	"4533": {"0.06", "reverse_charge_non_eu_services"},
	"4535": {"0.25", "reverse_charge_eu_services"}, "4536": {"0.12", "reverse_charge_eu_services"},
	"4537": {"0.06", "reverse_charge_eu_services"}, "4538": {"0", "reverse_charge_eu_services"},
	"4545": {"0.25", "import_goods"}, "4546": {"0.12", "import_goods"}, "4547": {"0.06", "import_goods"},
}

// Dormant is the vilande account VAT booked on account waits on until
// its condition is met (kontantmetoden's payment): output VAT 2610-2637
// on 2618, 2628 or 2638 by its rate group, input VAT 2640-2649 on 2648.
// "" for an account that is not a VAT account, or already dormant.
func Dormant(account string) string {
	if len(account) != 4 || account[:2] != "26" || account[3] == '8' {
		return ""
	}
	switch account[2] {
	case '1', '2', '3':
		return account[:3] + "8"
	case '4':
		return "2648"
	}
	return ""
}
