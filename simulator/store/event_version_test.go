package store_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// An event keeps the webhook version it was made with, across the attempts
// recorded on it; one stored without a version reads back without one (its
// body renders in the current version).
func TestEventKeepsItsVersion(t *testing.T) {
	db := openDB(t)
	created := time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)
	mk := func(id string, v simulator.APIVersion) *simulator.Event {
		return &simulator.Event{ID: id, TenantID: "t1", Type: simulator.EventPaymentStatus, PaymentID: "p1", CreatedAt: created,
			Status: simulator.DeliveryPending, Payment: payment("p1", simulator.StatusAuthorized), Version: v}
	}
	require.NoError(t, db.Update(func(tx simulator.Tx) error {
		if err := tx.AppendEvent(mk("e-22", simulator.V22)); err != nil {
			return err
		}
		return tx.AppendEvent(mk("e-none", ""))
	}))
	read := func(id string) *simulator.Event {
		var e *simulator.Event
		require.NoError(t, db.View(func(tx simulator.Tx) (err error) { e, err = tx.Event("t1", id); return }))
		require.NotNil(t, e)
		return e
	}
	assert.Equal(t, simulator.V22, read("e-22").Version)
	assert.Equal(t, simulator.APIVersion(""), read("e-none").Version)

	e := read("e-22")
	e.Status = simulator.DeliveryDelivered
	e.Attempts = append(e.Attempts, simulator.DeliveryAttempt{At: created, StatusCode: 200, SignedAt: "1"})
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutEvent(e) }))
	got := read("e-22")
	assert.Equal(t, simulator.V22, got.Version, "recording an attempt keeps it")
	assert.Equal(t, simulator.DeliveryDelivered, got.Status)
}
