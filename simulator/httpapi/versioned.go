package httpapi

import (
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
)

// fieldsUntil names the request fields a version before the one given does
// not know (simulator.DiffNewFields, simulator.DiffProductData): removed
// from the closed request schemas, they are unknown fields (422 at their
// path), as any other.
var fieldsUntil = []struct {
	kind  string
	names []string
}{
	{simulator.DiffNewFields, []string{"approvalMode", "firstPaymentReason", "vaultOnAgreement", "expand", "transactionEventId"}},
	{simulator.DiffProductData, []string{"productData"}},
}

type versionedKey struct {
	s *schema
	v simulator.APIVersion
}

// versionedSchemas caches forVersion's copies: one per schema and version.
var versionedSchemas sync.Map

// forVersion is s as version v accepts it: s itself for 2.4, else a copy
// without the fields v does not know.
func forVersion(s *schema, v simulator.APIVersion) *schema {
	var drop map[string]bool
	for _, f := range fieldsUntil {
		if v.Has(f.kind) {
			if drop == nil {
				drop = map[string]bool{}
			}
			for _, n := range f.names {
				drop[n] = true
			}
		}
	}
	if drop == nil {
		return s
	}
	k := versionedKey{s, v}
	if c, ok := versionedSchemas.Load(k); ok {
		return c.(*schema)
	}
	c, _ := versionedSchemas.LoadOrStore(k, withoutFields(s, drop))
	return c.(*schema)
}

// withoutFields copies s, leaving out the properties named in drop at every
// depth.
func withoutFields(s *schema, drop map[string]bool) *schema {
	if s == nil {
		return nil
	}
	c := *s
	c.items = withoutFields(s.items, drop)
	c.props = nil
	for _, p := range s.props {
		if drop[p.name] {
			continue
		}
		p.s = withoutFields(p.s, drop)
		c.props = append(c.props, p)
	}
	return &c
}

// versionNotesDTO is GET /_sandbox/versions: the versions served and, for
// each older one, what it does unlike 2.4 (the Link of a deprecated
// version's answer points here).
type versionNotesDTO struct {
	Current  simulator.APIVersion `json:"current"`
	Versions []versionNoteDTO     `json:"versions"`
}

type versionNoteDTO struct {
	Version     simulator.APIVersion          `json:"version"`
	Deprecated  bool                          `json:"deprecated"`
	Deprecation string                        `json:"deprecation,omitempty"`
	Sunset      string                        `json:"sunset,omitempty"`
	Differences []simulator.VersionDifference `json:"differences"`
}

func (s *Server) versionNotes(c echo.Context) error {
	out := versionNotesDTO{Current: simulator.CurrentAPIVersion}
	for i := len(simulator.APIVersions) - 1; i >= 0; i-- {
		v := simulator.APIVersions[i]
		n := versionNoteDTO{Version: v, Deprecated: v.Deprecated(), Differences: simulator.DifferencesOf(v)}
		if n.Differences == nil {
			n.Differences = []simulator.VersionDifference{}
		}
		if v.Deprecated() {
			n.Deprecation, n.Sunset = ts(simulator.APIVersionDeprecated), ts(simulator.APIVersionSunset)
		}
		out.Versions = append(out.Versions, n)
	}
	return writeJSON(c, http.StatusOK, out)
}
