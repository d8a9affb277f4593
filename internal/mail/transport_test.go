package mail

import (
	"context"
	"errors"
	"net/mail"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTemporary(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&textproto.Error{Code: 450, Msg: "busy"}, true},
		{&textproto.Error{Code: 421, Msg: "closing"}, true},
		{&textproto.Error{Code: 550, Msg: "no such user"}, false},
		{&textproto.Error{Code: 535, Msg: "bad credentials"}, false},
		{context.DeadlineExceeded, true},
		{errors.New("dial tcp 127.0.0.1:25: connect: connection refused"), true},
		{Permanent(errors.New("bad address")), false},
	} {
		if got := Temporary(c.err); got != c.want {
			t.Errorf("%v: temporary %v, want %v", c.err, got, c.want)
		}
	}
}

// A dropped message is a parsable .eml under its Message-ID, with no Bcc
// header and the attachment.
func TestDrop(t *testing.T) {
	dir := t.TempDir()
	m := Message{MessageID: MessageID("abc", "faktura@kontera.test"), FromName: "Fjällbacka Snickeri AB",
		From: "faktura@kontera.test", To: []string{"kund@example.se"}, Bcc: []string{"dold@example.se"},
		Subject: "Faktura 2026-0042 från Fjällbacka", Body: "Hej!", Date: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC),
		Attachments: []Attachment{{Name: "faktura.pdf", ContentType: "application/pdf", Bytes: []byte("%PDF-1.4")}}}
	dropped, err := Drop{Dir: dir}.Send(context.Background(), m)
	if err != nil || !dropped {
		t.Fatal(dropped, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "abc@kontera.test.eml"))
	if err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ReadMessage(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if msg.Header.Get("Bcc") != "" || strings.Contains(string(b), "dold@example.se") {
		t.Error("the .eml names the Bcc recipient")
	}
	if msg.Header.Get("Message-Id") != "<abc@kontera.test>" || !strings.Contains(string(b), "faktura.pdf") {
		t.Errorf("Message-Id %q", msg.Header.Get("Message-Id"))
	}
	if MessageID("x", "no-at-sign") != "x@kontera.invalid" {
		t.Error("MessageID without a domain")
	}
}
