package httpapi

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/observe"
	"github.com/paysandbox/paysandbox/simulator/snapshot"
)

// The schemas of the OpenAPI document: request schemas are the validator's
// own tables (schema) walked into OpenAPI; answer schemas are the wire DTOs
// reflected through their json tags. Neither is written twice.

// openAPI is s as an OpenAPI 3.1 schema: the rules validate checks, in JSON
// Schema words. validate treats a null member as an absent one, so an
// optional property also takes null; a required one does not.
func (s *schema) openAPI() *openapi3.Schema {
	out := &openapi3.Schema{}
	switch s.typ {
	case "object":
		out.Type = &openapi3.Types{openapi3.TypeObject}
		out.Properties = openapi3.Schemas{}
		for _, p := range s.props {
			ps := p.s.openAPI()
			if p.req {
				out.Required = append(out.Required, p.name)
			} else {
				orNull(ps)
			}
			out.Properties[p.name] = openapi3.NewSchemaRef("", ps)
		}
		if s.closed {
			no := false
			out.AdditionalProperties = openapi3.AdditionalProperties{Has: &no}
		}
	case "map":
		out.Type = &openapi3.Types{openapi3.TypeObject}
		limit := s.maxBytes
		if limit == 0 {
			limit = simulator.MaxMetadataBytes
		}
		out.Description = "Any JSON object, at most " + strconv.Itoa(limit) + " bytes once encoded."
	case "array":
		out.Type = &openapi3.Types{openapi3.TypeArray}
		out.Items = openapi3.NewSchemaRef("", s.items.openAPI())
	case "string":
		out.Type = &openapi3.Types{openapi3.TypeString}
		out.MinLength = uint64(s.minLen)
		maxLen := uint64(s.textMax())
		out.MaxLength = &maxLen
		for _, e := range s.enum {
			out.Enum = append(out.Enum, e)
		}
		switch s.format {
		case "uuid", "email":
			out.Format = s.format
		case "country":
			out.Pattern = "^[A-Z]{2}$"
			out.Description = "A two-letter country code (ISO 3166-1 alpha-2)."
		}
	case "integer":
		out.Type = &openapi3.Types{openapi3.TypeInteger}
		out.Format = "int64"
		if s.min != nil {
			m := float64(*s.min)
			out.Min = &m
		}
		if s.minorUnits {
			out.Description = "An amount in minor units (1000 = 10.00)."
		}
	case "number":
		out.Type = &openapi3.Types{openapi3.TypeNumber}
		if s.min != nil {
			m := float64(*s.min)
			out.Min = &m
		}
	case "boolean":
		out.Type = &openapi3.Types{openapi3.TypeBoolean}
	}
	return out
}

// orNull lets s also take null (OpenAPI 3.1: a type list with "null").
func orNull(s *openapi3.Schema) {
	if s.Type == nil || s.Type.Includes(openapi3.TypeNull) {
		return
	}
	*s.Type = append(*s.Type, openapi3.TypeNull)
	if len(s.Enum) > 0 {
		s.Enum = append(s.Enum, nil)
	}
}

// answerSchemas reflects wire DTOs into the components of one document:
// each named struct once, as a component named by answerName, referred to
// by $ref; the fields a version leaves out are dropped (answerFieldsUntil).
type answerSchemas struct {
	components openapi3.Schemas
	version    simulator.APIVersion
	names      map[string]reflect.Type // a name is one type's
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	anyType        = reflect.TypeFor[any]()
	timeType       = reflect.TypeFor[time.Time]()
)

// storedRecords are the store's records as a snapshot carries them: objects
// in the snapshot format's own version (Snapshot.version), described as such
// rather than field by field (their names would clash with the answers'
// components: a payment record is not a Payment answer).
var storedRecords = map[reflect.Type]string{
	reflect.TypeFor[simulator.ClientSession](): "A client session record.",
	reflect.TypeFor[simulator.Instrument]():    "A payment instrument record.",
	reflect.TypeFor[simulator.Payment]():       "A payment record.",
	reflect.TypeFor[simulator.Attempt]():       "A payment attempt record.",
	reflect.TypeFor[simulator.Dispute]():       "A dispute record.",
	reflect.TypeFor[simulator.Event]():         "A webhook event record with its delivery attempts and body.",
	reflect.TypeFor[simulator.Job]():           "A scheduled job record.",
	reflect.TypeFor[observe.MigrationNote]():   "A migration note record.",
}

