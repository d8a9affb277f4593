// Package seal encrypts the few values Kontera must keep unreadable at rest
// (a customer's personnummer): AES-256-GCM under a key that lives outside
// the database, each value bound to the row it belongs to.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the length of a key in bytes (AES-256).
const KeySize = 32

// version prefixes every sealed value, so a later key or algorithm can be
// told apart from this one.
const version byte = 1

// ErrUnreadable means a sealed value could not be opened: another key, a
// value moved from another row, or damaged bytes.
var ErrUnreadable = errors.New("seal: value cannot be opened")

// Box seals and opens values under one key.
type Box struct {
	aead     cipher.AEAD
	tokenKey []byte
}

// New returns a box for a 32-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("seal: key must be %d bytes, got %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(tokenKeyLabel))
	return &Box{aead: aead, tokenKey: m.Sum(nil)}, nil
}

// ParseKey reads a key written as 64 hexadecimal digits.
func ParseKey(s string) ([]byte, error) {
	key, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil || len(key) != KeySize {
		return nil, fmt.Errorf("seal: a key is %d hexadecimal digits", 2*KeySize)
	}
	return key, nil
}

// NewKey returns a fresh random key as 64 hexadecimal digits.
func NewKey() string {
	key := make([]byte, KeySize)
	_, _ = rand.Read(key)
	return hex.EncodeToString(key)
}

// Seal encrypts plain. context names where the value belongs (company and
// record): the value opens only with the same context, so a sealed value
// copied to another row is unreadable there.
func (b *Box) Seal(plain []byte, context string) []byte {
	nonce := make([]byte, b.aead.NonceSize())
	_, _ = rand.Read(nonce)
	out := make([]byte, 0, 1+len(nonce)+len(plain)+b.aead.Overhead())
	out = append(out, version)
	out = append(out, nonce...)
	return b.aead.Seal(out, nonce, plain, []byte(context))
}

// Open decrypts a value sealed with the same key and context.
func (b *Box) Open(sealed []byte, context string) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < 1+n+b.aead.Overhead() || sealed[0] != version {
		return nil, ErrUnreadable
	}
	plain, err := b.aead.Open(nil, sealed[1:1+n], sealed[1+n:], []byte(context))
	if err != nil {
		return nil, ErrUnreadable
	}
	return plain, nil
}

// Reseal answers a value sealed under from sealed anew under to, for the
// same context, and what it holds: a change of key (kontera pii rekey). A
// value that opens under to already is answered as it is, so a change of
// key run again after it committed changes nothing (moved says whether
// this one did); one that opens under neither is ErrUnreadable.
func Reseal(from, to *Box, sealed []byte, context string) (out, plain []byte, moved bool, err error) {
	if plain, err = from.Open(sealed, context); err == nil {
		return to.Seal(plain, context), plain, true, nil
	}
	if plain, err = to.Open(sealed, context); err == nil {
		return sealed, plain, false, nil
	}
	return nil, nil, false, ErrUnreadable
}
