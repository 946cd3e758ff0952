package service_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// A tenant's ttl runs on the wall clock (the base clock, here the manual
// clock the test moves), never on the tenant's own clock.

// newTTLTenant makes a tenant with ttl and checks its key works.
func (e *svcEnv) newTTLTenant(tb testing.TB, ttl time.Duration) (*simulator.Tenant, string) {
	tb.Helper()
	tn, err := e.svc.CreateTenant(nil, "", "", ttl)
	require.NoError(tb, err)
	key := tn.APIKeys[0].Key
	_, _, err = e.svc.Authenticate(key)
	require.NoError(tb, err)
	return tn, key
}

func authDescription(tb testing.TB, svc *service.Service, key string) string {
	tb.Helper()
	_, _, err := svc.Authenticate(key)
	require.Error(tb, err)
	require.Equal(tb, simulator.CodeUnauthorized, simulator.ErrorCode(err))
	return err.(*simulator.Error).Message
}

func TestTenantTTLRunsOnTheWallClock(t *testing.T) {
	for _, tc := range []struct {
		name        string
		tenantClock time.Duration // advanced on the tenant's own clock
		wall        time.Duration // passed on the wall clock
		expired     bool
	}{
		{name: "tenant clock advanced by days", tenantClock: 72 * time.Hour, wall: 0},
		{name: "tenant clock past ttl, wall just short", tenantClock: 3 * time.Hour, wall: 2*time.Hour - time.Microsecond},
		{name: "wall clock reaches ttl", wall: 2 * time.Hour, expired: true},
		{name: "wall clock past ttl", wall: 2*time.Hour + time.Minute, expired: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newSvcEnv(t, nil)
			tn, key := e.newTTLTenant(t, 2*time.Hour)
			assert.Equal(t, svcEpoch.Add(2*time.Hour), tn.ExpiresAt, "ttl counts from creation on the wall clock")
			if tc.tenantClock > 0 {
				_, fired, err := e.svc.AdvanceClockFired(context.Background(), tn, tc.tenantClock)
				require.NoError(t, err)
				for _, f := range fired {
					assert.NotEqual(t, string(simulator.JobExpireTenant), f.Kind)
				}
			}
			e.clk.Advance(tc.wall)
			_, nextPrune, err := e.svc.ExpireTenants()
			require.NoError(t, err)
			cur, err := e.svc.Tenant(tn.ID)
			if !tc.expired {
				require.NoError(t, err, "the tenant is still there")
				_, _, err = e.svc.Authenticate(key)
				assert.NoError(t, err)
				assert.True(t, nextPrune.IsZero(), "no expired-tenant record")
				return
			}
			assert.Nil(t, cur)
			assert.Equal(t, simulator.CodeUnauthorized, simulator.ErrorCode(err), "the tenant and its data are gone")
			assert.Equal(t, e.clk.Now().Add(simulator.ExpiredTenantWindow), nextPrune, "the record is kept 24h")
			msg := authDescription(t, e.svc, key)
			assert.Equal(t, fmt.Sprintf("The API key belonged to tenant %s, which expired at 2026-11-22T09:30:00.000000Z (its ttl runs on the wall clock)", tn.ID), msg)
		})
	}
}

