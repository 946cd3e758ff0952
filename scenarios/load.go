package scenarios

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/paysandbox/paysandbox/simulator"
)

// Problem is one thing wrong with a document, at a line of it.
type Problem struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// Error is every problem of one document; Error() gives one
// "file:line: sentence" per line, in line order.
type Error struct {
	File     string
	Problems []Problem
}

func (e *Error) Error() string { return strings.Join(e.Lines(), "\n") }

// Lines is one "file:line: sentence" per problem.
func (e *Error) Lines() []string {
	out := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = fmt.Sprintf("%s:%d: %s", e.File, p.Line, p.Message)
	}
	return out
}

// Enumerations of the schema.
var (
	authStatuses    = []string{"AUTHORIZED", "DECLINED", "FAILED"}
	captureStatuses = []string{"SETTLED", "SETTLING", "FAILED"}
	settleStatuses  = []string{"SETTLED", "FAILED"}
	refundStatuses  = []string{"SETTLED", "FAILED", "PENDING"}
	threeDSValues   = map[string]simulator.ThreeDSProfile{
		"challenge": simulator.ThreeDSChallenge, "frictionless-pass": simulator.ThreeDSFrictionlessPass,
		"frictionless-fail": simulator.ThreeDSFrictionlessFail, "none": simulator.ThreeDSNone,
	}
	reasonTypes  = []string{"ISSUER_DECLINED", "APPLICATION_ERROR", "GATEWAY_REJECTED", "GATEWAY_TIMEOUT"}
	declineTypes = []string{"SOFT_DECLINE", "HARD_DECLINE"}
	declineCodes = []string{"ERROR", "INVALID_CARD_NUMBER", "EXPIRED_CARD", "LOST_OR_STOLEN_CARD",
		"SUSPECTED_FRAUD", "UNKNOWN", "REFER_TO_CARD_ISSUER", "DO_NOT_HONOR", "INSUFFICIENT_FUNDS",
		"WITHDRAWAL_LIMIT_EXCEEDED", "ISSUER_TEMPORARILY_UNAVAILABLE", "AUTHENTICATION_REQUIRED", "DECLINED"}
)

// Keys of each mapping, in the order the reference lists them.
var (
	topKeys       = []string{"version", "defaultProcessor", "processors", "rules"}
	processorKeys = []string{"name", "processorMerchantId", "capture", "settleAfter", "authorizationCode"}
	ruleKeys      = []string{"name", "when", "authorize", "threeDS", "timeout", "capture", "refund", "dispute", "latency"}
	whenKeys      = []string{"card", "bin", "network", "expired", "amount", "currencyCode", "orderId", "customerId", "metadata", "processorMerchantId"}
	stepKeys      = []string{"processor", "status", "reason"}
	reasonKeys    = []string{"type", "declineType", "code", "message"}
	timeoutKeys   = []string{"resolveTo", "after", "holdFor"}
	captureKeys   = []string{"status", "settleAfter", "settleTo", "reason"}
	refundKeys    = []string{"status", "after", "resolveTo", "reason"}
	disputeKeys   = []string{"after", "reason", "amount", "then"}
	thenKeys      = []string{"status", "after"}
	amountKeys    = []string{"min", "max"}
)

// maxRules bounds a document, so a PUT cannot make every payment slow.
const maxRules = 1000

// loader collects the problems of one document.
type loader struct {
	problems []Problem
}

func (l *loader) bad(n *yaml.Node, format string, args ...any) {
	line := 1
	if n != nil && n.Line > 0 {
		line = n.Line
	}
	l.problems = append(l.problems, Problem{Line: line, Message: fmt.Sprintf(format, args...)})
}

var yamlLine = regexp.MustCompile(`line (\d+): `)

// Load parses and checks a scenario document named name (used in messages).
// base, when not nil, is the server's document: defaultProcessor and
// processors that data leaves out come from it (a tenant's PUT). Every
// problem is reported at once as an *Error.
func Load(name string, data []byte, base *Doc) (*Doc, error) {
	l := &loader{}
	doc := l.load(data, base)
	if len(l.problems) > 0 {
		slices.SortStableFunc(l.problems, func(a, b Problem) int { return a.Line - b.Line })
		return nil, &Error{File: name, Problems: l.problems}
	}
	return doc, nil
}

