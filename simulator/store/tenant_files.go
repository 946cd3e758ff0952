package store

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The layout of a store on disk. `--db PATH` names the
// catalog: PATH itself, a small buntdb file holding what must be found
// without opening a tenant (tenant records, API keys, expired-tenant
// records, tenant expiries, each tenant's next-due hint, the format
// number). Every tenant's own records live in its own buntdb file in the
// directory TenantsDir(PATH), named by TenantFileName, under keys that do
// not name the tenant (keys.go).
const (
	// pHint: hint:<esc tenant> -> the tenant's next-due hint (hintValue).
	pHint = "hint:"
)

// TenantsDir is the directory that holds the tenant files of the catalog at
// path.
func TenantsDir(path string) string { return path + ".tenants" }

// TenantFileName is tenant tid's file name in TenantsDir: the id with every
// byte outside [A-Za-z0-9_-] percent-encoded (so "." and "/" never appear
// in it), then ".db".
func TenantFileName(tid string) string {
	var b strings.Builder
	for i := 0; i < len(tid); i++ {
		c := tid[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String() + ".db"
}

func kHint(tid string) string { return pHint + esc(tid) }

// A next-due hint is a lower bound of when the tenant next has work: the
// earliest real due instant of its jobs (zero: none) and whether it may
// have PENDING webhook events. It is written only when the tenant's earliest
// instant moves earlier (or pending events appear); a hint that is too early
// is corrected when the tenant opens. Stored as "STAMP|P": STAMP is stamp()
// of the job instant or "-" for none, P is "1" when events may be pending
// else "0".
type hint struct {
	JobDue  time.Time
	Pending bool
}

func (h hint) value() string {
	s := "-"
	if !h.JobDue.IsZero() {
		s = stamp(h.JobDue)
	}
	if h.Pending {
		return s + "|1"
	}
	return s + "|0"
}

func parseHint(v string) (hint, error) {
	s, p, ok := strings.Cut(v, "|")
	if !ok || (p != "0" && p != "1") {
		return hint{}, fmt.Errorf("store: bad next-due hint %q", v)
	}
	h := hint{Pending: p == "1"}
	if s != "-" {
		us, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return hint{}, fmt.Errorf("store: bad next-due hint %q", v)
		}
		h.JobDue = time.UnixMicro(us).UTC()
	}
	return h, nil
}
