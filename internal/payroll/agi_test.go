package payroll

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/kontera/kontera/internal/apierr"
)

// The decoding side of the test names every element by its namespace,
// so a file whose prefixes or namespaces were wrong would not decode.
type nsField struct {
	Code  string `xml:"faltkod,attr"`
	Value string `xml:",chardata"`
}

type decoded struct {
	XMLName xml.Name `xml:"http://xmls.skatteverket.se/se/skatteverket/da/instans/schema/1.1 Skatteverket"`
	Omrade  string   `xml:"omrade,attr"`
	Sender  struct {
		Org string `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 Organisationsnummer"`
	} `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 Avsandare"`
	Forms []struct {
		Content struct {
			HU *struct {
				Avgifter nsField `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 SummaArbAvgSlf"`
				Tax      nsField `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 SummaSkatteavdr"`
			} `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 HU"`
			IU *struct {
				Payee struct {
					Choice struct {
						ID nsField `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 BetalningsmottagarId"`
					} `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 BetalningsmottagareIDChoice"`
				} `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 BetalningsmottagareIUGROUP"`
				Spec    nsField  `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 Specifikationsnummer"`
				Cash    *nsField `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 KontantErsattningUlagAG"`
				Tax     *nsField `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 AvdrPrelSkatt"`
				FSkatt  *nsField `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 KontantErsattningEjUlagSA"`
				Removed *nsField `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 Borttag"`
			} `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 IU"`
		} `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 Blankettinnehall"`
	} `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 Blankett"`
	Absence []struct {
		Day   nsField `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 FranvaroDatum"`
		Hours nsField `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 FranvaroTimmarTFP"`
	} `xml:"http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1 Franvarouppgift"`
}

func may2026AGI() AGI {
	return AGI{OrgNumber: "5561234567", Period: "202605", Contact: [3]string{"Karin Ek", "060-12 34 56", "lon@example.se"},
		Created: time.Date(2026, 5, 20, 9, 0, 0, 0, time.UTC), TotalAvgifter: 24757,
		Persons: []AGIPerson{{Personnummer: "198503122387", Spec: 1, Cash: 34338, Tax: 6359},
			{Personnummer: "197006014570", Spec: 2, Cash: 28224, Tax: 4986},
			{Personnummer: "200502013741", Spec: 3, Cash: 24516, Tax: 4117}},
		Absence: []AGIAbsence{{Personnummer: "197006014570", Spec: 2, Day: date("2026-05-19"), Hours: apd.New(45, -1)}}}
}

// The May 2026 AGI: FK011 34 338 for Anna, 497 15 462, 487 24 757.
func TestAGIMay2026(t *testing.T) {
	raw, err := may2026AGI().XML()
	if err != nil {
		t.Fatal(err)
	}
	var d decoded
	if err := xml.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	if d.Omrade != "Arbetsgivardeklaration" || d.Sender.Org != "165561234567" || len(d.Forms) != 4 {
		t.Fatalf("decoded %+v", d)
	}
	hu := d.Forms[0].Content.HU
	if hu == nil || hu.Avgifter.Code != "487" || hu.Avgifter.Value != "24757" || hu.Tax.Code != "497" || hu.Tax.Value != "15462" {
		t.Fatalf("HU %+v", hu)
	}
	anna := d.Forms[1].Content.IU
	if anna == nil || anna.Payee.Choice.ID.Value != "198503122387" || anna.Cash == nil || anna.Cash.Code != "011" ||
		anna.Cash.Value != "34338" || anna.Tax.Value != "6359" || anna.Spec.Value != "1" {
		t.Fatalf("Anna's IU %+v", anna)
	}
	if len(d.Absence) != 1 || d.Absence[0].Day.Value != "2026-05-19" || d.Absence[0].Hours.Code != "825" || d.Absence[0].Hours.Value != "4.5" {
		t.Fatalf("absence %+v", d.Absence)
	}
	for _, retired := range []string{`faltkod="499"`, `faltkod="062"`, `faltkod="063"`, ">0<"} {
		if bytes.Contains(raw, []byte(retired)) {
			t.Errorf("the file holds %s", retired)
		}
	}
	// Well-formed by xmllint too, where it is installed (no XSD is
	// committed: Skatteverket's terms for its schema files are not stated).
	if path, err := exec.LookPath("xmllint"); err == nil {
		f := filepath.Join(t.TempDir(), "agi.xml")
		if err := os.WriteFile(f, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(path, "--noout", f).CombinedOutput(); err != nil {
			t.Fatalf("xmllint: %v %s", err, out)
		}
	}
}

func TestAGIRules(t *testing.T) {
	a := may2026AGI()
	a.Period = "202412" // before Frånvarouppgift
	a.Persons = append(a.Persons, AGIPerson{Personnummer: "199001011234", Spec: 4, Removed: true},
		AGIPerson{Personnummer: "198001011234", Spec: 5, FSkatt: 15000})
	raw, err := a.XML()
	if err != nil {
		t.Fatal(err)
	}
	var d decoded
	if err := xml.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Absence) != 0 {
		t.Error("Frånvarouppgift before 202501")
	}
	removed, fskatt := d.Forms[4].Content.IU, d.Forms[5].Content.IU
	if removed.Removed == nil || removed.Removed.Code != "205" || removed.Cash != nil {
		t.Errorf("removed %+v", removed)
	}
	if fskatt.FSkatt == nil || fskatt.FSkatt.Value != "15000" || fskatt.Cash != nil || fskatt.Tax != nil {
		t.Errorf("F-skatt %+v", fskatt)
	}
	a.OrgNumber, a.Contact[1] = "", ""
	_, err = a.XML()
	e, ok := apierr.As(err)
	if !ok || e.Code != apierr.AGIIncompleteData || !strings.Contains(strings.Join(e.Details["missing"].([]string), ","),
		"organisationsnummer,agi_contact_phone") {
		t.Errorf("incomplete: %v", err)
	}
}
