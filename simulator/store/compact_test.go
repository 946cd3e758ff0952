package store_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/fixtures"
	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
	"github.com/paysandbox/paysandbox/simulator/store"
)

func catalog(t *testing.T) *cards.Catalog {
	t.Helper()
	c, err := store.ShippedCards()
	require.NoError(t, err)
	return c
}

// TestShippedCardsOnce: the shipped catalogue is parsed once per process;
// every caller (the store, the service the composition root makes) shares
// the one value, and it is what fixtures.Cards says.
func TestShippedCardsOnce(t *testing.T) {
	a, err := store.ShippedCards()
	require.NoError(t, err)
	b, err := store.ShippedCards()
	require.NoError(t, err)
	assert.Same(t, a, b)
	parsed, err := cards.Parse(fixtures.Cards)
	require.NoError(t, err)
	assert.Equal(t, parsed.Cards(), a.Cards())
}

func cardPayment(id string, card simulator.CardInfo, first6 bool) *simulator.Payment {
	p := payment(id, simulator.StatusAuthorized)
	in := &simulator.Instrument{Card: card, ExpiryMonth: "12", ExpiryYear: "2030", CardholderName: "Ada"}
	p.Card, p.CVVGiven = card, true
	p.PaymentMethod = simulator.PaymentMethod{PaymentMethodToken: "tok", AuthorizationType: "FINAL",
		PaymentMethodType: simulator.PaymentMethodTypeCard, Data: in.CardData(first6)}
	acct := simulator.ProcessorAccount{Name: "STRIPE", ProcessorMerchantID: "acct_1", AuthorizationCode: true}
	other := simulator.ProcessorAccount{Name: "ADYEN", ProcessorMerchantID: "acct_2"}
	p.RiskData = &simulator.RiskData{
		FraudChecks: &simulator.FraudChecks{Source: "FRAUD_PROVIDER", PreAuthorizationResult: "ACCEPT", PostAuthorizationResult: "ACCEPT"},
		CVVCheck:    &simulator.RiskCheck{Source: "PROCESSOR", Result: "MATCHED"},
		AVSCheck:    &simulator.AVSCheck{Source: "PROCESSOR", Result: simulator.AVSResult{StreetAddress: "NOT_VERIFIED", PostalCode: "NOT_VERIFIED"}},
	}
	p.Plan = &simulator.Plan{Why: "w", Steps: []simulator.AuthStep{{Account: other, Status: simulator.StatusDeclined}, {Account: acct, Status: simulator.StatusAuthorized}}, Account: &acct}
	return p
}

// Payments and instruments read back exactly as written, whether their card
// is catalogued, outside the catalogue, or something the catalogue cannot
// rebuild (stored whole); only the first two are stored by reference.
func TestCompactRecordsRoundTrip(t *testing.T) {
	cat := catalog(t)
	odd := cat.Identify("4111111111111111")
	odd.BinData.IssuerName = "Not the catalogue's bank"
	lonePlan := cardPayment("p", cat.Identify("4111111111111111"), false)
	lonePlan.Plan.Account = &simulator.ProcessorAccount{Name: "ELSEWHERE"}
	noRisk := cardPayment("p0", cat.Identify("4111111111111111"), false)
	noRisk.RiskData = nil
	oddRisk := cardPayment("p5", cat.Identify("4111111111111111"), false)
	oddRisk.CVVGiven = false // the risk data no longer follows from the payment
	threeDS := cardPayment("p6", cat.Identify("4111111111111111"), false)
	threeDS.PaymentMethod.ThreeDSecure = &simulator.ThreeDSecure{ResponseCode: "AUTH_SUCCESS"}
	threeDS.RiskData.FraudChecks.PreAuthorizationResult = "THREE_DS"
	versioned := cardPayment("p7", cat.Identify("4111111111111111"), false)
	versioned.APIVersion = simulator.V22
	tests := []struct {
		name    string
		p       *simulator.Payment
		byRef   bool
		noWhole string // a value the stored record must not hold
	}{
		{"catalogued", cardPayment("p1", cat.Identify("4111111111111111"), false), true, cat.Identify("4111111111111111").Fingerprint},
		{"catalogued, no risk data", noRisk, true, "Paysandbox Test Bank"},
		{"catalogued, first6 shown", cardPayment("p2", cat.Identify("4111111111111111"), true), true, "PRIMARY_ACCOUNT_NUMBER"},
		{"outside the catalogue", cardPayment("p3", cat.Identify("5555000012345607"), true), true, "UNKNOWN"},
		{"not derivable", cardPayment("p4", odd, false), false, ""},
		{"plan account in no step", lonePlan, true, ""},
		{"risk data stored whole", oddRisk, true, ""},
		{"risk data after 3DS", threeDS, true, "FRAUD_PROVIDER"},
		{"made with an older API version", versioned, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openDB(t)
			in := &simulator.Instrument{Token: "tok" + tt.p.ID, TenantID: "t1", TokenType: simulator.TokenSingleUse, Card: tt.p.Card,
				ExpiryMonth: "12", ExpiryYear: "2030", AnalyticsID: "a", CreatedAt: time.Unix(1700000000, 0).UTC()}
			require.NoError(t, db.Update(func(tx simulator.Tx) error {
				return errorsJoin(tx.PutPayment(tt.p), tx.PutInstrument(in))
			}))
			// A fresh store copy is decoded (the decoded cache holds the written value).
			raw := map[string]string{}
			require.NoError(t, db.TenantRecords("t1", func(k, v string) bool { raw[k] = v; return true }))
			pay, inst := store.RecordJSON(raw["pay:"+tt.p.ID]), store.RecordJSON(raw["pi:"+in.Token])
			require.NotEmpty(t, pay)
			assert.Equal(t, tt.byRef, strings.Contains(pay, `"cr":`), pay)
			assert.Equal(t, tt.byRef, strings.Contains(inst, `"cr":`), inst)
			if tt.noWhole != "" {
				assert.NotContains(t, pay, tt.noWhole)
				assert.NotContains(t, inst, tt.noWhole)
			}
			assert.NotContains(t, pay, `"tenantId"`)
			require.NoError(t, db.PutRaw("t1", [][2]string{{"pay:" + tt.p.ID, raw["pay:"+tt.p.ID]}})) // same record, not cached
			assert.Equal(t, tt.p, read(t, db, "t1", tt.p.ID))
			var got *simulator.Instrument
			require.NoError(t, db.View(func(tx simulator.Tx) (err error) { got, err = tx.Instrument("t1", in.Token); return }))
			assert.Equal(t, in, got)
		})
	}
}

