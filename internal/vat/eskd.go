package vat

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"strings"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/transform"

	"github.com/kontera/kontera/internal/apierr"
	"github.com/kontera/kontera/internal/identifier"
)

// eskdElements are the Moms element of each box, in the order of
// Skatteverket's eSKDUpload 6.0 DTD (moms.md), which is not box order.
var eskdElements = []struct{ box, name string }{
	{"05", "ForsMomsEjAnnan"}, {"06", "UttagMoms"}, {"07", "UlagMargbesk"}, {"08", "HyrinkomstFriv"},
	{"20", "InkopVaruAnnatEg"}, {"21", "InkopTjanstAnnatEg"}, {"22", "InkopTjanstUtomEg"},
	{"23", "InkopVaruSverige"}, {"24", "InkopTjanstSverige"}, {"50", "MomsUlagImport"},
	{"35", "ForsVaruAnnatEg"}, {"36", "ForsVaruUtomEg"}, {"37", "InkopVaruMellan3p"}, {"38", "ForsVaruMellan3p"},
	{"39", "ForsTjSkskAnnatEg"}, {"40", "ForsTjOvrUtomEg"}, {"41", "ForsKopareSkskSverige"}, {"42", "ForsOvrigt"},
	{"10", "MomsUtgHog"}, {"11", "MomsUtgMedel"}, {"12", "MomsUtgLag"},
	{"30", "MomsInkopUtgHog"}, {"31", "MomsInkopUtgMedel"}, {"32", "MomsInkopUtgLag"},
	{"60", "MomsImportUtgHog"}, {"61", "MomsImportUtgMedel"}, {"62", "MomsImportUtgLag"},
	{"48", "MomsIngAvdr"}, {"49", "MomsBetala"},
}

const eskdDoctype = `DOCTYPE eSKDUpload PUBLIC "-//Skatteverket, Sweden//DTD Skatteverket eSKDUpload-DTD Version 6.0//SV" "https://www1.skatteverket.se/demoeskd/eSKDUpload_6p0.dtd"`

// ESKDOrgNr is the declarant's number as the eSKD file writes it,
// NNNNNN-NNNN: an organisationsnummer, or for an enskild firma the owner's
// personnummer in its ten-digit form. Anything else is
// VAT_ESKD_ORG_NUMBER_INVALID.
func ESKDOrgNr(org *string, soleTrader bool) (string, error) {
	if org == nil || strings.TrimSpace(*org) == "" {
		return "", apierr.New(apierr.VATESKDOrgNumberInvalid, map[string]any{"reason": "missing"})
	}
	n, err := identifier.OrgNumber(*org)
	if err != nil && soleTrader {
		n, err = identifier.PersonalNumber(*org)
		n = strings.Replace(n, "+", "-", 1)
	}
	if err != nil {
		return "", apierr.New(apierr.VATESKDOrgNumberInvalid, map[string]any{"reason": err.Error()})
	}
	return n, nil
}

// ESKD writes the return as Skatteverket's eSKDUpload 6.0 file in
// ISO-8859-1: the boxes in whole kronor as filed, boxes at zero left out,
// MomsBetala (49) always.
func ESKD(orgNr string, p Period, r Return) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`<?xml version="1.0" encoding="ISO-8859-1"?>` + "\n<!" + eskdDoctype + ">\n")
	latin1 := transform.NewWriter(&buf, charmap.ISO8859_1.NewEncoder())
	enc := xml.NewEncoder(latin1)
	enc.Indent("", "  ")
	text := func(name, value string) {
		start := xml.StartElement{Name: xml.Name{Local: name}}
		_ = enc.EncodeToken(start)
		_ = enc.EncodeToken(xml.CharData(value))
		_ = enc.EncodeToken(start.End())
	}
	root := xml.StartElement{Name: xml.Name{Local: "eSKDUpload"}, Attr: []xml.Attr{{Name: xml.Name{Local: "Version"}, Value: "6.0"}}}
	moms := xml.StartElement{Name: xml.Name{Local: "Moms"}}
	_ = enc.EncodeToken(root)
	text("OrgNr", orgNr)
	_ = enc.EncodeToken(moms)
	text("Period", p.Redovisningsperiod())
	for _, e := range eskdElements {
		if v := r.Filed[e.box]; v != 0 || e.box == "49" {
			text(e.name, strconv.FormatInt(v, 10))
		}
	}
	_ = enc.EncodeToken(moms.End())
	_ = enc.EncodeToken(root.End())
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if err := latin1.Close(); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}
