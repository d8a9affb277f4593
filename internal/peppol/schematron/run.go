package schematron

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Saxon is where Debian's libsaxonhe-java puts Saxon-HE.
const Saxon = "/usr/share/java/Saxon-HE.jar"

// Failure is one failed assert.
type Failure struct {
	Flag, ID, Text string
}

// Available says why Run cannot work here, "" when it can: it needs java
// and Saxon-HE.
func Available() string {
	if _, err := exec.LookPath("java"); err != nil {
		return "java is not installed (Debian default-jre-headless)"
	}
	if _, err := os.Stat(Saxon); err != nil {
		return "Saxon-HE is not installed (Debian libsaxonhe-java): " + err.Error()
	}
	return ""
}

// Run checks every document against a compiled stylesheet in one run of
// Saxon (the JVM starts once), answering the failures of each by name.
func Run(stylesheet []byte, docs map[string][]byte) (map[string][]Failure, error) {
	dir, err := os.MkdirTemp("", "schematron")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	for _, d := range []string{in, out} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	xsl := filepath.Join(dir, "rules.xsl")
	if err := os.WriteFile(xsl, stylesheet, 0o600); err != nil {
		return nil, err
	}
	for name, b := range docs {
		if strings.ContainsAny(name, `/\`) {
			return nil, fmt.Errorf("schematron: %q is not a plain file name", name)
		}
		if err := os.WriteFile(filepath.Join(in, name), b, 0o600); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command("java", "-cp", Saxon, "net.sf.saxon.Transform", "-s:"+in, "-xsl:"+xsl, "-o:"+out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("saxon: %v\n%s", err, stderr.String())
	}
	res := map[string][]Failure{}
	for name := range docs {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			return nil, fmt.Errorf("saxon wrote nothing for %s: %w", name, err)
		}
		res[name] = parse(b)
	}
	return res, nil
}

func parse(b []byte) []Failure {
	var out []Failure
	for _, l := range strings.Split(string(b), "\n") {
		if p := strings.SplitN(l, "\t", 3); len(p) == 3 {
			out = append(out, Failure{Flag: p[0], ID: p[1], Text: p[2]})
		}
	}
	return out
}

// Fatal answers the fatal failures among fs.
func Fatal(fs []Failure) []Failure {
	var out []Failure
	for _, f := range fs {
		if f.Flag == "fatal" {
			out = append(out, f)
		}
	}
	return out
}

// RuleSets are the two rule sets a BIS Billing 3.0 UBL document meets.
var RuleSets = []string{"CEN-EN16931-UBL.sch", "PEPPOL-EN16931-UBL.sch"}

// BIS checks docs against both rule sets in dir, answering each
// document's failures of either.
func BIS(dir string, docs map[string][]byte) (map[string][]Failure, error) {
	all := map[string][]Failure{}
	for _, set := range RuleSets {
		sch, err := os.ReadFile(filepath.Join(dir, set))
		if err != nil {
			return nil, err
		}
		xsl, err := Compile(sch)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", set, err)
		}
		res, err := Run(xsl, docs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", set, err)
		}
		for name, fs := range res {
			all[name] = append(all[name], fs...)
		}
	}
	return all, nil
}