// load reads the document in data (nil when it is not a YAML mapping),
// noting every problem in l.
func (l *loader) load(data []byte, base *Doc) *Doc {
	top := l.parse(data)
	if top == nil {
		return nil
	}
	doc := &Doc{Version: 1}
	var procNode, rulesNode, defNode *yaml.Node
	ok := l.mapping(top, "the document", topKeys, func(key string, k, v *yaml.Node) {
		switch key {
		case "version":
			if n, ok := l.int(v, "version"); ok && n != 1 {
				l.bad(v, "version %d is not supported: the only version is 1", n)
			}
		case "defaultProcessor":
			defNode = v
		case "processors":
			procNode = v
		case "rules":
			rulesNode = v
		}
	})
	if !ok {
		return nil
	}
	l.processorsOf(doc, top, procNode, defNode, base)
	if rulesNode == nil {
		l.bad(top, "rules is missing (an empty list `rules: []` means: the default processor authorizes everything)")
		return doc
	}
	doc.Rules = l.rules(rulesNode, doc)
	return doc
}

// parse is the top node of the YAML in data, or nil (a problem noted) when
// data is not valid YAML or is empty.
func (l *loader) parse(data []byte) *yaml.Node {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := 1
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = strings.Replace(msg, m[0], "", 1)
		}
		l.problems = append(l.problems, Problem{Line: line, Message: "the file is not valid YAML: " + msg})
		return nil
	}
	if len(root.Content) == 0 {
		l.bad(nil, "the document is empty: it needs at least `rules`")
		return nil
	}
	return root.Content[0]
}

// processorsOf sets doc's processors and default processor from their
// nodes (nil: absent), else from base (the server's document), else the
// first processor is the default; a missing list or an unknown default is
// a problem.
func (l *loader) processorsOf(doc *Doc, top, procNode, defNode *yaml.Node, base *Doc) {
	switch {
	case procNode != nil:
		doc.Processors = l.processors(procNode)
	case base != nil:
		doc.Processors = base.Processors
	default:
		l.bad(top, "processors is missing: at least one processor is needed")
	}
	switch {
	case defNode != nil:
		if s, ok := l.str(defNode, "defaultProcessor"); ok {
			doc.DefaultProcessor = s
			if _, found := doc.Account(s); !found && len(doc.Processors) > 0 {
				l.bad(defNode, "defaultProcessor %q is not one of the processors (%s)", s, procNames(doc))
			}
		}
	case procNode == nil && base != nil:
		doc.DefaultProcessor = base.DefaultProcessor
	case len(doc.Processors) > 0:
		doc.DefaultProcessor = doc.Processors[0].Name
	}
}

func procNames(d *Doc) string {
	names := make([]string, len(d.Processors))
	for i, p := range d.Processors {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// mapping checks that n is a mapping with known (any when allowed is nil),
// unique keys and calls fn for each pair. It reports false when n is not a mapping.
func (l *loader) mapping(n *yaml.Node, what string, allowed []string, fn func(key string, k, v *yaml.Node)) bool {
	if n.Kind != yaml.MappingNode {
		l.bad(n, "%s must be a mapping (key: value pairs), not %s", what, kindName(n))
		return false
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		if first, dup := seen[key]; dup {
			l.bad(k, "%s has %q twice (first on line %d)", what, key, first)
			continue
		}
		seen[key] = k.Line
		if allowed != nil && !slices.Contains(allowed, key) {
			l.bad(k, "unknown key %q in %s (allowed: %s)", key, what, strings.Join(allowed, ", "))
			continue
		}
		fn(key, k, v)
	}
	return true
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "empty"
	}
	return fmt.Sprintf("%q", n.Value)
}

// str reads a scalar as text (numbers included: card numbers are digits).
func (l *loader) str(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		l.bad(n, "%s must be a single value, not %s", what, kindName(n))
		return "", false
	}
	if n.Value == "" {
		l.bad(n, "%s must not be empty", what)
		return "", false
	}
	return n.Value, true
}

