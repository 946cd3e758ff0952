package store

import (
	"encoding/hex"
	"strings"
	"time"
)

// Key layout. User-controlled parts (customer ids, idempotency keys) are hex
// encoded so that no value can reach into another key's range.
//
//	tenant:<id>                       tenant record
//	apikey:<key>                      -> tenant id
//	hint:<tenant>                     the tenant's next-due hint (tenant_files.go)
//	texp:<expiresAt>:<tenant>         tenants with a ttl, in wall-clock expiry order
//	xten:<deletedAt>:<tenant>         expired-tenant record, oldest first
//	xkey:<apiKey>                     -> its expired-tenant record's key
//	xtencount                         how many expired-tenant records there are
//
//	fileformat                        the format number (simulator/storeconv)
//
// The keys above are the catalog's; those below are in the tenant's own
// file, which holds nothing of another tenant, so they do not name it.
//
//	ctok:<clientToken>                -> session id, for a token that does
//	                                  not name its session (SessionByToken)
//	ch3ds:<challengeToken>            -> payment id
//	cs:<id>                           client session
//	pi:<token>                        payment instrument
//	cust:<hex>:<token>                vaulted instruments by customer
//	pay:<id>                          payment
//	payx:<date>:<id>                  payments in (date, id) order
//	idem:<hex>                        idempotency key -> payment id
//	att:<id>                          payment attempt
//	evt:<created>:<id>                outbox event
//	evi:<id>                          -> its key's <created>, for an event
//	                                  whose id does not carry it (eventKey)
//	whp:, dsp:                        the outbox's pending queue, disputes (tx_outbox.go)
//	job:<id>                          job
//	jobd:<due>:<id>                   the tenant's jobs in due order
//	<kind>                            an observer's record (observed.go)
//
// In any file, from a close out of time to the next open (disk.go):
//
//	shrinkdue                         the shrink this close skipped is due
const (
	pTenant = "tenant:"
	pAPIKey = "apikey:"
	pTExp   = "texp:"
	pXTen   = "xten:"
	pXKey   = "xkey:"
	kXCount = "xtencount"
	// kShrinkDue marks a file whose shrink a close skipped; the next open
	// deletes it (disk.go).
	kShrinkDue = "shrinkdue"
)

func kTExp(at time.Time, tid string) string      { return pTExp + stamp(at) + ":" + esc(tid) }
func kXTen(deleted time.Time, tid string) string { return pXTen + stamp(deleted) + ":" + esc(tid) }
func kXKey(key string) string                    { return pXKey + key }

func kTenant(id string) string      { return pTenant + id }
func kAPIKey(key string) string     { return pAPIKey + key }
func kSession(id string) string     { return "cs:" + id }
func kInstrument(tok string) string { return "pi:" + tok }
func pCustomer(cust string) string {
	return "cust:" + hex.EncodeToString([]byte(cust)) + ":"
}
func kPayment(id string) string { return "pay:" + id }

const pPayIdx = "payx:"

func kPayIdx(date time.Time, id string) string {
	d := stampDigits(date.UnixMicro())
	return pPayIdx + string(d[:]) + ":" + id
}
func kIdem(key string) string {
	return "idem:" + hex.EncodeToString([]byte(key))
}
func kAttempt(id string) string { return "att:" + id }

const pEvent = "evt:"

func kEvent(created time.Time, id string) string { return kEventAt(created.UnixMicro(), id) }

// kEventAt is kEvent of a creation time in microseconds since the epoch.
func kEventAt(us int64, id string) string {
	d := stampDigits(us)
	return pEvent + string(d[:]) + ":" + id
}
func kEventID(id string) string { return "evi:" + id }
func kJob(id string) string     { return "job:" + id }

const pJobDue = "jobd:"

func kJobDue(due time.Time, id string) string {
	return pJobDue + stamp(due) + ":" + id
}
func kTokSession(tok string) string   { return "ctok:" + tok }
func kTokChallenge(tok string) string { return "ch3ds:" + tok }

// esc keeps a tenant id from reaching into another tenant's key range: the
// separators ':' and '/' (and the escape '%' itself) are percent-encoded.
// Ids made by the product never contain them, so their keys are unchanged.
var keyEscaper = strings.NewReplacer("%", "%25", ":", "%3A", "/", "%2F")

func esc(s string) string { return keyEscaper.Replace(s) }

func unesc(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	return strings.NewReplacer("%3A", ":", "%2F", "/", "%25", "%").Replace(s)
}

// stamp renders t as fixed-width microseconds since the epoch, so that key
// order is time order (times before 1970 clamp to 0).
func stamp(t time.Time) string {
	d := stampDigits(t.UnixMicro())
	return string(d[:])
}

// stampDigits is the stamp of a time in microseconds since the epoch, as
// an array: a key built around it (p + string(d[:]) + ...) is one
// allocation, where fmt.Sprintf("%020d") took three per stamp (4
// allocations less per POST /payments, BenchmarkCreatePaymentServer).
func stampDigits(us int64) [20]byte {
	us = max(us, 0)
	var d [20]byte
	for i := len(d) - 1; i >= 0; i-- {
		d[i] = byte('0' + us%10)
		us /= 10
	}
	return d
}
