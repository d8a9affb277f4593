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