func errorsJoin(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Records in the long form of earlier layouts (JSON, whole card, tenant id,
// events with their body apart under evb and an id entry holding the whole
// key), once converted (simulator/storeconv), read unchanged, and updates
// and pruning handle them.
func TestLongFormRecordsRead(t *testing.T) {
	cat := catalog(t)
	db := openDB(t)
	p := cardPayment("old1", cat.Identify("4111111111111111"), true)
	in := &simulator.Instrument{Token: "oldtok", TenantID: "t1", TokenType: simulator.TokenMultiUse, Card: p.Card,
		ExpiryMonth: "01", ExpiryYear: "2031", AnalyticsID: "a", CustomerID: "c1", CreatedAt: time.Unix(1700000000, 0).UTC()}
	created := time.UnixMicro(1700000000123456).UTC()
	e := &simulator.Event{ID: "e-old", TenantID: "t1", Type: simulator.EventPaymentStatus, PaymentID: "old1", CreatedAt: created,
		Status: simulator.DeliveryDelivered}
	pb, err := json.Marshal(p)
	require.NoError(t, err)
	ib, err := json.Marshal(in)
	require.NoError(t, err)
	eb, err := json.Marshal(e)
	require.NoError(t, err)
	evtKey := fmt.Sprintf("t:t1:evt:%020d:e-old", created.UnixMicro())
	require.NoError(t, db.PutRaw("t1", [][2]string{
		{"t:t1:pay:old1", string(pb)}, {"t:t1:pi:oldtok", string(ib)},
		{evtKey, string(eb)}, {"t:t1:evi:e-old", evtKey}, {"t:t1:evb:e-old", `{"old":true}`},
	}))
	require.NoError(t, db.Migrate())
	assert.Equal(t, p, read(t, db, "t1", "old1"))
	var got *simulator.Instrument
	var ev *simulator.Event
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) {
		if got, err = tx.Instrument("t1", "oldtok"); err != nil {
			return err
		}
		ev, err = tx.Event("t1", "e-old")
		return err
	}))
	assert.Equal(t, in, got)
	require.NotNil(t, ev)
	assert.JSONEq(t, `{"old":true}`, string(ev.Body))

	ev.Attempts = append(ev.Attempts, simulator.DeliveryAttempt{At: created, StatusCode: 200})
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutEvent(ev) }))
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) { ev, err = tx.Event("t1", "e-old"); return }))
	assert.JSONEq(t, `{"old":true}`, string(ev.Body), "an update keeps the body")
	assert.Len(t, ev.Attempts, 1)

	var n int
	require.NoError(t, db.Update(func(tx simulator.Tx) (err error) {
		n, _, err = tx.PruneEvents("t1", 0, created.Add(time.Second), "")
		return
	}))
	assert.Equal(t, 1, n)
	left := 0
	require.NoError(t, db.TenantRecords("t1", func(k, _ string) bool {
		if strings.Contains(k, ":ev") {
			left++
		}
		return true
	}))
	assert.Zero(t, left, "evt and evi are gone, and no evb is left")
}

// An event is one record key holding its body: appended, updated by an
// attempt, listed and read by id, the body stays as rendered.
func TestEventOneKeyWithBody(t *testing.T) {
	db := openDB(t)
	created := time.UnixMicro(1700000000000001).UTC()
	body := `{"eventType":"PAYMENT.STATUS","payment":{"id":"p1","note":"line\nbreak"}}`
	e := &simulator.Event{ID: "e1", TenantID: "t1", Type: simulator.EventPaymentStatus, PaymentID: "p1", CreatedAt: created,
		Status: simulator.DeliveryPending, Body: json.RawMessage(body)}
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.AppendEvent(e) }))
	e.Status = simulator.DeliveryDelivered
	e.Body = nil
	e.Attempts = []simulator.DeliveryAttempt{{At: created, StatusCode: 204}}
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutEvent(e) }))

	var got *simulator.Event
	var list []*simulator.Event
	require.NoError(t, db.View(func(tx simulator.Tx) (err error) {
		if got, err = tx.Event("t1", "e1"); err != nil {
			return err
		}
		list, err = tx.Events("t1", simulator.EventQuery{})
		return err
	}))
	require.NotNil(t, got)
	assert.Equal(t, body, string(got.Body))
	assert.Equal(t, simulator.DeliveryDelivered, got.Status)
	require.Len(t, list, 1)
	assert.Equal(t, "e1", list[0].ID)
	assert.Len(t, list[0].Attempts, 1)
	keys := 0
	require.NoError(t, db.TenantRecords("t1", func(k, _ string) bool {
		if strings.Contains(k, ":evb:") {
			t.Errorf("body kept apart at %s", k)
		}
		keys++
		return true
	}))
	assert.Equal(t, 2, keys, "the event and its id index")
}
