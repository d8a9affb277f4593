package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kontera/kontera/internal/sie/sietest"
)

// The second reader (scripts/contract/sie-reader.ts, written from the
// format's description alone) reads Kontera's exports as Kontera does:
// the same number of vouchers, every account's opening balance plus its
// rows equal to the books' closing balance, and the #KSUMMA it computes
// equal to the one the export declares.
func TestSieExportIndependentReader(t *testing.T) {
	tools := contractTools(t)
	t.Parallel()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(tools, "sie-reader.ts"))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{
		"sie-reader.ts": src,
		"package.json":  []byte(`{"private": true, "type": "module"}`),
		"tsconfig.json": []byte(`{"compilerOptions": {"target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",
			"strict": true, "skipLibCheck": true, "esModuleInterop": true, "outDir": "out", "types": ["node"]}, "files": ["sie-reader.ts"]}`),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(tools, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	run(t, dir, nil, "node", filepath.Join(tools, "node_modules", "typescript/bin/tsc"), "-p", ".")

	type export struct {
		file     string
		vouchers int
		closing  map[string]float64
	}
	var exports []export
	write := func(name string, b *ledgerBooks, query string) {
		data := b.exportSie(t, b.period, query)
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
		n := strings.Count(string(data), "\r\n#VER ")
		exports = append(exports, export{file: f, vouchers: n, closing: b.booksBalances(t, b.period)})
	}
	a := newSieBooks(t, "2011")
	a.imported(t, a.importSie(t, "avendo.se", sieFile(t, "avendo-5.20_transaktioner_ovnbolag.se"), "").status(t, 202))
	write("avendo.se", a, "")
	write("avendo-utf8.se", a, "&encoding=utf8")
	c := newSieBooks(t, "2011")
	c.imported(t, c.importSie(t, "rattelse.se", sieFile(t, "avendo-5.10_sie4.SE"), "").status(t, 202))
	write("rattelse.se", c, "")
	g := newSieBooks(t, "2025")
	g.imported(t, g.importSie(t, "gen.se", sietest.Write(sietest.Spec{Year: 2025, Vouchers: 500, Opening: 75000, Split: true}), "").status(t, 202))
	write("gen.se", g, "")

	args := []string{"out/sie-reader.js"}
	for _, e := range exports {
		args = append(args, e.file)
	}
	out := run(t, dir, nil, "node", args...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(exports) {
		t.Fatalf("the reader answered %d files of %d:\n%s", len(lines), len(exports), out)
	}
	for i, line := range lines {
		var got struct {
			Encoding string            `json:"encoding"`
			Vouchers int               `json:"vouchers"`
			Accounts map[string]string `json:"accounts"`
			KSumma   struct{ Declared, Computed *string }
			Problems []string `json:"problems"`
		}
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		e := exports[i]
		name := filepath.Base(e.file)
		if got.Vouchers != e.vouchers || got.Vouchers == 0 || len(got.Problems) > 0 {
			t.Errorf("%s: %d vouchers, want %d; problems %v", name, got.Vouchers, e.vouchers, got.Problems)
		}
		if got.KSumma.Declared == nil || got.KSumma.Computed == nil || *got.KSumma.Declared != *got.KSumma.Computed {
			t.Errorf("%s: #KSUMMA declared %v, computed %v", name, got.KSumma.Declared, got.KSumma.Computed)
		}
		for acct, want := range e.closing {
			v, _ := strconv.ParseFloat(got.Accounts[acct], 64)
			if v != want {
				t.Errorf("%s: %s the reader %v, the books %.2f", name, acct, got.Accounts[acct], want)
			}
		}
		for acct, s := range got.Accounts {
			v, _ := strconv.ParseFloat(s, 64)
			if want := e.closing[acct]; v != want {
				t.Errorf("%s: %s the reader %s, the books %.2f", name, acct, s, want)
			}
		}
		if (strings.Contains(name, "utf8")) != (got.Encoding == "utf8") {
			t.Errorf("%s: read as %s", name, got.Encoding)
		}
	}
}
