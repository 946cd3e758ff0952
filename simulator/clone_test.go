package simulator

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// fullPayment has every field of a Payment set, so a Clone that forgets one
// (or shares one) fails below.
func fullPayment() *Payment {
	i := func(v int64) *int64 { return &v }
	b := true
	w := 1.5
	now := time.Date(2026, 11, 22, 7, 30, 0, 0, time.UTC)
	return &Payment{
		ID: "p1", TenantID: "t", Date: now, DateUpdated: now, Status: StatusPartiallySettled,
		OrderID: "o", CurrencyCode: "EUR", Amount: 1000, CustomerID: "c",
		Customer: &Customer{EmailAddress: "a@b.co", BillingAddress: &Address{City: "X"}, ShippingAddress: &Address{City: "Y"}},
		Order: &Order{LineItems: []LineItem{{Amount: i(1), Quantity: i(2), DiscountAmount: i(3), TaxAmount: i(4), ProductData: &ProductData{Sku: "s", Weight: &w}}},
			Fees: []Fee{{Amount: i(5)}}, Shipping: &Shipping{Amount: i(6)}},
		Metadata:      map[string]any{"k": map[string]any{"n": []any{"x", json.Number("1")}}},
		PaymentMethod: PaymentMethod{PaymentMethodToken: "tok", ThreeDSecure: &ThreeDSecure{ResponseCode: "AUTH_SUCCESS"}, Data: CardData{Last4Digits: "1111"}},
		Processor:     &ProcessorState{Name: "STRIPE", AmountCaptured: 400},
		Transactions: []Transaction{{ID: "t1", Type: TxnSale, ProcessorStatusReason: &StatusReason{Type: "x"},
			Events: []TransactionEvent{{ID: "e1", Amount: i(400), Final: &b, Refunded: 100}}, Allocations: map[string]int64{"e1": 100}}},
		Required: &RequiredAction{Name: ActionThreeDS}, StatusReason: &StatusReason{Type: "y"},
		RiskData: &RiskData{FraudChecks: &FraudChecks{Source: "F"}, CVVCheck: &RiskCheck{Source: "P"}, AVSCheck: &AVSCheck{Source: "P"}},
		Card:     CardInfo{Last4: "1111"},
		Plan: &Plan{Rule: "r", Steps: []AuthStep{{Status: StatusDeclined, Reason: &StatusReason{Type: "s"}}},
			Capture: &CaptureDecision{Status: StatusFailed, Reason: &StatusReason{Type: "c"}},
			Refund:  &RefundDecision{Status: StatusFailed, Reason: &StatusReason{Type: "r"}},
			Dispute: &DisputeDecision{Reason: "FRAUDULENT", Then: []DisputeStep{{Status: "WON"}}},
			Account: &ProcessorAccount{Name: "STRIPE"}},
		ThreeDS: &ThreeDSState{ChallengeToken: "c"}, Timeout: &TimeoutState{ResolveTo: StatusAuthorized},
	}
}

func TestPaymentCloneIsDeepAndEqual(t *testing.T) {
	p := fullPayment()
	c := p.Clone()
	if !reflect.DeepEqual(p, c) {
		t.Fatal("the clone differs from the original")
	}
	// Change everything reachable in the clone; the original must not move.
	want, _ := json.Marshal(p)
	c.Customer.BillingAddress.City = "changed"
	*c.Order.LineItems[0].Amount = 99
	c.Order.LineItems[0].ProductData.Sku = "changed"
	*c.Order.Fees[0].Amount = 99
	*c.Order.Shipping.Amount = 99
	c.Metadata["k"].(map[string]any)["n"].([]any)[0] = "changed"
	c.PaymentMethod.ThreeDSecure.ResponseCode = "changed"
	c.Processor.AmountCaptured = 1
	c.Transactions[0].Events[0].Refunded = 1
	*c.Transactions[0].Events[0].Amount = 1
	c.Transactions[0].Events = append(c.Transactions[0].Events, TransactionEvent{ID: "e2"})
	c.Transactions[0].Allocations["e1"] = 1
	c.Transactions[0].ProcessorStatusReason.Type = "changed"
	c.RiskData.FraudChecks.Source = "changed"
	c.Plan.Steps[0].Reason.Type = "changed"
	c.Plan.Capture.Reason.Type = "changed"
	c.Plan.Refund.Reason.Type = "changed"
	c.Plan.Dispute.Then[0].Status = "changed"
	c.Plan.Account.Name = "changed"
	c.ThreeDS.Result = "changed"
	c.Timeout.ResolveTo = StatusFailed
	c.Required.Name = "changed"
	c.StatusReason.Type = "changed"
	got, _ := json.Marshal(p)
	if string(got) != string(want) {
		t.Fatalf("changing the clone changed the original:\n%s\n%s", want, got)
	}
}
