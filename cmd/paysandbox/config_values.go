package main

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/paysandbox/paysandbox/internal/suggest"
)

// Every problem of the configuration is reported at once, each naming where
// its value came from: `--request-timeout`, `PAYSANDBOX_REQUEST_TIMEOUT` or
// `request_timeout in FILE` (`request_timeout` alone for a default or a
// Config built in code). Nothing here lists keys: the typed keys come from
// Config's mapstructure tags, a key's flag is its name with "-" for "_", and
// a Validate message that starts with "key: " is renamed after the key's
// source. A key added to Config and configKeys is covered as it is.

// configKind is what a key's value must parse as.
type configKind string

const (
	kindDuration configKind = "duration"
	kindInteger  configKind = "integer"
	kindBoolean  configKind = "boolean"
	kindString   configKind = "string"
	kindList     configKind = "list"
)

// typedKey is one scalar or string-list key of Config.
type typedKey struct {
	name string
	kind configKind
}

var durationType = reflect.TypeFor[time.Duration]()

// typedKeys are Config's scalar keys and lists of strings, in field order,
// from their mapstructure tags (lists of objects such as tenants are checked
// by Validate).
func typedKeys() []typedKey {
	var out []typedKey
	t := reflect.TypeFor[Config]()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := strings.Split(f.Tag.Get("mapstructure"), ",")[0]
		if name == "" || name == "-" {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		var kind configKind
		switch {
		case ft == durationType:
			kind = kindDuration
		case ft.Kind() >= reflect.Int && ft.Kind() <= reflect.Uint64:
			kind = kindInteger
		case ft.Kind() == reflect.Bool:
			kind = kindBoolean
		case ft.Kind() == reflect.String:
			kind = kindString
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String:
			kind = kindList
		default:
			continue
		}
		out = append(out, typedKey{name: name, kind: kind})
	}
	return out
}

// flagOf is the flag that sets key (configKeys), or "" for none.
func flagOf(key string) string {
	k, _ := lookupKey(key)
	return k.Flag
}

// configSources says which source set each key, as viper decides it:
// a flag given on the command line, then PAYSANDBOX_<KEY> (set and not
// empty), then the config file, then the default.
type configSources struct {
	fs   *pflag.FlagSet
	env  func(string) (string, bool)
	v    *viper.Viper
	file string
}

type sourceKind int

const (
	fromDefault sourceKind = iota
	fromFlag
	fromEnv
	fromFile
)

// of is where key (a top-level key) got its value, and its name there.
func (s configSources) of(key string) (sourceKind, string) {
	if f := s.fs.Lookup(flagOf(key)); f != nil && f.Changed {
		return fromFlag, "--" + f.Name
	}
	name := "PAYSANDBOX_" + strings.ToUpper(key)
	if e, ok := lookupEnv(s.env, name); ok && e != "" {
		return fromEnv, name
	}
	if s.file != "" && s.v.InConfig(key) {
		return fromFile, key + " in " + s.file
	}
	return fromDefault, key
}

// name is how a problem names key: its top-level key's source, with the
// path below it (tenants[0].id in FILE).
func (s configSources) name(key string) string {
	top := key
	if i := strings.IndexAny(key, "[."); i >= 0 {
		top = key[:i]
	}
	kind, name := s.of(top)
	switch {
	case top == key:
		return name
	case kind == fromFile:
		return key + " in " + s.file
	}
	return key
}

// raw is the text (or YAML value) key was given at its source.
func (s configSources) raw(key string, kind sourceKind) any {
	switch kind {
	case fromFlag:
		f := s.fs.Lookup(flagOf(key))
		if l, ok := f.Value.(*lenientValue); ok && l.err != nil {
			return l.raw
		}
		return f.Value.String()
	case fromEnv:
		e, _ := lookupEnv(s.env, "PAYSANDBOX_"+strings.ToUpper(key))
		return e
	}
	return s.v.Get(key)
}

// parse checks that raw is a value of kind; the error says what is wanted.
func (k configKind) parse(raw any) error {
	var err error
	switch k {
	case kindDuration:
		switch x := raw.(type) {
		case string:
			_, err = time.ParseDuration(x)
		case time.Duration:
		case int, int64, float64:
			if fmt.Sprint(x) != "0" {
				return errors.New("not a duration like 90s, 500ms or 15m (a number needs a unit)")
			}
		default:
			err = errors.New("no value")
		}
		if err != nil {
			return errors.New("not a duration like 90s, 500ms or 15m")
		}
	case kindInteger:
		switch x := raw.(type) {
		case string:
			_, err = strconv.Atoi(x)
		case int, int64:
		default:
			err = errors.New("no integer")
		}
		if err != nil {
			return errors.New("not an integer")
		}
	case kindBoolean:
		switch x := raw.(type) {
		case string:
			_, err = strconv.ParseBool(x)
		case bool:
		default:
			err = errors.New("no boolean")
		}
		if err != nil {
			return errors.New("not a boolean (true or false)")
		}
	case kindString:
		switch raw.(type) {
		case map[string]any, []any:
			return errors.New("not a single value")
		}
	case kindList:
		switch x := raw.(type) {
		case string, []string:
		case []any:
			for _, e := range x {
				switch e.(type) {
				case map[string]any, []any:
					return errors.New("not a list of single values")
				}
			}
		default:
			return errors.New("not a list (a YAML list, or a comma-separated string)")
		}
	}
	return nil
}

