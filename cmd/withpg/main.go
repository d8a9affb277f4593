// Command withpg runs a command beside a throwaway PostgreSQL cluster
// that lives as long as the command does, naming it in TEST_DATABASE_URL:
// make test's one cluster for every test package, rather than one started,
// initialised and migrated per package. With TEST_DATABASE_URL or
// DATABASE_URL set already, it runs the command on that server.
//
//	withpg [--] command [args...]
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/kontera/kontera/internal/localpg"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: withpg [--] command [args...]")
		return 2
	}
	env := os.Environ()
	if os.Getenv("TEST_DATABASE_URL") == "" && os.Getenv("DATABASE_URL") == "" {
		dir, err := localpg.ScratchDir("kontera-pg-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "withpg:", err)
			return 1
		}
		// Every package's tests connect at once: two packages side by
		// side, each with servers of their own pools.
		c, err := localpg.Start(dir, localpg.Options{Throwaway: true, Install: true, Settings: []string{"max_connections=600"}})
		if err != nil {
			fmt.Fprintln(os.Stderr, "withpg:", err)
			os.RemoveAll(dir)
			return 1
		}
		defer c.Destroy()
		env = append(env, "TEST_DATABASE_URL="+c.URL("postgres"))
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, os.Stdin, os.Stdout, os.Stderr
	// A signal is passed on (a terminal's interrupt reaches the command
	// anyway, in our process group); we stay until the command ends, then
	// remove the cluster.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "withpg:", err)
		return 1
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return max(exit.ExitCode(), 1)
	}
	fmt.Fprintln(os.Stderr, "withpg:", err)
	return 1
}