func (l *loader) enum(n *yaml.Node, what string, values []string) (string, bool) {
	s, ok := l.str(n, what)
	if !ok {
		return "", false
	}
	if !slices.Contains(values, s) {
		l.bad(n, "%s %q is not one of %s", what, s, strings.Join(values, ", "))
		return "", false
	}
	return s, true
}

func (l *loader) int(n *yaml.Node, what string) (int64, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		l.bad(n, "%s must be a whole number, not %s", what, kindName(n))
		return 0, false
	}
	v, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil {
		l.bad(n, "%s %s is not a whole number that fits in 64 bits", what, n.Value)
		return 0, false
	}
	return v, true
}

func (l *loader) bool(n *yaml.Node, what string) (bool, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		l.bad(n, "%s must be true or false, not %s", what, kindName(n))
		return false, false
	}
	return n.Value == "true" || n.Value == "True" || n.Value == "TRUE", true
}

// maxDuration bounds every duration (about 10 years), so due times never overflow.
const maxDuration = 10 * 365 * 24 * time.Hour

func (l *loader) duration(n *yaml.Node, what string) (time.Duration, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" && n.Value == "0" {
		return 0, true
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		l.bad(n, "%s must be a duration like 30s, 1500ms or 2h, not %s", what, kindName(n))
		return 0, false
	}
	d, err := time.ParseDuration(n.Value)
	switch {
	case err != nil:
		l.bad(n, "%s %q is not a duration like 30s, 1500ms or 2h", what, n.Value)
		return 0, false
	case d < 0:
		l.bad(n, "%s %s is negative", what, n.Value)
		return 0, false
	case d > maxDuration:
		l.bad(n, "%s %s is longer than 10 years", what, n.Value)
		return 0, false
	}
	return d, true
}

// list accepts one value or a list of them.
func list(n *yaml.Node) []*yaml.Node {
	if n.Kind == yaml.SequenceNode {
		return n.Content
	}
	return []*yaml.Node{n}
}

func (l *loader) processors(n *yaml.Node) []Processor {
	if n.Kind != yaml.SequenceNode {
		l.bad(n, "processors must be a list, not %s", kindName(n))
		return nil
	}
	if len(n.Content) == 0 {
		l.bad(n, "processors is empty: at least one processor is needed")
	}
	var out []Processor
	names, mids := map[string]int{}, map[string]int{}
	for i, pn := range n.Content {
		var p Processor
		what := fmt.Sprintf("processor %d", i+1)
		hasName, hasMID := false, false
		l.mapping(pn, what, processorKeys, func(key string, k, v *yaml.Node) {
			switch key {
			case "name":
				if s, ok := l.str(v, "name"); ok {
					hasName, p.Name = true, s
					if first, dup := names[s]; dup {
						l.bad(v, "processor name %q is used twice (first on line %d)", s, first)
					}
					names[s] = v.Line
				}
			case "processorMerchantId":
				if s, ok := l.str(v, "processorMerchantId"); ok {
					hasMID, p.ProcessorMerchantID = true, s
					if first, dup := mids[s]; dup {
						l.bad(v, "processorMerchantId %q is used twice (first on line %d)", s, first)
					}
					mids[s] = v.Line
				}
			case "capture":
				if s, ok := l.enum(v, "capture", []string{"sync", "async"}); ok {
					p.Async = s == "async"
				}
			case "settleAfter":
				p.SettleAfter, _ = l.duration(v, "settleAfter")
			case "authorizationCode":
				p.AuthorizationCode, _ = l.bool(v, "authorizationCode")
			}
		})
		if pn.Kind == yaml.MappingNode {
			if !hasName {
				l.bad(pn, "%s has no name", what)
			}
			if !hasMID {
				l.bad(pn, "%s has no processorMerchantId", what)
			}
		}
		out = append(out, p)
	}
	return out
}

