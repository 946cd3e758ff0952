package webhooks_test

import (
	"testing"

	"github.com/paysandbox/paysandbox/webhooks"
)

// FuzzSignature: Sign and Verify never panic; Verify accepts what Sign made
// for the same secret and body; and it refuses the signature once the body
// or the signature changes in any way (a byte flipped, added or removed),
// as well as any other string that is not exactly Sign's answer.
func FuzzSignature(f *testing.F) {
	f.Add("s3cret", []byte(`{"eventType":"PAYMENT.STATUS"}`), uint16(0), byte(1), "z0tt7imv3alWAbrHzDSY0uz4IzmBSPI6KvQ+ZiIy0bo=")
	f.Add("", []byte{}, uint16(7), byte(0x80), "")
	f.Add("whsec_abc", []byte("{}"), uint16(43), byte(2), "%%%")
	f.Fuzz(func(t *testing.T, secret string, body []byte, at uint16, flip byte, other string) {
		sig := webhooks.Sign(secret, body)
		if err := webhooks.Verify(secret, body, sig); err != nil {
			t.Fatalf("Verify refuses Sign's own signature: %v", err)
		}
		if err := webhooks.Verify(secret, body, other); err == nil && other != sig {
			t.Fatalf("Verify accepts %q, which is not the signature %q", other, sig)
		}
		if flip == 0 {
			flip = 1
		}
		// The body changed: a byte flipped, one added, one removed.
		changed := [][]byte{append(append([]byte{}, body...), flip)}
		if len(body) > 0 {
			i := int(at) % len(body)
			b := append([]byte{}, body...)
			b[i] ^= flip
			changed = append(changed, b, append(append([]byte{}, body[:i]...), body[i+1:]...))
		}
		for _, b := range changed {
			if webhooks.Verify(secret, b, sig) == nil {
				t.Fatalf("the signature of %q also verifies %q", body, b)
			}
		}
		// The signature changed the same ways.
		i := int(at) % len(sig)
		s := []byte(sig)
		s[i] ^= flip
		for _, bad := range []string{string(s), sig + string(rune(flip)), sig[:i] + sig[i+1:], ""} {
			if webhooks.Verify(secret, body, bad) == nil {
				t.Fatalf("Verify accepts the changed signature %q (signature %q)", bad, sig)
			}
		}
	})
}
