package httpapi

import (
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
)

// The builder of the OpenAPI document of everything the server answers,
// per API version: from the operations table (simulator.Operations) and its
// documentation (apiOps), the validator's request schemas, the wire DTOs,
// the error catalogue and the version differences. It runs in tests only, so
// kin-openapi is linked into no binary: TestOpenAPIGenerated compares what it
// builds with the documents the server embeds (openapi.go) and, with
// -update-openapi (go generate), rewrites them.

// openAPIBytes is one version's document: its compact JSON (what the
// binary embeds) and its two renderings.
type openAPIBytes struct{ raw, json, yaml []byte }

// renderOpenAPI writes doc as compact JSON and renders it as the server
// does (renderOpenAPIAs: indented JSON, and YAML in the same order).
func renderOpenAPI(doc *openapi3.T) (openAPIBytes, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return openAPIBytes{}, err
	}
	out := openAPIBytes{raw: raw}
	if out.json, err = renderOpenAPIAs(raw, OpenAPIJSON); err != nil {
		return openAPIBytes{}, err
	}
	if out.yaml, err = renderOpenAPIAs(raw, OpenAPIYAML); err != nil {
		return openAPIBytes{}, err
	}
	return out, nil
}

// BuildOpenAPI builds the document of version v.
func BuildOpenAPI(v simulator.APIVersion) *openapi3.T {
	b := &openAPIBuilder{v: v, answers: &answerSchemas{components: openapi3.Schemas{}, version: v, names: map[string]reflect.Type{}}}
	doc := &openapi3.T{
		OpenAPI: OpenAPISpecVersion,
		Info: &openapi3.Info{
			Title:   "paysandbox",
			Version: string(v),
			Description: "The payment orchestration API v" + string(v) + " as paysandbox serves it, with its client endpoints " +
				"(/client/*) and its control plane (/_sandbox). Request schemas are the sandbox's own validation rules; " +
				"a merchant request also needs X-API-VERSION: " + string(v) + ".",
		},
		Paths: openapi3.NewPaths(),
		Components: &openapi3.Components{
			Schemas:         b.answers.components,
			SecuritySchemes: securitySchemes(),
			Parameters: openapi3.ParametersMap{
				"ApiVersionHeader": {Value: &openapi3.Parameter{Name: "X-API-VERSION", In: openapi3.ParameterInHeader, Required: true,
					Description: "The API version of the request; this document describes " + string(v) + ".",
					Schema:      openapi3.NewSchemaRef("", enumSchema([]string{string(v)}))}},
				"IdempotencyHeader": {Value: &openapi3.Parameter{Name: "X-Idempotency-Key", In: openapi3.ParameterInHeader,
					Description: "Makes the request idempotent within the tenant; a key reused answers " + b.idempotencyCode().describe() + ".",
					Schema:      openapi3.NewSchemaRef("", openapi3.NewStringSchema())}},
			},
		},
	}
	if v.Deprecated() {
		doc.Info.Description += "\n\nThis version is deprecated (" + ts(simulator.APIVersionDeprecated) + ", end of life " + ts(simulator.APIVersionSunset) +
			"); its answers carry Deprecation, Sunset and Link headers. What it does unlike " + string(simulator.CurrentAPIVersion) + " (also at " + VersionNotesPath + "):\n"
		for _, d := range simulator.DifferencesOf(v) {
			doc.Info.Description += "\n- " + d.Kind + ": " + d.Description
		}
	}
	b.answers.of(reflect.TypeFor[errorBody]())
	describeCatalogue(b.answers.components["ErrorObject"].Value.Properties["errorId"].Value)
	for _, op := range apiOps {
		if op.operation().Gate != "" && v.Has(op.operation().Gate) {
			continue
		}
		path := openAPIPathOf(op.operation().Path)
		item := doc.Paths.Value(path)
		if item == nil {
			item = &openapi3.PathItem{}
			doc.Paths.Set(path, item)
		}
		item.SetOperation(op.operation().Method, b.operation(op, doc.Components.Schemas))
	}
	return doc
}

