package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
)

// parseJSON decodes a body into a generic tree (numbers kept exact). Not JSON,
// trailing garbage, or a top level that is not an object: 400 BadRequest.
// An empty body is {} when optional, else 400. Nesting past simulator.MaxDepth is 422
// at its path, without a model (see withModel).
func parseJSON(b []byte, optional bool) (map[string]any, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		if optional {
			return map[string]any{}, nil
		}
		return nil, simulator.Errorf(simulator.CodeBadRequest, "The request body is required and must be a JSON object")
	}
	if path, err := checkDepth(b); err != nil {
		return nil, simulator.Errorf(simulator.CodeBadRequest, "The request body could not be parsed as JSON: %v", err).
			WithRecovery("Send a JSON object with Content-Type: application/json.")
	} else if path != "" {
		return nil, errTooDeep("", path) // the caller names the model (withModel)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, simulator.Errorf(simulator.CodeBadRequest, "The request body could not be parsed as JSON: %v", err).
			WithRecovery("Send a JSON object with Content-Type: application/json.")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, simulator.Errorf(simulator.CodeBadRequest, "The request body has data after the JSON value")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, simulator.Errorf(simulator.CodeBadRequest, "The request body must be a JSON object")
	}
	return m, nil
}

// decodeRequest runs the body through the pipeline's last two checks: JSON
// (400) and the schema rules (422, listing every broken rule, together with
// pathErrs for path parameters). On success the body is decoded into dst.
func decodeRequest(c echo.Context, s *schema, model string, dst any, optional bool, pathErrs ...simulator.FieldError) (map[string]any, error) {
	return decodeWith(c, s, model, dst, optional, nil, pathErrs...)
}

// decodeWith is decodeRequest with extra rules the schema cannot say (they
// are reported together with the schema's).
func decodeWith(c echo.Context, s *schema, model string, dst any, optional bool, extra func(tree map[string]any) []simulator.FieldError, pathErrs ...simulator.FieldError) (map[string]any, error) {
	v := versionOf(c)
	tree, err := decodeFull(body(c), forVersion(s, v), model, dst, optional, extra, pathErrs...)
	if err != nil && v.Deprecated() {
		unknownFieldHits(c, v, err)
	}
	return tree, err
}

// decodeFull decodes a body as a generic tree, lists every broken rule, then
// fills dst (a pointer to a zero value, or nil) from the body (decodeDTO).
func decodeFull(b []byte, s *schema, model string, dst any, optional bool, extra func(tree map[string]any) []simulator.FieldError, pathErrs ...simulator.FieldError) (map[string]any, error) {
	tree, err := parseJSON(b, optional)
	if err != nil {
		return nil, withModel(err, model)
	}
	errs := append([]simulator.FieldError{}, pathErrs...)
	s.validate(tree, "$", &errs)
	if extra != nil {
		errs = append(errs, extra(tree)...)
	}
	if len(errs) > 0 {
		return nil, simulator.ValidationError(model, errs...)
	}
	if td, ok := dst.(treeDTO); ok && td.fromTree(tree) {
		return tree, nil
	}
	if dst != nil {
		if err := decodeDTO(b, tree, dst); err != nil {
			return nil, simulator.ValidationError(model, simulator.FieldError{Path: "$", Description: err.Error()})
		}
	}
	return tree, nil
}

// decodeDTO fills dst, a pointer to a zero value, from the body b of the
// validated tree. The contract is the tree's: dst ends as decoding the tree
// re-encoded (decodeTree) leaves it, error included. Decoding b itself
// gives the same for one decode less, except where b repeats a key (the
// tree keeps the last value, a decode of b merges both objects into a
// struct or map) or the decode fails (the first error follows the key order,
// which the tree sorts): those take decodeTree. Two keys of one object that
// encoding/json's case-insensitive match sends to one field would differ
// too; the closed schemas only let through keys that are their properties,
// and no two properties of a schema fold alike (TestSchemaPropertiesFoldApart).
func decodeDTO(b []byte, tree map[string]any, dst any) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil // an optional empty body is {}: nothing to fill
	}
	if members(b) == treeMembers(tree) { // no repeated key
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber() // free-form values (metadata) keep their exact numbers
		if dec.Decode(dst) == nil {
			return nil
		}
		reflect.ValueOf(dst).Elem().SetZero()
	}
	return decodeTree(tree, dst)
}

// treeDTO is a request struct that fills itself from its validated tree,
// sparing decodeDTO's second decode of the body on a hot route. The contract
// is decodeDTO's (dst ends as decodeTree leaves it); fromTree returns false,
// leaving the struct as it was, whenever it cannot keep it (decodeDTO then
// does the work and gives the error).
type treeDTO interface {
	fromTree(tree map[string]any) bool
}

// decodeTree fills dst from the tree re-encoded.
func decodeTree(tree map[string]any, dst any) error {
	raw, _ := json.Marshal(tree)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(dst)
}

// members counts the object members of the JSON text b: its colons outside
// strings.
func members(b []byte) int {
	n := 0
	inStr, esc := false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case inStr:
			switch c {
			case '\\':
				esc = true
			case '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == ':':
			n++
		}
	}
	return n
}

// treeMembers counts the object members of a parsed tree; fewer than
// members of its text means a key was repeated.
func treeMembers(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		n += len(v)
		for _, e := range v {
			n += treeMembers(e)
		}
	case []any:
		for _, e := range v {
			n += treeMembers(e)
		}
	}
	return n
}

// withModel names the request model of a 422 made before it was known.
func withModel(err error, model string) error {
	var se *simulator.Error
	if errors.As(err, &se) && se.Code == simulator.CodeRequestValidationError && se.Model == "" {
		se.Model = model
	}
	return err
}

// uuidParam checks a path id that must be a uuid (attempt ids).
func uuidParam(c echo.Context, name string) []simulator.FieldError {
	v := c.Param(name)
	if _, err := uuid.Parse(v); err != nil || len(v) != 36 {
		return []simulator.FieldError{{Path: "$." + name, Description: "Path parameter " + name + " must be a valid uuid"}}
	}
	return nil
}

// expands reports whether expand asks for transactions.events.
func expands(list []string) bool {
	for _, e := range list {
		if e == "transactions.events" {
			return true
		}
	}
	return false
}
