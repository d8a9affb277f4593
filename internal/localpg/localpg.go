// Package localpg runs a PostgreSQL cluster of our own in a directory: the
// development database of `kontera dev` and the throwaway database of the
// test suite. It finds the server binaries, installs Debian's postgresql
// when it may, and runs them as the postgres user when started as root
// (initdb refuses root).
package localpg

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/lib/pq"
)

// User is the database superuser of clusters made here.
const User = "kontera"

// Cluster is a PostgreSQL cluster in Dir, listening only on a unix socket
// in Dir.
type Cluster struct {
	Dir  string
	Port int
	// Started says Start started the server (rather than finding it running).
	Started bool
	bin     string
	as      string // run the server binaries as this OS user ("" = ourselves)
	logf    func(format string, args ...any)
}

// Options shape a cluster.
type Options struct {
	Port int
	// Throwaway trades durability for speed (fsync off): for test clusters.
	Throwaway bool
	// Durable keeps fsync on in a throwaway cluster: a benchmark measures
	// the disk as production has it.
	Durable bool
	// Settings are server settings for the cluster's start, "name=value".
	Settings []string
	// Install lets Start install Debian's postgresql with apt-get when the
	// binaries are missing and we are root.
	Install bool
	// Logf reports progress; nil is quiet.
	Logf func(format string, args ...any)
}

// ScratchDir makes a directory for a throwaway cluster: in memory
// (/dev/shm) when that has room for a test run's databases, else in the
// temporary directory. A test run creates and drops hundreds of databases
// of a thousand files each; on a disk's file system creating their files
// costs the server more CPU than the tests' queries.
func ScratchDir(prefix string) (string, error) {
	var fs syscall.Statfs_t
	if syscall.Statfs("/dev/shm", &fs) == nil && uint64(fs.Bavail)*uint64(fs.Bsize) >= 2<<30 {
		if dir, err := os.MkdirTemp("/dev/shm", prefix); err == nil {
			return dir, nil
		}
	}
	return os.MkdirTemp("", prefix)
}

