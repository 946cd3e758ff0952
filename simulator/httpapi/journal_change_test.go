package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/processors"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
	"github.com/paysandbox/paysandbox/simulator/service"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// TestJournalSignalsTheTenant: a journaled request is a change of what its
// tenant sees (the dashboard's payment page lists the journal), even when it
// wrote nothing to the store; other tenants are not signalled.
func TestJournalSignalsTheTenant(t *testing.T) {
	db, err := store.Open(":memory:", store.FsyncNever, store.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	catalog, err := cards.Parse(fixtures.Cards)
	require.NoError(t, err)
	svc := service.NewService(db, simulatorClock{}, simulator.RandomIDs{}, catalog, processors.NewFake(nil, nil), nil, service.Config{})
	for _, id := range []string{"a", "b"} {
		_, err := svc.EnsureTenant(service.TenantSpec{ID: id, SigningSecret: "s", APIKeys: []simulator.APIKey{{Key: "key-" + id, Scopes: simulator.AllScopes}}})
		require.NoError(t, err)
	}
	srv := New(svc, Options{RequestTimeout: 2 * time.Second})
	tests := []struct {
		name, path string
		journaled  bool
	}{
		{"a read that wrote nothing", "/payments/nope", true},
		{"the journal's own route", "/_sandbox/requests", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := svc.Changed("a"), svc.Changed("b")
			r := httptest.NewRequest(http.MethodGet, tc.path, nil)
			r.Header.Set("X-API-KEY", "key-a")
			if tc.path[1] != '_' {
				r.Header.Set("X-API-VERSION", "2.4")
			}
			srv.Routes().ServeHTTP(httptest.NewRecorder(), r)
			assert.Equal(t, tc.journaled, closed(a), "tenant a signalled")
			assert.False(t, closed(b), "tenant b signalled")
		})
	}
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
