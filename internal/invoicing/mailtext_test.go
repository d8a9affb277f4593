package invoicing

import "testing"

func TestWording(t *testing.T) {
	p := Placeholders{Number: "2026-0042", Customer: "Åkesson & Söner AB", FirstName: "Eva", Company: "Fjällbacka Snickeri AB",
		Due: "2026-03-31", Amount: "12 500,00 kr", Document: "Faktura"}
	subj, body := Wording("sv", nil, p, nil, nil)
	if subj != "Faktura 2026-0042 från Fjällbacka Snickeri AB" {
		t.Errorf("subject %q", subj)
	}
	if body != "Hej Eva!\n\nHär kommer faktura 2026-0042 på 12 500,00 kr, att betala senast 2026-03-31. Den finns som PDF i det här mejlet.\n\nMed vänliga hälsningar\nFjällbacka Snickeri AB" {
		t.Errorf("body %q", body)
	}
	// The settings' own text part by part; English titles; an unknown
	// language is Swedish.
	set := map[string]EmailText{"en": {Subject: "Your {dokument} {fakturanummer}", Signoff: "/{företag}"}}
	subj, body = Wording("en", set, p, nil, nil)
	if subj != "Your Invoice 2026-0042" || body != "Hello Eva,\n\nPlease find attached invoice 2026-0042 for 12 500,00 kr, due on 2026-03-31.\n\n/Fjällbacka Snickeri AB" {
		t.Errorf("en: %q %q", subj, body)
	}
	if subj, _ := Wording("fi", set, p, nil, nil); subj != "Faktura 2026-0042 från Fjällbacka Snickeri AB" {
		t.Errorf("fi: %q", subj)
	}
	// The request's own texts win, placeholders filled; a subject is one line.
	own, text := "Faktura {fakturanummer}\r\nBcc: x@example.se", "Hej {kundnamn}, {belopp}."
	subj, body = Wording("sv", set, p, &own, &text)
	if subj != "Faktura 2026-0042 Bcc: x@example.se" || body != "Hej Åkesson & Söner AB, 12 500,00 kr." {
		t.Errorf("own: %q %q", subj, body)
	}
	if firstName(Addressee{Name: "Eva Svensson", Individual: true}) != "Eva" ||
		firstName(Addressee{Name: "Bolaget AB", Contact: "Per Olsson"}) != "Per" ||
		firstName(Addressee{Name: "Bolaget AB"}) != "Bolaget AB" {
		t.Error("firstName")
	}
}
