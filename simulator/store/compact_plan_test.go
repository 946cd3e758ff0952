package store_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/store"
)

// fullPlan sets every field a plan has.
func fullPlan() *simulator.Plan {
	reason := &simulator.StatusReason{Type: "ISSUER_DECLINED", DeclineType: "SOFT_DECLINE", Code: "DO_NOT_HONOR", Message: "m"}
	acct := simulator.ProcessorAccount{Name: "ADYEN", ProcessorMerchantID: "acct_2", AsyncCapture: true, SettleAfter: time.Minute, AuthorizationCode: true}
	return &simulator.Plan{
		Rule: "fallback", Why: "rule fallback matched",
		Steps: []simulator.AuthStep{
			{Account: simulator.ProcessorAccount{Name: "STRIPE", ProcessorMerchantID: "acct_1"}, Status: simulator.StatusDeclined, Reason: reason},
			{Account: acct, Status: simulator.StatusAuthorized},
		},
		Capture: &simulator.CaptureDecision{Status: simulator.StatusSettling, SettleAfter: time.Hour, SettleTo: simulator.StatusSettled, Reason: reason},
		Refund:  &simulator.RefundDecision{Status: simulator.StatusPending, After: 2 * time.Minute, ResolveTo: simulator.StatusFailed, Reason: reason},
		Dispute: &simulator.DisputeDecision{After: 10 * time.Second, Reason: "FRAUDULENT", Amount: 400,
			Then: []simulator.DisputeStep{{Status: "CHALLENGED", After: time.Hour}, {Status: "WON", After: 24 * time.Hour}}},
		Account: &acct,
	}
}

// A payment's plan is stored under short names with no zero values (and the
// processor state without zero amounts) and reads back exactly.
func TestPlanShortNamesRoundTrip(t *testing.T) {
	cat := catalog(t)
	lone := fullPlan()
	lone.Account = &simulator.ProcessorAccount{Name: "ELSEWHERE", SettleAfter: time.Second}
	tests := []struct {
		name string
		plan *simulator.Plan
	}{
		{"every field", fullPlan()},
		{"account in no step", lone},
		{"empty", &simulator.Plan{}},
		{"none", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openDB(t)
			p := cardPayment("p1", cat.Identify("4111111111111111"), false)
			p.Plan = tt.plan
			p.Processor = &simulator.ProcessorState{Name: "ADYEN", ProcessorMerchantID: "acct_2", AmountRefunded: 5}
			p.FinalCaptured = tt.plan == nil
			require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutPayment(p) }))
			raw := map[string]string{}
			require.NoError(t, db.TenantRecords("t1", func(k, v string) bool { raw[k] = v; return true }))
			rec := store.RecordJSON(raw["pay:p1"])
			for _, long := range []string{"ProcessorMerchantID", "Account", "Status", `"plan"`, "amountCaptured"} {
				assert.NotContains(t, rec, long)
			}
			require.NoError(t, db.PutRaw("t1", [][2]string{{"pay:p1", raw["pay:p1"]}})) // not the cached value
			assert.Equal(t, p, read(t, db, "t1", "p1"))
		})
	}
}

// A record of the shape an older file holds (plan under Go field names,
// the account as a step index, zero processor amounts and finalCaptured)
// reads as it did.
func TestPlanGoNamesStillRead(t *testing.T) {
	db := openDB(t)
	old := `{"id":"Z926ZLaz","date":"2026-11-23T07:54:06.959908Z","dateUpdated":"2026-11-23T07:54:06.960648Z","status":"AUTHORIZED","orderId":"seed","currencyCode":"EUR","amount":1000,"cardTokenType":"CARD_PAN","processor":{"name":"STRIPE","processorMerchantId":"acct_sandbox_stripe","amountCaptured":0,"amountRefunded":0},"transactions":[],"cvvGiven":true,"sessionId":"s1","authorized":1000,"finalCaptured":false,"cr":{"f":"a087c6b4e8732527"},"paymentMethod":{"paymentMethodToken":"tok","isVaulted":false,"authorizationType":"FINAL","analyticsId":"an","paymentMethodType":"PAYMENT_CARD","d":{"m":"12","y":"2030","h":"Seed"}},` +
		`"plan":{"why":"no rule matched","steps":[{"Account":{"Name":"STRIPE","ProcessorMerchantID":"acct_sandbox_stripe","AsyncCapture":false,"SettleAfter":0,"AuthorizationCode":true},"Status":"AUTHORIZED","Reason":null}],` +
		`"capture":{"Status":"SETTLING","SettleAfter":3600000000000,"SettleTo":"SETTLED","Reason":null},"dispute":{"After":10000000000,"Reason":"FRAUDULENT","Amount":400,"Then":[{"Status":"WON","After":60000000000}]},"as":1},"rk":true}`
	require.NoError(t, db.PutRaw("t1", [][2]string{{"t:t1:pay:Z926ZLaz", old}}))
	require.NoError(t, db.Migrate())
	p := read(t, db, "t1", "Z926ZLaz")
	require.NotNil(t, p)
	acct := simulator.ProcessorAccount{Name: "STRIPE", ProcessorMerchantID: "acct_sandbox_stripe", AuthorizationCode: true}
	assert.Equal(t, &simulator.Plan{Why: "no rule matched", Steps: []simulator.AuthStep{{Account: acct, Status: simulator.StatusAuthorized}},
		Capture: &simulator.CaptureDecision{Status: simulator.StatusSettling, SettleAfter: time.Hour, SettleTo: simulator.StatusSettled},
		Dispute: &simulator.DisputeDecision{After: 10 * time.Second, Reason: "FRAUDULENT", Amount: 400, Then: []simulator.DisputeStep{{Status: "WON", After: time.Minute}}},
		Account: &acct}, p.Plan)
	assert.Equal(t, &simulator.ProcessorState{Name: "STRIPE", ProcessorMerchantID: "acct_sandbox_stripe"}, p.Processor)
	assert.False(t, p.FinalCaptured)
	assert.Equal(t, "Visa", p.PaymentMethod.Data.Network)

	// Written again, it takes the short names and reads the same.
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutPayment(p) }))
	raw := map[string]string{}
	require.NoError(t, db.TenantRecords("t1", func(k, v string) bool { raw[k] = v; return true }))
	assert.True(t, strings.Contains(store.RecordJSON(raw["pay:Z926ZLaz"]), `"pl":{`), raw["pay:Z926ZLaz"])
	assert.Less(t, len(raw["pay:Z926ZLaz"]), len(old))
	require.NoError(t, db.PutRaw("t1", [][2]string{{"pay:Z926ZLaz", raw["pay:Z926ZLaz"]}}))
	assert.Equal(t, p, read(t, db, "t1", "Z926ZLaz"))
}

