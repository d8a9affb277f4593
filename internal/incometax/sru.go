package incometax

import (
	"archive/zip"
	"bytes"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kontera/kontera/internal/vat"
)

// Form is one blankett of an SRU file: its id (INK2R-2025P4) and its
// fields by code.
type Form struct {
	ID     string
	Fields map[string]int64
}

// Filer is who the SRU file is for: the number (12 digits: 16 and an
// organisationsnummer, or a personnummer with its century), name and
// postal address.
type Filer struct {
	Number, Name, PostalCode, City string
}

// FormPeriod is the period package of a fiscal year ending on end, as
// Skatteverket names its forms: the year and P1 (years ending January to
// April), P2 (May-June), P3 (July-August) or P4 (September-December), the
// groups that share a filing date.
func FormPeriod(end time.Time) string {
	p := 4
	switch m := end.Month(); {
	case m <= time.April:
		p = 1
	case m <= time.June:
		p = 2
	case m <= time.August:
		p = 3
	}
	return fmt.Sprintf("%dP%d", end.Year(), p)
}

// SRU writes the zip of INFO.SRU and BLANKETTER.SRU (SKV 269's record
// layout), ISO-8859-1 with CRLF, the forms' non-zero fields in code order,
// stamped at.
func SRU(f Filer, forms []Form, at time.Time) ([]byte, error) {
	stamp := at.UTC().Format("20060102") + " " + at.UTC().Format("150405")
	var info strings.Builder
	line := func(b *strings.Builder, parts ...string) { b.WriteString(strings.Join(parts, " ") + "\r\n") }
	line(&info, "#DATABESKRIVNING_START")
	line(&info, "#PRODUKT", "SRU")
	line(&info, "#SKAPAD", stamp)
	line(&info, "#PROGRAM", "Kontera")
	line(&info, "#FILNAMN", "BLANKETTER.SRU")
	line(&info, "#DATABESKRIVNING_SLUT")
	line(&info, "#MEDIELEV_START")
	line(&info, "#ORGNR", f.Number)
	line(&info, "#NAMN", f.Name)
	if f.PostalCode != "" {
		line(&info, "#POSTNR", strings.ReplaceAll(f.PostalCode, " ", ""))
	}
	if f.City != "" {
		line(&info, "#POSTORT", f.City)
	}
	line(&info, "#MEDIELEV_SLUT")
	var blanks strings.Builder
	for _, form := range forms {
		line(&blanks, "#BLANKETT", form.ID)
		line(&blanks, "#IDENTITET", f.Number, stamp)
		line(&blanks, "#NAMN", f.Name)
		codes := make([]string, 0, len(form.Fields))
		for c, v := range form.Fields {
			if v != 0 {
				codes = append(codes, c)
			}
		}
		sort.Strings(codes)
		for _, c := range codes {
			line(&blanks, "#UPPGIFT", c, fmt.Sprint(form.Fields[c]))
		}
		line(&blanks, "#BLANKETTSLUT")
	}
	line(&blanks, "#FIL_SLUT")
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, file := range []struct {
		name string
		body string
	}{{"INFO.SRU", info.String()}, {"BLANKETTER.SRU", blanks.String()}} {
		w, err := z.CreateHeader(&zip.FileHeader{Name: file.name, Method: zip.Deflate, Modified: at.UTC()})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(vat.Latin1(file.body)); err != nil {
			return nil, err
		}
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
