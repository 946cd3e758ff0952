package paysandboxtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// request is one call to a sandbox: body nil sends none, []byte is sent
// as it is with contentType, anything else as JSON.
type request struct {
	method, path string
	body         any
	contentType  string
	headers      map[string]string
}

// apiError is a refusal of the sandbox: the status and the error envelope
// of docs/api.md ({"error": {errorId, description, validationErrors}}).
type apiError struct {
	method, path string
	status       int
	body         []byte
}

func (e *apiError) Error() string {
	var env struct {
		Error struct {
			ErrorID          string `json:"errorId"`
			Description      string `json:"description"`
			ValidationErrors []struct {
				Errors []struct {
					Path        string `json:"path"`
					Description string `json:"description"`
				} `json:"errors"`
			} `json:"validationErrors"`
		} `json:"error"`
	}
	if json.Unmarshal(e.body, &env) != nil || env.Error.ErrorID == "" {
		return fmt.Sprintf("%s %s: %d %s", e.method, e.path, e.status, bytes.TrimSpace(e.body))
	}
	msg := fmt.Sprintf("%s %s: %d %s: %s", e.method, e.path, e.status, env.Error.ErrorID, env.Error.Description)
	for _, v := range env.Error.ValidationErrors {
		for _, f := range v.Errors {
			msg += fmt.Sprintf("; %s: %s", f.Path, f.Description)
		}
	}
	return msg
}

// do sends r with key (none when "") and answers the body of a 2xx;
// another status is an *apiError, a failed exchange the transport's error.
// out, when not nil, receives the body decoded as JSON.
func (s *Server) do(key string, r request, out any) ([]byte, error) {
	var body io.Reader
	contentType := r.contentType
	switch b := r.body.(type) {
	case nil:
	case []byte:
		body = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("%s %s: encoding the body: %w", r.method, r.path, err)
		}
		body, contentType = bytes.NewReader(j), "application/json"
	}
	req, err := http.NewRequest(r.method, s.URL+r.path, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.path, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if key != "" {
		req.Header.Set("X-API-KEY", key)
	}
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", r.method, r.path, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, &apiError{method: r.method, path: r.path, status: resp.StatusCode, body: raw}
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return nil, fmt.Errorf("%s %s: decoding the answer: %w", r.method, r.path, err)
		}
	}
	return raw, nil
}
