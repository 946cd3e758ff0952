package cards_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/cards"
)

// cardTestNetworks is the network table of the shipped catalogue. The tests
// here use their own data; fixtures/fixtures_test.go checks the shipped file.
const cardTestNetworks = `[
	{"network": "VISA", "displayName": "Visa", "prefixes": ["4"], "lengths": [13, 16, 19], "cvvLength": 3},
	{"network": "MASTERCARD", "displayName": "Mastercard", "prefixes": ["51-55", "2221-2720"], "lengths": [16], "cvvLength": 3},
	{"network": "AMEX", "displayName": "American Express", "prefixes": ["34", "37"], "lengths": [15], "cvvLength": 4},
	{"network": "DISCOVER", "displayName": "Discover", "prefixes": ["6011", "644-649", "65"], "lengths": [16, 17, 18, 19], "cvvLength": 3},
	{"network": "JCB", "displayName": "JCB", "prefixes": ["3528-3589"], "lengths": [16, 17, 18, 19], "cvvLength": 3},
	{"network": "DINERS_CLUB", "displayName": "Diners Club", "prefixes": ["300-305", "3095", "36", "38", "39"], "lengths": [14, 15, 16, 17, 18, 19], "cvvLength": 3},
	{"network": "UNIONPAY", "displayName": "UnionPay", "prefixes": ["62"], "lengths": [16, 17, 18, 19], "cvvLength": 3},
	{"network": "MAESTRO", "displayName": "Maestro", "prefixes": ["50", "56-58", "6304", "6759", "6761-6763"], "lengths": [12, 13, 14, 15, 16, 17, 18, 19], "cvvLength": 3}
]`

const cardTestBinData = `{"issuerCountryCode": "US", "issuerName": "Test Bank", "issuerCurrencyCode": "USD",
	"regionalRestriction": "NONE", "accountNumberType": "PRIMARY_ACCOUNT_NUMBER", "accountFundingType": "CREDIT",
	"prepaidReloadableIndicator": "NOT_APPLICABLE", "productUsageType": "CONSUMER", "productCode": "VISA", "productName": "VISA CLASSIC"}`

// cardTestCatalogue is a small valid catalogue.
const cardTestCatalogue = `{"networks": ` + cardTestNetworks + `, "cards": [
	{"number": "4111111111111111", "network": "VISA", "description": "Visa success", "binData": ` + cardTestBinData + `},
	{"number": "4000000000000002", "network": "VISA", "description": "Visa decline", "binData": ` + cardTestBinData + `},
	{"number": "5100000000000016", "network": "MASTERCARD", "description": "Mastercard fail", "binData": ` + cardTestBinData + `},
	{"number": "4916994064252017", "network": "VISA", "description": "3DS challenge", "binData": ` + cardTestBinData + `},
	{"number": "4000000000000259", "network": "VISA", "description": "Dispute", "binData": ` + cardTestBinData + `},
	{"number": "378282246310005", "network": "AMEX", "description": "Amex prepaid",
	 "binData": {"regionalRestriction": "DOMESTIC_USE_ONLY", "accountNumberType": "PRIMARY_ACCOUNT_NUMBER", "accountFundingType": "PREPAID",
	  "prepaidReloadableIndicator": "RELOADABLE", "productUsageType": "BUSINESS", "productCode": "AMEX", "productName": "AMEX PREPAID"}}
]}`

func mustParse(t *testing.T, data string) *cards.Catalog {
	t.Helper()
	c, err := cards.Parse([]byte(data))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return c
}

