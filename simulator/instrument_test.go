package simulator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/paysandbox/paysandbox/simulator"
)

func TestCardExpired(t *testing.T) {
	now := time.Date(2026, 11, 28, 22, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, month, year string
		at                time.Time
		want              bool
	}{
		{"last month", "10", "2026", now, true},
		{"this month", "11", "2026", now, false},
		{"first instant of this month", "11", "2026", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), false},
		{"first instant of the next month", "11", "2026", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), true},
		{"next month", "12", "2026", now, false},
		{"December of last year", "12", "2025", now, true},
		{"January of next year", "01", "2027", now, false},
		{"far future", "12", "2030", now, false},
		{"judged in UTC", "11", "2026", time.Date(2026, 12, 1, 0, 30, 0, 0, time.FixedZone("CET", 3600)), false},
		{"unparsable month", "xx", "2020", now, false},
		{"month out of range", "13", "2020", now, false},
		{"unparsable year", "01", "", now, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, simulator.CardExpired(tc.month, tc.year, tc.at))
		})
	}
}
