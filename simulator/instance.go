package simulator

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// Several instances can run behind one ordinary HTTP proxy (serve's
// --instance). Tenants share nothing, so every credential a request can carry
// (API key, client token, 3DS challenge token, checkout link, dashboard
// session cookie) names the instance that issued it as a prefix, and the
// proxy routes on that prefix alone: "NAME.credential". The separator "." is
// unreserved in URLs (never percent-encoded), allowed in header values and
// cookie values, and never part of a name. An instance with no name issues
// credentials without a prefix.

// InstanceSep separates an instance's name from the credential it issued.
const InstanceSep = "."

// MaxInstanceName is the longest instance name.
const MaxInstanceName = 32

// CheckInstanceName: a name is 1-32 lower-case letters, digits or '-',
// starting and ending with a letter or digit (so it reads the same in a
// proxy's regular expression, a host name and a file name).
func CheckInstanceName(name string) error {
	if name == "" || len(name) > MaxInstanceName {
		return fmt.Errorf("%q must be 1-%d characters", name, MaxInstanceName)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0 && i < len(name)-1:
		default:
			return fmt.Errorf("%q must be lower-case letters, digits and inner '-'", name)
		}
	}
	return nil
}

// WithInstance is cred as instance issues it: "instance.cred", or cred
// itself when the instance has no name.
func WithInstance(instance, cred string) string {
	if instance == "" {
		return cred
	}
	return instance + InstanceSep + cred
}

// InstanceOf is the instance name cred carries as its prefix ("" when its
// start is not a valid instance name followed by the separator).
func InstanceOf(cred string) string {
	name, _, ok := strings.Cut(cred, InstanceSep)
	if !ok || CheckInstanceName(name) != nil {
		return ""
	}
	return name
}

// ForeignInstance is the other instance a credential unknown to instance
// self was issued by: its prefix, when self has a name and the prefix names
// another instance ("" otherwise, and always for an unnamed instance, whose
// answers stay as they are).
func ForeignInstance(self, cred string) string {
	if self == "" {
		return ""
	}
	if other := InstanceOf(cred); other != self {
		return other
	}
	return ""
}

// ErrForeignInstance is the error of a credential of kind (e.g. "API key")
// that another instance issued, with code (what an unknown credential of
// that kind answers, e.g. CodeUnauthorized): the request reached the wrong
// instance, so the proxy's routing is what to fix.
func ErrForeignInstance(code Code, kind, other, self string) *Error {
	return Errorf(code, "The %s was issued by paysandbox instance %s, but this is instance %s", kind, other, self).
		WithRecovery("Send every request to the instance named by its credential's prefix (the part before the first '.'): check the proxy's routes.")
}

// TenantSep separates the tenant a token names from the rest of the token.
// Client tokens and 3DS challenge tokens carry their tenant, so that the
// store finds the tenant's data from the token alone (no shared lookup
// table written on every session): "cst_" + TAG + "~" + random, TAG being
// the tenant id in unpadded base64url. "~" is unreserved in URLs and
// allowed in header and cookie values, and base64url never contains it.
const TenantSep = "~"

const clientTokenPrefix = "cst_"

// WithTenant is token tok (as IDGen made it) made to carry tenantID: the
// tag goes after tok's "cst_" prefix when it has one, else in front.
func WithTenant(tenantID, tok string) string {
	tag := base64.RawURLEncoding.EncodeToString([]byte(tenantID)) + TenantSep
	if rest, ok := strings.CutPrefix(tok, clientTokenPrefix); ok {
		return clientTokenPrefix + tag + rest
	}
	return tag + tok
}

// WithSession is client token tok (as IDGen made it) made to carry
// tenantID and sessionID, so that the store reads the session from the
// token alone, with no entry from the token to the session: "cst_" + TAG
// + "~" + SESSION + "~" + rest, SESSION being the session id's 16 bytes
// in unpadded base64url (22 characters). The token stays unguessable by
// its rest alone: a session id is no secret, and the store accepts a
// token only if the session it names holds it. A session id that is not
// a UUID in its lower-case text form is not carried (WithTenant).
func WithSession(tenantID, sessionID, tok string) string {
	part := SessionTag(sessionID)
	if part == "" {
		return WithTenant(tenantID, tok)
	}
	part += TenantSep
	if rest, ok := strings.CutPrefix(tok, clientTokenPrefix); ok {
		return WithTenant(tenantID, clientTokenPrefix+part+rest)
	}
	return WithTenant(tenantID, part+tok)
}

// SessionTag is the part of a client token that names session sessionID
// (WithSession): its 16 bytes in unpadded base64url; "" for an id that is
// not a UUID in its lower-case text form.
func SessionTag(sessionID string) string {
	u, err := uuid.Parse(sessionID)
	if err != nil || u.String() != sessionID {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(u[:])
}

// SessionOfToken is the session id a client token carries (made by
// WithSession, with or without an instance prefix); ok is false for a
// token that carries none (a challenge token, one of an earlier build).
func SessionOfToken(tok string) (sessionID string, ok bool) {
	if name := InstanceOf(tok); name != "" {
		tok = tok[len(name)+len(InstanceSep):]
	}
	tok = strings.TrimPrefix(tok, clientTokenPrefix)
	_, rest, found := strings.Cut(tok, TenantSep)
	if !found {
		return "", false
	}
	part, _, found := strings.Cut(rest, TenantSep)
	var u uuid.UUID
	if !found || base64.RawURLEncoding.EncodedLen(len(u)) != len(part) {
		return "", false
	}
	if n, err := base64.RawURLEncoding.Decode(u[:], []byte(part)); err != nil || n != len(u) {
		return "", false
	}
	return u.String(), true
}

// TenantOfToken is the tenant a client or challenge token carries (made by
// WithTenant, with or without an instance prefix); ok is false for a token
// that carries none, such as those issued before tokens carried their
// tenant.
func TenantOfToken(tok string) (tenantID string, ok bool) {
	if name := InstanceOf(tok); name != "" {
		tok = tok[len(name)+len(InstanceSep):]
	}
	tok = strings.TrimPrefix(tok, clientTokenPrefix)
	tag, _, found := strings.Cut(tok, TenantSep)
	if !found || tag == "" {
		return "", false
	}
	id, err := base64.RawURLEncoding.DecodeString(tag)
	if err != nil || len(id) == 0 {
		return "", false
	}
	return string(id), true
}
