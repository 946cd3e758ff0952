// Package suggest finds the names a mistyped name was probably meant to be:
// the field of a request schema, a scenario rule, a configuration key. It
// imports the standard library only.
package suggest

import (
	"slices"
	"strings"
)

// MaxEdits is how far a suggestion may be from what was typed.
const MaxEdits = 2

// fold compares names without case, "_" or "-" (orderID, order_id and
// order-id are one name).
func fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '-':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Distance is the optimal-string-alignment distance between a and b once
// folded: insertions, deletions, substitutions and swaps of two neighbouring
// characters ("amuont" is one edit from "amount").
func Distance(a, b string) int {
	return osa(fold(a), fold(b))
}

func osa(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// maxEdits is the distance allowed for a typed name: MaxEdits, but fewer for
// short names (two edits turn most three-letter names into any other).
func maxEdits(name string) int {
	return min(MaxEdits, len(fold(name))/2)
}

// Nearest is the candidate within maxEdits of name with the smallest
// distance; ties go to the alphabetically first. "" when none is close
// enough, or when name itself is a candidate.
func Nearest(name string, candidates []string) string {
	best, bestD := "", maxEdits(name)+1
	for _, c := range candidates {
		if c == name {
			return ""
		}
		d := Distance(name, c)
		if d < bestD || (d == bestD && best != "" && c < best) {
			best, bestD = c, d
		}
	}
	return best
}

// Close lists, at most limit, the candidates a name may have meant: those
// within maxEdits of it; when there are none, those containing it or
// contained in it (folded, three characters or more) or sharing a word of
// four letters or more with it ("3ds-challenge", "three-ds-challenge").
// Nearest first, then alphabetical.
func Close(name string, candidates []string, limit int) []string {
	type hit struct {
		c string
		d int
	}
	fn := fold(name)
	words := wordsOf(name)
	var near, related []hit
	for _, c := range candidates {
		if c == name {
			continue
		}
		fc := fold(c)
		d := osa(fn, fc)
		if d <= maxEdits(name) {
			near = append(near, hit{c, d})
			continue
		}
		if len(fn) >= 3 && (strings.Contains(fc, fn) || (len(fc) >= 3 && strings.Contains(fn, fc))) {
			related = append(related, hit{c, d})
			continue
		}
		for _, w := range wordsOf(c) {
			if len(w) >= 4 && slices.Contains(words, w) {
				related = append(related, hit{c, d})
				break
			}
		}
	}
	hits := near
	if len(hits) == 0 {
		hits = related
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.c, b.c)
	})
	out := make([]string, 0, min(len(hits), limit))
	for _, h := range hits[:min(len(hits), limit)] {
		out = append(out, h.c)
	}
	return out
}

func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == '-' || r == '_' || r == ' ' || r == '.' })
}