func (l *loader) rules(n *yaml.Node, doc *Doc) []Rule {
	if n.Kind != yaml.SequenceNode {
		if n.Tag == "!!null" {
			return []Rule{}
		}
		l.bad(n, "rules must be a list, not %s", kindName(n))
		return nil
	}
	if len(n.Content) > maxRules {
		l.bad(n, "rules has %d rules; at most %d are allowed", len(n.Content), maxRules)
		return nil
	}
	out := []Rule{}
	names := map[string]int{}
	for i, rn := range n.Content {
		r := l.rule(rn, i, doc)
		if r.Name != "" {
			if first, dup := names[r.Name]; dup {
				l.bad(rn, "rule name %q is used twice (first on line %d)", r.Name, first)
			}
			names[r.Name] = rn.Line
		}
		out = append(out, r)
	}
	return out
}

func (l *loader) rule(n *yaml.Node, i int, doc *Doc) Rule {
	r := Rule{Line: n.Line}
	what := fmt.Sprintf("rule %d", i+1)
	for j := 0; n.Kind == yaml.MappingNode && j+1 < len(n.Content); j += 2 {
		if k, v := n.Content[j], n.Content[j+1]; k.Value == "name" && v.Kind == yaml.ScalarNode && v.Value != "" {
			what = fmt.Sprintf("rule %q", v.Value) // messages name the rule, whatever the key order
		}
	}
	var authNode, timeoutNode, threeDSNode *yaml.Node
	l.mapping(n, what, ruleKeys, func(key string, k, v *yaml.Node) {
		switch key {
		case "name":
			r.Name, _ = l.str(v, "name")
		case "when":
			r.When = l.when(v, doc)
		case "authorize":
			authNode = v
			r.Authorize = l.authorize(v, doc)
		case "threeDS":
			threeDSNode = v
			if s, ok := l.str(v, "threeDS"); ok {
				p, found := threeDSValues[s]
				if !found {
					l.bad(v, "threeDS %q is not one of challenge, frictionless-pass, frictionless-fail, none", s)
				}
				r.ThreeDS = p
			}
		case "timeout":
			timeoutNode = v
			r.Timeout = l.timeout(v)
		case "capture":
			r.Capture = l.capture(v)
		case "refund":
			r.Refund = l.refund(v)
		case "dispute":
			r.Dispute = l.dispute(v)
		case "latency":
			r.Latency, _ = l.duration(v, "latency")
		}
	})
	if n.Kind != yaml.MappingNode {
		return r
	}
	if r.Name == "" {
		l.bad(n, "%s has no name", what)
	}
	if authNode != nil && timeoutNode != nil {
		l.bad(timeoutNode, "%s has both authorize and timeout: a timed-out payment resolves to timeout.resolveTo, so use one of them", what)
	}
	if threeDSNode != nil && timeoutNode != nil && r.ThreeDS == simulator.ThreeDSChallenge {
		l.bad(timeoutNode, "%s has both threeDS: challenge and timeout: a payment waiting for the shopper cannot time out at the gateway", what)
	}
	return r
}

func (l *loader) when(n *yaml.Node, doc *Doc) When {
	var w When
	if n.Tag == "!!null" {
		return w
	}
	l.mapping(n, "when", whenKeys, func(key string, k, v *yaml.Node) {
		switch key {
		case "card":
			w.Cards, w.fingerprints = l.cards(v)
		case "bin":
			if s, ok := l.str(v, "bin"); ok {
				if !isDigits(s) || len(s) > 6 {
					l.bad(v, "bin %q must be 1 to 6 digits (the sandbox keeps the first 6 digits of a card)", s)
				}
				w.BIN = s
			}
		case "network":
			for _, nn := range list(v) {
				if s, ok := l.enum(nn, "network", simulator.CardNetworks); ok {
					w.Networks = append(w.Networks, s)
				}
			}
		case "expired":
			if b, ok := l.bool(v, "expired"); ok {
				w.Expired = &b
			}
		case "amount":
			w.Amount = l.amount(v)
		case "currencyCode":
			if s, ok := l.str(v, "currencyCode"); ok {
				if len(s) != 3 || strings.ToUpper(s) != s {
					l.bad(v, "currencyCode %q is not a 3-letter ISO 4217 code like EUR", s)
				}
				w.CurrencyCode = s
			}
		case "orderId":
			if s, ok := l.str(v, "orderId"); ok {
				if _, err := path.Match(s, ""); err != nil {
					l.bad(v, "orderId %q is not a valid glob pattern", s)
				}
				w.OrderID = s
			}
		case "customerId":
			w.CustomerID, _ = l.str(v, "customerId")
		case "metadata":
			w.Metadata = map[string]string{}
			l.mapping(v, "when.metadata", nil, func(key string, _, vv *yaml.Node) {
				if val, ok := l.str(vv, "metadata value of "+key); ok {
					w.MetadataKeys = append(w.MetadataKeys, key)
					w.Metadata[key] = val
				}
			})
		case "processorMerchantId":
			if s, ok := l.str(v, "processorMerchantId"); ok {
				w.ProcessorMerchantID = s
				l.checkMerchantID(v, s, doc)
			}
		}
	})
	return w
}

