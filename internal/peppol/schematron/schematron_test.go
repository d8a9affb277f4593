package schematron

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Rules is where the BIS Billing 3.0 rule sets lie, read in place.
const Rules = "../../../../shared/data/peppol/bis3-schematron"

// skip skips for want of a tool, which make installs: under CI that is a
// failure. Missing reference data always skips.
func skip(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// TestCompilerOnExamples proves the compiler before it judges anything:
// OpenPeppol's own examples pass both rule sets without a fatal, and a
// broken copy of one fails the rules it breaks.
func TestCompilerOnExamples(t *testing.T) {
	if why := Available(); why != "" {
		skip(t, why)
	}
	examples, _ := filepath.Glob("../../../../shared/data/peppol/bis3-examples/*.xml")
	if len(examples) == 0 {
		t.Skip("OpenPeppol's bis3-examples are not at ../shared/data/peppol/bis3-examples")
	}
	docs := map[string][]byte{}
	for _, f := range examples {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[filepath.Base(f)] = b
	}
	broken := strings.Replace(string(docs["base-example.xml"]), "<cbc:BuyerReference>0150abc</cbc:BuyerReference>", "", 1)
	broken = strings.Replace(broken, `<cbc:EndpointID schemeID="0002">FR23342</cbc:EndpointID>`, "", 1)
	docs["broken.xml"] = []byte(broken)
	for _, set := range []string{"CEN-EN16931-UBL.sch", "PEPPOL-EN16931-UBL.sch"} {
		sch, err := os.ReadFile(filepath.Join(Rules, set))
		if err != nil {
			t.Skip("the rule sets are not at ../shared/data/peppol/bis3-schematron: " + err.Error())
		}
		xsl, err := Compile(sch)
		if err != nil {
			t.Fatalf("%s: %v", set, err)
		}
		res, err := Run(xsl, docs)
		if err != nil {
			t.Fatalf("%s: %v", set, err)
		}
		for name, fs := range res {
			if name == "broken.xml" {
				continue
			}
			if fatal := Fatal(fs); len(fatal) > 0 {
				t.Errorf("%s: %s fails: %+v", set, name, fatal)
			}
		}
		if set == "PEPPOL-EN16931-UBL.sch" {
			ids := map[string]bool{}
			for _, f := range Fatal(res["broken.xml"]) {
				ids[f.ID] = true
			}
			if !ids["PEPPOL-EN16931-R003"] || !ids["PEPPOL-EN16931-R010"] {
				t.Errorf("the broken example should fail R003 and R010, failed %v", ids)
			}
		}
	}
}
