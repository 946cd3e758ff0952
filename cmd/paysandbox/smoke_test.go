package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSmokeCheckoutFlow(t *testing.T) {
	a := newTestApp(t)
	p := a.pay(1000, "4111111111111111")
	assert.Equal(t, "AUTHORIZED", p.Str("status"))
	id := p.Str("id")
	c := a.must(200, "POST", "/payments/"+id+"/capture", nil)
	assert.Equal(t, "SETTLED", c.Str("status"))
	r := a.must(200, "POST", "/payments/"+id+"/refund", map[string]any{"amount": 300})
	assert.Equal(t, "SETTLED", r.Str("status"))
}
