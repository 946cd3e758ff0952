package simulator

import (
	"errors"
	"strings"
)

// APIVersion is a version of the vendor API ("2.1" ... "2.4"): it shapes
// answers and webhook bodies.
type APIVersion string

// The versions served; APIVersion24 is the current one.
const (
	APIVersion21 APIVersion = "2.1"
	APIVersion22 APIVersion = "2.2"
	APIVersion23 APIVersion = "2.3"
	APIVersion24 APIVersion = "2.4"
)

// CurrentAPIVersion is the version of anything that names none.
const CurrentAPIVersion = APIVersion24

// APIVersions lists the versions served, oldest first.
var APIVersions = []APIVersion{APIVersion21, APIVersion22, APIVersion23, APIVersion24}

// APIVersionNames is APIVersions as strings (for enums and messages).
func APIVersionNames() []string {
	out := make([]string, len(APIVersions))
	for i, v := range APIVersions {
		out[i] = string(v)
	}
	return out
}

// Valid reports whether v is a version served.
func (v APIVersion) Valid() bool {
	for _, w := range APIVersions {
		if v == w {
			return true
		}
	}
	return false
}

// Or is v, or def when v is empty (a record that names no version).
func (v APIVersion) Or(def APIVersion) APIVersion {
	if v == "" {
		return def
	}
	return v
}

// Before reports whether v is older than w (both valid; "" counts as the
// current version).
func (v APIVersion) Before(w APIVersion) bool {
	return strings.Compare(string(v.Or(CurrentAPIVersion)), string(w.Or(CurrentAPIVersion))) < 0
}

// CheckAPIVersion is nil for a version served, else the error whose text
// completes a sentence about the field ("version must be one of ...").
func CheckAPIVersion(s string) error {
	if APIVersion(s).Valid() {
		return nil
	}
	return errAPIVersion
}

var errAPIVersion = errors.New("must be one of 2.1, 2.2, 2.3, 2.4")
