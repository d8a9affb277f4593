package seal

import (
	"bytes"
	"errors"
	"testing"
)

func TestSealOpens(t *testing.T) {
	key, err := ParseKey(NewKey())
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	plain := []byte("811218-9876")
	s1, s2 := b.Seal(plain, "c/1"), b.Seal(plain, "c/1")
	if bytes.Contains(s1, plain) || bytes.Contains(s1, []byte("9876")) {
		t.Fatalf("sealed value holds the clear text: %x", s1)
	}
	if bytes.Equal(s1, s2) {
		t.Fatal("two seals of one value are equal: the nonce is not fresh")
	}
	got, err := b.Open(s1, "c/1")
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("Open = %q, %v", got, err)
	}
}

func TestOpenRefuses(t *testing.T) {
	b, _ := New(bytes.Repeat([]byte{7}, KeySize))
	other, _ := New(bytes.Repeat([]byte{8}, KeySize))
	s := b.Seal([]byte("811218-9876"), "c/1")
	tampered := append([]byte(nil), s...)
	tampered[len(tampered)-1] ^= 1
	for name, tc := range map[string]struct {
		box     *Box
		sealed  []byte
		context string
	}{
		"another row":  {b, s, "c/2"},
		"another key":  {other, s, "c/1"},
		"tampered":     {b, tampered, "c/1"},
		"truncated":    {b, s[:10], "c/1"},
		"empty":        {b, nil, "c/1"},
		"wrong format": {b, append([]byte{9}, s[1:]...), "c/1"},
	} {
		if _, err := tc.box.Open(tc.sealed, tc.context); !errors.Is(err, ErrUnreadable) {
			t.Errorf("%s: err = %v, want ErrUnreadable", name, err)
		}
	}
}

func TestKeys(t *testing.T) {
	if _, err := New(make([]byte, 16)); err == nil {
		t.Error("a 16-byte key was taken")
	}
	for _, s := range []string{"", "zz", NewKey()[:62]} {
		if _, err := ParseKey(s); err == nil {
			t.Errorf("ParseKey(%q) took it", s)
		}
	}
}

// A token compares a number without holding it: the same number under the
// same key gives the same token, another key or number another one, and
// only the last four digits show.
func TestToken(t *testing.T) {
	a, _ := New(make([]byte, KeySize))
	other := make([]byte, KeySize)
	other[0] = 1
	b, _ := New(other)
	tok := a.Token("PN", "198112189876")
	if !IsToken(tok, "PN") || IsToken(tok, "VN") || TokenLast4(tok) != "9876" || len(tok) != 26 {
		t.Fatalf("token %q", tok)
	}
	if a.Token("PN", "198112189876") != tok || a.Token("PN", "198112189868") == tok || b.Token("PN", "198112189876") == tok {
		t.Fatal("a token must be the number's, under the key")
	}
	if a.Token("VN", "198112189876") == tok {
		t.Fatal("kinds must not share tokens")
	}
	for _, s := range []string{"198112189876", "19811218-9876", "556334-3689", "PN1234"} {
		if IsToken(s, "PN") {
			t.Fatalf("%q taken for a token", s)
		}
	}
}

// A reseal opens under the old key and seals under the new one for the
// same context; what is sealed under the new key already stays as it is;
// what opens under neither, or under another context, is unreadable.
func TestReseal(t *testing.T) {
	from, _ := New(bytes.Repeat([]byte{7}, KeySize))
	to, _ := New(bytes.Repeat([]byte{8}, KeySize))
	other, _ := New(bytes.Repeat([]byte{9}, KeySize))
	old := from.Seal([]byte("811218-9876"), "c/1")
	out, plain, moved, err := Reseal(from, to, old, "c/1")
	if err != nil || !moved || string(plain) != "811218-9876" {
		t.Fatalf("reseal: %q %v %v", plain, moved, err)
	}
	if _, err := from.Open(out, "c/1"); err == nil {
		t.Fatal("the old key still opens the resealed value")
	}
	if got, err := to.Open(out, "c/1"); err != nil || string(got) != "811218-9876" {
		t.Fatalf("the new key: %q %v", got, err)
	}
	again, plain, moved, err := Reseal(from, to, out, "c/1")
	if err != nil || moved || !bytes.Equal(again, out) || string(plain) != "811218-9876" {
		t.Fatalf("a second reseal: %v %v", moved, err)
	}
	for name, c := range map[string]struct {
		sealed  []byte
		context string
	}{"another key": {other.Seal([]byte("x"), "c/1"), "c/1"}, "another row": {old, "c/2"}, "clear": {[]byte(`{"a":1}`), "c/1"}} {
		if _, _, _, err := Reseal(from, to, c.sealed, c.context); !errors.Is(err, ErrUnreadable) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
