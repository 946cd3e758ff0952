package webhooks

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// table makes a slot table of total slots and share per tenant with the
// given attempts in flight.
func table(tb testing.TB, total, share int, inFlight map[string]int) *slotTable {
	tb.Helper()
	s := newSlotTable(total, share)
	for id, n := range inFlight {
		for range n {
			require.Equal(tb, started, s.take(id, grantDirect))
		}
	}
	return &s
}

// The rules of one grant: a tenant's share; the reserve kept for tenants
// with nothing in flight; control calls take any free slot within the
// share, and the loop leaves the next freed slots to those waiting.
func TestSlotTableTake(t *testing.T) {
	tests := []struct {
		name         string
		total, share int
		inFlight     map[string]int
		waiting      int
		tenant       string
		kind         grantKind
		want         startResult
	}{
		{"a free slot", 64, 8, nil, 0, "b", grantBackground, started},
		{"the tenant holds its share", 64, 8, map[string]int{"a": 8}, 0, "a", grantBackground, tenantFull},
		{"a control call within its share too", 64, 8, map[string]int{"a": 8}, 0, "a", grantDirect, tenantFull},
		{"idle tenant, the regular slots used", 64, 8, map[string]int{"a": 8, "c": 8, "d": 8, "e": 8}, 0, "b", grantBackground, started},
		{"busy tenant, the regular slots used: the reserve is not for it", 64, 8, map[string]int{"a": 7, "c": 8, "d": 8, "e": 8, "f": 1}, 0, "a", grantBackground, noSlot},
		{"busy tenant, one regular slot left", 64, 8, map[string]int{"a": 7, "c": 8, "d": 8, "e": 8}, 0, "a", grantBackground, started},
		{"idle tenant takes a reserved slot", 64, 8, map[string]int{"a": 8, "c": 8, "d": 8, "e": 8, "f": 1}, 0, "b", grantBackground, started},
		{"idle tenant, every slot used", 4, 2, map[string]int{"a": 2, "c": 2}, 0, "b", grantBackground, noSlot},
		{"a control call of a busy tenant takes a reserved slot", 64, 8, map[string]int{"a": 7, "c": 8, "d": 8, "e": 8, "f": 1}, 0, "f", grantDirect, started},
		{"the last free slot is left to a waiting control call", 4, 2, map[string]int{"a": 2, "c": 1}, 1, "b", grantBackground, noSlot},
		{"a waiting control call does not hold back its own kind", 4, 2, map[string]int{"a": 2, "c": 1}, 1, "b", grantDirect, started},
		{"one tenant alone may use its whole share", 3, 3, map[string]int{"a": 2}, 0, "a", grantBackground, started},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := table(t, tc.total, tc.share, tc.inFlight)
			s.waiting = tc.waiting
			used := s.used
			got := s.take(tc.tenant, tc.kind)
			assert.Equal(t, tc.want, got)
			if got == started {
				assert.Equal(t, used+1, s.used)
			} else {
				assert.Equal(t, used, s.used, "nothing taken")
			}
		})
	}
}

// The loop offers slots to tenants with nothing in flight first, then to
// the others, each group round-robin after the tenant served last.
func TestSlotTableOrder(t *testing.T) {
	s := table(t, 64, 8, map[string]int{"a": 1, "c": 3, "e": 1})
	assert.Equal(t, []string{"b", "d", "f", "a", "c", "e"}, s.order([]string{"f", "e", "d", "c", "b", "a"}, ""))
	assert.Equal(t, []string{"d", "f", "b", "e", "a", "c"}, s.order([]string{"a", "b", "c", "d", "e", "f"}, "c"))
	assert.Equal(t, []string{"b", "d", "f", "a", "c", "e"}, s.order([]string{"a", "b", "c", "d", "e", "f"}, "z"), "after the last id: from the first")
}

// rounds grants slots to the tenants of due (due attempts by tenant) as the
// loop does (startInTurn): round after round, each tenant in the table's
// order takes at most one, until one finds no slot it may take or nothing
// is granted; the attempts hang (no slot is released). It answers the
// grants in order.
func rounds(s *slotTable, due map[string]int, turn *string) []string {
	var grants []string
	for {
		var ready []string
		for id, n := range due {
			if n > 0 {
				ready = append(ready, id)
			}
		}
		progressed := false
		for _, id := range s.order(ready, *turn) {
			r := s.take(id, grantBackground)
			if r == noSlot {
				return grants
			}
			if r == started {
				due[id]--
				grants, *turn, progressed = append(grants, id), id, true
			}
		}
		if !progressed {
			return grants
		}
	}
}

// Sixteen tenants whose receivers hang, twenty attempts due each, at the
// default slots: however they arrive (all at once, or one after another,
// each taking what it may before the next), the reserve leaves slots free,
// and another tenant's first attempt is granted in the next round. Once the
// slots are all taken (thirty-six hanging tenants arriving one after
// another: four hold their whole share, the others one slot each), the next
// freed slot goes to the tenant with nothing in flight, not to the hanging
// tenant that freed it, nor to another one with attempts in flight.
func TestSlotGrantsWithHangingReceivers(t *testing.T) {
	hanging := func(n int) []string {
		var ids []string
		for i := range n {
			ids = append(ids, fmt.Sprintf("h%02d", i))
		}
		return ids
	}
	tests := []struct {
		name     string
		tenants  int
		together bool
	}{
		{"sixteen at once", 16, true},
		{"sixteen one after another", 16, false},
		{"thirty-five one after another", 35, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSlotTable(DefaultConcurrency, DefaultSlotsPerTenant)
			turn := ""
			due := map[string]int{}
			for _, id := range hanging(tc.tenants) {
				due[id] = 20
				if !tc.together {
					rounds(&s, due, &turn)
				}
			}
			rounds(&s, due, &turn)
			require.Less(t, s.used, s.total, "slots are left")
			for id, n := range s.per {
				assert.LessOrEqual(t, n, s.share, id)
			}
			due["b"] = 1
			assert.Equal(t, []string{"b"}, rounds(&s, due, &turn), "the other tenant's first attempt, and only it")
		})
	}

	t.Run("every slot taken: the next freed slot", func(t *testing.T) {
		s := newSlotTable(DefaultConcurrency, DefaultSlotsPerTenant)
		turn := ""
		due := map[string]int{}
		for _, id := range hanging(36) {
			due[id] = 20
			rounds(&s, due, &turn)
		}
		require.Equal(t, s.total, s.used, "thirty-six hanging tenants hold every slot")
		due["b"] = 1
		assert.Empty(t, rounds(&s, due, &turn))
		s.release("h00") // its attempt timed out
		assert.Equal(t, []string{"b"}, rounds(&s, due, &turn), "b, though its turn comes after h00's")
		s.release("h01")
		assert.Empty(t, rounds(&s, due, &turn), "the reserve is for first attempts: busy tenants wait for the regular slots")
	})
}
