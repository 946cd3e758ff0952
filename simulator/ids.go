package simulator

import (
	"crypto/rand"
	"encoding/base64"

	"github.com/google/uuid"
)

// IDKind names what an id is for; each kind has its own shape.
type IDKind int

const (
	IDPayment      IDKind = iota // short opaque, like the vendor's "kHdEw9EG"
	IDUUID                       // attempts, sessions, transaction events, events, disputes, jobs
	IDClientToken                // unguessable bearer token of a client session
	IDPaymentToken               // payment method token
	IDAnalytics                  // analyticsId
	IDProcessorTxn               // processorTransactionId
	IDAuthCode                   // authorizationCode
	IDSecret                     // API keys and signing secrets
)

// IDGen makes ids. Tests inject a deterministic one so golden files stay stable.
type IDGen interface {
	NewID(kind IDKind) string
}

// RandomIDs is the production IDGen (crypto/rand).
type RandomIDs struct{}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func randomString(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	for i := range b {
		b[i] = base62[int(b[i])%len(base62)]
	}
	return string(b)
}

// NewID implements IDGen.
func (RandomIDs) NewID(kind IDKind) string {
	switch kind {
	case IDPayment:
		return randomString(8)
	case IDUUID:
		return uuid.NewString()
	case IDClientToken:
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		return "cst_" + base64.RawURLEncoding.EncodeToString(b)
	case IDPaymentToken:
		return randomString(36)
	case IDAnalytics:
		return randomString(24)
	case IDProcessorTxn:
		return randomString(13)
	case IDAuthCode:
		return randomString(6)
	case IDSecret:
		return randomString(32)
	}
	return uuid.NewString()
}

// ProcessorIDs is an IDGen that shapes processor transaction ids and
// authorization codes like each processor's own (RandomIDs does; a test IDGen such
// as idgen.Seq keeps its deterministic counters).
type ProcessorIDs interface {
	ProcessorID(kind IDKind, processor string) string
}

// NewProcessorID is an id of kind (IDProcessorTxn or IDAuthCode) for processor.
func NewProcessorID(ids IDGen, kind IDKind, processor string) string {
	if p, ok := ids.(ProcessorIDs); ok {
		return p.ProcessorID(kind, processor)
	}
	return ids.NewID(kind)
}

const (
	digits     = "0123456789"
	lowerAlnum = "0123456789abcdefghijklmnopqrstuvwxyz"
	upperAlnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
)

func randomFrom(alphabet string, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// ProcessorID implements ProcessorIDs: STRIPE charges "ch_" + 24 base62,
// ADYEN 16-digit pspReferences, BRAINTREE 8 lowercase characters, others 13
// base62; authorization codes are 6 digits (BRAINTREE: 6 upper-case
// characters). Random, so unique in practice.
func (RandomIDs) ProcessorID(kind IDKind, processor string) string {
	if kind == IDAuthCode {
		if processor == "BRAINTREE" {
			return randomFrom(upperAlnum, 6)
		}
		return randomFrom(digits, 6)
	}
	switch processor {
	case "STRIPE":
		return "ch_" + randomString(24)
	case "ADYEN":
		return randomFrom("123456789", 1) + randomFrom(digits, 15)
	case "BRAINTREE":
		return randomFrom(lowerAlnum, 8)
	}
	return randomString(13)
}