// problem formats one problem: NAME="VALUE": what is wrong.
func problem(name string, raw any, msg string) error {
	return fmt.Errorf("%s=%q: %s", name, fmt.Sprint(raw), msg)
}

// checkValues checks every scalar key at its source before anything is
// decoded. A key with a bad value is reset to its default (so that the rest
// decodes and is validated too) and returned in bad.
func checkValues(s configSources) (errs []error, bad map[string]bool) {
	bad = map[string]bool{}
	keys := map[string]bool{}
	for _, k := range typedKeys() {
		keys[flagOf(k.name)] = true
		kind, name := s.of(k.name)
		if kind == fromDefault {
			continue
		}
		raw := s.raw(k.name, kind)
		if err := k.kind.parse(raw); err != nil {
			errs = append(errs, problem(name, raw, err.Error()))
			bad[k.name] = true
			s.v.Set(k.name, defaultOf(k.name))
		}
	}
	s.fs.VisitAll(func(f *pflag.Flag) { // flags that are no config key
		if l, ok := f.Value.(*lenientValue); ok && l.err != nil && !keys[f.Name] {
			errs = append(errs, problem("--"+f.Name, l.raw, l.err.Error()))
		}
	})
	return errs, bad
}

// unknownKeys lists the keys of settings (the config file's, merged) that
// no field of t has, with their paths, sorted.
func unknownKeys(settings map[string]any, t reflect.Type, path string) []string {
	known := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name := strings.Split(f.Tag.Get("mapstructure"), ",")[0]; name != "" && name != "-" {
			known[name] = f.Type
		}
	}
	var out []string
	for k, v := range settings {
		ft, ok := known[k]
		if !ok {
			out = append(out, path+k)
			continue
		}
		items, isList := v.([]any)
		if ft.Kind() != reflect.Slice || ft.Elem().Kind() != reflect.Struct || !isList {
			continue
		}
		for i, it := range items {
			if m, ok := it.(map[string]any); ok {
				out = append(out, unknownKeys(m, ft.Elem(), fmt.Sprintf("%s%s[%d].", path, k, i))...)
			}
		}
	}
	sort.Strings(out)
	return out
}

// unknownKeyProblems names each unknown key of the config file, with the
// known key of its level within two edits.
func unknownKeyProblems(s configSources) []error {
	var errs []error
	for _, k := range unknownKeys(s.v.AllSettings(), reflect.TypeFor[Config](), "") {
		if top, _, _ := strings.Cut(k, "["); s.file == "" || !s.v.InConfig(top) {
			continue // set by a flag bound to no field: serveFlags' business, not the file's
		}
		leaf, level := k, reflect.TypeFor[Config]()
		if i := strings.LastIndexByte(k, '.'); i >= 0 {
			leaf = k[i+1:]
			level = reflect.TypeFor[TenantConfig]()
			if strings.Count(k, ".") > 1 {
				level = reflect.TypeFor[APIKeyConfig]()
			}
		}
		msg := "unknown key"
		if near := suggest.Nearest(leaf, tagsOf(level)); near != "" {
			msg += "; did you mean " + near + "?"
		}
		errs = append(errs, fmt.Errorf("%s in %s: %s", k, s.file, msg))
	}
	return errs
}

func tagsOf(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if name := strings.Split(t.Field(i).Tag.Get("mapstructure"), ",")[0]; name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// renameProblems names each Validate problem "key: ..." after key's source
// (Validate knows the values, not where they came from). Problems of keys
// already reported as unparsable are dropped: their value is the default.
func renameProblems(err error, s configSources, bad map[string]bool) []error {
	if err == nil {
		return nil
	}
	var out []error
	for _, e := range unjoin(err) {
		msg := e.Error()
		key, rest, ok := strings.Cut(msg, ": ")
		if !ok || strings.ContainsAny(key, " ,") {
			out = append(out, e)
			continue
		}
		top := key
		if i := strings.IndexAny(key, "[."); i >= 0 {
			top = key[:i]
		}
		if bad[top] {
			continue
		}
		out = append(out, fmt.Errorf("%s: %s", s.name(key), rest))
	}
	return out
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// joinProblems is the one error of a configuration: "config: " and the
// problem when there is one, else the count and one problem a line.
func joinProblems(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("config: %w", errs[0])
	}
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = "  " + e.Error()
	}
	return fmt.Errorf("config: %d problems:\n%s", len(errs), strings.Join(lines, "\n"))
}

// lenientValue lets a flag take any text: pflag would stop at the first
// flag its type refuses, hiding every other problem; loadConfig reports it
// with the rest instead. Type, String and the default are the wrapped
// value's, so help and viper see the flag as declared.
type lenientValue struct {
	pflag.Value
	raw string
	err error
}

func (l *lenientValue) Set(s string) error {
	l.raw = s
	l.err = l.Value.Set(s)
	return nil
}

// lenientFlags wraps every flag of fs in a lenientValue.
func lenientFlags(fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		if _, done := f.Value.(*lenientValue); !done {
			f.Value = &lenientValue{Value: f.Value}
		}
	})
}

func lookupEnv(env func(string) (string, bool), name string) (string, bool) {
	if env == nil {
		return "", false
	}
	return env(name)
}
