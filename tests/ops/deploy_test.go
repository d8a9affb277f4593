//go:build ops

package ops

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// repo is the repository's root, where the Containerfile and deploy/ are.
func repo(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// static builds the binary as the image's build stage does: static, no
// cgo, the commit stamped in.
func static(t *testing.T, out string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.commit=ops-test", "-o", out, "./cmd/kontera")
	cmd.Dir = repo(t)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
}

func run(t *testing.T, env []string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	b, err := cmd.CombinedOutput()
	return string(b), err
}

// The hardened unit verifies with systemd-analyze, with no warning, and
// its exposure stays "OK" (below 2.0 of 10).
func TestSystemdUnitVerifies(t *testing.T) {
	need(t, "systemd-analyze")
	dir := t.TempDir()
	bin := filepath.Join(dir, "kontera")
	static(t, bin)
	unit, err := os.ReadFile(filepath.Join(repo(t), "deploy", "kontera.service"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "kontera.service")
	write(t, path, strings.ReplaceAll(string(unit), "/usr/local/bin/kontera", bin))
	if out, err := run(t, nil, "systemd-analyze", "verify", path); err != nil || strings.TrimSpace(out) != "" {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	out, err := run(t, nil, "systemd-analyze", "security", "--offline=yes", path)
	m := regexp.MustCompile(`Overall exposure level for kontera.service: ([0-9.]+)`).FindStringSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	if level, _ := strconv.ParseFloat(m[1], 64); level >= 2.0 {
		t.Fatalf("exposure %.1f of 10:\n%s", level, out)
	}
}

// The image builds with podman from scratch and the binary (the build
// stage named by --build-context: these machines run no containers),
// runs as an unprivileged user, checks its health with the binary, and
// its filesystem, exported, is a static binary that migrates and serves
// the database.
func TestImageBuildsAndItsBinaryServes(t *testing.T) {
	need(t, "podman")
	dir := t.TempDir()
	ctx := filepath.Join(dir, "build")
	for _, d := range []string{"out/data", "etc/ssl/certs"} {
		if err := os.MkdirAll(filepath.Join(ctx, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	static(t, filepath.Join(ctx, "out", "kontera"))
	roots, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	if err != nil {
		t.Skip("no CA bundle on this machine (apt-get install ca-certificates)")
	}
	write(t, filepath.Join(ctx, "etc/ssl/certs/ca-certificates.crt"), string(roots))
	tag := fmt.Sprintf("localhost/kontera-ops-test:%d", time.Now().UnixNano())
	if out, err := run(t, nil, "podman", "build", "--format", "docker", "--build-context", "build="+ctx, "-t", tag,
		"-f", filepath.Join(repo(t), "Containerfile"), repo(t)); err != nil {
		t.Fatalf("podman build: %v\n%s", err, out)
	}
	t.Cleanup(func() { _, _ = run(t, nil, "podman", "rmi", "-f", tag) })
	out, err := run(t, nil, "podman", "image", "inspect", tag)
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
	var images []struct {
		Config struct {
			User       string
			Entrypoint []string
			Cmd        []string
		}
		HealthCheck *struct{ Test []string } `json:"HealthCheck"`
	}
	if err := json.Unmarshal([]byte(out), &images); err != nil || len(images) != 1 {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
	img := images[0]
	if img.Config.User != "65532:65532" || strings.Join(img.Config.Entrypoint, " ") != "/kontera" ||
		strings.Join(img.Config.Cmd, " ") != "serve" {
		t.Fatalf("image config %+v", img.Config)
	}
	if img.HealthCheck == nil || !strings.Contains(strings.Join(img.HealthCheck.Test, " "), "/kontera health") {
		t.Fatalf("health check %+v", img.HealthCheck)
	}

	// The filesystem, exported: the binary alone beside the CA roots and
	// the data directory, owned by the image's user.
	id, err := run(t, nil, "podman", "create", tag)
	if err != nil {
		t.Fatalf("podman create: %v\n%s", err, id)
	}
	id = strings.TrimSpace(id[strings.LastIndex(strings.TrimSpace(id), "\n")+1:])
	t.Cleanup(func() { _, _ = run(t, nil, "podman", "rm", "-f", id) })
	fsDir := filepath.Join(dir, "fs")
	if err := os.MkdirAll(fsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, nil, "sh", "-c", fmt.Sprintf("podman export %s | tar -x -C %s", id, fsDir)); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	entries, _ := os.ReadDir(fsDir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "etc kontera var" {
		// podman may add the run-time mount points of a container.
		for _, n := range names {
			if n != "etc" && n != "kontera" && n != "var" && n != "dev" && n != "proc" && n != "sys" && n != "run" {
				t.Fatalf("the image holds %v", names)
			}
		}
	}
	bin := filepath.Join(fsDir, "kontera")
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Fatal("the binary is dynamically linked")
		}
	}
	f.Close()

	// Its binary migrates a database and serves it.
	c := startCluster(t, filepath.Join(root(t), "c"))
	if out, err := run(t, []string{"DATABASE_URL=" + c.owner}, bin, "migrate"); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	v, _ := run(t, []string{"DATABASE_URL=" + c.app}, bin, "version")
	if !strings.Contains(v, "commit  ops-test") || !strings.Contains(v, "(current)") {
		t.Fatalf("version:\n%s", v)
	}
	addr := freeAddr(t)
	serve := exec.Command(bin, "serve")
	serve.Env = append(os.Environ(), "DATABASE_URL="+c.app, "KONTERA_MIGRATE_DATABASE_URL=", "KONTERA_ADDR="+addr,
		"KONTERA_SECRET=an-operations-drill-secret-of-32+bytes", "KONTERA_PII_KEY="+strings.Repeat("07", 32),
		"KONTERA_DATA_DIR="+t.TempDir(), "KONTERA_LOG_LEVEL=error")
	var logs bytes.Buffer
	serve.Stderr = &logs
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = serve.Process.Kill(); _ = serve.Wait() })
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		out, err := run(t, []string{"KONTERA_ADDR=" + addr}, bin, "health")
		if err == nil && strings.Contains(out, "ok") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never healthy: %v %s\n%s", err, out, logs.String())
		}
	}
}

// The compose file (these machines run no containers, so it is read, not
// run): PostgreSQL 16, the schema migrated by the owner role as an init
// step, the server after it as the application role, and the role made
// by a script the shell accepts.
func TestComposeFileHoldsTogether(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repo(t), "deploy", "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Services map[string]struct {
			Image     string
			Command   []string
			DependsOn map[string]struct{ Condition string } `yaml:"depends_on"`
			EnvFile   string                                `yaml:"env_file"`
			Env       map[string]string                     `yaml:"environment"`
		}
	}
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	pg, migrate, server := c.Services["postgres"], c.Services["migrate"], c.Services["kontera"]
	if pg.Image != "docker.io/library/postgres:16" ||
		strings.Join(migrate.Command, " ") != "migrate" || migrate.DependsOn["postgres"].Condition != "service_healthy" ||
		!strings.Contains(migrate.Env["DATABASE_URL"], "kontera_owner") ||
		strings.Join(server.Command, " ") != "serve" || server.DependsOn["migrate"].Condition != "service_completed_successfully" ||
		!strings.Contains(server.Env["DATABASE_URL"], "kontera_app") || server.Image != migrate.Image {
		t.Fatalf("compose services: %+v", c.Services)
	}
	for _, f := range []string{migrate.EnvFile, server.EnvFile} {
		if _, err := os.Stat(filepath.Join(repo(t), "deploy", f+".example")); err != nil {
			t.Fatalf("%s has no example: %v", f, err)
		}
	}
	script := filepath.Join(repo(t), "deploy", "initdb", "10-app-role.sh")
	if st, err := os.Stat(script); err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("%s: %v (executable: %v)", script, err, st != nil && st.Mode()&0o111 != 0)
	}
	if out, err := run(t, nil, "sh", "-n", script); err != nil {
		t.Fatalf("sh -n: %v %s", err, out)
	}
}
