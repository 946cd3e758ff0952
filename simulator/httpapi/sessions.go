package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/paysandbox/paysandbox/simulator"
)

type createSessionRequest struct {
	simulator.SessionData
	ApprovalMode string `json:"approvalMode"`
}

func (s *Server) createSession(c echo.Context) error {
	var req createSessionRequest
	if _, err := decodeWith(c, clientSessionCreate, "ClientSessionAPIRequest", &req, true, sessionCrossFieldRules); err != nil {
		return withEmptyMetadataKey(err, body(c))
	}
	cs, err := s.svc.CreateSession(tenantOf(c), req.SessionData, simulator.ApprovalMode(req.ApprovalMode))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, toSessionDTO(cs, versionOf(c), true))
}

func (s *Server) getSession(c echo.Context) error {
	cs, err := s.svc.Session(tenantOf(c), c.QueryParam("clientToken"))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, toSessionDTO(cs, versionOf(c), false))
}

// updateSession is PATCH /client-session: only given fields change, objects
// merge field by field, arrays and metadata are replaced, null clears.
// approvalMode is refused with 422 and the session stays as it was.
func (s *Server) updateSession(c echo.Context) error {
	const model = "ClientSessionUpdateAPIRequest"
	tree, err := parseJSON(body(c), false)
	if err != nil {
		return withModel(err, model)
	}
	var errs []simulator.FieldError
	if _, ok := tree["approvalMode"]; ok {
		errs = append(errs, simulator.FieldError{Path: "$.approvalMode", Description: "approvalMode is fixed at creation and cannot be changed"})
		delete(tree, "approvalMode")
	}
	clientSessionUpdate.validate(tree, "$", &errs)
	if len(errs) > 0 {
		if m, ok := tree["metadata"].(map[string]any); ok && simulator.EmptyMetadataKey(m) {
			errs = append(errs, simulator.EmptyMetadataKeyField)
		}
		return simulator.ValidationError(model, errs...)
	}
	token, _ := tree["clientToken"].(string)
	delete(tree, "clientToken")
	cs, err := s.svc.UpdateSession(tenantOf(c), token, func(cur simulator.SessionData) (simulator.SessionData, error) {
		raw, err := json.Marshal(cur)
		if err != nil {
			return cur, err
		}
		var base map[string]any // numbers kept exact: int64 amounts above 2^53 must survive the merge
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&base); err != nil {
			return cur, err
		}
		merged := mergePatch(base, tree, true)
		if err := checkMergedSession(model, merged); err != nil {
			return cur, err
		}
		raw, err = json.Marshal(merged)
		if err != nil {
			return cur, err
		}
		var next simulator.SessionData
		dec = json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&next); err != nil {
			return cur, simulator.ValidationError(model, simulator.FieldError{Path: "$", Description: err.Error()})
		}
		return next, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, toSessionDTO(cs, versionOf(c), false))
}

// withEmptyMetadataKey adds an empty metadata key to a 422 of the request
// schema, so that the 422 lists every broken rule.
func withEmptyMetadataKey(err error, raw []byte) error {
	var se *simulator.Error
	if !errors.As(err, &se) || se.Code != simulator.CodeRequestValidationError {
		return err
	}
	if tree, perr := parseJSON(raw, true); perr == nil {
		if m, ok := tree["metadata"].(map[string]any); ok && simulator.EmptyMetadataKey(m) {
			se.Fields = append(se.Fields, simulator.EmptyMetadataKeyField)
		}
	}
	return err
}

// mergePatch applies patch to base (RFC 7396 style): objects merge key by
// key, null deletes, arrays and scalars replace. At the top level metadata is
// replaced whole.
func mergePatch(base, patch map[string]any, top bool) map[string]any {
	if base == nil {
		base = map[string]any{}
	}
	for k, v := range patch {
		if v == nil {
			delete(base, k)
			continue
		}
		pm, isMap := v.(map[string]any)
		bm, baseIsMap := base[k].(map[string]any)
		if isMap && baseIsMap && !(top && k == "metadata") {
			base[k] = mergePatch(bm, pm, false)
			continue
		}
		base[k] = v
	}
	return base
}
