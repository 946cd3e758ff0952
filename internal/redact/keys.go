package redact

import (
	"sort"
	"strings"
)

// securityCodeNames is the one table of the names a card security code goes
// by with the vendor and common gateways, each as its words in lower case.
// A key (JSON member, log attribute) matches in any case, its words run
// together or joined by "_" or "-", so cvv_number, cvv-number, cvvNumber
// and CVV_NUMBER are one name; in text, a name's words may also be joined
// by one space ("security code: 123"). shortCode marks names that often
// stand for other ids too (cid for a customer or a correlation id): only a
// value of 3 or 4 digits under them is masked, and in text they count as
// names only where a word starts.
//
// Everything else about security-code names (securityKey, the text words,
// the cheap scan's filter) is derived from this table, and each reads a
// name the same way (wordsAt), so the cheap scan finds every key the pass
// masks.
var securityCodeNames = []struct {
	words     string
	shortCode bool
}{
	{words: "cvv"}, {words: "cvv2"}, {words: "cvc"}, {words: "cvc2"}, {words: "csc"}, {words: "cv2"},
	{words: "cvn", shortCode: true}, {words: "cid", shortCode: true}, {words: "cvd", shortCode: true},
	{words: "cvv number"}, {words: "cvc number"},
	{words: "security code"}, {words: "card code"}, {words: "card security code"},
	{words: "verification code"}, {words: "card verification code"}, {words: "card verification value"},
}

// keyKind is what a key says of the value under it.
type keyKind uint8

const (
	keyOther     keyKind = iota
	keyCode              // a security code, whatever the value
	keyShortCode         // a security code when the value is 3 or 4 digits
)

// codeName is a row of securityCodeNames, split into its words.
type codeName struct {
	words []string
	kind  keyKind
	size  int // letters, all words together
}

// codeNames is what is derived from securityCodeNames.
var codeNames = deriveCodeNames()

type codeNameTables struct {
	// byPair lists, for each two lower-case first letters, the names that
	// start with them: longest first word first (cvv2 is tried before cvv),
	// then by first word (codeNameAt reads each first word once), longest
	// name first (cvv number before cvv).
	byPair [26][26][]codeName
	// second has bit c-'a' of [first] set when a name starts with first
	// then c (both lower case): the cheap scan's first filter.
	second [256]uint32
}

func deriveCodeNames() *codeNameTables {
	t := &codeNameTables{}
	for _, n := range securityCodeNames {
		words := strings.Fields(n.words)
		kind := keyCode
		if n.shortCode {
			kind = keyShortCode
		}
		joined := strings.Join(words, "")
		pair := &t.byPair[joined[0]-'a'][joined[1]-'a']
		*pair = append(*pair, codeName{words: words, kind: kind, size: len(joined)})
		t.second[joined[0]] |= 1 << (joined[1] - 'a')
	}
	for i := range t.byPair {
		for _, ns := range t.byPair[i] {
			sort.SliceStable(ns, func(i, j int) bool {
				a, b := ns[i], ns[j]
				if len(a.words[0]) != len(b.words[0]) {
					return len(a.words[0]) > len(b.words[0])
				}
				if a.words[0] != b.words[0] {
					return a.words[0] < b.words[0]
				}
				return a.size > b.size
			})
		}
	}
	return t
}

// securityKey reports what key k (JSON member, log attribute) says of its
// value: a security code (cvv, CVV_Number, securityCode, ...), a security
// code when it is 3 or 4 digits (cid, cvn, cvd), or nothing.
func securityKey(k string) keyKind {
	if len(k) < 3 {
		return keyOther
	}
	c0, c1 := k[0]|0x20, k[1]|0x20
	if c0 < 'a' || c0 > 'z' || c1 < 'a' || c1 > 'z' {
		return keyOther
	}
	for _, n := range codeNames.byPair[c0-'a'][c1-'a'] {
		if hasFoldPrefix(k, n.words[0]) && wordsAt(k, len(n.words[0]), n.words[1:], false) == len(k) {
			return n.kind
		}
	}
	return keyOther
}

// wordsAt reports where the words ws end when they follow b[i] (-1: they
// do not): in any case, each run together with the word before or joined
// to it by "_", "-" or, when spaced, one space.
func wordsAt[T string | []byte](b T, i int, ws []string, spaced bool) int {
	for _, w := range ws {
		if i < len(b) && (b[i] == '_' || b[i] == '-' || (spaced && b[i] == ' ')) {
			i++
		}
		if !hasFoldPrefix(b[i:], w) {
			return -1
		}
		i += len(w)
	}
	return i
}

// wordStart reports whether a word starts at b[i]: after a byte that is
// neither a letter nor a digit, or at a camel-case hump (cardCid).
func wordStart[T string | []byte](b T, i int) bool {
	if i == 0 {
		return true
	}
	p := b[i-1]
	return !isLetter(p) && !isDigit(p) || (p >= 'a' && p <= 'z' && b[i] >= 'A' && b[i] <= 'Z')
}

// codeNameAt finds the security-code name that starts at b[i] (b[i+1]
// exists), longest first, and reports where it ends and its kind. A name of
// three letters (cvv, cid), and any name when wordEnd, is not followed by a
// letter (cvvCheck is no name); a short-code name starts a word.
func codeNameAt[T string | []byte](b T, i int, wordEnd bool) (int, keyKind) {
	c0, c1 := b[i]|0x20, b[i+1]|0x20
	if c0 < 'a' || c0 > 'z' || c1 < 'a' || c1 > 'z' {
		return -1, keyOther
	}
	first, firstEnd := "", -1 // the first word last read, where it ended
	for _, n := range codeNames.byPair[c0-'a'][c1-'a'] {
		if n.words[0] != first {
			first, firstEnd = n.words[0], -1
			if hasFoldPrefix(b[i:], first) {
				firstEnd = i + len(first)
			}
		}
		if firstEnd < 0 {
			continue
		}
		j := wordsAt(b, firstEnd, n.words[1:], true)
		if j < 0 || ((wordEnd || n.size <= 3) && j < len(b) && isLetter(b[j])) {
			continue
		}
		if n.kind == keyShortCode && !wordStart(b, i) {
			continue
		}
		return j, n.kind
	}
	return -1, keyOther
}

// shortCode reports whether v is 3 or 4 ASCII digits.
func shortCode[T string | []byte](v T) bool {
	if len(v) < 3 || len(v) > 4 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return false
		}
	}
	return true
}