func TestIdentifyNetworkDetection(t *testing.T) {
	c := mustParse(t, cardTestCatalogue)
	tests := []struct {
		number      string
		network     string
		display     string
		description string
	}{
		{"4000056655665556", "VISA", "Visa", "4"},
		{"4222222222222", "VISA", "Visa", "4, 13 digits"},
		{"5105105105105100", "MASTERCARD", "Mastercard", "51"},
		{"5500000000000004", "MASTERCARD", "Mastercard", "55"},
		{"2221000000000009", "MASTERCARD", "Mastercard", "2221, low end of the 2-series"},
		{"2720999999999996", "MASTERCARD", "Mastercard", "2720, high end of the 2-series"},
		{"2220999999999999", "OTHER", "Other", "2220, just below the 2-series"},
		{"2721000000000000", "OTHER", "Other", "2721, just above the 2-series"},
		{"340000000000009", "AMEX", "American Express", "34"},
		{"371449635398431", "AMEX", "American Express", "37"},
		{"6011000990139424", "DISCOVER", "Discover", "6011"},
		{"6445644564456445", "DISCOVER", "Discover", "644"},
		{"6490000000000000", "DISCOVER", "Discover", "649"},
		{"6500000000000002", "DISCOVER", "Discover", "65"},
		{"6010000000000000", "OTHER", "Other", "6010"},
		{"3528000000000000", "JCB", "JCB", "3528"},
		{"3566111111111113", "JCB", "JCB", "3566"},
		{"3589000000000000", "JCB", "JCB", "3589"},
		{"3527000000000000", "OTHER", "Other", "3527"},
		{"3590000000000000", "OTHER", "Other", "3590"},
		{"30569309025904", "DINERS_CLUB", "Diners Club", "305"},
		{"30000000000004", "DINERS_CLUB", "Diners Club", "300"},
		{"30950000000000", "DINERS_CLUB", "Diners Club", "3095"},
		{"36227206271667", "DINERS_CLUB", "Diners Club", "36"},
		{"38000000000006", "DINERS_CLUB", "Diners Club", "38"},
		{"39000000000000", "DINERS_CLUB", "Diners Club", "39"},
		{"30600000000000", "OTHER", "Other", "306"},
		{"6200000000000005", "UNIONPAY", "UnionPay", "62"},
		{"6250947000000014", "UNIONPAY", "UnionPay", "625"},
		{"5000550000000029", "MAESTRO", "Maestro", "50"},
		{"5600000000000000", "MAESTRO", "Maestro", "56"},
		{"5800000000000000", "MAESTRO", "Maestro", "58"},
		{"6304000000000000", "MAESTRO", "Maestro", "6304"},
		{"6759649826438453", "MAESTRO", "Maestro", "6759"},
		{"6761000000000006", "MAESTRO", "Maestro", "6761"},
		{"6763000000000000", "MAESTRO", "Maestro", "6763"},
		{"6760000000000000", "OTHER", "Other", "6760"},
		{"5900000000000000", "OTHER", "Other", "59"},
		{"1234567812345670", "OTHER", "Other", "1"},
		{"9999999999999995", "OTHER", "Other", "9"},
	}
	for _, tt := range tests {
		t.Run(tt.description, func(t *testing.T) {
			got := c.Identify(tt.number)
			if got.Network != tt.network || got.NetworkDisplay != tt.display {
				t.Errorf("Identify(%s) network = %s/%s, want %s/%s", tt.number, got.Network, got.NetworkDisplay, tt.network, tt.display)
			}
			if got.BinData.Network != tt.network {
				t.Errorf("BinData.Network = %s, want %s", got.BinData.Network, tt.network)
			}
		})
	}
}

func TestIdentifyLongestPrefixWins(t *testing.T) {
	// DANKORT's 4571 sits inside VISA's 4, and a one-value range inside a
	// wider two-digit one: the longest match wins whatever the file order.
	data := `{"networks": [
		{"network": "VISA", "displayName": "Visa", "prefixes": ["4"], "lengths": [16], "cvvLength": 3},
		{"network": "DANKORT", "displayName": "Dankort", "prefixes": ["4571"], "lengths": [16], "cvvLength": 3},
		{"network": "ELO", "displayName": "Elo", "prefixes": ["506699-506778"], "lengths": [16], "cvvLength": 3},
		{"network": "MAESTRO", "displayName": "Maestro", "prefixes": ["50-50"], "lengths": [16], "cvvLength": 3}
	], "cards": [
		{"number": "4571000000000001", "network": "DANKORT", "description": "Dankort",
		 "binData": {"regionalRestriction": "UNKNOWN", "accountNumberType": "UNKNOWN", "accountFundingType": "UNKNOWN",
		  "prepaidReloadableIndicator": "UNKNOWN", "productUsageType": "UNKNOWN", "productCode": "DANKORT", "productName": "DANKORT"}}
	]}`
	c := mustParse(t, data)
	tests := map[string]string{
		"4571000000000001": "DANKORT", // catalogued
		"4571999999999999": "DANKORT",
		"4570999999999999": "VISA",
		"4572000000000000": "VISA",
		"5066990000000000": "ELO",
		"5067780000000000": "ELO",
		"5066980000000000": "MAESTRO",
		"5067790000000000": "MAESTRO",
	}
	for number, want := range tests {
		if got := c.Identify(number).Network; got != want {
			t.Errorf("Identify(%s).Network = %s, want %s", number, got, want)
		}
	}
}

