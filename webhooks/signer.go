package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
)

// Sign is base64(HMAC-SHA256(secret, body)): the value of X-Signature-Primary
// (and, with the previous secret, X-Signature-Secondary).
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Errors of Verify.
var (
	ErrNoSignature       = errors.New("no signature given")
	ErrMalformed         = errors.New("the signature is not base64")
	ErrSignatureMismatch = errors.New("the signature does not match the body and secret")
)

// Verify checks a signature of body made with secret, in constant time. It
// answers nil when it matches, else why not.
func Verify(secret string, body []byte, signature string) error {
	if signature == "" {
		return ErrNoSignature
	}
	got, err := base64.StdEncoding.DecodeString(signature)
	if err != nil {
		return ErrMalformed
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	if !hmac.Equal(got, m.Sum(nil)) {
		return ErrSignatureMismatch
	}
	return nil
}
