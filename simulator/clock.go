package simulator

import "time"

// Clock is the base clock. Each tenant's clock is the base clock plus the
// tenant's offset (Tenant.Now), so advancing one tenant's time never moves
// another's.
type Clock interface {
	Now() time.Time
}

// TimeFormat is the wire form of every timestamp: UTC, RFC 3339, microseconds, Z.
const TimeFormat = "2006-01-02T15:04:05.000000Z"

// FormatTime renders t in TimeFormat.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// NormTime drops what the wire cannot carry, so a stored record reads back equal.
func NormTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