// answerNames are the component names that are not the Go name without
// its DTO suffix.
var answerNames = map[reflect.Type]string{
	reflect.TypeFor[sessionDTO]():        "ClientSession",
	reflect.TypeFor[eventOutDTO]():       "WebhookEvent",
	reflect.TypeFor[attemptOutDTO]():     "DeliveryAttempt",
	reflect.TypeFor[disputeOutDTO]():     "Dispute",
	reflect.TypeFor[errorBody]():         "ErrorResponse",
	reflect.TypeFor[errorObject]():       "ErrorObject",
	reflect.TypeFor[cardDTO]():           "PaymentCard",
	reflect.TypeFor[simulator.OneShot](): "PendingOneShot",
	// AttemptStatus is the enum of attempt statuses (answerEnums).
	reflect.TypeFor[attemptStatusDTO](): "AttemptStatusResponse",
	// The parts of a tenant snapshot keep the package's name before theirs.
	reflect.TypeFor[snapshot.Tenant]():      "SnapshotTenant",
	reflect.TypeFor[snapshot.Key]():         "SnapshotKey",
	reflect.TypeFor[snapshot.Secrets]():     "SnapshotSecrets",
	reflect.TypeFor[snapshot.Data]():        "SnapshotData",
	reflect.TypeFor[snapshot.Idempotency](): "SnapshotIdempotency",
	reflect.TypeFor[snapshot.Journal]():     "SnapshotJournal",
	reflect.TypeFor[snapshot.Request]():     "SnapshotRequest",
	reflect.TypeFor[snapshot.RequestHint](): "SnapshotRequestHint",
	reflect.TypeFor[snapshot.Hint]():        "SnapshotHint",
}

// answerName is the component name of a DTO type: the Go name without the
// DTO suffix, exported (paymentDTO: Payment; simulator.BinData: BinData),
// unless answerNames says otherwise. Two types of one name panic: the
// document would be wrong.
func (a *answerSchemas) answerName(t reflect.Type) string {
	n, ok := answerNames[t]
	if !ok {
		n = strings.TrimSuffix(t.Name(), "DTO")
		n = strings.ToUpper(n[:1]) + n[1:]
	}
	if prev, ok := a.names[n]; ok && prev != t { // a nil prev: the name is an enum's (enum)
		panic("openapi: component " + n + " names both " + prev.String() + " and " + t.String())
	}
	a.names[n] = t
	return n
}

// answer is the schema of a success answer: a DTO value (reflected), a
// *mapAnswer or an *openapi3.Schema; nil for none.
func (a *answerSchemas) answer(x any) *openapi3.SchemaRef {
	switch x := x.(type) {
	case nil:
		return nil
	case *openapi3.Schema:
		return openapi3.NewSchemaRef("", x)
	case *mapAnswer:
		s := openapi3.NewObjectSchema()
		s.Properties = openapi3.Schemas{}
		for _, p := range x.props {
			ref := openapi3.NewSchemaRef("", p.s)
			if p.item != nil {
				arr := openapi3.NewArraySchema()
				arr.Items = a.of(reflect.TypeOf(p.item))
				ref = openapi3.NewSchemaRef("", arr)
			}
			if !p.optional {
				s.Required = append(s.Required, p.name)
			}
			s.Properties[p.name] = ref
		}
		return openapi3.NewSchemaRef("", s)
	}
	return a.of(reflect.TypeOf(x))
}

// of is the schema of values of type t.
func (a *answerSchemas) of(t reflect.Type) *openapi3.SchemaRef {
	switch {
	case t == rawMessageType, t == anyType:
		return openapi3.NewSchemaRef("", &openapi3.Schema{})
	case t == timeType:
		return openapi3.NewSchemaRef("", openapi3.NewDateTimeSchema())
	}
	if desc, ok := storedRecords[t]; ok {
		s := openapi3.NewObjectSchema()
		s.Description = desc
		return openapi3.NewSchemaRef("", s)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return a.of(t.Elem())
	case reflect.String:
		return openapi3.NewSchemaRef("", openapi3.NewStringSchema())
	case reflect.Bool:
		return openapi3.NewSchemaRef("", openapi3.NewBoolSchema())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return openapi3.NewSchemaRef("", openapi3.NewInt64Schema())
	case reflect.Float32, reflect.Float64:
		return openapi3.NewSchemaRef("", openapi3.NewFloat64Schema())
	case reflect.Slice, reflect.Array:
		s := openapi3.NewArraySchema()
		s.Items = a.of(t.Elem())
		return openapi3.NewSchemaRef("", s)
	case reflect.Map:
		s := openapi3.NewObjectSchema()
		if v := t.Elem(); v != anyType {
			s.AdditionalProperties = openapi3.AdditionalProperties{Schema: a.of(v)}
		}
		return openapi3.NewSchemaRef("", s)
	case reflect.Struct:
		if t.Name() == "" {
			return openapi3.NewSchemaRef("", a.object(t, ""))
		}
		name := a.answerName(t)
		if _, done := a.components[name]; !done {
			a.components[name] = nil // a recursive type refers to itself
			a.components[name] = openapi3.NewSchemaRef("", a.object(t, name))
		}
		return openapi3.NewSchemaRef("#/components/schemas/"+name, nil)
	}
	return openapi3.NewSchemaRef("", &openapi3.Schema{})
}

