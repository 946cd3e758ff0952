package storeconv

import (
	"time"
)

// Format is the number of the on-disk format this build writes: the
// catalog's KeyFormat holds it. Format 1 is the first release's; a catalog
// with no number, or a smaller one, is converted (Convert); a larger one was
// written by a later build and is refused.
const Format = 1

// KeyFormat is the catalog key holding the format number (decimal).
// Builds before the first release kept a marker of their own layout under
// keyDevFormat instead ("cbor1", or "1" for keys that named their tenant in
// its own file): such a catalog is older than format 1.
const (
	KeyFormat    = "fileformat"
	keyDevFormat = "format"
)

// Target is the store as the conversion writes it.
type Target interface {
	// Current reports whether raw, the value of the record at key, is in
	// the format this build writes (the conversion asks only of records:
	// tenants, expired tenants, sessions, instruments, payments, attempts,
	// events, jobs, disputes).
	Current(key, raw string) bool
	// Encode is what the current format stores for v, the kernel value read
	// from the older record at key (*simulator.Tenant, *simulator.Payment,
	// *simulator.Event, ... or a SessionToken or ChallengeToken): the
	// record at its key and any entry kept beside it, all in the file key
	// belongs to (a token's: its tenant's file). key is the record's key in
	// the current format: a tenant file's key, which does not name its
	// tenant (tid), or the catalog's (tid ""). No pair: the format keeps
	// nothing of v.
	Encode(tid, key string, v any) ([][2]string, error)
	// Decode is the kernel value of a current record at key (a job or an
	// event of tenant tid: the move to tenant files reads their due
	// instants and delivery states to write each tenant's hint).
	Decode(tid, key, raw string) (any, error)
	// TenantFile is the path of tenant tenantID's file.
	TenantFile(tenantID string) string
	// Hint is the catalog entry of tenant tenantID's next-due hint: its
	// earliest job (zero: none) and whether events may be pending.
	Hint(tenantID string, jobDue time.Time, pending bool) [2]string
}

// SessionToken is an entry of the catalog's lookup table of client tokens
// (ctok:<token> -> <tenant>/<session id>), kept by layouts before tokens
// carried their tenant; Encode places it in the tenant's file.
type SessionToken struct{ TenantID, Token, SessionID string }

// ChallengeToken is the same for a 3DS challenge token (ch3ds:<token> ->
// <tenant>/<payment id>).
type ChallengeToken struct{ TenantID, Token, PaymentID string }