// Start starts the cluster in dir, creating it first when dir holds none.
// A cluster already running in dir is reused.
func Start(dir string, o Options) (*Cluster, error) {
	if o.Port == 0 {
		o.Port = 55432
	}
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	bin, err := findBin(o.Install, logf)
	if err != nil {
		return nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if n := len(filepath.Join(dir, ".s.PGSQL."+strconv.Itoa(o.Port))); n > 100 {
		return nil, fmt.Errorf("localpg: %s is too deep for a unix socket path (%d bytes); use a shorter directory or set DATABASE_URL", dir, n)
	}
	c := &Cluster{Dir: dir, Port: o.Port, bin: bin, logf: logf}
	if os.Geteuid() == 0 {
		c.as = "postgres"
		if _, err := user.Lookup("postgres"); err != nil {
			return nil, errors.New("localpg: running as root needs the OS user postgres (Debian's postgresql package creates it)")
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if c.as != "" {
		if err := c.run("", "chown", "-R", c.as, dir); err != nil {
			return nil, err
		}
		if err := c.run(c.as, "test", "-w", dir); err != nil {
			return nil, fmt.Errorf("localpg: the postgres user cannot reach %s; make its parent directories traversable (chmod o+x) or set DATABASE_URL", dir)
		}
	}
	data := filepath.Join(dir, "data")
	if _, err := os.Stat(filepath.Join(data, "PG_VERSION")); err != nil {
		logf("creating a PostgreSQL cluster in %s", data)
		if err := c.run(c.as, filepath.Join(bin, "initdb"), "-D", data, "-U", User, "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
			return nil, err
		}
	}
	if c.running() {
		logf("reusing the PostgreSQL cluster running in %s", data)
		return c, nil
	}
	opts := fmt.Sprintf("-k %s -p %d -c listen_addresses=''", dir, o.Port)
	if o.Throwaway {
		// Test suites run servers side by side, each with its own pool.
		opts += " -c max_connections=300"
	}
	// The caller's settings come after (the last of a name counts).
	for _, kv := range o.Settings {
		opts += " -c " + kv
	}
	if o.Throwaway && !o.Durable {
		opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
	}
	if err := c.run(c.as, filepath.Join(bin, "pg_ctl"), "-D", data, "-w", "-t", "60", "-l", filepath.Join(dir, "server.log"), "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
		return nil, fmt.Errorf("%w\n%s", err, tail(log, 2000))
	}
	c.Started = true
	return c, nil
}

// Replicate makes a hot standby of c in dir, as an operator does:
// pg_basebackup with -R copies the cluster and writes the settings that
// stream its WAL from c, and the standby starts on o.Port, answering
// read-only queries while it replays. c must run with wal_level replica
// or higher (the default).
func (c *Cluster) Replicate(dir string, o Options) (*Cluster, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if c.as != "" {
		if err := c.run("", "chown", "-R", c.as, dir); err != nil {
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	if _, err := os.Stat(filepath.Join(data, "PG_VERSION")); err != nil {
		c.logf("copying the cluster in %s to a standby in %s", c.Dir, data)
		if err := c.run(c.as, c.tool("pg_basebackup"), "-D", data, "-R", "-X", "stream", "--no-sync",
			"-c", "fast", "-h", c.Dir, "-p", strconv.Itoa(c.Port), "-U", User); err != nil {
			return nil, err
		}
	}
	if o.Logf == nil {
		o.Logf = c.logf
	}
	return Start(dir, o)
}

// tool is the path of a client program of c's server: beside its pg_ctl,
// or beside the file pg_ctl links to (PATH may hold links to the server's
// programs only), else from PATH.
func (c *Cluster) tool(name string) string {
	if p := filepath.Join(c.bin, name); exists(p) {
		return p
	}
	if real, err := filepath.EvalSymlinks(filepath.Join(c.bin, "pg_ctl")); err == nil {
		if p := filepath.Join(filepath.Dir(real), name); exists(p) {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return name
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func (c *Cluster) running() bool {
	return c.run(c.as, filepath.Join(c.bin, "pg_ctl"), "-D", filepath.Join(c.Dir, "data"), "status") == nil
}

// URL returns the connection URL of database name in the cluster.
func (c *Cluster) URL(name string) string {
	q := url.Values{"host": {c.Dir}, "port": {strconv.Itoa(c.Port)}, "sslmode": {"disable"}}
	return (&url.URL{Scheme: "postgres", User: url.User(User), Path: "/" + name, RawQuery: q.Encode()}).String()
}

// Stop stops the server; the data stays.
func (c *Cluster) Stop() error {
	return c.run(c.as, filepath.Join(c.bin, "pg_ctl"), "-D", filepath.Join(c.Dir, "data"), "-m", "fast", "-w", "stop")
}

// Destroy stops the server at once and removes the cluster.
func (c *Cluster) Destroy() error {
	_ = c.run(c.as, filepath.Join(c.bin, "pg_ctl"), "-D", filepath.Join(c.Dir, "data"), "-m", "immediate", "-w", "stop")
	return os.RemoveAll(c.Dir)
}

func (c *Cluster) run(as string, name string, args ...string) error {
	if as != "" {
		args = append([]string{"-u", as, "--", name}, args...)
		name = "runuser"
	}
	cmd := exec.Command(name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("localpg: %s %s: %w\n%s", name, strings.Join(args, " "), err, tail(out.Bytes(), 2000))
	}
	return nil
}

// findBin returns the directory holding initdb and pg_ctl: from PATH, or
// the newest /usr/lib/postgresql/<version>/bin.
func findBin(install bool, logf func(string, ...any)) (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if _, err := exec.LookPath("initdb"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	if dir := newestDebianBin(); dir != "" {
		return dir, nil
	}
	if install && os.Geteuid() == 0 {
		if _, err := exec.LookPath("apt-get"); err == nil {
			logf("PostgreSQL is missing: installing Debian's postgresql with apt-get")
			for _, args := range [][]string{{"update"}, {"install", "-y", "--no-install-recommends", "postgresql"}} {
				cmd := exec.Command("apt-get", args...)
				cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
				if out, err := cmd.CombinedOutput(); err != nil {
					return "", fmt.Errorf("localpg: apt-get %s: %w\n%s", strings.Join(args, " "), err, tail(out, 2000))
				}
			}
			if dir := newestDebianBin(); dir != "" {
				return dir, nil
			}
		}
	}
	return "", errors.New("localpg: PostgreSQL server binaries (initdb, pg_ctl) not found in PATH or /usr/lib/postgresql/*/bin; install PostgreSQL (Debian: apt-get install postgresql) or set DATABASE_URL")
}

func newestDebianBin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			return d
		}
	}
	return ""
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// WithDatabase returns dsn (a postgres:// URL or key=value string) naming
// database name instead of its own.
func WithDatabase(dsn, name string) (string, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", err
		}
		u.Path = "/" + name
		return u.String(), nil
	}
	var parts []string
	for _, f := range strings.Fields(dsn) {
		if !strings.HasPrefix(f, "dbname=") {
			parts = append(parts, f)
		}
	}
	return strings.Join(append(parts, "dbname="+name), " "), nil
}

// The roles of Kontera's databases: the owner runs the migrations and
// owns every object; the app role is what the server connects as, with
// plain DML rights and nothing it could turn the database's guards off
// with (see db/migrations/00008_guards.sql).
const (
	OwnerRole = "kontera_owner"
	AppRole   = "kontera_app"
	// rolePassword is the password both roles get on a server that asks
	// for one (the local clusters made here trust their socket).
	rolePassword = "kontera"
)

// EnsureRoles creates the owner and app roles on the server of adminURL
// (a superuser, or a role with CREATEROLE) unless they exist. Several
// test packages may race here; a role created meanwhile is fine.
func EnsureRoles(ctx context.Context, adminURL string) error {
	admin, err := sql.Open("postgres", adminURL)
	if err != nil {
		return err
	}
	defer admin.Close()
	for _, stmt := range []string{
		`CREATE ROLE ` + OwnerRole + ` LOGIN NOSUPERUSER NOCREATEROLE PASSWORD '` + rolePassword + `'`,
		`CREATE ROLE ` + AppRole + ` LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '` + rolePassword + `'`,
	} {
		role := strings.Fields(stmt)[2]
		var exists bool
		if err := admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, role).Scan(&exists); err != nil {
			return fmt.Errorf("localpg: %w", err)
		}
		if exists {
			continue
		}
		if _, err := admin.ExecContext(ctx, stmt); err != nil {
			var pe *pq.Error
			if errors.As(err, &pe) && (pe.Code == "42710" || pe.Code == "23505") {
				continue // duplicate_object, or the catalogue's unique index in a race
			}
			return fmt.Errorf("localpg: create role %s: %w", role, err)
		}
	}
	return nil
}

// WithUser returns dsn (a postgres:// URL or key=value string) connecting
// as role, with the password EnsureRoles gave it.
func WithUser(dsn, role string) (string, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", err
		}
		u.User = url.UserPassword(role, rolePassword)
		return u.String(), nil
	}
	var parts []string
	for _, f := range strings.Fields(dsn) {
		if !strings.HasPrefix(f, "user=") && !strings.HasPrefix(f, "password=") {
			parts = append(parts, f)
		}
	}
	return strings.Join(append(parts, "user="+role, "password="+rolePassword), " "), nil
}
