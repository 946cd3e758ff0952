// Package redact masks card numbers, card security codes and URL tokens in
// the text the sandbox keeps or prints about traffic: request-journal
// bodies, log lines, and the stored head of a webhook receiver's answer
// (docs/journal.md, Redaction). It never touches what is sent: API answers and
// webhook bodies are not passed through it.
//
// The rules, by value wherever the text is:
//   - a run of 12 to 19 digits that passes the Luhn check keeps its first 6
//     and last 4 digits; the others become Mask, separators stay where they
//     were. Groups of digits in a run are separated by a single space, dash,
//     dot or slash, or by several spaces; a dot, a slash or several spaces
//     join groups of 4 digits or more only (every group but the last), so
//     that an IPv4 address, a date (2026/11/28), a version or a list of
//     amounts is not read as a card number. A longer run with separators is
//     searched group by group for such a number ("4111 1111 1111 1111
//     2030"); a longer run without is not a card number and stays. Any
//     digit-only id that happens to pass Luhn is masked too.
//   - in JSON, the value under a key naming a security code (the table
//     securityCodeNames: cvv, cv2, cvc, securityCode, card_code,
//     verificationCode, ... in any case, "_" and "-" ignored) becomes
//     Marker, for cid, cvn and cvd only when it is 3 or 4 digits; in other
//     text, the digits that follow such a name do.
//   - the value of a `token=` query parameter (the 3DS challenge page's URL
//     carries the client token) becomes Marker.
//
// Text that holds none of these is returned as it is, found by one scan
// without allocation (a digit run of 12 or more, a security word, "token=",
// a \u escape); only then is it rewritten.
//
// It imports the standard library and the domain kernel (for its Luhn
// check) only, so every adapter may use it.
package redact

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/paysandbox/paysandbox/simulator"
)

// Mask replaces each hidden digit of a card number: ASCII and one byte per
// digit, so a masked number keeps its length and separators.
const Mask = '*'

// Marker replaces a security code or a token, as the journal's
// field-name redaction does.
const Marker = "[REDACTED]"

// Bytes returns b with card numbers, security codes and tokens masked; b
// itself when there is nothing to mask. Text starting with { or [ (after
// whitespace) is read as JSON: a masked number outside a string becomes a
// string, so the text stays JSON. cut says b is the head of something
// longer: a digit run touching its end may be the start of a card number,
// so all its digits are masked.
func Bytes(b []byte, cut bool) []byte {
	if !needsPass(b, cut) {
		return b
	}
	if bytes.Contains(b, []byte(`\u003`)) {
		b = unescapeDigits(b)
	}
	p := pass{in: b, cut: cut, json: looksJSON(b)}
	p.run()
	if p.out == nil {
		return b
	}
	return append(p.out, b[p.done:]...)
}

// String is Bytes for text that is not cut (a log value).
func String(s string) string {
	if !needsPass(s, false) {
		return s
	}
	b := Bytes([]byte(s), false)
	return string(b)
}

// Head is Bytes for the first bytes of an answer read up to max: when it is
// max long, it is taken as cut.
func Head(b []byte, max int) string {
	return string(Bytes(b, len(b) >= max))
}

// Byte classes of the cheap scan.
const (
	clsOther = iota
	clsDigit
	clsSep   // a space or a dash: joins groups (joinAt)
	clsLoose // a dot or a slash: joins groups of 4 digits or more
	clsWord  // may start a security-code name, "token=" or a \u escape
)

var class = func() (t [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = clsDigit
	}
	t[' '], t['-'], t['.'], t['/'] = clsSep, clsSep, clsLoose, clsLoose
	for c, s := range wordSecond {
		if s != 0 {
			t[c] = clsWord
		}
	}
	return t
}()

// wordSecond has bit c-'a' of [first] set when a security-code name,
// "token=" or "\u" may start with the bytes first then c (c lower case,
// first in either): the cheap scan's filter before wordAt.
var wordSecond = func() (t [256]uint32) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] |= codeNames.second[c]
		t[c-'a'+'A'] |= codeNames.second[c]
	}
	t['t'] |= 1 << ('o' - 'a')
	t['T'] |= 1 << ('o' - 'a')
	t['\\'] |= 1 << ('u' - 'a')
	return t
}()

