package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kontera/kontera/internal/config"
	"github.com/kontera/kontera/internal/webhooks"
)

// receiverCert is the certificate of `kontera webhooks listen`, kept
// beside the dev cluster: `kontera dev` trusts it, so a webhook registered
// at https://127.0.0.1:8443/ is delivered on a developer's machine with
// TLS checked as in production, and without a host that must resolve.
func receiverCert(dir string) (certFile, keyFile string, err error) {
	certFile, keyFile = filepath.Join(dir, "receiver.crt"), filepath.Join(dir, "receiver.key")
	if _, err := tls.LoadX509KeyPair(certFile, keyFile); err == nil {
		return certFile, keyFile, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return "", "", err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "kontera webhooks listen (development)"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(10, 0, 0),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return "", "", err
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	// Written beside and renamed, key first: a reader never pairs a new
	// certificate with an old key.
	for _, f := range []struct {
		path, kind string
		der        []byte
		mode       os.FileMode
	}{{keyFile, "PRIVATE KEY", pkcs8, 0o600}, {certFile, "CERTIFICATE", der, 0o644}} {
		tmp := f.path + ".new"
		if err := os.WriteFile(tmp, pem.EncodeToMemory(&pem.Block{Type: f.kind, Bytes: f.der}), f.mode); err != nil {
			return "", "", err
		}
		if err := os.Rename(tmp, f.path); err != nil {
			return "", "", err
		}
	}
	return certFile, keyFile, nil
}

// webhooksListen is `kontera webhooks listen`: a receiver on this machine
// that prints each delivery and checks its signature with --secret, as a
// receiver in production must. It answers 2xx to a delivery that verifies
// (or when no secret is given) and 400 to one that does not, so Kontera
// retries it as it would against a real receiver.
func webhooksListen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("webhooks listen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8443", "where to listen (https)")
	secret := fs.String("secret", os.Getenv("KONTERA_WEBHOOK_SECRET"), "the webhook's signing secret (whsec_…); unset: signatures are not checked")
	count := fs.Int("count", 0, "stop after this many deliveries (0: run until stopped)")
	timeout := fs.Duration("timeout", 0, "give up after this long, with an error, when --count deliveries have not come (0: no limit)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	certFile, keyFile, err := receiverCert(cfg.DataDir)
	if err != nil {
		return err
	}
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	var (
		mu       sync.Mutex
		got, bad int
		done     = make(chan struct{})
	)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil || r.Method != http.MethodPost {
			w.WriteHeader(http.StatusOK) // a readiness probe, or not a delivery
			return
		}
		verdict, status := "signature not checked (no --secret)", http.StatusOK
		if *secret != "" {
			verdict = "signature verified"
			if err := webhooks.Verify(*secret, r.Header.Get("X-Kontera-Signature"), body, time.Now(), 5*time.Minute); err != nil {
				verdict, status = "SIGNATURE DOES NOT VERIFY", http.StatusBadRequest
			}
		}
		mu.Lock()
		defer mu.Unlock()
		got++
		if status != http.StatusOK {
			bad++
		}
		fmt.Fprintf(stdout, "%s %s delivery %s: %s\n%s\n", time.Now().Format(time.TimeOnly),
			r.Header.Get("X-Kontera-Event"), r.Header.Get("X-Kontera-Delivery"), verdict, strings.TrimSpace(string(body)))
		w.WriteHeader(status)
		if *count > 0 && got == *count {
			close(done)
		}
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.ServeTLS(ln, certFile, keyFile) }()
	fmt.Fprintf(stderr, "listening on https://%s/ (its certificate: %s, trusted by kontera dev)\n", ln.Addr(), certFile)
	timedOut := false
	select {
	case <-done:
	case err := <-served:
		return err
	case <-ctx.Done():
		timedOut = *count > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded)
	}
	stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(stop)
	mu.Lock()
	defer mu.Unlock()
	switch {
	case timedOut:
		return fmt.Errorf("webhooks listen: %d of %d deliveries came within %s", got, *count, *timeout)
	case bad > 0:
		return fmt.Errorf("webhooks listen: %d of %d deliveries did not verify", bad, got)
	}
	return nil
}
