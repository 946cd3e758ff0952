package bench

import (
	"reflect"
	"strings"
	"sync"

	"github.com/paysandbox/paysandbox/simulator"
)

// cloneID is an id the values of a seeded checkout hold, with its kind:
// each clone holds a fresh id of that kind in its place.
type cloneID struct {
	ID   string
	Kind simulator.IDKind
	// TagOf is, for a session id as a client token holds it
	// (simulator.SessionTag), 1 + the index of the id it is of: its fresh
	// form is that of the fresh id; 0 otherwise.
	TagOf int
}

// idCopier makes the copies of a checkout's values (store.CloneOptions's
// NewCopy): each string (and byte slice) that holds an id of the checkout
// gets a fresh id of the same kind in its place, whatever member holds it;
// what holds none is shared with the checkout's value, not copied (the
// store's writes only read their values). The checkout's strings are cut
// at their ids once (segs), so a clone assembles them from its fresh ids: a
// strings.Replacer over every string of every clone cost more than the
// writes themselves (bench seed of 100,000 checkouts: 14.7 s, 7.6 s so).
type idCopier struct {
	ids   []cloneID
	newID func(cloneID) string
	segs  map[string][]segment // nil: the string holds no id
}

// segment is a part of a string: literal text, or the id of index id.
type segment struct {
	lit string
	id  int // -1: lit
}

func newIDCopier(ids []cloneID, newID func(cloneID) string) *idCopier {
	return &idCopier{ids: ids, newID: newID, segs: map[string][]segment{}}
}

// newCopy is one clone's copy func, with fresh ids of its own.
func (c *idCopier) newCopy() func(any) any {
	fresh := make([]string, len(c.ids))
	for i, id := range c.ids {
		if id.TagOf > 0 {
			fresh[i] = simulator.SessionTag(fresh[id.TagOf-1])
		} else {
			fresh[i] = c.newID(id)
		}
	}
	return func(v any) any {
		out, _ := c.copy(reflect.ValueOf(v), fresh)
		return out.Interface()
	}
}

// replace is s with fresh ids in place of the checkout's.
func (c *idCopier) replace(s string, fresh []string) (string, bool) {
	segs, ok := c.segs[s]
	if !ok {
		segs = c.cut(s)
		c.segs[s] = segs
	}
	if segs == nil {
		return s, false
	}
	var b strings.Builder
	for _, sg := range segs {
		if sg.id < 0 {
			b.WriteString(sg.lit)
		} else {
			b.WriteString(fresh[sg.id])
		}
	}
	return b.String(), true
}

// cut splits s at each id it holds (leftmost first; the earlier of ids
// where two start at once); nil when it holds none.
func (c *idCopier) cut(s string) []segment {
	var out []segment
	lit := 0
	for i := 0; i < len(s); {
		found := -1
		for j, id := range c.ids {
			if id.ID != "" && strings.HasPrefix(s[i:], id.ID) {
				found = j
				break
			}
		}
		if found < 0 {
			i++
			continue
		}
		if lit < i {
			out = append(out, segment{lit: s[lit:i], id: -1})
		}
		out = append(out, segment{id: found})
		i += len(c.ids[found].ID)
		lit = i
	}
	if out != nil && lit < len(s) {
		out = append(out, segment{lit: s[lit:], id: -1})
	}
	return out
}

// copy is v with fresh ids in place of the checkout's; changed reports
// whether it differs from v (when not, v itself is answered).
func (c *idCopier) copy(v reflect.Value, fresh []string) (out reflect.Value, changed bool) {
	switch v.Kind() {
	case reflect.String:
		ns, ok := c.replace(v.String(), fresh)
		if !ok {
			return v, false
		}
		out = reflect.New(v.Type()).Elem()
		out.SetString(ns)
		return out, true
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		e, ok := c.copy(v.Elem(), fresh)
		if !ok {
			return v, false
		}
		if v.Kind() == reflect.Pointer {
			out = reflect.New(v.Type().Elem())
			out.Elem().Set(e)
			return out, true
		}
		out = reflect.New(v.Type()).Elem()
		out.Set(e)
		return out, true
	case reflect.Struct:
		for _, i := range exportedFields(v.Type()) {
			f, ok := c.copy(v.Field(i), fresh)
			if !ok {
				continue
			}
			if !changed {
				out = reflect.New(v.Type()).Elem()
				out.Set(v) // unexported fields as they are
				changed = true
			}
			out.Field(i).Set(f)
		}
		if !changed {
			return v, false
		}
		return out, true
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return v, false
		}
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			nb, ok := c.replace(string(v.Bytes()), fresh)
			if !ok {
				return v, false
			}
			return reflect.ValueOf([]byte(nb)).Convert(v.Type()), true
		}
		for i := range v.Len() {
			e, ok := c.copy(v.Index(i), fresh)
			if !ok {
				continue
			}
			if !changed {
				if v.Kind() == reflect.Slice {
					out = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
				} else {
					out = reflect.New(v.Type()).Elem()
				}
				reflect.Copy(out, v)
				changed = true
			}
			out.Index(i).Set(e)
		}
		if !changed {
			return v, false
		}
		return out, true
	case reflect.Map:
		if v.IsNil() {
			return v, false
		}
		for it := v.MapRange(); it.Next(); {
			k, kc := c.copy(it.Key(), fresh)
			e, ec := c.copy(it.Value(), fresh)
			if !kc && !ec {
				continue
			}
			if !changed {
				out = reflect.MakeMapWithSize(v.Type(), v.Len())
				for all := v.MapRange(); all.Next(); {
					out.SetMapIndex(all.Key(), all.Value())
				}
				changed = true
			}
			out.SetMapIndex(it.Key(), reflect.Value{})
			out.SetMapIndex(k, e)
		}
		if !changed {
			return v, false
		}
		return out, true
	}
	return v, false
}

// exportedFields are the indexes of t's exported fields (copy walks them
// for every value of every clone).
func exportedFields(t reflect.Type) []int {
	if f, ok := fieldsOf.Load(t); ok {
		return f.([]int)
	}
	var f []int
	for i := range t.NumField() {
		if t.Field(i).IsExported() {
			f = append(f, i)
		}
	}
	fieldsOf.Store(t, f)
	return f
}

var fieldsOf sync.Map // reflect.Type -> []int
