package bas

// groups are the names BAS gives its account groups (the first two
// digits) of the balance sheet, classes 1 and 2.
var groups = map[string]string{
	"10": "Immateriella anläggningstillgångar",
	"11": "Byggnader och mark",
	"12": "Maskiner och inventarier",
	"13": "Finansiella anläggningstillgångar",
	"14": "Lager, produkter i arbete och pågående arbeten",
	"15": "Kundfordringar",
	"16": "Övriga kortfristiga fordringar",
	"17": "Förutbetalda kostnader och upplupna intäkter",
	"18": "Kortfristiga placeringar",
	"19": "Kassa och bank",
	"20": "Eget kapital",
	"21": "Obeskattade reserver",
	"22": "Avsättningar",
	"23": "Långfristiga skulder",
	"24": "Kortfristiga skulder till kreditinstitut, kunder och leverantörer",
	"25": "Skatteskulder",
	"26": "Moms och punktskatter",
	"27": "Personalens skatter, avgifter och löneavdrag",
	"28": "Övriga kortfristiga skulder",
	"29": "Upplupna kostnader och förutbetalda intäkter",
}

// GroupName is the BAS name of the balance-sheet account group g (two
// digits, 10-29), "" for another.
func GroupName(g string) string { return groups[g] }
