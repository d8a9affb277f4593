// Package schematron turns the subset of ISO Schematron that the
// published BIS Billing 3.0 rule sets use (ns, phase, pattern, rule, let,
// assert and xsl:function) into an XSLT 2.0 stylesheet, and runs it with
// Saxon-HE to say which asserts a document fails. It is how the tests
// hold Kontera's e-invoices to the rules the network holds them to,
// offline: the rule sets are read in place, never shipped.
package schematron

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

const (
	nsSchematron = "http://purl.oclc.org/dsdl/schematron"
	nsXSL        = "http://www.w3.org/1999/XSL/Transform"
)

type assert struct {
	id, flag, test, text string
}

type let struct{ name, value string }

type rule struct {
	context string
	lets    []let
	asserts []assert
}

type pattern struct {
	lets  []let
	rules []rule
}

// Compile writes the XSLT 2.0 stylesheet of a Schematron schema. Every
// pattern runs (phases are ignored: a test wants every rule); within a
// pattern a node is checked by the first rule whose context it matches,
// as Schematron has it, and the walk goes on to its child elements, as
// the ISO skeleton's does. Each failed assert writes one line:
// "flag<TAB>id<TAB>text". Global and pattern lets become global
// variables; xsl:function elements are copied as written.
func Compile(sch []byte) ([]byte, error) {
	d := xml.NewDecoder(bytes.NewReader(sch))
	var (
		ns        [][2]string
		globals   []let
		functions [][]byte
		patterns  []pattern
		cur       *pattern
		r         *rule
		a         *assert
	)
	attr := func(e xml.StartElement, name string) string {
		for _, at := range e.Attr {
			if at.Name.Local == name && at.Name.Space == "" {
				return at.Value
			}
		}
		return ""
	}
	for {
		start := d.InputOffset()
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space == nsXSL && t.Name.Local == "function" {
				if err := d.Skip(); err != nil {
					return nil, err
				}
				functions = append(functions, sch[start:d.InputOffset()])
				continue
			}
			if t.Name.Space != nsSchematron {
				if a == nil {
					return nil, fmt.Errorf("schematron: %s is outside the subset compiled", t.Name.Local)
				}
				continue // value-of and name inside an assert's text
			}
			switch t.Name.Local {
			case "schema", "title", "phase", "active":
			case "ns":
				ns = append(ns, [2]string{attr(t, "prefix"), attr(t, "uri")})
			case "pattern":
				patterns = append(patterns, pattern{})
				cur = &patterns[len(patterns)-1]
			case "rule":
				if cur == nil {
					return nil, errors.New("schematron: a rule outside a pattern")
				}
				cur.rules = append(cur.rules, rule{context: attr(t, "context")})
				r = &cur.rules[len(cur.rules)-1]
			case "let":
				l := let{name: attr(t, "name"), value: attr(t, "value")}
				switch {
				case r != nil:
					r.lets = append(r.lets, l)
				case cur != nil:
					cur.lets = append(cur.lets, l)
				default:
					globals = append(globals, l)
				}
			case "assert", "report":
				if r == nil {
					return nil, errors.New("schematron: an assert outside a rule")
				}
				test := attr(t, "test")
				if t.Name.Local == "report" {
					test = "not(" + test + ")"
				}
				r.asserts = append(r.asserts, assert{id: attr(t, "id"), flag: attr(t, "flag"), test: test})
				a = &r.asserts[len(r.asserts)-1]
			default:
				return nil, fmt.Errorf("schematron: <%s> is outside the subset compiled", t.Name.Local)
			}
		case xml.CharData:
			if a != nil {
				a.text += string(t)
			}
		case xml.EndElement:
			if t.Name.Space != nsSchematron {
				continue
			}
			switch t.Name.Local {
			case "assert", "report":
				a = nil
			case "rule":
				r = nil
			case "pattern":
				cur = nil
			}
		}
	}
	return write(ns, globals, functions, patterns)
}

func write(ns [][2]string, globals []let, functions [][]byte, patterns []pattern) ([]byte, error) {
	var b bytes.Buffer
	esc := func(s string) string {
		var e bytes.Buffer
		_ = xml.EscapeText(&e, []byte(s))
		return e.String()
	}
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<xsl:stylesheet version="2.0" xmlns:xsl="` + nsXSL + `"`)
	for _, n := range ns {
		fmt.Fprintf(&b, ` xmlns:%s="%s"`, n[0], esc(n[1]))
	}
	b.WriteString(">\n<xsl:output method=\"text\"/>\n")
	for _, f := range functions {
		b.Write(f)
		b.WriteByte('\n')
	}
	seen := map[string]bool{}
	for _, l := range append(globals, lets(patterns)...) {
		if seen[l.name] {
			return nil, fmt.Errorf("schematron: the global let $%s is declared twice", l.name)
		}
		seen[l.name] = true
		fmt.Fprintf(&b, "<xsl:variable name=\"%s\" select=\"%s\"/>\n", l.name, esc(l.value))
	}
	b.WriteString("<xsl:template match=\"/\">\n")
	for i := range patterns {
		fmt.Fprintf(&b, "  <xsl:apply-templates select=\"/\" mode=\"p%d\"/>\n", i)
	}
	b.WriteString("</xsl:template>\n")
	for i, p := range patterns {
		for k, r := range p.rules {
			fmt.Fprintf(&b, "<xsl:template match=\"%s\" mode=\"p%d\" priority=\"%d\">\n", esc(r.context), i, 1000-k)
			for _, l := range r.lets {
				fmt.Fprintf(&b, "  <xsl:variable name=\"%s\" select=\"%s\"/>\n", l.name, esc(l.value))
			}
			for _, a := range r.asserts {
				text := strings.Join(strings.Fields(a.text), " ")
				fmt.Fprintf(&b, "  <xsl:if test=\"not(%s)\"><xsl:text>%s\t%s\t%s&#10;</xsl:text></xsl:if>\n",
					esc(a.test), esc(a.flag), esc(a.id), esc(text))
			}
			fmt.Fprintf(&b, "  <xsl:apply-templates select=\"*\" mode=\"p%d\"/>\n</xsl:template>\n", i)
		}
		fmt.Fprintf(&b, "<xsl:template match=\"/|*\" mode=\"p%d\" priority=\"-10\"><xsl:apply-templates select=\"*\" mode=\"p%d\"/></xsl:template>\n", i, i)
	}
	b.WriteString("</xsl:stylesheet>\n")
	return b.Bytes(), nil
}

func lets(patterns []pattern) []let {
	var out []let
	for _, p := range patterns {
		out = append(out, p.lets...)
	}
	return out
}
