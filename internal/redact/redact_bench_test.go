package redact

import (
	"strings"
	"testing"
)

// benchAnswer is a payment answer as the journal keeps it: dates, amounts,
// uuids, and words that start like security words (cvvCheck, currencyCode).
const benchAnswer = `{"amount":1000,"cardTokenType":"CARD_PAN","currencyCode":"EUR","customerId":"cust-1",` +
	`"date":"2026-11-22T07:30:00.000000Z","id":"3f2a9c1e-7b4d-4e0a-9c55-1d2e3f4a5b6c","orderId":"order-1",` +
	`"paymentMethod":{"paymentMethodData":{"cardholderName":"Jane Doe","expirationMonth":"12","expirationYear":"2030",` +
	`"last4Digits":"1111","network":"Visa"},"paymentMethodToken":"tok_test_000001"},` +
	`"riskData":{"cvvCheck":{"result":"MATCHED","source":"PROCESSOR"}},"status":"SETTLED",` +
	`"transactions":[{"amount":1000,"date":"2026-11-22T07:30:00.000000Z","processorStatus":"SETTLED",` +
	`"id":"9b1d0c2e-5a7f-4c3b-8e6d-2f1a0b9c8d7e","type":"SALE"}]}`

// BenchmarkBytes is the journal's masking on its usual bodies: an answer
// with nothing to mask (the cheap scan alone), the same answer with the
// digit-only uuids of idgen.Seq (a full pass that masks nothing), a card
// request (the
// rewrite), a log line, and 4 KiB of text with dates, versions, addresses
// and amounts (digit runs with separators that are no card numbers).
func BenchmarkBytes(b *testing.B) {
	note := strings.Repeat("lorem 2026/11/22 v1.24.3 192.168.100.200 1000.00 EUR ", 80)
	for _, bc := range []struct{ name, body string }{
		{"answer", benchAnswer},
		{"answer-seq-ids", strings.ReplaceAll(benchAnswer, "9b1d0c2e-5a7f-4c3b-8e6d-2f1a0b9c8d7e", "00000000-0000-4000-8000-000000000005")},
		{"card-request", `{"paymentInstrument":{"number":"4111 1111 1111 1111","cvv":"123","expirationMonth":"12",` +
			`"expirationYear":"2030","cardholderName":"Jane Doe"},"amount":1000,"currencyCode":"EUR","orderId":"order-1"}`},
		{"log-line", `GET /payments/3f2a9c1e-7b4d-4e0a-9c55-1d2e3f4a5b6c 200 153µs client=192.0.2.7 tenant=t_6c0d2b1e`},
		{"4KiB-note", `{"metadata":{"note":"` + note[:4000] + `"}}`},
	} {
		in := []byte(bc.body)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				_ = Bytes(in, false)
			}
		})
	}
}
