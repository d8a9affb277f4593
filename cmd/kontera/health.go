package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/kontera/kontera/internal/config"
)

// health asks the server on KONTERA_ADDR for GET /api/v1/health: the
// image's HEALTHCHECK, which has no curl (the image is the binary alone).
func health(ctx context.Context, stdout io.Writer) error {
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return fmt.Errorf("KONTERA_ADDR %q: %w", cfg.Addr, err)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1" // listening on every address: ask over loopback
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", "http://"+net.JoinHostPort(host, port)+"/api/v1/health", nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("health: %d %s", res.StatusCode, body)
	}
	fmt.Fprintf(stdout, "%s\n", body)
	return nil
}
