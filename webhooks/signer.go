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
// answers nil when it matches, else why not. Only the exact string Sign
// makes matches: the base64 decoder's tolerance (line breaks anywhere,
// non-zero padding bits) would let other strings decode to the same MAC, so
// the comparison is of the canonical encodings, not of the decoded bytes.
func Verify(secret string, body []byte, signature string) error {
	if signature == "" {
		return ErrNoSignature
	}
	if _, err := base64.StdEncoding.Strict().DecodeString(signature); err != nil {
		return ErrMalformed
	}
	if !hmac.Equal([]byte(signature), []byte(Sign(secret, body))) {
		return ErrSignatureMismatch
	}
	return nil
}
