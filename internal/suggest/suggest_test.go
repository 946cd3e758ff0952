package suggest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"amount", "amount", 0}, {"amout", "amount", 1}, {"amuont", "amount", 1}, {"Amount", "amount", 0},
		{"order_id", "orderId", 0}, {"amnt", "amount", 2}, {"", "abc", 3}, {"ca", "abc", 3},
	} {
		assert.Equal(t, tc.want, Distance(tc.a, tc.b), "%s/%s", tc.a, tc.b)
	}
}

func TestNearest(t *testing.T) {
	fields := []string{"orderId", "currencyCode", "amount", "order", "paymentMethodToken", "customerId", "metadata"}
	for name, want := range map[string]string{
		"amout": "amount", "ammount": "amount", "amuont": "amount", "AMOUNT": "amount", "currency_code": "currencyCode",
		"orderID": "orderId", "ordr": "order", "metdata": "metadata", "customerID": "customerId",
		"amountttt": "", "amountt2": "amount", "bogusField": "", "xyz": "", "amount": "", "url": "",
	} {
		assert.Equal(t, want, Nearest(name, fields), name)
	}
	assert.Equal(t, "abcd", Nearest("abce", []string{"abcf", "abcd"}), "ties: alphabetical")
}

func TestClose(t *testing.T) {
	rules := []string{"generic-decline", "generic-fail", "three-ds-challenge", "soft-decline-everywhere", "gateway-timeout",
		"gateway-timeout-declined", "dispute-card", "dispute-amount", "slow-api", "refund-fails"}
	assert.Equal(t, []string{"generic-decline"}, Close("generic-declin", rules, 5))
	assert.Equal(t, []string{"gateway-timeout", "gateway-timeout-declined"}, Close("timeout", rules, 5))
	assert.Equal(t, []string{"three-ds-challenge"}, Close("3ds-challenge", rules, 5))
	assert.Equal(t, []string{"dispute-card", "dispute-amount"}, Close("dispute", rules, 5), "nearest first")
	assert.Len(t, Close("decline", rules, 2), 2)
	assert.Empty(t, Close("zzz", rules, 5))
}