// TestTenantExpiredKeyAnswers: the key of an expired tenant says so for
// ExpiredTenantWindow (also before the scheduler swept it); a deleted
// tenant's key, and an expired one's after the window, get the plain 401.
func TestTenantExpiredKeyAnswers(t *testing.T) {
	const plain = "The API key is not valid"
	expiredMsg := func(id string) string {
		return "The API key belonged to tenant " + id + ", which expired at 2026-11-22T08:30:00.000000Z (its ttl runs on the wall clock)"
	}
	for _, tc := range []struct {
		name  string
		act   func(t *testing.T, e *svcEnv, tn *simulator.Tenant)
		plain bool
	}{
		{name: "past ttl, not yet swept", act: func(t *testing.T, e *svcEnv, _ *simulator.Tenant) { e.clk.Advance(time.Hour) }},
		{name: "swept", act: func(t *testing.T, e *svcEnv, _ *simulator.Tenant) {
			e.clk.Advance(time.Hour)
			_, _, err := e.svc.ExpireTenants()
			require.NoError(t, err)
		}},
		{name: "swept late (server was down): window counts from the deletion", act: func(t *testing.T, e *svcEnv, _ *simulator.Tenant) {
			e.clk.Advance(30 * time.Hour)
			_, _, err := e.svc.ExpireTenants()
			require.NoError(t, err)
			e.clk.Advance(23 * time.Hour)
		}},
		{name: "23h59m after", act: func(t *testing.T, e *svcEnv, _ *simulator.Tenant) {
			e.clk.Advance(time.Hour)
			_, _, err := e.svc.ExpireTenants()
			require.NoError(t, err)
			e.clk.Advance(simulator.ExpiredTenantWindow - time.Minute)
		}},
		{name: "24h after", plain: true, act: func(t *testing.T, e *svcEnv, _ *simulator.Tenant) {
			e.clk.Advance(time.Hour)
			_, _, err := e.svc.ExpireTenants()
			require.NoError(t, err)
			e.clk.Advance(simulator.ExpiredTenantWindow)
		}},
		{name: "24h after, record pruned", plain: true, act: func(t *testing.T, e *svcEnv, _ *simulator.Tenant) {
			e.clk.Advance(time.Hour)
			_, _, err := e.svc.ExpireTenants()
			require.NoError(t, err)
			e.clk.Advance(simulator.ExpiredTenantWindow)
			_, nextPrune, err := e.svc.ExpireTenants()
			require.NoError(t, err)
			assert.True(t, nextPrune.IsZero(), "no record left")
		}},
		{name: "deleted", plain: true, act: func(t *testing.T, e *svcEnv, tn *simulator.Tenant) {
			require.NoError(t, e.svc.DeleteTenant(tn))
			e.clk.Advance(time.Hour)
			_, _, err := e.svc.ExpireTenants()
			require.NoError(t, err)
		}},
		{name: "deleted by the admin", plain: true, act: func(t *testing.T, e *svcEnv, tn *simulator.Tenant) {
			_, err := e.svc.DeleteTenantByID(tn.ID)
			require.NoError(t, err)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newSvcEnv(t, nil)
			tn, key := e.newTTLTenant(t, time.Hour)
			tc.act(t, e, tn)
			want := expiredMsg(tn.ID)
			if tc.plain {
				want = plain
			}
			assert.Equal(t, want, authDescription(t, e.svc, key))
		})
	}
}

// TestTenantExpiredRecordsCapped: at most MaxExpiredTenants records are
// kept; past it the oldest go first (their keys get the plain 401).
func TestTenantExpiredRecordsCapped(t *testing.T) {
	e := newSvcEnv(t, nil)
	_, first := e.newTTLTenant(t, time.Minute)
	e.clk.Advance(time.Minute)
	_, _, err := e.svc.ExpireTenants()
	require.NoError(t, err)
	keys := make([]string, 0, simulator.MaxExpiredTenants)
	for range simulator.MaxExpiredTenants {
		tn, err := e.svc.CreateTenant(nil, "", "", time.Minute)
		require.NoError(t, err)
		keys = append(keys, tn.APIKeys[0].Key)
	}
	e.clk.Advance(time.Minute)
	_, nextPrune, err := e.svc.ExpireTenants()
	require.NoError(t, err)
	assert.Equal(t, e.clk.Now().Add(simulator.ExpiredTenantWindow), nextPrune, "the oldest record left is of the second sweep")
	assert.Equal(t, "The API key is not valid", authDescription(t, e.svc, first), "the oldest record was dropped")
	for _, k := range []string{keys[0], keys[len(keys)/2], keys[len(keys)-1]} {
		assert.Contains(t, authDescription(t, e.svc, k), "which expired at 2026-11-22T07:32:00.000000Z")
	}
	all, err := e.svc.Tenants()
	require.NoError(t, err)
	assert.Len(t, all, 1, "only the default tenant is left")
}
