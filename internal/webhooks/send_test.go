package webhooks

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// receiver is a TLS server on loopback answering with handle, and a
// client that trusts it (the loopback flag on).
func receiver(t *testing.T, handle http.HandlerFunc, o ClientOptions) (*httptest.Server, *http.Client) {
	t.Helper()
	srv := httptest.NewTLSServer(handle)
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	o.CAFile = ca
	c, err := NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

func request(url string) Request {
	body, _ := Render("2026-05-12", "d-1", "webhook.test", time.Unix(1774944000, 0),
		json.RawMessage(`{"greeting":"Hej från Kontera","tested_at":"2026-03-31T08:00:00Z"}`))
	return Request{URL: url, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", ID: "d-1", Type: "webhook.test",
		APIVersion: "2026-05-12", Body: body}
}

// A delivery arrives signed on its exact bytes, with every header, and
// the answer's JSON is kept.
func TestSendDelivered(t *testing.T) {
	var mu sync.Mutex
	var got *http.Request
	var body []byte
	srv, c := receiver(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		got = r.Clone(context.Background())
		body = make([]byte, r.ContentLength)
		_, _ = r.Body.Read(body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}, ClientOptions{Guard: Guard{AllowLoopback: true}})
	r := request(srv.URL + "/hook")
	at := time.Unix(1774944000, 0)
	a := Send(context.Background(), c, r, at)
	if a.Status != 200 || a.Body == nil || *a.Body != `{"ok":true}` || a.Error != "" {
		t.Fatalf("attempt %+v", a)
	}
	h := got.Header
	if h.Get("X-Kontera-Signature") != Signature(r.Secret, at, body) || h.Get("X-Kontera-Delivery") != "d-1" ||
		h.Get("X-Kontera-Event") != "webhook.test" || h.Get("X-Request-Id") != "whdel_d-1" || h.Get("User-Agent") != UserAgent ||
		h.Get("webhook-id") != "d-1" || h.Get("webhook-timestamp") != "1774944000" || !strings.HasPrefix(h.Get("webhook-signature"), "v1,") {
		t.Fatalf("headers %v", h)
	}
	var env Envelope
	if err := json.Unmarshal(body, &env); err != nil || env.ID != "d-1" || env.Created != 1774944000 ||
		string(env.PreviousAttributes) != "null" || !strings.Contains(string(env.Data.Object), "greeting") {
		t.Fatalf("envelope %s %v", body, err)
	}
}

// 410, a redirect (not followed), an HTML page (not kept), a long JSON
// answer (kept cut), a receiver that hangs, and an address the guard
// refuses (a rebinding resolver's loopback answer).
func TestSendOutcomes(t *testing.T) {
	followed := false
	srv, c := receiver(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/gone":
			w.WriteHeader(410)
		case "/moved":
			http.Redirect(w, r, "https://127.0.0.1:1/elsewhere", http.StatusFound)
		case "/elsewhere":
			followed = true
		case "/html":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(500)
			_, _ = w.Write([]byte(strings.Repeat("<p>fel</p>", 512)))
		case "/json":
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(503)
			_, _ = w.Write([]byte(`{"error":"` + strings.Repeat("x", 5000) + `"}`))
		case "/hang":
			time.Sleep(2 * time.Second)
		}
	}, ClientOptions{Guard: Guard{AllowLoopback: true}, Timeout: 300 * time.Millisecond})
	ctx, at := context.Background(), time.Now()
	if a := Send(ctx, c, request(srv.URL+"/gone"), at); Judge(a.Status, a.Blocked, 1) != (Outcome{State: Dead, Disable: "gone"}) {
		t.Fatalf("410: %+v", a)
	}
	if a := Send(ctx, c, request(srv.URL+"/moved"), at); a.Status != 302 || followed || Judge(a.Status, a.Blocked, 1).Disable != "redirect" {
		t.Fatalf("302: %+v (followed %v)", a, followed)
	}
	if a := Send(ctx, c, request(srv.URL+"/html"), at); a.Status != 500 || a.Body != nil {
		t.Fatalf("html: %+v", a)
	}
	if a := Send(ctx, c, request(srv.URL+"/json"), at); a.Status != 503 || a.Body == nil || len(*a.Body) != MaxStored {
		t.Fatalf("json: %d %+v", len(*a.Body), a)
	}
	start := time.Now()
	if a := Send(ctx, c, request(srv.URL+"/hang"), at); a.Status != 0 || a.Error == "" || time.Since(start) > time.Second ||
		Judge(a.Status, a.Blocked, 1).State != Failed {
		t.Fatalf("hang: %+v after %v", a, time.Since(start))
	}

	// Registered while the name resolved to a public address; at dispatch
	// it answers loopback: the dial is refused and the webhook disabled.
	public := Guard{Resolver: resolver{"93.184.216.34"}}
	if err := public.CheckURL(ctx, "https://hooks.example.se/kontera"); err != nil {
		t.Fatal(err)
	}
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	rebound, err := NewClient(ClientOptions{Guard: Guard{}, Resolve: func(context.Context, string) ([]string, error) {
		return []string{"127.0.0.1"}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	a := Send(ctx, rebound, request("https://hooks.example.se:"+port+"/kontera"), at)
	if !a.Blocked || Judge(a.Status, a.Blocked, 1) != (Outcome{State: Dead, Disable: "blocked_address"}) {
		t.Fatalf("rebinding: %+v", a)
	}
	// Without the flag, a loopback receiver is never reached.
	plain, err := NewClient(ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a := Send(ctx, plain, request(srv.URL+"/gone"), at); !a.Blocked || a.Status != 0 {
		t.Fatalf("loopback without the flag: %+v", a)
	}
}

// What a tenant reads of an attempt that got no answer says what kind of
// failure it was and nothing of the port: a closed port and an open one
// that resets the connection read alike.
func TestWhatATenantReadsOfAFailure(t *testing.T) {
	ctx, at := context.Background(), time.Now()
	c, err := NewClient(ClientOptions{Guard: Guard{AllowLoopback: true}, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	reset := listen(t, "127.0.0.1:0", func(c net.Conn) {
		c.(*net.TCPConn).SetLinger(0)
		c.Close()
	})
	hang := listen(t, "127.0.0.1:0", func(c net.Conn) { time.Sleep(time.Second); c.Close() })
	plain := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(plain.Close)
	untrusted := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(untrusted.Close)
	for _, x := range []struct{ addr, want string }{
		{closedAddr, ConnectionFailed}, {reset, ConnectionFailed}, {hang, TimedOut},
		{strings.TrimPrefix(plain.URL, "http://"), TLSFailed}, {strings.TrimPrefix(untrusted.URL, "https://"), TLSFailed},
	} {
		a := Send(ctx, c, request("https://"+x.addr+"/hook"), at)
		if a.Status != 0 || a.Error != x.want || a.Blocked || a.Cause == nil {
			t.Errorf("%s: %+v, want %q", x.addr, a, x.want)
		}
	}
	// A refused address reads as a connection that failed, and is marked
	// blocked (the webhook is disabled), whatever the port does.
	guarded, err := NewClient(ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{closedAddr, reset} {
		if a := Send(ctx, guarded, request("https://"+addr+"/hook"), at); a.Error != ConnectionFailed || !a.Blocked {
			t.Errorf("%s without the flag: %+v", addr, a)
		}
	}
}

// A zoned IPv6 loopback address is refused at dial, the loopback flag on
// or off, with a receiver listening on ::1: it is never reached.
func TestZonedLoopbackIsNeverDialled(t *testing.T) {
	lo := loopbackInterface(t)
	reached := make(chan struct{}, 4)
	addr := listen(t, "[::1]:0", func(c net.Conn) { reached <- struct{}{}; c.Close() })
	_, port, _ := net.SplitHostPort(addr)
	for _, flag := range []bool{false, true} {
		c, err := NewClient(ClientOptions{Guard: Guard{AllowLoopback: flag}})
		if err != nil {
			t.Fatal(err)
		}
		for _, zone := range []string{lo.Name, strconv.Itoa(lo.Index)} {
			a := Send(context.Background(), c, request("https://[::1%25"+zone+"]:"+port+"/hook"), time.Now())
			if !a.Blocked || a.Error != ConnectionFailed {
				t.Errorf("::1%%%s (flag %v): %+v", zone, flag, a)
			}
		}
	}
	select {
	case <-reached:
		t.Fatal("the receiver on ::1 was reached")
	default:
	}
}

// listen accepts on addr, handing each connection to serve, and answers
// the address; the test is skipped where addr cannot be listened on (no
// IPv6).
func listen(t *testing.T, addr string, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return ln.Addr().String()
}

// loopbackInterface is the machine's loopback interface (lo on Linux).
func loopbackInterface(t *testing.T) net.Interface {
	t.Helper()
	all, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range all {
		if i.Flags&net.FlagLoopback != 0 {
			return i
		}
	}
	t.Skip("no loopback interface")
	return net.Interface{}
}
