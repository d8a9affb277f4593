package tests

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"fmt"
	"math/big"
	"net"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"
)

// smtpServer is a mail server on loopback for the tests: EHLO, STARTTLS
// with a certificate of its own, AUTH PLAIN, MAIL, RCPT, DATA, RSET,
// NOOP, QUIT. reply, when set, answers DATA's end with a code of the
// test's choosing (421, 450, 550) instead of 250.
type smtpServer struct {
	t     *testing.T
	ln    net.Listener
	tls   *tls.Config
	roots *x509.CertPool

	mu       sync.Mutex
	reply    []string // replies to DATA's end, taken one per message; empty is 250
	received []smtpMessage
	auth     []string // user:password of each AUTH PLAIN
}

// smtpMessage is a message as the server received it.
type smtpMessage struct {
	From string
	To   []string
	Data string
	TLS  bool
}

func newSMTPServer(t *testing.T) *smtpServer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &smtpServer{t: t, ln: ln, roots: roots,
		tls: &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}}
	go s.serve()
	t.Cleanup(func() { ln.Close() })
	return s
}

func (s *smtpServer) port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// answer sets the replies to the next messages' DATA.
func (s *smtpServer) answer(replies ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reply = append(s.reply, replies...)
}

func (s *smtpServer) messages() []smtpMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]smtpMessage{}, s.received...)
}

func (s *smtpServer) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		go s.session(c)
	}
}

func (s *smtpServer) session(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	tp := textproto.NewConn(c)
	secure := false
	var msg smtpMessage
	_ = tp.PrintfLine("220 kontera.test ESMTP")
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb := strings.ToUpper(strings.Fields(line + " x")[0])
		switch verb {
		case "EHLO", "HELO":
			ext := []string{"250-kontera.test", "250-8BITMIME", "250-SMTPUTF8"}
			if !secure {
				ext = append(ext, "250 STARTTLS")
			} else {
				ext = append(ext, "250 AUTH PLAIN")
			}
			for _, e := range ext {
				_ = tp.PrintfLine("%s", e)
			}
		case "STARTTLS":
			_ = tp.PrintfLine("220 go ahead")
			tc := tls.Server(c, s.tls)
			if err := tc.Handshake(); err != nil {
				return
			}
			c, tp, secure = tc, textproto.NewConn(tc), true
		case "AUTH":
			parts := strings.Fields(line)
			if len(parts) < 3 {
				_ = tp.PrintfLine("334 ")
				resp, _ := tp.ReadLine()
				parts = append(parts[:2], resp)
			}
			raw, _ := base64.StdEncoding.DecodeString(parts[2])
			f := strings.Split(string(raw), "\x00")
			s.mu.Lock()
			if len(f) == 3 {
				s.auth = append(s.auth, f[1]+":"+f[2])
			}
			s.mu.Unlock()
			_ = tp.PrintfLine("235 2.7.0 authenticated")
		case "MAIL":
			msg = smtpMessage{From: strings.Trim(strings.SplitN(line, ":", 2)[1], "<> "), TLS: secure}
			if i := strings.Index(msg.From, ">"); i >= 0 {
				msg.From = msg.From[:i]
			}
			_ = tp.PrintfLine("250 2.1.0 ok")
		case "RCPT":
			to := strings.Trim(strings.SplitN(line, ":", 2)[1], " ")
			to = strings.Trim(strings.Fields(to)[0], "<>")
			msg.To = append(msg.To, to)
			_ = tp.PrintfLine("250 2.1.5 ok")
		case "DATA":
			_ = tp.PrintfLine("354 go ahead")
			data, err := tp.ReadDotBytes()
			if err != nil {
				return
			}
			msg.Data = string(data)
			s.mu.Lock()
			reply := "250 2.0.0 queued"
			if len(s.reply) > 0 {
				reply, s.reply = s.reply[0], s.reply[1:]
			}
			if strings.HasPrefix(reply, "250") {
				s.received = append(s.received, msg)
			}
			s.mu.Unlock()
			_ = tp.PrintfLine("%s", reply)
		case "RSET", "NOOP":
			_ = tp.PrintfLine("250 ok")
		case "QUIT":
			_ = tp.PrintfLine("221 bye")
			return
		default:
			_ = tp.PrintfLine("%s", fmt.Sprintf("502 %s not implemented", verb))
		}
	}
}