// needsPass is the cheap scan: whether b may hold anything to mask. It
// is a superset of what the pass masks (FuzzBytes): a run of 12 digits or
// more as joinAt joins groups, a security-code name, "token=", a \u escape.
func needsPass[T string | []byte](b T, cut bool) bool {
	n := 0 // digits in the current run
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c > '9' { // letters, '\\' and most punctuation
			if class[c] == clsWord && i+1 < len(b) {
				if c1 := b[i+1] | 0x20; c1 >= 'a' && c1 <= 'z' && wordSecond[c]&(1<<(c1-'a')) != 0 && wordAt(b, i) {
					return true
				}
			}
			n = 0
			continue
		}
		if c < '0' { // a separator joins groups only after one (below)
			n = 0
			continue
		}
		j := i + 1
		for j < len(b) && isDigit(b[j]) {
			j++
		}
		if n += j - i; n >= 12 {
			return true
		}
		if g := j - i; j+1 < len(b) { // joinAt, inlined but for several spaces
			s := b[j]
			if isDigit(b[j+1]) && (s == ' ' || s == '-' || (g >= 4 && (s == '.' || s == '/'))) {
				i = j
				continue
			}
			if g >= 4 && s == ' ' && b[j+1] == ' ' {
				if e, _, ok := joinAt(b, j, g); ok {
					i = e - 1
					continue
				}
			}
		}
		n = 0
		i = j - 1
	}
	return cut && tailRun(b) < len(b)
}

// joinAt reports where the separator at b[i] ends when it joins the group
// of g digits before it to the group that follows: a single space or dash
// always; a dot, a slash or several spaces (loose) only after 4 digits or
// more, so that addresses, dates and versions stay apart.
func joinAt[T string | []byte](b T, i, g int) (end int, loose, ok bool) {
	j := i + 1
	if b[i] == ' ' {
		for j < len(b) && b[j] == ' ' {
			j++
		}
	}
	if j >= len(b) || !isDigit(b[j]) {
		return 0, false, false
	}
	loose = b[i] == '.' || b[i] == '/' || j-i > 1
	if loose && g < 4 {
		return 0, false, false
	}
	return j, loose, true
}

// endsRun reports whether rest, what follows a digit run up to the end of
// the text, may be the separator before a further group: nothing, one
// dash, dot or slash, or spaces.
func endsRun[T string | []byte](rest T) bool {
	if len(rest) == 1 && isSep(rest[0]) {
		return true
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] != ' ' {
			return false
		}
	}
	return true
}

// TailRun returns where the digit run that ends b starts (its groups, the
// separators joining them, and a separator or spaces after its last
// digit), or len(b) when b does not end in one: in the head of a longer
// text, such a run may be the start of a card number (Bytes masks it whole
// when cut).
func TailRun(b []byte) int { return tailRun(b) }

func tailRun[T string | []byte](b T) int {
	j := len(b)
	for j > 0 && b[j-1] == ' ' {
		j--
	}
	if j == len(b) && j > 0 && isSep(b[j-1]) {
		j--
	}
	if j == 0 || !isDigit(b[j-1]) {
		return len(b)
	}
	start := j // of the group being read, backwards
	for {
		for start > 0 && isDigit(b[start-1]) {
			start--
		}
		s := start // of the separator before the group
		for s > 0 && b[s-1] == ' ' {
			s--
		}
		if s == start && s > 0 && isSep(b[s-1]) {
			s--
		}
		if s == start || s == 0 || !isDigit(b[s-1]) {
			return start
		}
		g := s // of the group before the separator
		for g > 0 && isDigit(b[g-1]) {
			g--
		}
		if _, _, ok := joinAt(b, s, s-g); !ok {
			return start
		}
		start = s
	}
}

