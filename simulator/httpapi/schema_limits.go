package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/paysandbox/paysandbox/simulator"
	"github.com/paysandbox/paysandbox/simulator/service"
)

// The input limits of docs/limits.md (simulator.MaxDepth,
// simulator.MaxText and the others in simulator/limits.go). Every request
// body goes through them before anything is stored, and the merges that grow
// a record (PATCH /client-session, metadata on payment creation and capture)
// are checked again after merging, so that nothing accepted can be unreadable
// later.

// Limit is one row of the limits table.
type Limit struct {
	What, Bound, Answer string
}

// Limits is the one table of input and server limits; docs/limits.md lists
// it (a test keeps the two equal).
var Limits = []Limit{
	{"Request body", "1 MiB", "413 `PayloadTooLarge`"},
	{"JSON nesting (top-level object = level 1), also after PATCH merges", strconv.Itoa(simulator.MaxDepth) + " levels", "422 at the path where it is exceeded"},
	{"Free-text fields (refund and cancel `reason`, `descriptor`, names, address lines, ids, tokens, ...)", strconv.Itoa(simulator.MaxText) + " characters", "422 at the field"},
	{"Stated lengths (vendor: `productData.pageUrl` " + strconv.Itoa(simulator.MaxPageURL) + "; ours: `webhookUrl` 2048, clock `duration` 64)", "as stated", "422 at the field"},
	{"`metadata`, `paymentMethod.options`, capture `order` (any JSON object), after merges too", "16 KiB encoded, nesting as above", "422 at the field"},
	{"Transactions per payment (captures and refunds)", strconv.Itoa(simulator.MaxTransactions), "422 `RequestValidationError` at `$`"},
	{"Header block", "64 KiB", "431 `RequestHeaderFieldsTooLarge` in the error envelope, connection closed (a block over 128 KiB is cut by Go's HTTP server first: plain-text 431)"},
	{"Headers and body must arrive within", seconds(DefaultReadTimeout) + " (`--read-timeout`)", "400 `BadRequest` (body) or closed (headers)"},
	{"Idle keep-alive connection", seconds(DefaultIdleTimeout) + " (`--idle-timeout`)", "closed"},
	{"Open connections", strconv.Itoa(DefaultMaxConnections) + " (`--max-connections`)", "429 `TooManyRequests`, closed at once"},
	{"Open long-polls and dashboard streams per tenant", strconv.Itoa(service.DefaultMaxHeldPerTenant) + " (`--max-waits-per-tenant`)", "429 `TooManyRequests` (a satisfied wait answers first; a stream is refused before it reads anything)"},
	{"`wait` timeout", "60 s", "422 at `$.timeout`"},
	{"Clock advance", "positive, no overflow", "422 at `$.duration`"},
	{"Shutdown: from the signal to the exit (in-flight requests, then the trace flush)", seconds(DefaultShutdownTimeout) + " (`--shutdown-timeout`), plus about a second", "held merchant and client requests get 504 `RequestTimeout`, the rest are closed; webhook attempts in flight are cut; exit 0"},
}

// seconds shows a limit's duration as the table writes it ("10 s").
func seconds(d time.Duration) string { return strconv.Itoa(int(d/time.Second)) + " s" }

// checkDepth finds the first container nested deeper than simulator.MaxDepth in a
// JSON body. It answers "" when the body is within the limit (or is not
// JSON: the decoder then says why). The scan is one pass over the bytes; the
// path is computed only for a body that is too deep.
func checkDepth(b []byte) (path string, err error) {
	if maxDepth(b) <= simulator.MaxDepth {
		return "", nil
	}
	return deepPath(b, simulator.MaxDepth)
}

