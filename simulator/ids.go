package simulator

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"

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
		return randomUUID()
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
	return randomUUID()
}

// randomUUID is a random (version 4) UUID in its text form, as
// uuid.NewString makes it but with one allocation, the string, instead of
// two: the bytes come from crypto/rand into an array that stays on the
// stack.
func randomUUID() string {
	var u uuid.UUID
	if _, err := rand.Read(u[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // variant RFC 4122
	return u.String()
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

// MaxTenantID is the longest tenant id (without an instance prefix).
const MaxTenantID = 64

// CheckIDSyntax reports whether id has the shape this server gives ids of
// kind: a payment id is 8 letters and digits, the ids of kind IDUUID
// (attempts, sessions, transactions, events, disputes, jobs) are UUIDs in
// their 36-character text form, payment method tokens are 1 to 64
// letters, digits, '_' or '-'. Both RandomIDs and the tests' generator
// make ids of these shapes. A snapshot whose ids do not match is refused:
// such an id may not fit a URL path, a header or a store key.
func CheckIDSyntax(kind IDKind, id string) error {
	switch kind {
	case IDPayment:
		if len(id) != 8 || !AllOf(id, isAlnum) {
			return fmt.Errorf("%q is not a payment id (8 letters and digits)", id)
		}
	case IDUUID:
		if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
			return fmt.Errorf("%q is not an id of this server (a UUID like 2f1e0c3a-5b6d-4e7f-8a9b-0c1d2e3f4a5b)", id)
		}
	default:
		if id == "" || len(id) > 64 || !AllOf(id, isIDChar) {
			return fmt.Errorf("%q is not an id of this server (1 to 64 letters, digits, '_' or '-')", id)
		}
	}
	return nil
}

// CheckTenantID reports whether id has the shape of a tenant id: 1 to
// MaxTenantID letters, digits, '_' or '-' (a configured tenant's id, or
// "t_" and a secret's first characters), after the instance's name and
// InstanceSep when the instance that made it has a name.
func CheckTenantID(id string) error {
	rest := id
	if name := InstanceOf(id); name != "" {
		rest = id[len(name)+len(InstanceSep):]
	}
	if rest == "" || len(rest) > MaxTenantID || !AllOf(rest, isIDChar) {
		return fmt.Errorf("%q is not a tenant id (1 to %d letters, digits, '_' or '-', after an instance name and '.')", id, MaxTenantID)
	}
	return nil
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIDChar(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

// AllOf reports whether every byte of s passes ok (true for "").
func AllOf(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}
