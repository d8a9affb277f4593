//go:build ops

package ops

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kontera/kontera/internal/httpapi"
	"github.com/kontera/kontera/internal/ratelimit"
)

// selfSigned writes a certificate for books.example.se and 127.0.0.1
// and its key, and answers a pool that trusts it.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "books.example.se"},
		DNSNames: []string{"books.example.se"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	write(t, certFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	write(t, keyFile, string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})))
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// replace replaces old in s, which must hold it: the test runs the
// example as written, with only these lines moved.
func replace(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("deploy/nginx.conf no longer holds %q", old)
	}
	return strings.ReplaceAll(s, old, new)
}

// deploy/nginx.conf in front of Kontera: TLS ends at nginx, plain HTTP is
// sent to HTTPS, a client cannot pass off another address in
// X-Forwarded-For (the failed-authentication limit counts it all the
// same), and Kontera's own 413 reaches the client, not nginx's page.
func TestNginxInFront(t *testing.T) {
	need(t, "nginx")
	dir := root(t)
	c := startCluster(t, filepath.Join(dir, "pg"))
	c.migrate(t)
	k := serve(t, c, filepath.Join(dir, "blobs"), "", func(cfg *httpapi.Config) {
		cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		// Thirty tries refilled at one an hour: however slow the machine,
		// no try comes back while the test guesses.
		cfg.AuthFailures = ratelimit.NewFailuresRefilled(cfg.DB, ratelimit.DefaultFailuresPerMinute, 1.0/60)
	})
	certFile, keyFile, pool := selfSigned(t, dir)
	httpAddr, httpsAddr := freeAddr(t), freeAddr(t)
	raw, err := os.ReadFile(filepath.Join(repo(t), "deploy", "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	site := string(raw)
	site = replace(t, site, "listen 80;", "listen "+httpAddr+";")
	site = replace(t, site, "listen 443 ssl http2;", "listen "+httpsAddr+" ssl http2;")
	site = replace(t, site, "/etc/letsencrypt/live/books.example.se/fullchain.pem", certFile)
	site = replace(t, site, "/etc/letsencrypt/live/books.example.se/privkey.pem", keyFile)
	site = replace(t, site, "server 127.0.0.1:8080;", "server "+strings.TrimPrefix(k.url, "http://")+";")
	write(t, filepath.Join(dir, "kontera.conf"), site)
	var temps []string
	for _, d := range []string{"body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		p := filepath.Join(dir, "tmp", d)
		if err := os.MkdirAll(p, 0o777); err != nil {
			t.Fatal(err)
		}
		_ = os.Chmod(p, 0o777) // nginx's workers run as nobody
		temps = append(temps, d+"_temp_path "+p+";")
	}
	_ = os.Chmod(filepath.Join(dir, "tmp"), 0o755)
	_ = os.Chmod(keyFile, 0o644)
	main := filepath.Join(dir, "nginx.conf")
	write(t, main, "daemon off;\npid "+filepath.Join(dir, "nginx.pid")+";\nerror_log "+filepath.Join(dir, "error.log")+
		" warn;\nevents {}\nhttp {\n access_log off;\n client_"+strings.Join(temps[:1], "")+"\n "+
		strings.Join(temps[1:], "\n ")+"\n include "+filepath.Join(dir, "kontera.conf")+";\n}\n")
	if out, err := exec.Command("nginx", "-t", "-c", main).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
	ngx := exec.Command("nginx", "-c", main)
	var logs bytes.Buffer
	ngx.Stderr = &logs
	if err := ngx.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ngx.Process.Kill(); _ = ngx.Wait() })
	client := &http.Client{Timeout: time.Minute, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "books.example.se"}}}
	https := "https://" + httpsAddr
	var res *http.Response
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if res, err = client.Get(https + "/api/v1/health"); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("through nginx: %v\n%s", err, logs.String())
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Strict-Transport-Security") == "" || res.TLS == nil {
		t.Fatalf("health through nginx: %d %v", res.StatusCode, res.Header)
	}
	res, err = client.Get("http://" + httpAddr + "/api/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 301 || !strings.HasPrefix(res.Header.Get("Location"), "https://") {
		t.Fatalf("plain HTTP: %d %v", res.StatusCode, res.Header)
	}
	// Thirty unknown keys, each claiming another address: nginx sets the
	// header, so they all count against the one client, and the next is
	// refused.
	code := func(req *http.Request) (int, string) {
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var e struct{ Error struct{ Code string } }
		_ = json.NewDecoder(res.Body).Decode(&e)
		return res.StatusCode, e.Error.Code
	}
	for i := 0; i <= 30; i++ {
		req, _ := http.NewRequest("GET", https+"/api/v1/api-key", nil)
		req.Header.Set("Authorization", "Bearer kontera_sk_"+strings.Repeat("z", 38)+string(rune('a'+i%26))+string(rune('a'+i/26)))
		req.Header.Set("X-Forwarded-For", "203.0.113."+string(rune('0'+i%10)))
		st, c := code(req)
		if i < 30 && st != 401 || i == 30 && (st != 429 || c != "RATE_LIMITED") {
			t.Fatalf("guess %d: %d %s", i+1, st, c)
		}
	}
	// A body past Kontera's limit gets Kontera's catalogue answer.
	req, _ := http.NewRequest("POST", https+"/api/v1/companies", bytes.NewReader(bytes.Repeat([]byte(" "), 2<<20)))
	req.Header.Set("Authorization", "Bearer "+k.token)
	req.Header.Set("Content-Type", "application/json")
	if st, c := code(req); st != 413 || c != "PAYLOAD_TOO_LARGE" {
		t.Fatalf("a large body: %d %q", st, c)
	}
}
