//go:build ops

package ops

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// walkthrough is the README section whose shell blocks run as written.
const walkthrough = "## A walk-through with curl"

// shellBlocks answers the ```sh blocks of the README section headed
// heading, in order, up to the next section of the same level.
func shellBlocks(t *testing.T, readme, heading string) []string {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README has no section %q", heading)
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var blocks []string
	for rest := section; ; {
		_, after, ok := strings.Cut(rest, "```sh\n")
		if !ok {
			break
		}
		block, tail, ok := strings.Cut(after, "\n```")
		if !ok {
			t.Fatalf("%s: a ```sh block is not closed", heading)
		}
		blocks = append(blocks, block)
		rest = tail
	}
	if len(blocks) == 0 {
		t.Fatalf("%s: no ```sh block", heading)
	}
	return blocks
}

// curlShim is a curl first in PATH that runs the real one and keeps, per
// call, its arguments and the headers of its answers, so the test can hold
// every call to the API to its status.
const curlShim = `#!/bin/sh
n=$(date +%s%N)-$$
printf '%s\n' "$@" > "$CURL_LOG/$n.args"
exec "$REAL_CURL" -D "$CURL_LOG/$n.head" "$@"
`

// The README walk-through, run as a reader runs it: the server is
// `kontera dev` (what make run starts) on a throwaway cluster, the key the
// one it prints, and each shell block runs under set -eu in the clone's
// root. Every call to the API must answer 2xx or 3xx, but for those the
// text says are refused, with the code it names; the webhook reaches the
// receiver the walk-through starts; no file is left in the clone.
func TestReadmeWalkthrough(t *testing.T) {
	need(t, "curl", "jq", "go", "git")
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := shellBlocks(t, string(readme), walkthrough)
	status := func() string {
		out, err := exec.Command("git", "-C", repo, "status", "--porcelain", "--untracked-files=all").Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	before := status()

	dir := root(t)
	c := startCluster(t, filepath.Join(dir, "pg"))
	bin := filepath.Join(dir, "kontera")
	if b, err := exec.Command("go", "build", "-o", bin, "../../cmd/kontera").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	addr, receiver := freeAddr(t), freeAddr(t)
	data := filepath.Join(dir, "data")
	env := append(os.Environ(), "DATABASE_URL="+c.app, "KONTERA_MIGRATE_DATABASE_URL="+c.owner,
		"KONTERA_ADDR="+addr, "KONTERA_ADMIN_ADDR=off", "KONTERA_DATA_DIR="+data, "KONTERA_LOG_LEVEL=warn")
	ctx, cancel := context.WithCancel(context.Background())
	dev := exec.CommandContext(ctx, bin, "dev")
	dev.Env = env
	dev.Stderr = os.Stderr
	dev.Cancel = func() error { return dev.Process.Signal(os.Interrupt) }
	stdout, err := dev.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := dev.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = dev.Wait() })
	// The key is the one line of the greeting that is a live key.
	keys := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			if f := strings.TrimSpace(s.Text()); strings.HasPrefix(f, "kontera_sk_") {
				keys <- f
			}
		}
	}()
	var key string
	select {
	case key = <-keys:
	case <-time.After(3 * time.Minute):
		t.Fatal("kontera dev printed no key")
	}
	api := "http://" + addr
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if r, err := http.Get(api + "/api/v1/health"); err == nil {
			r.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("kontera dev does not answer")
		}
	}

	logs, shims := filepath.Join(dir, "curl"), filepath.Join(dir, "bin")
	for _, d := range []string{logs, shims} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	realCurl, _ := exec.LookPath("curl")
	write(t, filepath.Join(shims, "curl"), curlShim)
	if err := os.Chmod(filepath.Join(shims, "curl"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := strings.Join(blocks, "\n")
	for _, r := range []struct{ pattern, with string }{
		{`(?m)^KEY=.*$`, "KEY=" + key},
		{`(?m)^API=.*$`, "API=" + api},
		{`127\.0\.0\.1:8443`, receiver},
	} {
		re := regexp.MustCompile(r.pattern)
		if !re.MatchString(script) {
			t.Fatalf("the walk-through no longer has %s: change this test with it", r.pattern)
		}
		script = re.ReplaceAllLiteralString(script, r.with)
	}
	sh := exec.Command("bash", "-eu", "-c", script)
	sh.Dir = repo
	sh.Env = append(env, "PATH="+shims+":"+os.Getenv("PATH"), "CURL_LOG="+logs, "REAL_CURL="+realCurl)
	out, err := sh.CombinedOutput()
	t.Logf("the walk-through's output:\n%s", out)
	if err != nil {
		t.Fatalf("the walk-through failed: %v", err)
	}

	calls := readCalls(t, logs, api)
	if len(calls) < 40 {
		t.Fatalf("only %d calls to the API were recorded", len(calls))
	}
	// What the walk-through says is refused, and how.
	refused := map[string]bool{"POST /members 409": true}
	for _, c := range calls {
		if c.status >= 200 && c.status < 400 {
			continue
		}
		if !refused[fmt.Sprintf("%s %s %d", c.method, c.path[strings.LastIndex(c.path, "/"):], c.status)] {
			t.Errorf("%s %s answered %d", c.method, c.path, c.status)
		}
	}
	if !strings.Contains(string(out), "signature verified") {
		t.Error("the receiver printed no verified delivery")
	}
	if after := status(); after != before {
		t.Errorf("the walk-through left files in the clone:\n%s", after)
	}
}

// call is one curl of the walk-through to the API.
type call struct {
	method, path string
	status       int
}

// readCalls reads the shim's records of calls to api, in order. A call's
// status is the last of its answer's status lines (after a 100 Continue).
func readCalls(t *testing.T, dir, api string) []call {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.args"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	var calls []call
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		args := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		c := call{method: "GET"}
		for i, a := range args {
			switch {
			case strings.HasPrefix(a, api):
				c.path = strings.SplitN(strings.TrimPrefix(a, api), "?", 2)[0]
			case a == "-X" && i+1 < len(args):
				c.method = args[i+1]
			case (a == "-d" || a == "-F") && c.method == "GET":
				c.method = "POST"
			}
		}
		if c.path == "" {
			continue // not the API: the receiver's readiness
		}
		head, err := os.ReadFile(strings.TrimSuffix(name, ".args") + ".head")
		if err != nil {
			t.Fatalf("%s %s: no answer (%v)", c.method, c.path, err)
		}
		for _, line := range strings.Split(string(head), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && strings.HasPrefix(f[0], "HTTP/") {
				c.status, _ = strconv.Atoi(f[1])
			}
		}
		calls = append(calls, c)
	}
	return calls
}