// cards reads when.card (one number or a list): the valid numbers and
// their fingerprints; a number failing the Luhn check is a problem.
func (l *loader) cards(v *yaml.Node) (cards []string, fingerprints map[string]bool) {
	fingerprints = map[string]bool{}
	for _, cn := range list(v) {
		s, ok := l.str(cn, "card")
		if !ok {
			continue
		}
		if !simulator.LuhnValid(s) {
			l.bad(cn, "card %q is not 12-19 digits passing the Luhn check, so no payment can ever use it", s)
			continue
		}
		cards = append(cards, s)
		fingerprints[simulator.CardFingerprint(s)] = true
	}
	return cards, fingerprints
}

// checkMerchantID reports a when.processorMerchantId s (at v) that no
// processor of doc has (when doc has processors): the rule could never match.
func (l *loader) checkMerchantID(v *yaml.Node, s string, doc *Doc) {
	found := false
	for _, p := range doc.Processors {
		found = found || p.ProcessorMerchantID == s
	}
	if !found && len(doc.Processors) > 0 {
		l.bad(v, "processorMerchantId %q belongs to no processor, so the rule can never match", s)
	}
}

func (l *loader) amount(n *yaml.Node) *AmountRange {
	if n.Kind == yaml.ScalarNode {
		v, ok := l.int(n, "amount")
		if !ok {
			return nil
		}
		if v < 0 {
			l.bad(n, "amount %d is negative, so the rule can never match", v)
		}
		return &AmountRange{Min: &v, Max: &v, Exact: true}
	}
	a := &AmountRange{}
	ok := l.mapping(n, "amount", amountKeys, func(key string, k, v *yaml.Node) {
		x, ok := l.int(v, "amount."+key)
		if !ok {
			return
		}
		if key == "min" {
			a.Min = &x
		} else {
			a.Max = &x
		}
	})
	if !ok {
		return nil
	}
	switch {
	case len(n.Content) == 0:
		l.bad(n, "amount needs min, max or both")
	case a.Min != nil && a.Max != nil && *a.Min > *a.Max:
		l.bad(n, "amount min %d is greater than max %d, so the rule can never match", *a.Min, *a.Max)
	case a.Max != nil && *a.Max < 0:
		l.bad(n, "amount max %d is negative, so the rule can never match", *a.Max)
	}
	return a
}

func (l *loader) authorize(n *yaml.Node, doc *Doc) []Step {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
		if len(items) == 0 {
			l.bad(n, "authorize is an empty list: give one step or several")
			return nil
		}
	}
	var out []Step
	for i, sn := range items {
		var st Step
		hasStatus := false
		l.mapping(sn, "an authorize step", stepKeys, func(key string, k, v *yaml.Node) {
			switch key {
			case "processor":
				if s, ok := l.str(v, "processor"); ok {
					st.Processor = s
					if _, found := doc.Account(s); !found && len(doc.Processors) > 0 {
						l.bad(v, "processor %q is not one of the processors (%s)", s, procNames(doc))
					}
				}
			case "status":
				if s, ok := l.enum(v, "authorize status", authStatuses); ok {
					hasStatus, st.Status = true, simulator.PaymentStatus(s)
				}
			case "reason":
				st.Reason = l.reason(v)
			}
		})
		if sn.Kind != yaml.MappingNode {
			continue
		}
		if !hasStatus && !hasKey(sn, "status") {
			l.bad(sn, "an authorize step needs a status (AUTHORIZED, DECLINED or FAILED)")
		}
		if st.Reason != nil && st.Status == simulator.StatusAuthorized {
			l.bad(sn, "an AUTHORIZED step cannot have a reason")
		}
		soft := st.Status == simulator.StatusDeclined && st.Reason != nil && st.Reason.DeclineType == "SOFT_DECLINE"
		if i < len(items)-1 && hasStatus && !soft {
			l.bad(items[i+1], "authorize step %d can never run: only a SOFT_DECLINE (status DECLINED, reason.declineType SOFT_DECLINE) falls back to the next processor", i+2)
		}
		out = append(out, st)
	}
	return out
}