// object is the schema of struct type t (component name, "" inline): a
// field without omitempty is required, and may be null when its Go type
// can encode as null (a pointer, a map, a slice or an interface).
func (a *answerSchemas) object(t reflect.Type, name string) *openapi3.Schema {
	s := openapi3.NewObjectSchema()
	s.Properties = openapi3.Schemas{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous && f.Tag.Get("json") == "" {
				walk(f.Type)
				continue
			}
			tag := f.Tag.Get("json")
			if !f.IsExported() || tag == "-" {
				continue
			}
			jname, opts, _ := strings.Cut(tag, ",")
			if jname == "" {
				jname = f.Name
			}
			if name != "" && a.version.Has(answerDrop(name+"."+jname)) {
				continue
			}
			ref := a.of(f.Type)
			if e, ok := answerEnums[name+"."+jname]; ok {
				ref = a.enum(e)
			} else if vals := answerInlineEnums[name+"."+jname]; vals != nil {
				ref = withEnum(ref, vals())
			}
			omit := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
			if !omit {
				s.Required = append(s.Required, jname)
				switch f.Type.Kind() {
				case reflect.Pointer, reflect.Map, reflect.Interface:
					ref = orNullRef(ref)
				}
			}
			s.Properties[jname] = ref
		}
	}
	walk(t)
	return s
}

// orNullRef is ref that also takes null.
func orNullRef(ref *openapi3.SchemaRef) *openapi3.SchemaRef {
	if ref.Ref != "" {
		return openapi3.NewSchemaRef("", &openapi3.Schema{AnyOf: openapi3.SchemaRefs{ref, openapi3.NewSchemaRef("", &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeNull}})}})
	}
	if ref.Value.Type == nil { // any value, null included
		return ref
	}
	c := *ref.Value
	t := append(openapi3.Types{}, *c.Type...)
	c.Type = &t
	orNull(&c)
	return openapi3.NewSchemaRef("", &c)
}

// withEnum is the string schema ref restricted to vals.
func withEnum(ref *openapi3.SchemaRef, vals []string) *openapi3.SchemaRef {
	c := *ref.Value
	c.Enum = nil
	for _, v := range vals {
		c.Enum = append(c.Enum, v)
	}
	return openapi3.NewSchemaRef("", &c)
}

// namedEnum is a closed value set that the document names as a component
// of its own, so that every field taking it refers to one type and a
// generator derives no type name of its own for it (an inline enum of
// Attempt.status would be AttemptStatus to oapi-codegen and ogen alike).
type namedEnum struct {
	name   string
	values func() []string
}

var (
	paymentStatusEnum = namedEnum{"PaymentStatus", paymentStatusNames}
	attemptStatusEnum = namedEnum{"AttemptStatus", attemptStatusNames}
	apiVersionEnum    = namedEnum{"APIVersion", simulator.APIVersionNames}
)

// answerEnums are the closed value sets of answer fields, by component and
// field, from the domain's own lists.
var answerEnums = map[string]namedEnum{
	"Payment.status":               paymentStatusEnum,
	"PaymentSummary.status":        paymentStatusEnum,
	"Transaction.processorStatus":  paymentStatusEnum,
	"Attempt.status":               attemptStatusEnum,
	"AttemptStatusResponse.status": attemptStatusEnum,
	"WebhookEndpoint.version":      apiVersionEnum,
	"TenantSummary.webhookVersion": apiVersionEnum,
	"Dispute.status":               {"DisputeStatus", func() []string { return simulator.Names(simulator.DisputeStatuses) }},
	"Dispute.type":                 {"DisputeType", func() []string { return simulator.DisputeTypes }},
	"WebhookEvent.eventType":       {"WebhookEventType", func() []string { return simulator.EventTypes }},
}