// wordAt reports whether a security-code name, "token=" or a \u escape
// starts at b[i] (b[i+1] exists).
func wordAt[T string | []byte](b T, i int) bool {
	switch b[i] {
	case '\\':
		return b[i+1] == 'u'
	case 't', 'T':
		if b[i+1]|0x20 == 'o' && hasFoldPrefix(b[i:], "token=") {
			return true
		}
	}
	j, _ := codeNameAt(b, i, false)
	return j >= 0
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// hasFoldPrefix reports whether b starts with the lower-case word w, in any case.
func hasFoldPrefix[T string | []byte](b T, w string) bool {
	if len(b) < len(w) {
		return false
	}
	for j := 0; j < len(w); j++ {
		c := b[j]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[j] {
			return false
		}
	}
	return true
}

func looksJSON(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// unescapeDigits writes the JSON escapes \u0030-\u0039 as the digits they
// are, so that an escaped card number is seen (and masked) like a plain one.
// Other escapes are copied as they are.
func unescapeDigits(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+5 < len(b) && b[i+2] == '0' && b[i+3] == '0' && b[i+4] == '3' && b[i+5] >= '0' && b[i+5] <= '9' {
			out = append(out, b[i+5])
			i += 5
			continue
		}
		out = append(out, b[i], b[i+1]) // the escaped byte cannot start another escape
		i++
	}
	return out
}

// pass is one rewrite of a text. out is nil until the first change; done is
// how much of in has been copied to (or replaced in) out.
type pass struct {
	in   []byte
	out  []byte
	done int
	cut  bool
	json bool
}

// replace writes repl in place of in[from:to].
func (p *pass) replace(from, to int, repl []byte) {
	if p.out == nil {
		p.out = make([]byte, 0, len(p.in)+16)
	}
	p.out = append(p.out, p.in[p.done:from]...)
	p.out = append(p.out, repl...)
	p.done = to
}

func (p *pass) run() {
	b := p.in
	inString, strStart := false, 0
	lastString := [2]int{-1, -1} // the latest JSON string closed outside a string, for keys
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case isDigit(c) && (inString || !p.json):
			i = p.digitRun(i, true)
			continue
		case p.json && !inString && (isDigit(c) || c == '-'):
			i = p.numberLiteral(i)
			continue
		case c == 't' || c == 'T':
			if hasFoldPrefix(b[i:], "token=") && (inString || !p.json) {
				i = p.token(i+len("token="), inString)
				continue
			}
		}
		if !p.json || inString {
			if end, ok := p.textWord(i, p.json); ok {
				i = end
				continue
			}
		}
		if !p.json {
			i++
			continue
		}
		switch {
		case inString && c == '\\':
			i += 2
			continue
		case inString && c == '"':
			inString = false
			lastString = [2]int{strStart, i + 1}
		case !inString && c == '"':
			inString, strStart = true, i
		case !inString && c == ':' && lastString[1] >= 0:
			if kind := p.securityString(b[lastString[0]:lastString[1]]); kind != keyOther {
				i = p.securityValue(i+1, kind)
				lastString = [2]int{-1, -1}
				continue
			}
			lastString = [2]int{-1, -1}
		case !inString && c != ' ' && c != '\t' && c != '\r' && c != '\n':
			lastString = [2]int{-1, -1}
		}
		i++
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isSep reports whether c may separate the groups of a card number.
func isSep(c byte) bool { return class[c] == clsSep || class[c] == clsLoose }

// digitRun masks the card numbers of the run of digits starting at i
// (groups joined by separators when seps: joinAt) and returns where it ends.
func (p *pass) digitRun(i int, seps bool) int {
	b := p.in
	var posBuf [32]int
	var groupBuf [8]int
	var looseBuf [8]bool
	// digit positions; the digit index each group starts at; whether the
	// separator before each group is loose (joinAt)
	pos, groups, loose := posBuf[:0], groupBuf[:0], looseBuf[:0]
	e, joinedLoose := i, false
	for e < len(b) {
		if isDigit(b[e]) {
			if len(pos) == 0 || e > pos[len(pos)-1]+1 {
				groups = append(groups, len(pos))
				loose = append(loose, joinedLoose)
			}
			pos = append(pos, e)
			e++
			continue
		}
		if seps && isSep(b[e]) {
			if j, l, ok := joinAt(b, e, len(pos)-groups[len(groups)-1]); ok {
				e, joinedLoose = j, l
				continue
			}
		}
		break
	}
	if p.cut && endsRun(b[e:]) {
		p.maskDigits(i, e)
		return e
	}
	if n, g := len(pos), len(groups); n >= 12 && (g > 1 || n <= 19) {
		p.maskCards(i, e, pos, groups, loose)
	}
	return e
}

// maskDigits masks every digit of b[i:e] (a run cut by the end of a head,
// which may be the start of a card number).
func (p *pass) maskDigits(i, e int) {
	rep := append([]byte(nil), p.in[i:e]...)
	for k := range rep {
		if isDigit(rep[k]) {
			rep[k] = Mask
		}
	}
	p.replace(i, e, rep)
}

// maskCards masks, within the run b[i:e] whose digits are at pos (groups:
// the digit index each group of adjacent digits starts at; loose: whether
// the separator before each group is a dot, a slash or several spaces),
// every longest span of whole groups that holds 12 to 19 digits, starts
// with a digit other than 0, is not part of a uuid, has no group but its
// last under 4 digits when a loose separator joins it (1000.00 2000.00 is
// two amounts), and passes Luhn: all but its first 6 and last 4 digits.
func (p *pass) maskCards(i, e int, pos, groups []int, loose []bool) {
	b := p.in
	n, g := len(pos), len(groups)
	uuids := uuidSpans(b, i, e)
	var rep []byte
	digitsOf := func(from, to int) []byte { // digit indexes [from, to)
		ds := make([]byte, 0, 19)
		for k := from; k < to; k++ {
			ds = append(ds, b[pos[k]])
		}
		return ds
	}
	groupEnd := func(gi int) int {
		if gi+1 < g {
			return groups[gi+1]
		}
		return n
	}
	shape := func(gi, gj int) bool { // a loose span has no short group but its last
		anyLoose, anyShort := false, false
		for k := gi + 1; k <= gj; k++ {
			anyLoose = anyLoose || loose[k]
			anyShort = anyShort || groups[k]-groups[k-1] < 4
		}
		return !anyLoose || !anyShort
	}
	for gi := 0; gi < g; {
		d0 := groups[gi]
		found := -1
		for gj := g - 1; gj >= gi; gj-- {
			cnt := groupEnd(gj) - d0
			if cnt >= 12 && cnt <= 19 && b[pos[d0]] != '0' && shape(gi, gj) && !overlaps(uuids, pos[d0], pos[groupEnd(gj)-1]+1) && simulator.LuhnValid(string(digitsOf(d0, groupEnd(gj)))) {
				found = gj
				break
			}
		}
		if found < 0 {
			gi++
			continue
		}
		if rep == nil {
			rep = append([]byte(nil), b[i:e]...)
		}
		d1 := groupEnd(found)
		for k := d0 + 6; k < d1-4; k++ {
			rep[pos[k]-i] = Mask
		}
		gi = found + 1
	}
	if rep != nil {
		p.replace(i, e, rep)
	}
}

// numberLiteral handles a JSON number outside a string at i: when it holds
// a card number, the whole literal becomes a string of its masked text.
func (p *pass) numberLiteral(i int) int {
	b := p.in
	e := i
	for e < len(b) && (isDigit(b[e]) || b[e] == '-' || b[e] == '+' || b[e] == '.' || b[e] == 'e' || b[e] == 'E') {
		e++
	}
	if e == i {
		return i + 1
	}
	sub := pass{in: b[i:e], cut: p.cut && e == len(b)}
	for k := 0; k < len(sub.in); {
		if isDigit(sub.in[k]) {
			k = sub.digitRun(k, false)
			continue
		}
		k++
	}
	if sub.out == nil {
		return e
	}
	masked := append(sub.out, sub.in[sub.done:]...)
	rep := make([]byte, 0, len(masked)+2)
	rep = append(append(append(rep, '"'), masked...), '"')
	p.replace(i, e, rep)
	return e
}

// token masks a query parameter's value starting at i.
func (p *pass) token(i int, inString bool) int {
	b := p.in
	e := i
	for e < len(b) {
		c := b[e]
		if c == '&' || c == '#' || c == '"' || c == '\'' || c == '\\' || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '<' || c == '>' {
			break
		}
		e++
	}
	if e > i {
		p.replace(i, e, []byte(Marker))
	}
	return e
}

// securityString reports what the JSON string literal s (quotes included)
// says as a key: securityKey.
func (p *pass) securityString(s []byte) keyKind {
	k := s[1 : len(s)-1]
	if bytes.IndexByte(k, '\\') >= 0 {
		un, ok := unquote(s)
		if !ok {
			return keyOther
		}
		return securityKey(un)
	}
	return securityKey(string(k))
}

// securityValue replaces the JSON value starting after whitespace at i (a
// member's value under a key of kind) by Marker, and returns where it
// ended. null stays null; under a short-code key, a value other than 3 or 4
// digits stays, and the scan goes on at its start.
func (p *pass) securityValue(i int, kind keyKind) int {
	b := p.in
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	if i >= len(b) {
		return i
	}
	if kind == keyShortCode && !p.shortCodeValue(i) {
		return i
	}
	e := i
	switch b[i] {
	case '"':
		e = skipString(b, i)
	case '{', '[':
		depth := 0
		for e < len(b) {
			switch b[e] {
			case '"':
				e = skipString(b, e)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			e++
			if depth == 0 {
				break
			}
		}
	default:
		if hasFoldPrefix(b[i:], "null") {
			return i + 4
		}
		for e < len(b) && b[e] != ',' && b[e] != '}' && b[e] != ']' && b[e] != ' ' && b[e] != '\n' && b[e] != '\r' && b[e] != '\t' {
			e++
		}
	}
	p.replace(i, e, []byte(`"`+Marker+`"`))
	return e
}

// shortCodeValue reports whether the JSON value at i is 3 or 4 digits, as
// a string or a number; cut by the end of a head, whether it may be.
func (p *pass) shortCodeValue(i int) bool {
	b := p.in
	from, to := i, i
	switch {
	case b[i] == '"':
		from, to = i+1, i+1
		for to < len(b) && isDigit(b[to]) {
			to++
		}
		if to == len(b) { // cut inside the string
			return to-from <= 4
		}
		if b[to] != '"' {
			return false
		}
	case isDigit(b[i]):
		for to < len(b) && isDigit(b[to]) {
			to++
		}
		if to == len(b) {
			return p.cut && to-from <= 4
		}
		if c := b[to]; c == '.' || c == 'e' || c == 'E' {
			return false
		}
	default:
		return false
	}
	return shortCode(b[from:to])
}

// skipString returns the end of the JSON string starting at i (len(b) when
// it is not closed).
func skipString(b []byte, i int) int {
	for e := i + 1; e < len(b); e++ {
		switch b[e] {
		case '\\':
			e++
		case '"':
			return e + 1
		}
	}
	return len(b)
}

// textWord masks, outside JSON, the digits that follow a security-code
// name ("cvv=123", "CVC: 123", "cid 1234") within a few separating bytes;
// after a short-code name (cid), only 3 or 4 digits. Inside a JSON string
// (inJSON) the gap holds no quote, so the string's end is never passed.
func (p *pass) textWord(i int, inJSON bool) (int, bool) {
	b := p.in
	if c := b[i]; class[c] != clsWord || i+1 >= len(b) {
		return 0, false
	} else if c1 := b[i+1] | 0x20; c1 < 'a' || c1 > 'z' || wordSecond[c]&(1<<(c1-'a')) == 0 {
		return 0, false
	}
	end, kind := codeNameAt(b, i, true)
	if end < 0 {
		return 0, false
	}
	gap := " \t\"':="
	if inJSON {
		gap = " \t:="
	}
	j := end
	for k := 0; k < 8 && j < len(b) && strings.IndexByte(gap, b[j]) >= 0; k++ {
		j++
	}
	e := j
	for e < len(b) && isDigit(b[e]) {
		e++
	}
	if e == j || (kind == keyShortCode && !shortCode(b[j:e]) && !(p.cut && e == len(b) && e-j < 4)) {
		return end, true
	}
	p.replace(j, e, []byte(Marker))
	return e, true
}

// unquote decodes a JSON string literal.
func unquote(s []byte) (string, bool) {
	var out string
	if json.Unmarshal(s, &out) != nil {
		return "", false
	}
	return out, true
}

// uuidSpans are the uuids (8-4-4-4-12 hex digits) that overlap b[i:e]:
// ids of attempts, events and disputes are not card numbers, whatever
// their digits.
func uuidSpans(b []byte, i, e int) [][2]int {
	l, r := i, e
	for l > 0 && l > i-36 && isHexOrDash(b[l-1]) {
		l--
	}
	for r < len(b) && r < e+36 && isHexOrDash(b[r]) {
		r++
	}
	var out [][2]int
	for k := l; k+36 <= r; k++ {
		if isUUID(b[k : k+36]) {
			out = append(out, [2]int{k, k + 36})
			k += 35
		}
	}
	return out
}

func overlaps(spans [][2]int, from, to int) bool {
	for _, s := range spans {
		if from < s[1] && to > s[0] {
			return true
		}
	}
	return false
}

func isUUID(t []byte) bool {
	for k, c := range t {
		switch k {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if c == '-' || !isHexOrDash(c) {
				return false
			}
		}
	}
	return true
}

func isHexOrDash(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '-'
}
