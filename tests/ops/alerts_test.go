//go:build ops

package ops

import (
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The alert rules of docs/operations.md are YAML Prometheus reads, and
// every series their expressions name is one a server's /metrics has.
func TestAlertRulesNameRealSeries(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repo(t), "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```yaml\n(groups:.*?)```").FindStringSubmatch(string(raw))
	if block == nil {
		t.Fatal("docs/operations.md has no alert rules")
	}
	var rules struct {
		Groups []struct {
			Name  string
			Rules []struct {
				Alert, Expr string
				For         string
			}
		}
	}
	if err := yaml.Unmarshal([]byte(block[1]), &rules); err != nil || len(rules.Groups) == 0 {
		t.Fatalf("the rules: %v", err)
	}
	c := startCluster(t, filepath.Join(root(t), "pg"))
	c.migrate(t)
	k := serve(t, c, t.TempDir(), "")
	k.must("GET", "/api/v1/companies", nil)
	admin := httptest.NewServer(k.admin)
	defer admin.Close()
	res, err := admin.Client().Get(admin.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	series := regexp.MustCompile(`\b(kontera_[a-z_]+|go_sql_[a-z_]+)`)
	n := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Expr == "" {
				t.Errorf("a rule without a name or an expression: %+v", r)
			}
			for _, name := range series.FindAllString(r.Expr, -1) {
				n++
				if !strings.Contains(string(body), "\n"+name) && !strings.Contains(string(body), "\n"+name+"{") {
					t.Errorf("%s: /metrics has no %s", r.Alert, name)
				}
			}
		}
	}
	if n < 5 {
		t.Fatalf("only %d series named", n)
	}
}