func TestIdentifyCatalogued(t *testing.T) {
	c := mustParse(t, cardTestCatalogue)

	t.Run("success", func(t *testing.T) {
		got := c.Identify("4111111111111111")
		want := simulator.CardInfo{
			Fingerprint:    simulator.CardFingerprint("4111111111111111"),
			First6:         "411111",
			Last4:          "1111",
			Network:        "VISA",
			NetworkDisplay: "Visa",
			BinData: simulator.BinData{
				Network: "VISA", IssuerCountryCode: "US", IssuerName: "Test Bank", IssuerCurrencyCode: "USD",
				RegionalRestriction: "NONE", AccountNumberType: "PRIMARY_ACCOUNT_NUMBER", AccountFundingType: "CREDIT",
				PrepaidReloadableIndicator: "NOT_APPLICABLE", ProductUsageType: "CONSUMER", ProductCode: "VISA", ProductName: "VISA CLASSIC",
			},
			CVVLength:   3,
			Catalogued:  true,
			Description: "Visa success",
		}
		if got != want {
			t.Errorf("Identify =\n%+v\nwant\n%+v", got, want)
		}
	})

	t.Run("mastercard", func(t *testing.T) {
		got := c.Identify("5100000000000016")
		if !got.Catalogued || got.Network != "MASTERCARD" || got.NetworkDisplay != "Mastercard" || got.Description != "Mastercard fail" {
			t.Errorf("Identify = %+v", got)
		}
		if got.BinData.Network != "MASTERCARD" {
			t.Errorf("BinData.Network = %s, want MASTERCARD (the card's network)", got.BinData.Network)
		}
	})

	t.Run("amex without issuer data", func(t *testing.T) {
		got := c.Identify("378282246310005")
		if got.First6 != "378282" || got.Last4 != "0005" || got.CVVLength != 4 {
			t.Errorf("Identify = %+v", got)
		}
		if got.BinData.IssuerCountryCode != "" || got.BinData.AccountFundingType != "PREPAID" ||
			got.BinData.PrepaidReloadableIndicator != "RELOADABLE" || got.BinData.ProductUsageType != "BUSINESS" {
			t.Errorf("BinData = %+v", got.BinData)
		}
	})
}

