package simulator

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"time"

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
		var b [16]byte // 128 bits: unguessable by these alone (WithSession)
		if _, err := rand.Read(b[:]); err != nil {
			panic(err) // crypto/rand never fails on supported platforms
		}
		return "cst_" + base64.RawURLEncoding.EncodeToString(b[:])
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

// TimedIDs is an IDGen that makes UUIDs carrying a time (RandomIDs does,
// and the tests' idgen.Seq with counters in place of random bits).
type TimedIDs interface {
	// TimedUUID is a new UUID that carries at (TimedUUID's shape), or a
	// UUID of kind IDUUID when at cannot be carried.
	TimedUUID(at time.Time) string
}

// NewEventID is the id of an outbox event created at created (the tenant's
// clock): a UUID that carries created to the microsecond (UUIDMicros) when
// ids makes such ids, else ids.NewID(IDUUID). The store finds an event by
// the time its id carries, so such an event needs no entry of its own from
// its id to its key.
func NewEventID(ids IDGen, created time.Time) string {
	if t, ok := ids.(TimedIDs); ok {
		return t.TimedUUID(created)
	}
	return ids.NewID(IDUUID)
}

// TimedUUID implements TimedIDs: a UUID version 7 (RFC 9562) of at, with
// the microseconds below the millisecond in rand_a (section 6.2, method 3)
// and 62 random bits; a random UUID (version 4) when at is before 1970 or
// past the 48-bit millisecond range.
func (RandomIDs) TimedUUID(at time.Time) string {
	var u [16]byte
	if _, err := rand.Read(u[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	if !timeUUID(&u, at) {
		u[6] = u[6]&0x0f | 0x40 // version 4
		u[8] = u[8]&0x3f | 0x80 // variant RFC 4122
	}
	return uuid.UUID(u).String()
}

// maxUUIDMillis is one past the last millisecond a UUID version 7 holds.
const maxUUIDMillis = 1 << 48

// timeUUID makes u, whose bytes are random, a UUID version 7 carrying at
// (false, u unchanged, when at is out of its range). rand_a holds the
// microseconds below the millisecond scaled to 12 bits and rounded down,
// so ids sort by time to the microsecond and the microseconds come back
// exactly (UUIDMicros).
func timeUUID(u *[16]byte, at time.Time) bool {
	us := at.UnixMicro()
	if us < 0 || us/1000 >= maxUUIDMillis {
		return false
	}
	ms, sub := uint64(us/1000), uint64(us%1000)
	ra := sub * 4096 / 1000
	u[0], u[1], u[2], u[3], u[4], u[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	u[6] = 0x70 | byte(ra>>8) // version 7
	u[7] = byte(ra)
	u[8] = u[8]&0x3f | 0x80 // variant RFC 9562
	return true
}

// UUIDMicros is the time, in microseconds since the epoch, that id carries
// when it is a UUID version 7 in its lower-case text form whose rand_a
// holds the microseconds below its millisecond as TimedUUID puts them
// there; ok is false for any other id (another version, another use of
// rand_a, upper case). It allocates nothing.
func UUIDMicros(id string) (us int64, ok bool) {
	if len(id) != 36 || id[8] != '-' || id[13] != '-' || id[18] != '-' || id[23] != '-' || id[14] != '7' {
		return 0, false
	}
	switch id[19] {
	case '8', '9', 'a', 'b': // variant RFC 9562
	default:
		return 0, false
	}
	for i := 24; i < 36; i++ {
		if _, ok := lowerHex(id[i]); !ok {
			return 0, false
		}
	}
	var ms, ra uint64
	for i := 0; i < 18; i++ {
		if i == 8 || i == 13 || i == 14 {
			continue
		}
		d, ok := lowerHex(id[i])
		if !ok {
			return 0, false
		}
		if i < 13 {
			ms = ms<<4 | d
		} else {
			ra = ra<<4 | d
		}
	}
	for i := 20; i < 23; i++ {
		if _, ok := lowerHex(id[i]); !ok {
			return 0, false
		}
	}
	// the one sub below 1000 whose sub*4096/1000 is ra, if there is one
	// (4096/1000 > 1: no two subs share an ra, and some ras have none)
	sub := (ra*1000 + 4095) / 4096
	if sub > 999 || sub*4096/1000 != ra {
		return 0, false
	}
	return int64(ms*1000 + sub), true
}

func lowerHex(c byte) (uint64, bool) {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0'), true
	case c >= 'a' && c <= 'f':
		return uint64(c-'a') + 10, true
	}
	return 0, false
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
