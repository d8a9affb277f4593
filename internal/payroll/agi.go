package payroll

import (
	"encoding/xml"
	"fmt"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/kontera/kontera/internal/apierr"
)

// The AGI's schema 1.1 namespaces: the instance (the root) and the
// components (everything in it).
const (
	AGIInstance  = "http://xmls.skatteverket.se/se/skatteverket/da/instans/schema/1.1"
	AGIComponent = "http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1"
	agiSchema    = "http://xmls.skatteverket.se/se/skatteverket/da/arbetsgivardeklaration/arbetsgivardeklaration_1.1.xsd"
)

// The AGI periods the format changed at: Frånvarouppgift from 202501.
const absenceReportFrom = "202501"

// AGI is one arbetsgivardeklaration on individual level: the employer,
// the period (the payment month, YYYYMM), the persons and their absence.
type AGI struct {
	OrgNumber  string // 10 digits, or a sole trader's 12
	Period     string
	Contact    [3]string // name, phone, e-mail
	Created    time.Time
	Correction bool
	Persons    []AGIPerson
	Absence    []AGIAbsence
	// TotalAvgifter is what the employer declares in whole kronor (487);
	// the tax (497) is the persons' sum.
	TotalAvgifter int64
}

// AGIPerson is one individuppgift, in whole kronor.
type AGIPerson struct {
	Personnummer string // 12 digits
	Spec         int    // 570
	Tax          int64  // 001
	Cash         int64  // 011
	Benefits     int64  // 012
	CarBenefit   int64  // 013
	FuelBenefit  int64  // 018
	FSkatt       int64  // 131
	Removed      bool   // 205: a correction takes the first file's IU away
}

// AGIAbsence is one day of VAB or parental leave (Frånvarouppgift).
type AGIAbsence struct {
	Personnummer string
	Spec         int
	Day          time.Time
	Parental     bool // FORALDRAPENNING; else TILLFALLIG_FORALDRAPENNING (VAB)
	Hours        *apd.Decimal
}

// TotalTax is the declared tax: the persons' sum (497).
func (a AGI) TotalTax() int64 {
	var n int64
	for _, p := range a.Persons {
		if !p.Removed {
			n += p.Tax
		}
	}
	return n
}

// agiID is an employer as the AGI identifies it: an organisation number
// as 16 and its ten digits; a sole trader's personnummer with its
// century, as it comes.
func agiID(org string) string {
	if len(org) == 12 {
		return org
	}
	return "16" + org
}

type field struct {
	Code  string `xml:"faltkod,attr"`
	Value string `xml:",chardata"`
}

func fk(code string, v string) *field { return &field{Code: code, Value: v} }

// amount is a whole-krona field, left out when zero.
func amount(code string, v int64) *field {
	if v == 0 {
		return nil
	}
	return fk(code, fmt.Sprint(v))
}

type contact struct {
	Name  string `xml:"agd:Namn"`
	Phone string `xml:"agd:Telefon"`
	Email string `xml:"agd:Epostadress"`
}

type agiRoot struct {
	XMLName   xml.Name       `xml:"Skatteverket"`
	Omrade    string         `xml:"omrade,attr"`
	Xmlns     string         `xml:"xmlns,attr"`
	Agd       string         `xml:"xmlns:agd,attr"`
	Xsi       string         `xml:"xmlns:xsi,attr"`
	Location  string         `xml:"xsi:schemaLocation,attr"`
	Avsandare avsandare      `xml:"agd:Avsandare"`
	Common    blankettCommon `xml:"agd:Blankettgemensamt"`
	Forms     []blankett     `xml:"agd:Blankett"`
	Absence   []franvaroUppg `xml:"agd:Franvarouppgift"`
}

type avsandare struct {
	Program string  `xml:"agd:Programnamn"`
	Org     string  `xml:"agd:Organisationsnummer"`
	Tech    contact `xml:"agd:TekniskKontaktperson"`
	Created string  `xml:"agd:Skapad"`
}

type blankettCommon struct {
	Employer struct {
		ID      string  `xml:"agd:AgRegistreradId"`
		Contact contact `xml:"agd:Kontaktperson"`
	} `xml:"agd:Arbetsgivare"`
}

type blankett struct {
	Case struct {
		Owner  string `xml:"agd:Arendeagare"`
		Period string `xml:"agd:Period"`
	} `xml:"agd:Arendeinformation"`
	Content struct {
		HU *hu `xml:"agd:HU,omitempty"`
		IU *iu `xml:"agd:IU,omitempty"`
	} `xml:"agd:Blankettinnehall"`
}

type hu struct {
	Employer struct {
		ID *field `xml:"agd:AgRegistreradId"`
	} `xml:"agd:ArbetsgivareHUGROUP"`
	Period   *field `xml:"agd:RedovisningsPeriod"`
	Avgifter *field `xml:"agd:SummaArbAvgSlf"`
	Tax      *field `xml:"agd:SummaSkatteavdr"`
}

