package dashboard

import (
	"sync"
	"time"
)

// maxEndedSessions bounds the signed-out sessions the dashboard remembers
// one by one, and the tenants it keeps a watermark for.
const maxEndedSessions = 10000

// revocations are the sessions that ended before their cookie expires: a
// session cookie is signed and carries everything else (auth.go), so an
// ended one is told apart only here. It holds, in memory:
//   - the id of each signed-out session, until the session would have
//     expired;
//   - per tenant, a watermark: its sessions issued before it are ended;
//   - a floor: the sessions of every tenant issued before it are ended.
//
// Both maps are bounded by max. When the ids are full, the expired ones go;
// if none has, the session issued first goes and its tenant's watermark
// rises past it, ending that tenant's sessions issued up to it (the oldest,
// those nearest their own expiry) but never letting one back in. When the
// watermarks are full, those whose sessions have all expired go; if none
// has, the lowest goes and the floor rises to it.
//
// Issue stamps are unix nanoseconds of the dashboard's clock, made strictly
// increasing (issue), so a session issued after a watermark is always above
// it whatever the clock does. Nothing is stored: the signing secret is the
// process's (Options.Secret), so a restart ends every session anyway.
type revocations struct {
	mu      sync.Mutex
	max     int
	ttl     time.Duration // how long a session lasts from its issue (Options.SessionTTL)
	last    int64         // the last issue stamp
	ids     map[string]endedSession
	tenants map[string]int64
	floor   int64
}

// endedSession is what a signed-out session id is kept with.
type endedSession struct {
	tenant string
	iat    int64 // issue stamp
	exp    int64 // unix seconds: the cookie is refused from then on anyway
}

func newRevocations(max int, ttl time.Duration) *revocations {
	return &revocations{max: max, ttl: ttl, ids: map[string]endedSession{}, tenants: map[string]int64{}}
}

// issue is the stamp of a session issued at now: its unix nanoseconds, or
// one more than the last stamp when that is not below them.
func (r *revocations) issue(now time.Time) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = max(r.last+1, now.UnixNano())
	return r.last
}

// ended reports whether session c was signed out or falls under a watermark.
func (r *revocations) ended(c claims) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.endedLocked(c)
}

func (r *revocations) endedLocked(c claims) bool {
	if c.Iat < r.floor || c.Iat < r.tenants[c.Tenant] {
		return true
	}
	_, ok := r.ids[c.Sid]
	return ok
}

// end ends session c (sign-out) and no other session of its tenant, unless
// the bound forces a watermark (see revocations).
func (r *revocations) end(c claims, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.endedLocked(c) {
		return
	}
	if len(r.ids) >= r.max {
		for id, e := range r.ids {
			if now.Unix() >= e.exp {
				delete(r.ids, id)
			}
		}
	}
	if len(r.ids) >= r.max {
		first := ""
		for id, e := range r.ids {
			if first == "" || e.iat < r.ids[first].iat {
				first = id
			}
		}
		e := r.ids[first]
		r.raise(e.tenant, e.iat+1, now)
	}
	r.ids[c.Sid] = endedSession{tenant: c.Tenant, iat: c.Iat, exp: c.Exp}
}

// raise ends every session of tenant issued before stamp w, and forgets the
// ids a watermark or the floor covers.
func (r *revocations) raise(tenant string, w int64, now time.Time) {
	if _, ok := r.tenants[tenant]; !ok && len(r.tenants) >= r.max {
		for id, tw := range r.tenants {
			if !now.Before(r.lapse(tw)) {
				delete(r.tenants, id)
			}
		}
		if len(r.tenants) >= r.max {
			lowest := ""
			for id, tw := range r.tenants {
				if lowest == "" || tw < r.tenants[lowest] {
					lowest = id
				}
			}
			r.floor = max(r.floor, r.tenants[lowest])
			delete(r.tenants, lowest)
		}
	}
	r.tenants[tenant] = max(r.tenants[tenant], w)
	for id, e := range r.ids {
		if e.iat < r.floor || e.iat < r.tenants[e.tenant] {
			delete(r.ids, id)
		}
	}
}

// lapse is when every session issued before stamp w has expired: such a
// session was issued at most at w on the dashboard's clock (issue never
// stamps below the clock) and lasts ttl; one second more covers the cookie's
// expiry in whole seconds.
func (r *revocations) lapse(w int64) time.Time {
	return time.Unix(0, w).Add(r.ttl + time.Second)
}