func (l *loader) reason(n *yaml.Node) *simulator.StatusReason {
	r := &simulator.StatusReason{}
	l.mapping(n, "reason", reasonKeys, func(key string, k, v *yaml.Node) {
		switch key {
		case "type":
			r.Type, _ = l.enum(v, "reason.type", reasonTypes)
		case "declineType":
			r.DeclineType, _ = l.enum(v, "reason.declineType", declineTypes)
		case "code":
			r.Code, _ = l.enum(v, "reason.code", declineCodes)
		case "message":
			r.Message, _ = l.str(v, "reason.message")
		}
	})
	if n.Kind != yaml.MappingNode {
		return nil
	}
	if r.Type == "" {
		l.bad(n, "reason needs a type (%s)", strings.Join(reasonTypes, ", "))
	}
	if r.DeclineType != "" && r.Type != "ISSUER_DECLINED" && r.Type != "" {
		l.bad(n, "reason.declineType is only allowed with type ISSUER_DECLINED")
	}
	if r.Type == "ISSUER_DECLINED" && r.DeclineType == "" {
		r.DeclineType = "HARD_DECLINE"
	}
	if r.Code == "" {
		r.Code = "ERROR"
		if r.Type == "ISSUER_DECLINED" {
			r.Code = "DECLINED"
		}
	}
	return r
}

func (l *loader) timeout(n *yaml.Node) *Timeout {
	t := &Timeout{}
	has := false
	l.mapping(n, "timeout", timeoutKeys, func(key string, k, v *yaml.Node) {
		switch key {
		case "resolveTo":
			if s, ok := l.enum(v, "timeout.resolveTo", authStatuses); ok {
				has, t.ResolveTo = true, simulator.PaymentStatus(s)
			}
		case "after":
			t.After, _ = l.duration(v, "timeout.after")
		case "holdFor":
			t.HoldFor, _ = l.duration(v, "timeout.holdFor")
		}
	})
	if n.Kind == yaml.MappingNode && !has && !hasKey(n, "resolveTo") {
		l.bad(n, "timeout needs resolveTo (AUTHORIZED, DECLINED or FAILED)")
	}
	return t
}

func (l *loader) capture(n *yaml.Node) *simulator.CaptureDecision {
	c := &simulator.CaptureDecision{}
	var afterNode, toNode, reasonNode *yaml.Node
	l.mapping(n, "capture", captureKeys, func(key string, k, v *yaml.Node) {
		switch key {
		case "status":
			if s, ok := l.enum(v, "capture.status", captureStatuses); ok {
				c.Status = simulator.PaymentStatus(s)
			}
		case "settleAfter":
			afterNode = v
			c.SettleAfter, _ = l.duration(v, "capture.settleAfter")
		case "settleTo":
			toNode = v
			if s, ok := l.enum(v, "capture.settleTo", settleStatuses); ok {
				c.SettleTo = simulator.PaymentStatus(s)
			}
		case "reason":
			reasonNode = v
			c.Reason = l.reason(v)
		}
	})
	if n.Kind != yaml.MappingNode {
		return nil
	}
	if c.Status == "" {
		c.Status = simulator.StatusSettling
		if afterNode == nil && toNode == nil && !hasKey(n, "status") {
			l.bad(n, "capture needs a status (SETTLED, SETTLING or FAILED)")
		}
	}
	if c.Status != simulator.StatusSettling {
		if afterNode != nil {
			l.bad(afterNode, "capture.settleAfter only applies to status SETTLING")
		}
		if toNode != nil {
			l.bad(toNode, "capture.settleTo only applies to status SETTLING")
		}
	}
	if c.Status == simulator.StatusSettling && c.SettleTo == "" {
		c.SettleTo = simulator.StatusSettled
	}
	if reasonNode != nil && c.Status != simulator.StatusFailed && c.SettleTo != simulator.StatusFailed {
		l.bad(reasonNode, "capture.reason only applies when the capture fails (status FAILED or settleTo FAILED)")
	}
	return c
}