func TestIdentifyUncatalogued(t *testing.T) {
	c := mustParse(t, cardTestCatalogue)
	tests := []struct {
		number, network, display, first6, last4 string
		cvv                                     int
	}{
		{"4242424242424242", "VISA", "Visa", "424242", "4242", 3},
		{"5555555555554444", "MASTERCARD", "Mastercard", "555555", "4444", 3},
		{"9999999999999995", "OTHER", "Other", "999999", "9995", 0},
		{"500000000009", "MAESTRO", "Maestro", "500000", "0009", 3},
	}
	for _, tt := range tests {
		t.Run(tt.number, func(t *testing.T) {
			got := c.Identify(tt.number)
			want := simulator.CardInfo{
				Fingerprint:    simulator.CardFingerprint(tt.number),
				First6:         tt.first6,
				Last4:          tt.last4,
				Network:        tt.network,
				NetworkDisplay: tt.display,
				BinData: simulator.BinData{
					Network:                    tt.network,
					RegionalRestriction:        "UNKNOWN",
					AccountNumberType:          "UNKNOWN",
					AccountFundingType:         "UNKNOWN",
					PrepaidReloadableIndicator: "UNKNOWN",
					ProductUsageType:           "UNKNOWN",
					ProductCode:                tt.network,
					ProductName:                tt.network,
				},
				CVVLength: tt.cvv,
			}
			if got != want {
				t.Errorf("Identify =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

func TestIdentifyBinDataJSON(t *testing.T) {
	c := mustParse(t, cardTestCatalogue)
	b, err := json.Marshal(c.Identify("4242424242424242").BinData)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"network":"VISA","regionalRestriction":"UNKNOWN","accountNumberType":"UNKNOWN",` +
		`"accountFundingType":"UNKNOWN","prepaidReloadableIndicator":"UNKNOWN","productUsageType":"UNKNOWN",` +
		`"productCode":"VISA","productName":"VISA"}`
	if string(b) != want {
		t.Errorf("binData JSON = %s, want %s", b, want)
	}
}

func TestCatalogCards(t *testing.T) {
	c := mustParse(t, cardTestCatalogue)
	got := c.Cards()
	want := []cards.Card{
		{Number: "4111111111111111", Network: "VISA", Description: "Visa success"},
		{Number: "4000000000000002", Network: "VISA", Description: "Visa decline"},
		{Number: "5100000000000016", Network: "MASTERCARD", Description: "Mastercard fail"},
		{Number: "4916994064252017", Network: "VISA", Description: "3DS challenge"},
		{Number: "4000000000000259", Network: "VISA", Description: "Dispute"},
		{Number: "378282246310005", Network: "AMEX", Description: "Amex prepaid"},
	}
	if len(got) != len(want) {
		t.Fatalf("Cards() has %d entries, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Cards()[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	got[0].Number = "changed"
	if c.Cards()[0].Number != "4111111111111111" {
		t.Error("Cards() returned the catalogue's own slice")
	}
}

func TestParseEmptyCards(t *testing.T) {
	c := mustParse(t, `{"networks": `+cardTestNetworks+`, "cards": []}`)
	if len(c.Cards()) != 0 {
		t.Errorf("Cards() = %v, want none", c.Cards())
	}
	if got := c.Identify("4111111111111111"); got.Catalogued || got.Network != "VISA" {
		t.Errorf("Identify = %+v", got)
	}
}

// cardCatalogueDoc decodes cardTestCatalogue into generic JSON to mutate it.
func cardCatalogueDoc(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(cardTestCatalogue), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func cardDocNetwork(doc map[string]any, i int) map[string]any {
	return doc["networks"].([]any)[i].(map[string]any)
}

func cardDocCard(doc map[string]any, i int) map[string]any {
	return doc["cards"].([]any)[i].(map[string]any)
}

func cardDocBinData(doc map[string]any, i int) map[string]any {
	return cardDocCard(doc, i)["binData"].(map[string]any)
}

func TestParseStrict(t *testing.T) {
	raw := func(s string) func(*testing.T) []byte { return func(*testing.T) []byte { return []byte(s) } }
	mutate := func(f func(doc map[string]any)) func(*testing.T) []byte {
		return func(t *testing.T) []byte {
			doc := cardCatalogueDoc(t)
			f(doc)
			b, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	addCard := func(card map[string]any) func(doc map[string]any) {
		return func(doc map[string]any) {
			if card["binData"] == nil {
				var bd map[string]any
				_ = json.Unmarshal([]byte(cardTestBinData), &bd)
				card["binData"] = bd
			}
			doc["cards"] = append(doc["cards"].([]any), card)
		}
	}
	tests := []struct {
		name  string
		data  func(*testing.T) []byte
		wants []string // substrings of the error
	}{
		{"not JSON", raw(`{"networks": [`), []string{"card catalogue"}},
		{"not an object", raw(`[]`), []string{"card catalogue"}},
		{"trailing data", raw(cardTestCatalogue + ` {}`), []string{"after the top-level object"}},
		{"unknown top-level field", mutate(func(d map[string]any) { d["extra"] = 1 }), []string{`"extra"`}},
		{"networks missing", mutate(func(d map[string]any) { delete(d, "networks") }), []string{`"networks"`}},
		{"networks empty", mutate(func(d map[string]any) { d["networks"] = []any{} }), []string{`"networks"`}},
		{"cards missing", mutate(func(d map[string]any) { delete(d, "cards") }), []string{`"cards"`}},

		{"network: unknown field", mutate(func(d map[string]any) { cardDocNetwork(d, 0)["regex"] = "^4" }), []string{`"regex"`}},
		{"network: not an enum value", mutate(func(d map[string]any) { cardDocNetwork(d, 0)["network"] = "VISA_ELECTRON" }),
			[]string{"VISA_ELECTRON", "CardNetworkEnum"}},
		{"network: OTHER", mutate(func(d map[string]any) { cardDocNetwork(d, 0)["network"] = "OTHER" }), []string{"OTHER", "reserved"}},
		{"network: duplicate", mutate(func(d map[string]any) { cardDocNetwork(d, 1)["network"] = "VISA" }), []string{"network 1", "duplicate network"}},
		{"network: duplicate first", mutate(func(d map[string]any) { cardDocNetwork(d, 7)["network"] = "VISA" }), []string{"network 7", "duplicate network"}},
		{"network: no displayName", mutate(func(d map[string]any) { cardDocNetwork(d, 2)["displayName"] = " " }), []string{"AMEX", "displayName"}},
		{"network: no prefixes", mutate(func(d map[string]any) { cardDocNetwork(d, 2)["prefixes"] = []any{} }), []string{"AMEX", "prefixes"}},
		{"network: non-digit prefix", mutate(func(d map[string]any) { cardDocNetwork(d, 2)["prefixes"] = []any{"3x"} }), []string{"AMEX", `"3x"`}},
		{"network: prefix too long", mutate(func(d map[string]any) { cardDocNetwork(d, 2)["prefixes"] = []any{"340000000"} }), []string{"AMEX", "340000000"}},
		{"network: range bounds of different lengths", mutate(func(d map[string]any) { cardDocNetwork(d, 1)["prefixes"] = []any{"22-2720"} }),
			[]string{"MASTERCARD", "different lengths"}},
		{"network: empty range", mutate(func(d map[string]any) { cardDocNetwork(d, 1)["prefixes"] = []any{"55-51"} }), []string{"MASTERCARD", "empty"}},
		{"network: open range", mutate(func(d map[string]any) { cardDocNetwork(d, 1)["prefixes"] = []any{"51-"} }), []string{"MASTERCARD", `"51-"`}},
		{"network: leading zero", mutate(func(d map[string]any) { cardDocNetwork(d, 1)["prefixes"] = []any{"05"} }), []string{"MASTERCARD", "starts with 0"}},
		{"network: overlapping prefixes", mutate(func(d map[string]any) { cardDocNetwork(d, 7)["prefixes"] = []any{"50-51"} }),
			[]string{"MASTERCARD", "MAESTRO", "overlap"}},
		{"network: same prefix twice", mutate(func(d map[string]any) { cardDocNetwork(d, 2)["prefixes"] = []any{"34", "34"} }), []string{"AMEX", "overlap"}},
		{"network: no lengths", mutate(func(d map[string]any) { cardDocNetwork(d, 0)["lengths"] = []any{} }), []string{"VISA", "lengths"}},
		{"network: length too short", mutate(func(d map[string]any) { cardDocNetwork(d, 0)["lengths"] = []any{11, 16} }), []string{"VISA", "length 11"}},
		{"network: length too long", mutate(func(d map[string]any) { cardDocNetwork(d, 0)["lengths"] = []any{16, 20} }), []string{"VISA", "length 20"}},
		{"network: duplicate length", mutate(func(d map[string]any) { cardDocNetwork(d, 0)["lengths"] = []any{16, 16} }), []string{"VISA", "duplicate length"}},
		{"network: bad cvvLength", mutate(func(d map[string]any) { cardDocNetwork(d, 0)["cvvLength"] = 5 }), []string{"VISA", "cvvLength 5"}},
		{"network: missing cvvLength", mutate(func(d map[string]any) { delete(cardDocNetwork(d, 0), "cvvLength") }), []string{"VISA", "cvvLength 0"}},

		{"card: unknown field", mutate(func(d map[string]any) { cardDocCard(d, 0)["cvv"] = "123" }), []string{`"cvv"`}},
		{"card: network inside binData", mutate(func(d map[string]any) { cardDocBinData(d, 0)["network"] = "VISA" }), []string{`"network"`}},
		{"card: Luhn failure", mutate(addCard(map[string]any{"number": "4111111111111112", "network": "VISA", "description": "x"})),
			[]string{"4111111111111112", "Luhn"}},
		{"card: non-digit number", mutate(func(d map[string]any) { cardDocCard(d, 0)["number"] = "4111 1111 1111 1111" }),
			[]string{"4111 1111 1111 1111", "Luhn"}},
		{"card: number too short", mutate(func(d map[string]any) { cardDocCard(d, 0)["number"] = "00000000000" }), []string{"00000000000", "12-19"}},
		{"card: duplicate number", mutate(func(d map[string]any) { cardDocCard(d, 3)["number"] = "4111111111111111" }),
			[]string{"card 3", "4111111111111111", "duplicate"}},
		{"card: unknown network", mutate(func(d map[string]any) { cardDocCard(d, 0)["network"] = "ELO" }), []string{"4111111111111111", `"ELO"`}},
		{"card: missing network", mutate(func(d map[string]any) { delete(cardDocCard(d, 0), "network") }), []string{"4111111111111111", `network ""`}},
		{"card: network disagrees with prefix", mutate(func(d map[string]any) { cardDocCard(d, 0)["network"] = "MASTERCARD" }),
			[]string{"4111111111111111", "MASTERCARD", "prefix is VISA"}},
		{"card: prefix matches no network", mutate(addCard(map[string]any{"number": "9999999999999995", "network": "VISA", "description": "x"})),
			[]string{"9999999999999995", "prefix is OTHER"}},
		{"card: length not allowed for network", mutate(addCard(map[string]any{"number": "41111111111111113", "network": "VISA", "description": "x"})),
			[]string{"41111111111111113", "length 17"}},
		{"card: no description", mutate(func(d map[string]any) { cardDocCard(d, 0)["description"] = "" }), []string{"4111111111111111", "description"}},
		{"card: outcome is not the catalogue's (scenarios decide)", mutate(func(d map[string]any) { cardDocCard(d, 0)["outcome"] = "DECLINED" }),
			[]string{`"outcome"`}},
		{"card: threeDS is not the catalogue's", mutate(func(d map[string]any) { cardDocCard(d, 0)["threeDS"] = "CHALLENGE" }), []string{`"threeDS"`}},
		{"card: dispute is not the catalogue's", mutate(func(d map[string]any) { cardDocCard(d, 0)["dispute"] = true }), []string{`"dispute"`}},
		{"card: statusReason is not the catalogue's", mutate(func(d map[string]any) { cardDocCard(d, 0)["statusReason"] = map[string]any{"type": "ISSUER_DECLINED"} }),
			[]string{`"statusReason"`}},

		{"binData: missing", mutate(func(d map[string]any) { delete(cardDocCard(d, 0), "binData") }), []string{"4111111111111111", "binData is required"}},
		{"binData: bad regionalRestriction", mutate(func(d map[string]any) { cardDocBinData(d, 0)["regionalRestriction"] = "DOMESTIC" }),
			[]string{"4111111111111111", "regionalRestriction"}},
		{"binData: bad accountNumberType", mutate(func(d map[string]any) { cardDocBinData(d, 0)["accountNumberType"] = "PAN" }),
			[]string{"4111111111111111", "accountNumberType"}},
		{"binData: bad accountFundingType", mutate(func(d map[string]any) { cardDocBinData(d, 0)["accountFundingType"] = "credit" }),
			[]string{"4111111111111111", "accountFundingType"}},
		{"binData: bad prepaidReloadableIndicator", mutate(func(d map[string]any) { cardDocBinData(d, 0)["prepaidReloadableIndicator"] = "NO" }),
			[]string{"4111111111111111", "prepaidReloadableIndicator"}},
		{"binData: bad productUsageType", mutate(func(d map[string]any) { cardDocBinData(d, 0)["productUsageType"] = "PERSONAL" }),
			[]string{"4111111111111111", "productUsageType"}},
		{"binData: missing enum", mutate(func(d map[string]any) { delete(cardDocBinData(d, 0), "productUsageType") }),
			[]string{"4111111111111111", "productUsageType"}},
		{"binData: prepaid marked not applicable", mutate(func(d map[string]any) {
			cardDocBinData(d, 0)["accountFundingType"] = "PREPAID"
		}), []string{"4111111111111111", "PREPAID"}},
		{"binData: reloadable credit card", mutate(func(d map[string]any) { cardDocBinData(d, 0)["prepaidReloadableIndicator"] = "RELOADABLE" }),
			[]string{"4111111111111111", "RELOADABLE"}},
		{"binData: bad country", mutate(func(d map[string]any) { cardDocBinData(d, 0)["issuerCountryCode"] = "USA" }),
			[]string{"4111111111111111", "issuerCountryCode"}},
		{"binData: lower-case country", mutate(func(d map[string]any) { cardDocBinData(d, 0)["issuerCountryCode"] = "us" }),
			[]string{"4111111111111111", "issuerCountryCode"}},
		{"binData: bad currency", mutate(func(d map[string]any) { cardDocBinData(d, 0)["issuerCurrencyCode"] = "US" }),
			[]string{"4111111111111111", "issuerCurrencyCode"}},
		{"binData: missing productCode", mutate(func(d map[string]any) { delete(cardDocBinData(d, 0), "productCode") }),
			[]string{"4111111111111111", "productCode"}},
		{"binData: missing productName", mutate(func(d map[string]any) { cardDocBinData(d, 0)["productName"] = "" }),
			[]string{"4111111111111111", "productName"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := cards.Parse(tt.data(t))
			if err == nil {
				t.Fatalf("Parse succeeded (%d cards), want an error", len(c.Cards()))
			}
			for _, w := range tt.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