// answerInlineEnums are closed value sets kept inline: the error catalogue
// carries its statuses on the property itself (describeCatalogue).
var answerInlineEnums = map[string]func() []string{
	"ErrorObject.errorId": codeNames,
}

// enum is a $ref to e's component, added on first use. A name is one
// type's or one enum's: a clash panics, as in answerName.
func (a *answerSchemas) enum(e namedEnum) *openapi3.SchemaRef {
	if prev, ok := a.names[e.name]; ok && prev != nil {
		panic("openapi: component " + e.name + " names both " + prev.String() + " and an enum")
	}
	a.names[e.name] = nil
	if _, done := a.components[e.name]; !done {
		a.components[e.name] = openapi3.NewSchemaRef("", enumSchema(e.values()))
	}
	return openapi3.NewSchemaRef("#/components/schemas/"+e.name, nil)
}

func paymentStatusNames() []string {
	out := make([]string, len(simulator.PaymentStatuses))
	for i, s := range simulator.PaymentStatuses {
		out[i] = string(s)
	}
	return out
}

// codeNames is the error catalogue.
func codeNames() []string {
	out := make([]string, len(simulator.Codes))
	for i, c := range simulator.Codes {
		out[i] = string(c)
	}
	return out
}

func attemptStatusNames() []string {
	return []string{string(simulator.AttemptAwaiting), string(simulator.AttemptApproved), string(simulator.AttemptAborted), string(simulator.AttemptExpired)}
}

// textSchema is the schema of a document answered in a media type of its
// own (YAML, XML, markdown, HTML): a string. Its format binary makes a
// validator take the body as it is, not decode it (kin-openapi decodes
// application/yaml by default), and makes a generator give the raw body
// (ogen refuses other media types without it).
func textSchema() *openapi3.Schema {
	s := openapi3.NewStringSchema()
	s.Format = "binary"
	return s
}

// scenarioDocumentSchema is the JSON form of GET /_sandbox/scenarios: the
// scenario document's top level (docs/scenarios.md has its schema), with
// the defaults filled in.
func scenarioDocumentSchema() *openapi3.Schema {
	processor := openapi3.NewObjectSchema()
	processor.Required = []string{"name", "processorMerchantId", "capture", "settleAfter", "authorizationCode"}
	processor.Properties = openapi3.Schemas{
		"name": openapi3.NewSchemaRef("", openapi3.NewStringSchema()), "processorMerchantId": openapi3.NewSchemaRef("", openapi3.NewStringSchema()),
		"capture": openapi3.NewSchemaRef("", openapi3.NewStringSchema()), "settleAfter": openapi3.NewSchemaRef("", openapi3.NewStringSchema()),
		"authorizationCode": openapi3.NewSchemaRef("", openapi3.NewBoolSchema()),
	}
	rule := openapi3.NewObjectSchema()
	rule.Required = []string{"name"}
	rule.Properties = openapi3.Schemas{"name": openapi3.NewSchemaRef("", openapi3.NewStringSchema())}
	rule.Description = "A rule: its name, its when and what it does (docs/scenarios.md)."
	doc := openapi3.NewObjectSchema()
	doc.Required = []string{"version", "defaultProcessor", "processors", "rules"}
	doc.Properties = openapi3.Schemas{
		"version":          openapi3.NewSchemaRef("", openapi3.NewInt64Schema()),
		"defaultProcessor": openapi3.NewSchemaRef("", openapi3.NewStringSchema()),
		"processors":       openapi3.NewSchemaRef("", openapi3.NewArraySchema().WithItems(processor)),
		"rules":            openapi3.NewSchemaRef("", openapi3.NewArraySchema().WithItems(rule)),
	}
	return doc
}

// openAPIDocumentSchema is the JSON form of this document: an OpenAPI 3.1
// document (its own schema is OpenAPI's).
func openAPIDocumentSchema() *openapi3.Schema {
	doc := openapi3.NewObjectSchema()
	doc.Description = "An OpenAPI " + OpenAPISpecVersion + " document."
	doc.Required = []string{"openapi", "info", "paths", "components"}
	doc.Properties = openapi3.Schemas{
		"openapi":    openapi3.NewSchemaRef("", enumSchema([]string{OpenAPISpecVersion})),
		"info":       openapi3.NewSchemaRef("", openapi3.NewObjectSchema()),
		"paths":      openapi3.NewSchemaRef("", openapi3.NewObjectSchema()),
		"components": openapi3.NewSchemaRef("", openapi3.NewObjectSchema()),
	}
	return doc
}
