package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// typedKeys are the config keys whose values must parse as something other
// than a string; checkValues reports a bad one by where it came from.
var typedKeys = map[string]string{
	"request_timeout": "duration",
	"attempt_ttl":     "duration",
	"journal_size":    "integer",
	"default_tenant":  "boolean",
	"advance_wait":    "duration",

	"webhook_slots_per_tenant": "integer",
}

// checkValues checks the typed keys before they are decoded, so that an
// error names the flag, variable or file key that set the bad value:
// `PAYSANDBOX_REQUEST_TIMEOUT="5 seconds": not a duration`.
func checkValues(v *viper.Viper, fs *pflag.FlagSet, env func(string) (string, bool), cfgFile string) error {
	var errs []error
	for _, key := range []string{"request_timeout", "attempt_ttl", "journal_size", "default_tenant", "advance_wait", "webhook_slots_per_tenant"} {
		kind := typedKeys[key]
		flag := strings.ReplaceAll(key, "_", "-")
		if f := fs.Lookup(flag); f != nil && fs.Changed(flag) {
			continue // pflag has parsed it already
		}
		raw := v.Get(key)
		s, ok := raw.(string)
		if !ok {
			continue // a YAML duration/number/bool, or the default
		}
		var err error
		switch kind {
		case "duration":
			_, err = time.ParseDuration(s)
		case "integer":
			_, err = strconv.Atoi(s)
		case "boolean":
			_, err = strconv.ParseBool(s)
		}
		if err == nil {
			continue
		}
		name := "PAYSANDBOX_" + strings.ToUpper(key)
		if e, set := lookupEnv(env, name); !set || e != s {
			name = key + " in " + cfgFile
		}
		example := map[string]string{"duration": " like 90s, 500ms or 15m", "integer": "", "boolean": " (true or false)"}[kind]
		errs = append(errs, fmt.Errorf("%s=%q: not a%s %s%s", name, s, map[bool]string{true: "n", false: ""}[kind == "integer"], kind, example))
	}
	if len(errs) > 0 {
		return fmt.Errorf("config: %w", errors.Join(errs...))
	}
	return nil
}

func lookupEnv(env func(string) (string, bool), name string) (string, bool) {
	if env == nil {
		return "", false
	}
	return env(name)
}
