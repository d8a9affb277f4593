//go:build ops

package ops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// previousRelease is the newest release CHANGELOG.md records: its
// version and the commit it was cut from.
func previousRelease(t *testing.T) (version, commit string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repo(t), "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^## (v[0-9]+\.[0-9]+\.[0-9]+) — commit ([0-9a-f]{40})`).FindStringSubmatch(string(raw))
	if m == nil {
		t.Fatal("CHANGELOG.md names no release with its commit")
	}
	return m[1], m[2]
}

// buildAt builds cmd/kontera as it was at commit, in a worktree of the
// repository.
func buildAt(t *testing.T, commit, out string) {
	t.Helper()
	tree := filepath.Join(t.TempDir(), "tree")
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo(t)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	git("worktree", "add", "--detach", tree, commit)
	t.Cleanup(func() { git("worktree", "remove", "--force", tree) })
	cmd := exec.Command("go", "build", "-o", out, "./cmd/kontera")
	cmd.Dir = tree
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", commit, err, b)
	}
}

// process is a kontera serve of a binary, on an address of its own.
type process struct {
	url  string
	logs *bytes.Buffer
}

func startServe(t *testing.T, bin, appURL string) *process {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+appURL, "KONTERA_MIGRATE_DATABASE_URL=", "KONTERA_ADDR="+addr,
		"KONTERA_SECRET=an-operations-drill-secret-of-32+bytes", "KONTERA_PII_KEY="+strings.Repeat("07", 32),
		"KONTERA_DATA_DIR="+t.TempDir(), "KONTERA_LOG_LEVEL=error", "KONTERA_ADMIN_ADDR=off")
	p := &process{url: "http://" + addr, logs: &bytes.Buffer{}}
	cmd.Stderr = p.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		res, err := http.Get(p.url + "/api/v1/health")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never answered: %v\n%s", bin, err, p.logs.String())
		}
	}
}

// do sends a request with token and answers the status and body.
func (p *process) do(t *testing.T, token, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var r *bytes.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		r = bytes.NewReader(raw)
	} else {
		r = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, p.url+path, r)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	if method != "GET" {
		req.Header.Set("Idempotency-Key", uuid.NewString())
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

func (p *process) must(t *testing.T, token, method, path string, body any) map[string]any {
	t.Helper()
	st, out := p.do(t, token, method, path, body)
	if st >= 300 {
		t.Fatalf("%s %s: %d %v", method, path, st, out)
	}
	d, _ := out["data"].(map[string]any)
	return d
}

// figures are the books as a bookkeeper reads them: the reports and the
// journal, without the envelope's request id.
func (p *process) figures(t *testing.T, token, base, period string) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, r := range []string{"reports/trial-balance?period_id=", "reports/income-statement?period_id=",
		"reports/balance-sheet?period_id=", "journal-entries?limit=100&fiscal_period_id="} {
		st, body := p.do(t, token, "GET", base+"/"+r+period, nil)
		if st != 200 {
			t.Fatalf("%s: %d %v", r, st, body)
		}
		out[r] = body["data"]
	}
	return out
}

// holds reports whether got has every value want has, the same: a newer
// release may add fields to an answer, never change one.
func holds(got, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range w {
			if !holds(g[k], v) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !holds(g[i], w[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(got, want)
}

// An upgrade as docs/operations.md describes it: a database written by
// the previous release (built from its commit in a worktree) is migrated
// to this schema while a replica of the previous release still serves
// reads, and every figure of the books is what it was, read by either
// release; the new release then books on from the next voucher number.
func TestUpgradeFromThePreviousRelease(t *testing.T) {
	need(t, "git")
	version, commit := previousRelease(t)
	dir := root(t)
	old, cur := filepath.Join(dir, "kontera-"+version), filepath.Join(dir, "kontera")
	buildAt(t, commit, old)
	static(t, cur)
	c := startCluster(t, filepath.Join(dir, "pg"))
	env := func(url string) []string { return []string{"DATABASE_URL=" + url, "KONTERA_MIGRATE_DATABASE_URL="} }
	if out, err := run(t, env(c.owner), old, "migrate"); err != nil {
		t.Fatalf("%s migrate: %v\n%s", version, err, out)
	}
	out, err := run(t, env(c.app), old, "keys", "create", "--email", "uppgradering@example.se", "--name", "drill")
	if err != nil {
		t.Fatalf("keys create: %v\n%s", err, out)
	}
	var k struct{ Key string }
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &k); err != nil || k.Key == "" {
		t.Fatalf("keys create printed %s (%v)", out, err)
	}

	// The previous release keeps books.
	before := startServe(t, old, c.app)
	company := before.must(t, k.Key, "POST", "/api/v1/companies", map[string]any{"name": "Uppgraderingen AB",
		"entity_type": "aktiebolag", "vat_registered": true, "org_number": "556677-8899", "moms_period": "quarterly",
		"f_skatt": true})["id"].(string)
	base := "/api/v1/companies/" + company
	periods := before.must(t, k.Key, "GET", base+"/fiscal-periods", nil)["fiscal_periods"].([]any)
	period := periods[0].(map[string]any)["id"].(string)
	year := periods[0].(map[string]any)["period_start"].(string)[:4]
	for i, sale := range []int{1250, 2500, 625} {
		e := before.must(t, k.Key, "POST", base+"/journal-entries", map[string]any{"fiscal_period_id": period,
			"entry_date": fmt.Sprintf("%s-0%d-15", year, i+1), "description": fmt.Sprint("Försäljning ", i+1),
			"lines": []any{map[string]any{"account_number": "1930", "debit_amount": sale},
				map[string]any{"account_number": "3001", "credit_amount": sale * 4 / 5},
				map[string]any{"account_number": "2611", "credit_amount": sale / 5}}})
		before.must(t, k.Key, "POST", base+"/journal-entries/"+e["id"].(string)+"/commit", nil)
	}
	want := before.figures(t, k.Key, base, period)

	// This release migrates while the previous one serves.
	if out, err := run(t, env(c.owner), cur, "migrate"); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	if got := before.figures(t, k.Key, base, period); !holds(got, want) {
		t.Fatalf("the previous release reads other figures after the migration:\n got %v\nwant %v", got, want)
	}
	v, _ := run(t, env(c.app), cur, "version")
	if !strings.Contains(v, "(current)") {
		t.Fatalf("version after the migration:\n%s", v)
	}
	after := startServe(t, cur, c.app)
	if got := after.figures(t, k.Key, base, period); !holds(got, want) {
		t.Fatalf("this release reads other figures:\n got %v\nwant %v", got, want)
	}
	e := after.must(t, k.Key, "POST", base+"/journal-entries", map[string]any{"fiscal_period_id": period,
		"entry_date": year + "-04-15", "description": "Efter uppgraderingen", "lines": []any{
			map[string]any{"account_number": "1930", "debit_amount": 100},
			map[string]any{"account_number": "3001", "credit_amount": 100}}})
	posted := after.must(t, k.Key, "POST", base+"/journal-entries/"+e["id"].(string)+"/commit", nil)
	if n, _ := posted["voucher_number"].(float64); n != 4 {
		t.Fatalf("the next verifikat after the upgrade: %v", posted)
	}
}