// A transaction's currency, processor and card token type are stored only
// when they are not the payment's, and read back exactly either way (an
// empty value that differs is kept too).
func TestTransactionsStoredAgainstPayment(t *testing.T) {
	cat := catalog(t)
	p := cardPayment("p1", cat.Identify("4111111111111111"), false)
	p.CurrencyCode, p.CardTokenType = "EUR", "CARD_PAN"
	p.Processor = &simulator.ProcessorState{Name: "STRIPE", ProcessorMerchantID: "acct_1", AmountCaptured: 10}
	at, ten := time.Unix(1700000000, 0).UTC(), int64(10)
	p.Transactions = []simulator.Transaction{
		{ID: "x1", Type: simulator.TxnSale, Date: at, Amount: 10, CurrencyCode: "EUR", ProcessorStatus: simulator.StatusSettled,
			ProcessorName: "STRIPE", ProcessorMerchantID: "acct_1", ProcessorTransactionID: "pt", CardTokenType: "CARD_PAN",
			Events: []simulator.TransactionEvent{{ID: "ev1", Date: at, Type: simulator.EventCaptureSucceeded, Amount: &ten}}},
		{ID: "x2", Type: simulator.TxnRefund, Date: at, Amount: 5, CurrencyCode: "USD", ProcessorStatus: simulator.StatusPending,
			ProcessorName: "ADYEN", ProcessorMerchantID: "", CardTokenType: ""},
	}
	db := openDB(t)
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutPayment(p) }))
	raw := map[string]string{}
	require.NoError(t, db.TenantRecords("t1", func(k, v string) bool { raw[k] = v; return true }))
	rec := store.RecordJSON(raw["pay:p1"])
	assert.Equal(t, 1, strings.Count(rec, `"c":"EUR"`), rec)
	assert.Equal(t, 1, strings.Count(rec, `"tt":"CARD_PAN"`), rec)
	assert.Contains(t, rec, `"pm":""`, "an empty value that differs is kept")
	require.NoError(t, db.PutRaw("t1", [][2]string{{"pay:p1", raw["pay:p1"]}}))
	assert.Equal(t, p, read(t, db, "t1", "p1"))

	p.Transactions = []simulator.Transaction{}
	require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutPayment(p) }))
	require.NoError(t, db.TenantRecords("t1", func(k, v string) bool { raw[k] = v; return true }))
	require.NoError(t, db.PutRaw("t1", [][2]string{{"pay:p1", raw["pay:p1"]}}))
	assert.Equal(t, p, read(t, db, "t1", "p1"), "an empty list stays empty")
}

// The authorized amount is left out when it is the payment's amount, and
// isVaulted when false; both read back exactly.
func TestAuthorizedAndVaultedShortcuts(t *testing.T) {
	cat := catalog(t)
	tests := []struct {
		name       string
		authorized int64
		vaulted    bool
		stored     string // what the record holds for them
	}{
		{"authorized in full", 1000, false, ""},
		{"nothing authorized", 0, true, `"au":0`},
		{"partly", 400, false, `"au":400`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := cardPayment("p1", cat.Identify("4111111111111111"), false)
			p.Amount, p.Authorized, p.PaymentMethod.IsVaulted = 1000, tt.authorized, tt.vaulted
			db := openDB(t)
			require.NoError(t, db.Update(func(tx simulator.Tx) error { return tx.PutPayment(p) }))
			raw := map[string]string{}
			require.NoError(t, db.TenantRecords("t1", func(k, v string) bool { raw[k] = v; return true }))
			rec := store.RecordJSON(raw["pay:p1"])
			if tt.stored == "" {
				assert.NotContains(t, rec, `"au"`)
			} else {
				assert.Contains(t, rec, tt.stored)
			}
			assert.Equal(t, tt.vaulted, strings.Contains(rec, `"iv":true`))
			assert.NotContains(t, rec, `"iv":false`)
			require.NoError(t, db.PutRaw("t1", [][2]string{{"pay:p1", raw["pay:p1"]}}))
			assert.Equal(t, p, read(t, db, "t1", "p1"))
		})
	}
}