func (l *loader) refund(n *yaml.Node) *simulator.RefundDecision {
	r := &simulator.RefundDecision{}
	var afterNode, toNode, reasonNode *yaml.Node
	l.mapping(n, "refund", refundKeys, func(key string, k, v *yaml.Node) {
		switch key {
		case "status":
			if s, ok := l.enum(v, "refund.status", refundStatuses); ok {
				r.Status = simulator.PaymentStatus(s)
			}
		case "after":
			afterNode = v
			r.After, _ = l.duration(v, "refund.after")
		case "resolveTo":
			toNode = v
			if s, ok := l.enum(v, "refund.resolveTo", settleStatuses); ok {
				r.ResolveTo = simulator.PaymentStatus(s)
			}
		case "reason":
			reasonNode = v
			r.Reason = l.reason(v)
		}
	})
	if n.Kind != yaml.MappingNode {
		return nil
	}
	if r.Status == "" && !hasKey(n, "status") {
		l.bad(n, "refund needs a status (SETTLED, FAILED or PENDING)")
	}
	if r.Status != simulator.StatusPending && r.Status != "" {
		if afterNode != nil {
			l.bad(afterNode, "refund.after only applies to status PENDING")
		}
		if toNode != nil {
			l.bad(toNode, "refund.resolveTo only applies to status PENDING")
		}
	}
	if r.Status == simulator.StatusPending && r.ResolveTo == "" {
		r.ResolveTo = simulator.StatusSettled
	}
	if reasonNode != nil && r.Status != simulator.StatusFailed && r.ResolveTo != simulator.StatusFailed {
		l.bad(reasonNode, "refund.reason only applies when the refund fails (status FAILED or resolveTo FAILED)")
	}
	return r
}

func (l *loader) dispute(n *yaml.Node) *simulator.DisputeDecision {
	d := &simulator.DisputeDecision{Reason: "FRAUDULENT"}
	l.mapping(n, "dispute", disputeKeys, func(key string, k, v *yaml.Node) {
		switch key {
		case "after":
			d.After, _ = l.duration(v, "dispute.after")
		case "reason":
			if s, ok := l.str(v, "dispute.reason"); ok {
				if len(s) > 255 {
					l.bad(v, "dispute.reason is longer than 255 characters")
				}
				d.Reason = s
			}
		case "amount":
			if a, ok := l.int(v, "dispute.amount"); ok {
				if a <= 0 {
					l.bad(v, "dispute.amount %d must be at least 1", a)
				}
				d.Amount = a
			}
		case "then":
			if v.Kind != yaml.SequenceNode {
				l.bad(v, "dispute.then must be a list of {status, after}, not %s", kindName(v))
				return
			}
			for _, sn := range v.Content {
				var st simulator.DisputeStep
				l.mapping(sn, "a dispute.then step", thenKeys, func(key string, k, v *yaml.Node) {
					if key == "status" {
						s, _ := l.enum(v, "dispute.then status", simulator.Names(simulator.DisputeMoves))
						st.Status = simulator.DisputeStatus(s)
					} else {
						st.After, _ = l.duration(v, "dispute.then after")
					}
				})
				if sn.Kind == yaml.MappingNode && st.Status == "" && !hasKey(sn, "status") {
					l.bad(sn, "a dispute.then step needs a status (%s)", strings.Join(simulator.Names(simulator.DisputeMoves), ", "))
				}
				d.Then = append(d.Then, st)
			}
		}
	})
	if n.Kind != yaml.MappingNode {
		return nil
	}
	return d
}

func hasKey(n *yaml.Node, key string) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// HasProcessors reports whether a document (that loads) declares its own
// processors, rather than taking them from a base document.
func HasProcessors(data []byte) bool {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return false
	}
	return hasKey(root.Content[0], "processors")
}
