package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
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

// answerFieldsUntil names the answer fields (component.field in the OpenAPI
// document) that a version with the difference leaves out: toSessionDTO,
// toPaymentDTO and orderFor drop them (TestAnswerFieldsUntil holds the two
// together).
var answerFieldsUntil = []struct {
	kind   string
	fields []string
}{
	{simulator.DiffAnswerShape, []string{"ClientSession.currentAttemptId", "ClientSession.approvalMode", "Transaction.authorizationCode", "Transaction.events"}},
	{simulator.DiffProductData, []string{"LineItem.productData"}},
}

// answerDrop is the difference kind that leaves the answer field out ("":
// every version shows it).
func answerDrop(field string) string {
	for _, d := range answerFieldsUntil {
		if slices.Contains(d.fields, field) {
			return d.kind
		}
	}
	return ""
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
	if !v.Deprecated() {
		return s
	}
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

// ctxMigration holds the request's []observe.Difference.
const ctxMigration = "paysandbox.migration"

// addMigration notes that the request hit a 2.4 difference (kind, a
// simulator.VersionDifference kind); the journal hook publishes them
// (observe.DifferenceHit).
func addMigration(c echo.Context, kind, message string) {
	hs, _ := c.Get(ctxMigration).([]observe.Difference)
	c.Set(ctxMigration, append(hs, observe.Difference{Kind: kind, Message: message}))
}

// unknownFieldHits notes the fields of a 422 that the request's version
// does not know but 2.4 does.
func unknownFieldHits(c echo.Context, v simulator.APIVersion, err error) {
	var e *simulator.Error
	if !errors.As(err, &e) {
		return
	}
	for _, f := range e.Fields {
		name := f.Path[strings.LastIndexByte(f.Path, '.')+1:]
		for _, d := range fieldsUntil {
			if v.Has(d.kind) && slices.Contains(d.names, name) && strings.HasPrefix(f.Description, "Extra fields not permitted") {
				addMigration(c, d.kind, f.Path+" is refused on "+string(v)+" and accepted on 2.4")
			}
		}
	}
}

// migrationNotes is GET /_sandbox/migration: the notes of the tenant's
// requests, the dates of the older versions, and what the tenant's webhook
// bodies lack against 2.4 when its webhook version is older.
func (s *Server) migrationNotes(c echo.Context) error {
	t := tenantOf(c)
	m, err := s.svc.MigrationNotes(t)
	if err != nil {
		return err
	}
	wv := t.WebhookAPIVersion()
	out := migrationDTO{Items: migrationItems(m.Items), Deprecation: ts(simulator.APIVersionDeprecated), Sunset: ts(simulator.APIVersionSunset),
		Webhooks: migrationWebhooksDTO{Version: wv, Differences: simulator.WebhookDifferencesOf(wv)}}
	if out.Webhooks.Differences == nil {
		out.Webhooks.Differences = []simulator.WebhookDifference{}
	}
	return writeJSON(c, http.StatusOK, out)
}

// migrationDTO is GET /_sandbox/migration. Deprecation and Sunset are the
// vendor's dates of the versions before 2.4 (after Sunset they answer 410).
type migrationDTO struct {
	Items       []migrationItemDTO   `json:"items"`
	Deprecation string               `json:"deprecation"`
	Sunset      string               `json:"sunset"`
	Webhooks    migrationWebhooksDTO `json:"webhooks"`
}

// migrationWebhooksDTO is the tenant's webhook version and what its bodies
// lack against 2.4 (none on 2.4).
type migrationWebhooksDTO struct {
	Version     simulator.APIVersion          `json:"version"`
	Differences []simulator.WebhookDifference `json:"differences"`
}

type migrationItemDTO struct {
	Kind              string                `json:"kind"`
	Description       string                `json:"description"`
	Count             int64                 `json:"count"`
	ExampleRequestIDs []string              `json:"exampleRequestIds"`
	FirstSeen         string                `json:"firstSeen"`
	LastSeen          string                `json:"lastSeen"`
	Variants          []migrationVariantDTO `json:"variants"`
}

type migrationVariantDTO struct {
	Description       string   `json:"description"`
	Count             int64    `json:"count"`
	ExampleRequestIDs []string `json:"exampleRequestIds"`
	FirstSeen         string   `json:"firstSeen"`
	LastSeen          string   `json:"lastSeen"`
}

// migrationItems renders notes for GET /_sandbox/migration and the report.
func migrationItems(notes []observe.MigrationNote) []migrationItemDTO {
	items := make([]migrationItemDTO, 0, len(notes))
	for _, n := range notes {
		it := migrationItemDTO{Kind: n.Kind, Description: n.Description, Count: n.Count,
			ExampleRequestIDs: orEmpty(n.ExampleRequestIDs), FirstSeen: ts(n.FirstSeen), LastSeen: ts(n.LastSeen),
			Variants: make([]migrationVariantDTO, 0, len(n.Variants))}
		for _, v := range n.Variants {
			it.Variants = append(it.Variants, migrationVariantDTO{Description: v.Description, Count: v.Count,
				ExampleRequestIDs: orEmpty(v.ExampleRequestIDs), FirstSeen: ts(v.FirstSeen), LastSeen: ts(v.LastSeen)})
		}
		items = append(items, it)
	}
	return items
}

// summary is the note's description followed by each variant with its
// count (the report's one-line form).
func (it migrationItemDTO) summary() string {
	parts := make([]string, 0, len(it.Variants))
	for _, v := range it.Variants {
		parts = append(parts, fmt.Sprintf("%d x %s", v.Count, v.Description))
	}
	if len(parts) == 0 {
		return it.Description
	}
	return it.Description + " Variants: " + strings.Join(parts, "; ")
}