// maxDepth is the deepest nesting of containers in b (strings skipped).
func maxDepth(b []byte) int {
	depth, deepest := 0, 0
	inStr, esc := false, false
	for _, c := range b {
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			if depth++; depth > deepest {
				deepest = depth
			}
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// deepPath walks b token by token (no recursion, so any depth is safe) and
// returns the JSONPath of the first container at level limit+1. A syntax
// error, or data after the first value, is returned as err.
func deepPath(b []byte, limit int) (string, error) {
	var w depthWalk
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	found, started := "", false
	for {
		if started && len(w.stack) == 0 { // the first value is complete
			if _, err := dec.Token(); !errors.Is(err, io.EOF) {
				return "", errors.New("data after the JSON value")
			}
			return found, nil
		}
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		started = true
		if opens := tok == json.Delim('{') || tok == json.Delim('['); opens && !w.wantsKey() && len(w.stack)+1 > limit && found == "" {
			found = w.where()
		}
		w.step(tok)
	}
}

// depthFrame is one open object or array of a depthWalk.
type depthFrame struct {
	arr     bool
	idx     int
	key     string
	wantKey bool
}

// depthWalk follows the path of a JSON token stream: the open objects and
// arrays, with the current key or index of each.
type depthWalk struct{ stack []depthFrame }

// wantsKey reports whether the next token is an object's key (or its end).
func (w *depthWalk) wantsKey() bool {
	n := len(w.stack)
	return n > 0 && !w.stack[n-1].arr && w.stack[n-1].wantKey
}

// where is the path of the value being read ("$.a[2].b").
func (w *depthWalk) where() string {
	var buf bytes.Buffer
	buf.WriteString("$")
	for _, f := range w.stack {
		if f.arr {
			fmt.Fprintf(&buf, "[%d]", f.idx)
		} else {
			buf.WriteString("." + f.key)
		}
	}
	return buf.String()
}

// step moves the walk past tok.
func (w *depthWalk) step(tok json.Token) {
	if w.wantsKey() {
		if tok != json.Delim('}') {
			w.stack[len(w.stack)-1].key, w.stack[len(w.stack)-1].wantKey = tok.(string), false
			return
		}
		w.stack = w.stack[:len(w.stack)-1]
	} else {
		switch tok {
		case json.Delim('{'), json.Delim('['):
			w.stack = append(w.stack, depthFrame{arr: tok == json.Delim('['), wantKey: tok == json.Delim('{')})
			return
		case json.Delim('}'), json.Delim(']'):
			w.stack = w.stack[:len(w.stack)-1]
		}
	}
	if n := len(w.stack); n > 0 { // a value ended: move its parent on
		if w.stack[n-1].arr {
			w.stack[n-1].idx++
		} else {
			w.stack[n-1].wantKey = true
		}
	}
}

// errTooDeep is the 422 of a body nested past simulator.MaxDepth at path; decodeWith
// names the model.
func errTooDeep(model, path string) *simulator.Error {
	return simulator.ValidationError(model, simulator.FieldError{Path: path,
		Description: fmt.Sprintf("Ensure the JSON is nested at most %d levels deep", simulator.MaxDepth)})
}

// treeDepthPath is deepPath for a decoded tree (after a merge): the path of
// the first container deeper than limit, or "". Its recursion stops at
// limit+1 levels.
func treeDepthPath(v any, path string, level, limit int) string {
	switch x := v.(type) {
	case map[string]any:
		if level > limit {
			return path
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if p := treeDepthPath(x[k], path+"."+k, level+1, limit); p != "" {
				return p
			}
		}
	case []any:
		if level > limit {
			return path
		}
		for i, e := range x {
			if p := treeDepthPath(e, fmt.Sprintf("%s[%d]", path, i), level+1, limit); p != "" {
				return p
			}
		}
	}
	return ""
}

// checkMergedSession re-checks a merged session tree (PATCH): nesting, and
// the encoded size of metadata and paymentMethod.options.
func checkMergedSession(model string, merged map[string]any) error {
	if p := treeDepthPath(merged, "$", 1, simulator.MaxDepth); p != "" {
		return errTooDeep(model, p)
	}
	if m, ok := merged["metadata"].(map[string]any); ok {
		if err := simulator.CheckMetadataSize(model, "$.metadata", m); err != nil {
			return err
		}
	}
	if pm, ok := merged["paymentMethod"].(map[string]any); ok {
		if o, ok := pm["options"].(map[string]any); ok {
			if err := simulator.CheckMetadataSize(model, "$.paymentMethod.options", o); err != nil {
				return err
			}
		}
	}
	return nil
}