// describeCatalogue documents the errorId catalogue on its schema: each
// code with its status (statusOf), in words and as x-paysandbox-statuses.
func describeCatalogue(s *openapi3.Schema) {
	statuses := map[string]any{}
	parts := make([]string, len(simulator.Codes))
	for i, c := range simulator.Codes {
		statuses[string(c)] = statusOf[c]
		parts[i] = string(c) + " (" + strconv.Itoa(statusOf[c]) + ")"
	}
	s.Description = "The error catalogue, each errorId with its HTTP status: " + strings.Join(parts, ", ") + "."
	s.Extensions = map[string]any{"x-paysandbox-statuses": statuses}
}

type openAPIBuilder struct {
	v       simulator.APIVersion
	answers *answerSchemas
}

// openAPIPathOf is an echo path in OpenAPI's words (:id -> {id}).
func openAPIPathOf(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, ":") {
			parts[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}

func securitySchemes() openapi3.SecuritySchemes {
	key := func(name, desc string) *openapi3.SecuritySchemeRef {
		return &openapi3.SecuritySchemeRef{Value: &openapi3.SecurityScheme{Type: "apiKey", In: "header", Name: name, Description: desc}}
	}
	return openapi3.SecuritySchemes{
		"ApiKeyAuth":  key("X-API-KEY", "The tenant's API key (merchant API: with the route's scope; /_sandbox: any scope)."),
		"AdminKey":    key("X-Admin-Key", "The sandbox's admin key (--admin-key), for tenant administration."),
		"ClientToken": key("X-Client-Token", "The client session's token, for the client endpoints."),
	}
}

// codeSet is a route's error codes, each with its status.
type codeSet []simulator.Code

func (c codeSet) describe() string {
	parts := make([]string, len(c))
	for i, code := range c {
		parts[i] = strconv.Itoa(statusOf[code]) + " " + string(code)
	}
	return strings.Join(parts, ", ")
}

// idempotencyCode is the error of a reused X-Idempotency-Key in this version.
func (b *openAPIBuilder) idempotencyCode() codeSet {
	if b.v.Has(simulator.DiffIdempotency400) {
		return codeSet{simulator.CodeTransactionRequestIdempotencyKeyAlreadyExists}
	}
	return codeSet{simulator.CodeIdempotencyKeyAlreadyExists}
}

// authCodes are the errors every route of an auth kind may answer.
var authCodes = map[simulator.Auth][]simulator.Code{
	simulator.AuthNone: {simulator.CodeInternalError},
	simulator.AuthMerchant: {simulator.CodeBadRequest, simulator.CodeUnauthorized, simulator.CodeForbidden, simulator.CodeUnsupportedAPIVersion,
		simulator.CodePayloadTooLarge, simulator.CodeRequestValidationError, simulator.CodeRequestTimeout, simulator.CodeTooManyRequests,
		simulator.CodeTenantUnavailable, simulator.CodeRecordUnreadable, simulator.CodeInternalError},
	simulator.AuthClient: {simulator.CodeBadRequest, simulator.CodeClientSessionValidationError, simulator.CodePayloadTooLarge,
		simulator.CodeRequestValidationError, simulator.CodeRequestTimeout, simulator.CodeTooManyRequests, simulator.CodeTenantUnavailable, simulator.CodeRecordUnreadable,
		simulator.CodeInternalError},
	simulator.AuthControl: {simulator.CodeBadRequest, simulator.CodeUnauthorized, simulator.CodePayloadTooLarge, simulator.CodeRequestValidationError,
		simulator.CodeTooManyRequests, simulator.CodeTenantUnavailable, simulator.CodeRecordUnreadable, simulator.CodeInternalError},
	simulator.AuthFullKey: {simulator.CodeBadRequest, simulator.CodeUnauthorized, simulator.CodeForbidden, simulator.CodePayloadTooLarge,
		simulator.CodeRequestValidationError, simulator.CodeTooManyRequests, simulator.CodeTenantUnavailable, simulator.CodeRecordUnreadable, simulator.CodeInternalError},
	simulator.AuthAdmin:   {simulator.CodeUnauthorized, simulator.CodeBadRequest, simulator.CodeInternalError},
	simulator.AuthAdminIf: {simulator.CodeUnauthorized, simulator.CodeBadRequest, simulator.CodePayloadTooLarge, simulator.CodeRequestValidationError, simulator.CodeInternalError},
}

// operation is op's Operation; request schemas become components of
// schemas named by their model.
func (b *openAPIBuilder) operation(op apiOp, schemas openapi3.Schemas) *openapi3.Operation {
	o := &openapi3.Operation{
		OperationID: operationID(op.operation().Method, op.operation().Path),
		Tags:        []string{op.tag},
		Summary:     op.summary,
		Responses:   openapi3.NewResponses(),
	}
	o.Responses.Delete("default")
	switch op.operation().Auth {
	case simulator.AuthMerchant:
		o.Security = &openapi3.SecurityRequirements{{"ApiKeyAuth": {}}}
		o.Description = "Scope: " + string(op.operation().Scope) + "."
		o.Parameters = append(o.Parameters, &openapi3.ParameterRef{Ref: "#/components/parameters/ApiVersionHeader"})
	case simulator.AuthControl:
		o.Security = &openapi3.SecurityRequirements{{"ApiKeyAuth": {}}}
	case simulator.AuthFullKey:
		o.Security = &openapi3.SecurityRequirements{{"ApiKeyAuth": {}}, {"ApiKeyAuth": {}, "AdminKey": {}}}
		o.Description = "Needs a key holding every scope, or any key of the tenant with the sandbox's admin key in X-Admin-Key; any other key: 403 Forbidden naming the scopes it lacks."
	case simulator.AuthClient:
		o.Security = &openapi3.SecurityRequirements{{"ClientToken": {}}}
	case simulator.AuthAdmin:
		o.Security = &openapi3.SecurityRequirements{{"AdminKey": {}}}
	case simulator.AuthAdminIf:
		o.Security = &openapi3.SecurityRequirements{{"AdminKey": {}}, {}}
		o.Description = "X-Admin-Key is needed when the sandbox has an admin key."
	default:
		o.Security = &openapi3.SecurityRequirements{}
	}
	if op.operation().Idempotent {
		o.Parameters = append(o.Parameters, &openapi3.ParameterRef{Ref: "#/components/parameters/IdempotencyHeader"})
	}
	for _, seg := range strings.Split(op.operation().Path, "/") {
		if strings.HasPrefix(seg, ":") {
			o.Parameters = append(o.Parameters, &openapi3.ParameterRef{Value: openapi3.NewPathParameter(seg[1:]).WithSchema(openapi3.NewStringSchema())})
		}
	}
	for _, q := range op.query {
		o.Parameters = append(o.Parameters, &openapi3.ParameterRef{Value: b.queryParameter(op, q)})
	}
	switch {
	case op.req != nil:
		if _, done := schemas[op.model]; !done {
			schemas[op.model] = openapi3.NewSchemaRef("", forVersion(op.req, b.v).openAPI())
		}
		o.RequestBody = &openapi3.RequestBodyRef{Value: &openapi3.RequestBody{
			Required: !op.optional,
			Content:  openapi3.NewContentWithJSONSchemaRef(openapi3.NewSchemaRef("#/components/schemas/"+op.model, nil)),
		}}
		if op.optional {
			o.RequestBody.Value.Description = "Optional: no body and {} are the same."
		}
	case op.rawBody == echo.MIMEApplicationJSON:
		o.RequestBody = &openapi3.RequestBodyRef{Value: &openapi3.RequestBody{Required: true,
			Content: openapi3.NewContentWithSchema(&openapi3.Schema{}, []string{op.rawBody})}}
	case op.rawBody != "":
		o.RequestBody = &openapi3.RequestBodyRef{Value: &openapi3.RequestBody{Required: true,
			Content: openapi3.NewContentWithSchema(textSchema(), []string{op.rawBody})}}
	}
	b.success(o, op)
	b.errors(o, op)
	return o
}

// success adds op's success answer.
func (b *openAPIBuilder) success(o *openapi3.Operation, op apiOp) {
	status := op.status
	if status == 0 {
		status = http.StatusOK
	}
	desc := http.StatusText(status)
	r := &openapi3.Response{Description: &desc}
	if ref := b.answers.answer(op.answer); ref != nil {
		r.Content = openapi3.NewContentWithJSONSchemaRef(ref)
	}
	for _, media := range op.text {
		if r.Content == nil {
			r.Content = openapi3.Content{}
		}
		r.Content[media] = openapi3.NewMediaType().WithSchema(textSchema())
	}
	if op.operation().Auth == simulator.AuthMerchant && b.v.Deprecated() {
		r.Headers = openapi3.Headers{}
		for _, h := range []string{"Deprecation", "Sunset", "Link"} {
			r.Headers[h] = &openapi3.HeaderRef{Value: &openapi3.Header{Parameter: openapi3.Parameter{
				Description: "This version is deprecated.", Schema: openapi3.NewSchemaRef("", openapi3.NewStringSchema())}}}
		}
	}
	o.Responses.Set(strconv.Itoa(status), &openapi3.ResponseRef{Value: r})
	for st, answer := range op.also {
		desc := http.StatusText(st)
		o.Responses.Set(strconv.Itoa(st), &openapi3.ResponseRef{Value: &openapi3.Response{Description: &desc,
			Content: openapi3.NewContentWithJSONSchemaRef(b.answers.answer(answer))}})
	}
}

// errors adds op's error answers, one per status, each naming its errorIds,
// and a default answer for the rest of the catalogue.
func (b *openAPIBuilder) errors(o *openapi3.Operation, op apiOp) {
	codes := slices.Clone(authCodes[op.operation().Auth])
	codes = append(codes, op.codes...)
	if browserWrite(op.operation().Method, op.operation().Path) { // a page's write (browser.go)
		codes = append(codes, simulator.CodeForbidden)
	}
	if op.operation().Idempotent {
		codes = append(codes, b.idempotencyCode()...)
	}
	byStatus := map[int][]simulator.Code{}
	for _, c := range codes {
		st := statusOf[c]
		if !slices.Contains(byStatus[st], c) {
			byStatus[st] = append(byStatus[st], c)
		}
	}
	for _, st := range slices.Sorted(maps.Keys(byStatus)) {
		cs := byStatus[st]
		names := make([]string, len(cs))
		for i, c := range cs {
			names[i] = string(c)
		}
		desc := "errorId " + strings.Join(names, ", ")
		errID := enumSchema(names)
		s := &openapi3.Schema{AllOf: openapi3.SchemaRefs{
			openapi3.NewSchemaRef("#/components/schemas/ErrorResponse", nil),
			openapi3.NewSchemaRef("", &openapi3.Schema{Properties: openapi3.Schemas{
				"error": openapi3.NewSchemaRef("", &openapi3.Schema{Properties: openapi3.Schemas{"errorId": openapi3.NewSchemaRef("", errID)}}),
			}}),
		}}
		o.Responses.Set(strconv.Itoa(st), &openapi3.ResponseRef{Value: &openapi3.Response{Description: &desc,
			Content: openapi3.NewContentWithJSONSchema(s)}})
	}
	desc := "Any other error of the catalogue (ErrorObject.errorId)"
	o.Responses.Set("default", &openapi3.ResponseRef{Value: &openapi3.Response{Description: &desc,
		Content: openapi3.NewContentWithJSONSchemaRef(openapi3.NewSchemaRef("#/components/schemas/ErrorResponse", nil))}})
}

// operationID is "post_payments_id_capture" for POST /payments/:id/capture.
func operationID(method, path string) string {
	var sb strings.Builder
	sb.WriteString(strings.ToLower(method))
	for _, seg := range strings.Split(path, "/") {
		seg = strings.TrimPrefix(seg, ":")
		if seg == "" {
			continue
		}
		sb.WriteByte('_')
		for _, r := range seg {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				sb.WriteRune(r)
			} else {
				sb.WriteByte('_')
			}
		}
	}
	return sb.String()
}
