package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"os"
	"testing"
)

// The receiver's certificate is made once and kept: a second call (the
// receiver after kontera dev) answers the same files, and the certificate
// is what a client trusting the file accepts for 127.0.0.1.
func TestReceiverCertIsMadeOnceAndTrusted(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, err := receiverCert(dir)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(certFile)
	if c2, k2, err := receiverCert(dir); err != nil || c2 != certFile || k2 != keyFile {
		t.Fatal(c2, k2, err)
	}
	if again, _ := os.ReadFile(certFile); !bytes.Equal(first, again) {
		t.Fatal("the certificate was made again")
	}
	if fi, err := os.Stat(keyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the key file: %v %v", fi.Mode(), err)
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(first)
	for _, host := range []string{"127.0.0.1", "::1"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host}); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
}