type iu struct {
	Employer struct {
		ID *field `xml:"agd:AgRegistreradId"`
	} `xml:"agd:ArbetsgivareIUGROUP"`
	Payee struct {
		Choice struct {
			ID *field `xml:"agd:BetalningsmottagarId"`
		} `xml:"agd:BetalningsmottagareIDChoice"`
	} `xml:"agd:BetalningsmottagareIUGROUP"`
	Period      *field `xml:"agd:RedovisningsPeriod"`
	Spec        *field `xml:"agd:Specifikationsnummer"`
	Removed     *field `xml:"agd:Borttag,omitempty"`
	Tax         *field `xml:"agd:AvdrPrelSkatt,omitempty"`
	Cash        *field `xml:"agd:KontantErsattningUlagAG,omitempty"`
	Benefits    *field `xml:"agd:SkatteplOvrigaFormanerUlagAG,omitempty"`
	CarBenefit  *field `xml:"agd:SkatteplBilformanUlagAG,omitempty"`
	FuelBenefit *field `xml:"agd:DrivmVidBilformanUlagAG,omitempty"`
	FSkatt      *field `xml:"agd:KontantErsattningEjUlagSA,omitempty"`
}

type franvaroUppg struct {
	Employer *field `xml:"agd:AgRegistreradId"`
	Period   *field `xml:"agd:RedovisningsPeriod"`
	Day      *field `xml:"agd:FranvaroDatum"`
	Payee    *field `xml:"agd:BetalningsmottagarId"`
	Spec     *field `xml:"agd:FranvaroSpecifikationsnummer"`
	Choice   struct {
		Type *field `xml:"agd:FranvaroTyp"`
	} `xml:"agd:FranvaroChoice"`
	HoursTFP *field `xml:"agd:FranvaroTimmarTFP,omitempty"`
	HoursFP  *field `xml:"agd:FranvaroTimmarFP,omitempty"`
}

// Missing lists what the AGI lacks: the employer's organisation number
// and the contact Skatteverket asks for.
func (a AGI) Missing() []string {
	var out []string
	if len(a.OrgNumber) != 10 && len(a.OrgNumber) != 12 {
		out = append(out, "organisationsnummer")
	}
	for i, name := range []string{"agi_contact_name", "agi_contact_phone", "agi_contact_email"} {
		if a.Contact[i] == "" {
			out = append(out, name)
		}
	}
	for _, p := range a.Persons {
		if len(p.Personnummer) != 12 {
			out = append(out, "personnummer")
			break
		}
	}
	return out
}

// XML writes the AGI in the schema 1.1 form (SKV 4785): the sender, the
// employer, a huvuduppgift with the sums (487 avgifter, 497 tax), an
// individuppgift per person (201, 215, 006, 570 and the amounts in whole
// kronor, öre dropped; a zero left out) and, from 202501, a
// Frånvarouppgift per day of VAB or parental leave (821–827). Field 499
// (retired after 202406) and 062/063 (after 202512) are never written.
// An AGI lacking its employer or contact is AGI_INCOMPLETE_DATA.
func (a AGI) XML() ([]byte, error) {
	if m := a.Missing(); len(m) > 0 {
		return nil, apierr.New(apierr.AGIIncompleteData, map[string]any{"missing": m})
	}
	id := agiID(a.OrgNumber)
	c := contact{Name: a.Contact[0], Phone: a.Contact[1], Email: a.Contact[2]}
	root := agiRoot{Omrade: "Arbetsgivardeklaration", Xmlns: AGIInstance, Agd: AGIComponent,
		Xsi: "http://www.w3.org/2001/XMLSchema-instance", Location: AGIInstance + " " + agiSchema,
		Avsandare: avsandare{Program: "Kontera", Org: id, Tech: c, Created: a.Created.UTC().Format("2006-01-02T15:04:05")}}
	root.Common.Employer.ID, root.Common.Employer.Contact = id, c
	form := func() blankett {
		var b blankett
		b.Case.Owner, b.Case.Period = id, a.Period
		return b
	}
	head := form()
	h := &hu{Period: fk("006", a.Period), Avgifter: fk("487", fmt.Sprint(a.TotalAvgifter)), Tax: fk("497", fmt.Sprint(a.TotalTax()))}
	h.Employer.ID = fk("201", id)
	head.Content.HU = h
	root.Forms = append(root.Forms, head)
	for _, p := range a.Persons {
		f := form()
		u := &iu{Period: fk("006", a.Period), Spec: fk("570", fmt.Sprint(p.Spec))}
		u.Employer.ID = fk("201", id)
		u.Payee.Choice.ID = fk("215", p.Personnummer)
		if p.Removed {
			u.Removed = fk("205", "1")
		} else {
			u.Tax, u.Cash, u.Benefits = amount("001", p.Tax), amount("011", p.Cash), amount("012", p.Benefits)
			u.CarBenefit, u.FuelBenefit, u.FSkatt = amount("013", p.CarBenefit), amount("018", p.FuelBenefit), amount("131", p.FSkatt)
		}
		f.Content.IU = u
		root.Forms = append(root.Forms, f)
	}
	if a.Period >= absenceReportFrom {
		for i, ab := range a.Absence {
			f := franvaroUppg{Employer: fk("201", id), Period: fk("006", a.Period), Day: fk("821", ab.Day.Format(time.DateOnly)),
				Payee: fk("215", ab.Personnummer), Spec: fk("822", fmt.Sprint(i+1))}
			var reduced apd.Decimal
			reduced.Reduce(ab.Hours)
			hours := reduced.Text('f')
			if ab.Parental {
				f.Choice.Type, f.HoursFP = fk("823", "FORALDRAPENNING"), fk("827", hours)
			} else {
				f.Choice.Type, f.HoursTFP = fk("823", "TILLFALLIG_FORALDRAPENNING"), fk("825", hours)
			}
			root.Absence = append(root.Absence, f)
		}
	}
	body, err := xml.MarshalIndent(root, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(body, '\n')...), nil
}
