package store

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
)

// Tenant expiry: tenants with a ttl are indexed by their wall-clock expiry
// (texp:, kept by PutTenant and DeleteTenantData), and what remains of an
// expired tenant is a bounded record (xten:, oldest first, found by key
// through xkey:, counted in xtencount so the cap costs no scan).

func (t *Tx) ExpiringTenants(until time.Time, limit int) ([]string, error) {
	var out []string
	end := pTExp + stamp(until) + ";"
	err := t.catPrefix(pTExp, func(k, v string) bool {
		if k > end {
			return false
		}
		out = append(out, v)
		return limit <= 0 || len(out) < limit
	})
	return out, err
}

func (t *Tx) NextTenantExpiry() (time.Time, error) {
	var key string
	err := t.catPrefix(pTExp, func(k, _ string) bool { key = k; return false })
	if err != nil || key == "" {
		return time.Time{}, err
	}
	return stampTime(strings.TrimPrefix(key, pTExp))
}

// stampTime reads the time at the start of s (a stamp, then ':' and more).
func stampTime(s string) (time.Time, error) {
	digits, _, _ := strings.Cut(s, ":")
	us, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return time.Time{}, errors.New("store: malformed time stamp in key " + s)
	}
	return time.UnixMicro(us).UTC(), nil
}

func (t *Tx) PutExpiredTenant(x *simulator.ExpiredTenant) error {
	k := kXTen(x.DeletedAt, x.TenantID)
	prev, err := t.catGet(k)
	if err != nil {
		return err
	}
	if prev == "" {
		if err := t.addExpiredCount(1); err != nil {
			return err
		}
	}
	for _, key := range x.APIKeys {
		if err := t.cset(kXKey(key), k); err != nil {
			return err
		}
	}
	return t.cput(k, expiredTenantRecordOf(x))
}

func (t *Tx) ExpiredTenantByAPIKey(key string) (*simulator.ExpiredTenant, error) {
	k, err := t.catGet(kXKey(key))
	if err != nil || k == "" {
		return nil, err
	}
	return catTyped(t, k, decodeExpiredTenant)
}

func (t *Tx) PruneExpiredTenants(keep int, before time.Time) (time.Time, error) {
	n, err := t.expiredCount()
	if err != nil {
		return time.Time{}, err
	}
	cut := pXTen + stamp(before) + ";" // past every key deleted at before
	var drop []string
	var oldest time.Time
	var ferr error
	err = t.catPrefix(pXTen, func(k, _ string) bool {
		if k >= cut && n-len(drop) <= keep {
			oldest, ferr = stampTime(strings.TrimPrefix(k, pXTen))
			return false
		}
		drop = append(drop, k)
		return true
	})
	if err = errors.Join(err, ferr); err != nil {
		return time.Time{}, err
	}
	for _, k := range drop {
		raw, err := t.catGet(k)
		if err != nil {
			return time.Time{}, err
		}
		if x, err := decodeExpiredTenant(raw, ""); err == nil {
			for _, key := range x.APIKeys {
				if cur, _ := t.catGet(kXKey(key)); cur == k { // a key reused by a later record stays with it
					if err := t.cdel(kXKey(key)); err != nil {
						return time.Time{}, err
					}
				}
			}
		}
		if err := t.cdel(k); err != nil {
			return time.Time{}, err
		}
	}
	if len(drop) > 0 {
		if err := t.addExpiredCount(-len(drop)); err != nil {
			return time.Time{}, err
		}
	}
	return oldest, nil
}

func (t *Tx) expiredCount() (int, error) {
	v, err := t.catGet(kXCount)
	if err != nil || v == "" {
		return 0, err
	}
	return strconv.Atoi(v)
}

func (t *Tx) addExpiredCount(d int) error {
	n, err := t.expiredCount()
	if err != nil {
		return err
	}
	return t.cset(kXCount, strconv.Itoa(max(n+d, 0)))
}
