package store

import (
	"encoding/hex"
	"fmt"
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
//	format                            the format number (simulator/storeconv)
//
// The keys above are the catalog's; those below are in the tenant's file.
//
//	t:<tenant>:ctok:<clientToken>     -> session id, for a token that does
//	                                  not name its session (SessionByToken)
//	t:<tenant>:ch3ds:<challengeToken> -> payment id
//	t:<tenant>:cs:<id>                client session
//	t:<tenant>:pi:<token>             payment instrument
//	t:<tenant>:cust:<hex>:<token>     vaulted instruments by customer
//	t:<tenant>:pay:<id>               payment
//	t:<tenant>:payx:<date>:<id>       payments in (date, id) order
//	t:<tenant>:idem:<hex>             idempotency key -> payment id
//	t:<tenant>:att:<id>               payment attempt
//	t:<tenant>:evt:<created>:<id>     outbox event
//	t:<tenant>:evi:<id>               -> its key's <created>, for an event
//	                                  whose id does not carry it (eventKey)
//	t:<tenant>:job:<id>               job
//	t:<tenant>:jobd:<due>:<id>        the tenant's jobs in due order
//	t:<tenant>:<kind>                 an observer's record (observed.go)
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

func tenantPrefix(tid string) string     { return "t:" + esc(tid) + ":" }
func kTenant(id string) string           { return pTenant + id }
func kAPIKey(key string) string          { return pAPIKey + key }
func kSession(tid, id string) string     { return tenantPrefix(tid) + "cs:" + id }
func kInstrument(tid, tok string) string { return tenantPrefix(tid) + "pi:" + tok }
func pCustomer(tid, cust string) string {
	return tenantPrefix(tid) + "cust:" + hex.EncodeToString([]byte(cust)) + ":"
}
func kPayment(tid, id string) string { return tenantPrefix(tid) + "pay:" + id }
func pPayIdx(tid string) string      { return tenantPrefix(tid) + "payx:" }
func kPayIdx(tid string, date time.Time, id string) string {
	return pPayIdx(tid) + stamp(date) + ":" + id
}
func kIdem(tid, key string) string {
	return tenantPrefix(tid) + "idem:" + hex.EncodeToString([]byte(key))
}
func kAttempt(tid, id string) string { return tenantPrefix(tid) + "att:" + id }
func pEvent(tid string) string       { return tenantPrefix(tid) + "evt:" }
func kEvent(tid string, created time.Time, id string) string {
	return pEvent(tid) + stamp(created) + ":" + id
}
func kEventID(tid, id string) string { return tenantPrefix(tid) + "evi:" + id }
func kJob(tid, id string) string     { return tenantPrefix(tid) + "job:" + id }
func pJobDue(tid string) string      { return tenantPrefix(tid) + "jobd:" }
func kJobDue(tid string, due time.Time, id string) string {
	return pJobDue(tid) + stamp(due) + ":" + id
}
func kTokSession(tid, tok string) string   { return tenantPrefix(tid) + "ctok:" + tok }
func kTokChallenge(tid, tok string) string { return tenantPrefix(tid) + "ch3ds:" + tok }

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
func stamp(t time.Time) string { return stampMicros(t.UnixMicro()) }

// stampMicros is stamp of a time in microseconds since the epoch.
func stampMicros(us int64) string {
	if us < 0 {
		us = 0
	}
	return fmt.Sprintf("%020d", us)
}
