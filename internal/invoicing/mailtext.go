package invoicing

import (
	"strings"
)

// builtIn is the wording of an invoice e-mail where the settings give
// none, by language.
var builtIn = map[string]EmailText{
	"sv": {
		Subject:  "{dokument} {fakturanummer} från {företag}",
		Greeting: "Hej {förnamn}!",
		Body:     "Här kommer {dokument_lc} {fakturanummer} på {belopp}, att betala senast {förfallodatum}. Den finns som PDF i det här mejlet.",
		Signoff:  "Med vänliga hälsningar\n{företag}",
	},
	"en": {
		Subject:  "{dokument} {fakturanummer} from {företag}",
		Greeting: "Hello {förnamn},",
		Body:     "Please find attached {dokument_lc} {fakturanummer} for {belopp}, due on {förfallodatum}.",
		Signoff:  "Kind regards\n{företag}",
	},
}

// englishTitles are the documents' names in English e-mails.
var englishTitles = map[string]string{"Faktura": "Invoice", "Kreditfaktura": "Credit note", "Offert": "Quote",
	"Proformafaktura": "Pro forma invoice", "Följesedel": "Delivery note"}

// Placeholders are the values an e-mail's texts may name.
type Placeholders struct {
	Number, Customer, FirstName, Company, Due, Amount, Document string
}

// fill writes the placeholders into text: {fakturanummer} {kundnamn}
// {förnamn} {företag} {förfallodatum} {belopp}, and the document's name.
func (p Placeholders) fill(text string) string {
	return strings.NewReplacer("{fakturanummer}", p.Number, "{kundnamn}", p.Customer, "{förnamn}", p.FirstName,
		"{företag}", p.Company, "{förfallodatum}", p.Due, "{belopp}", p.Amount, "{dokument}", p.Document,
		"{dokument_lc}", strings.ToLower(p.Document)).Replace(text)
}

// Wording answers the subject and body of an invoice's e-mail: the
// caller's own when given, else the settings' text in the customer's
// language, else the built-in one, part by part; placeholders filled.
func Wording(lang string, set map[string]EmailText, p Placeholders, subject, body *string) (string, string) {
	if _, ok := builtIn[lang]; !ok {
		lang = "sv"
	}
	if lang == "en" {
		if t, ok := englishTitles[p.Document]; ok {
			p.Document = t
		}
	}
	t, def := set[lang], builtIn[lang]
	pick := func(own, fallback string) string {
		if strings.TrimSpace(own) != "" {
			return own
		}
		return fallback
	}
	subj := p.fill(pick(t.Subject, def.Subject))
	text := p.fill(strings.Join([]string{pick(t.Greeting, def.Greeting), pick(t.Body, def.Body), pick(t.Signoff, def.Signoff)}, "\n\n"))
	if subject != nil && strings.TrimSpace(*subject) != "" {
		subj = p.fill(strings.TrimSpace(*subject))
	}
	if body != nil && strings.TrimSpace(*body) != "" {
		text = p.fill(*body)
	}
	return strings.Join(strings.Fields(subj), " "), text
}

// firstName is who an e-mail greets: the contact's first name, or an
// individual's; a business without a contact is greeted by its name.
func firstName(a Addressee) string {
	switch {
	case a.Contact != "":
		return strings.Fields(a.Contact)[0]
	case a.Individual && a.Name != "":
		return strings.Fields(a.Name)[0]
	}
	return a.Name
}
