package httpapi

import (
	"encoding/json"
	"io"
	"math/rand"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/paysandbox/paysandbox/simulator"
)

// propertyCards pass Luhn (12 to 19 digits, several networks).
var propertyCards = []string{"4111111111111111", "5555555555554444", "378282246310005", "6011111111111117",
	"3530111333300000", "4000000000000002", "100000000008", "4000000000000000006"}

// cardDoc hides card under a random key at a random depth, as a string (in
// one of seven spellings: digits alone, or groups of 4 joined by a space, a
// dash, a dot, a slash or several spaces), a JSON number, an array item or
// inside text.
func cardDoc(r *rand.Rand, card string) any {
	spell := card
	if sep := []string{"", " ", "-", ".", "/", "  ", "   "}[r.Intn(7)]; sep != "" {
		var parts []string
		for i := 0; i < len(card); i += 4 {
			parts = append(parts, card[i:min(i+4, len(card))])
		}
		spell = strings.Join(parts, sep)
	}
	var doc any
	switch r.Intn(4) {
	case 0:
		doc = spell
	case 1:
		doc = json.Number(card)
	case 2:
		doc = []any{true, spell, 7}
	default:
		doc = "card " + spell + " declined"
	}
	for d := r.Intn(8); d >= 0; d-- {
		m := map[string]any{"k" + strconv.Itoa(r.Intn(50)): doc, "amount": r.Intn(100000)}
		if r.Intn(4) == 0 {
			m["pad"] = strings.Repeat("p", r.Intn(4200)) // moves the number across the 4 KiB cut
		}
		if r.Intn(3) == 0 {
			doc = []any{m}
		} else {
			doc = m
		}
	}
	return doc
}

// TestJournalPropertyNoCardNumber drives the real middleware with bodies
// hiding a card number (random key, depth, type, spelling, position against
// the 4 KiB cut), answered back as sent: neither journal body holds the
// number or any 7 of its digits in a row (6 are the kept first digits).
func TestJournalPropertyNoCardNumber(t *testing.T) {
	s, _, ts := newBareServer(t, Options{})
	s.e.POST("/echo", func(c echo.Context) error {
		setTenant(c, &simulator.Tenant{ID: "t1"})
		return c.JSONBlob(http.StatusUnprocessableEntity, body(c))
	}, readBody)
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 400; i++ {
		card := propertyCards[r.Intn(len(propertyCards))]
		raw, err := json.Marshal(cardDoc(r, card))
		require.NoError(t, err)
		res, err := http.Post(ts.URL+"/echo", "application/json", strings.NewReader(string(raw)))
		require.NoError(t, err)
		answer, _ := io.ReadAll(res.Body)
		res.Body.Close()
		require.Equal(t, string(raw), string(answer), "the answer is not altered")
		es := s.journal.Entries("t1", JournalQuery{Limit: 1})
		require.Len(t, es, 1)
		for _, kept := range []string{es[0].RequestBody, es[0].ResponseBody} {
			digits := strings.Map(func(c rune) rune {
				if c >= '0' && c <= '9' {
					return c
				}
				if c == ' ' || c == '-' || c == '.' || c == '/' {
					return -1
				}
				return 'x'
			}, kept)
			for k := 0; k+7 <= len(card); k++ {
				require.NotContains(t, digits, card[k:k+7], "doc %d: %s\nkept: %s", i, raw, kept)
			}
		}
	}
}
