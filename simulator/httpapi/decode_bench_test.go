package httpapi

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// Request bodies the decoding benchmarks use: the bench tool's POST
// /payments and a typical merchant one (order, customer, metadata).
const (
	benchPaymentMinimal = `{"paymentMethodToken":"tok_2f0e6d3c-4a1b-4c9e-8f7a-1b2c3d4e5f60"}`
	benchPaymentTypical = `{"orderId":"order-12345","currencyCode":"EUR","amount":4599,` +
		`"paymentMethodToken":"tok_2f0e6d3c-4a1b-4c9e-8f7a-1b2c3d4e5f60","customerId":"cust-981",` +
		`"customer":{"emailAddress":"jane.doe@example.com","firstName":"Jane","lastName":"Doe",` +
		`"billingAddress":{"addressLine1":"1 Main Street","city":"Berlin","countryCode":"DE","postalCode":"10115"}},` +
		`"order":{"countryCode":"DE","lineItems":[{"itemId":"sku-1","name":"T-shirt","amount":1999,"quantity":2},` +
		`{"itemId":"sku-2","name":"Socks","amount":601,"quantity":1,"taxAmount":0}]},` +
		`"metadata":{"channel":"web","campaign":"autumn","attempt":1},` +
		`"paymentMethod":{"descriptor":"SHOP*ORDER","paymentType":"ECOMMERCE"},"expand":["transactions.events"]}`
)

// BenchmarkDecodePayment decodes a POST /payments body as the handler does
// (schema rules included); compare allocs/op and ns/op across versions.
func BenchmarkDecodePayment(b *testing.B) {
	for _, bc := range []struct{ name, body string }{{"minimal", benchPaymentMinimal}, {"typical", benchPaymentTypical}} {
		b.Run(bc.name, func(b *testing.B) {
			c := echo.New().NewContext(httptest.NewRequest("POST", "/payments", strings.NewReader(bc.body)), httptest.NewRecorder())
			setBody(c, []byte(bc.body))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var req createPaymentBody
				if _, err := decodeRequest(c, paymentCreate, "PaymentCreationAPIRequest", &req, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
