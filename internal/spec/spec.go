// Package spec is mtune's idiom for a named choice that takes options, such
// as a metric: "ter:case=true", "bleu:order=3:tokenize=13a". A Registry
// holds the choices of one kind, each registered once with its name, a
// one-line summary, its options (the tagged fields of a struct: key,
// default, help) and a constructor. Parse decodes a spec once into the
// typed value and its Choice, whose String is the canonical spec (the
// options in declared order, those at their default left out): what the
// wire and a run's records carry. Help texts and the docs' tables of
// options come from the same declarations (Registry.Help, Registry.Table),
// so they cannot disagree with what Parse takes.
//
// An option is a field of the choice's options struct with a `spec:"key"`
// tag and a `help:"…"` tag; its type is bool, int, float64 or string, and
// its default is the field's value in the struct given to Register.
package spec

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Option is one declared option of a choice.
type Option struct {
	Key     string // what a spec names it by ("case")
	Default string // its default value, as a spec writes it ("false")
	Help    string // what it does
	field   int    // its field's index in the options struct
	kind    reflect.Kind
}

// Choice is a parsed spec: a registered name and the options given
// different from their defaults, in declared order. Its String is the
// canonical spec.
type Choice struct {
	Name string
	Set  []Setting
}

// Setting is one option of a Choice, as a spec writes it.
type Setting struct{ Key, Value string }

// String is the canonical spec: "name" or "name:key=value:key=value".
func (c Choice) String() string {
	var b strings.Builder
	b.WriteString(c.Name)
	for _, s := range c.Set {
		b.WriteString(":" + s.Key + "=" + s.Value)
	}
	return b.String()
}

// Registry holds the choices of one kind (Kind names it in messages:
// "metric"), T being what their constructors build.
type Registry[T any] struct {
	Kind    string
	entries []*entry[T]
}

type entry[T any] struct {
	name, summary string
	options       []Option
	defaults      reflect.Value // the options struct at its defaults
	build         func(reflect.Value) (T, error)
}

// Register adds the choice name (lower case) to r: summary describes it,
// defaults is its options struct at their default values, and build makes
// the value from the options a spec sets. It panics on a malformed
// declaration (a duplicate name or key, an untagged or unsupported field):
// registrations run at init, where such a mistake must stop the program.
func Register[T, O any](r *Registry[T], name, summary string, defaults O, build func(O) (T, error)) {
	if name == "" || name != strings.ToLower(name) || strings.ContainsAny(name, ":=,") {
		panic(fmt.Sprintf("spec: %s name %q: want lower case without : = ,", r.Kind, name))
	}
	if r.find(name) != nil {
		panic(fmt.Sprintf("spec: %s %q registered twice", r.Kind, name))
	}
	v := reflect.ValueOf(defaults)
	if v.Kind() != reflect.Struct {
		panic(fmt.Sprintf("spec: %s %q: options must be a struct, not %s", r.Kind, name, v.Type()))
	}
	e := &entry[T]{name: name, summary: summary, defaults: v}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		key, ok := f.Tag.Lookup("spec")
		if !ok {
			panic(fmt.Sprintf("spec: %s %q: field %s has no spec tag", r.Kind, name, f.Name))
		}
		switch f.Type.Kind() {
		case reflect.Bool, reflect.Int, reflect.Float64, reflect.String:
		default:
			panic(fmt.Sprintf("spec: %s %q: option %s is a %s (want bool, int, float64 or string)", r.Kind, name, key, f.Type))
		}
		if key == "" || key != strings.ToLower(key) || strings.ContainsAny(key, ":=,") || slices.ContainsFunc(e.options, func(o Option) bool { return o.Key == key }) {
			panic(fmt.Sprintf("spec: %s %q: bad or repeated option key %q", r.Kind, name, key))
		}
		e.options = append(e.options, Option{Key: key, Default: Format(v.Field(i)), Help: f.Tag.Get("help"), field: i, kind: f.Type.Kind()})
	}
	e.build = func(o reflect.Value) (T, error) { return build(o.Interface().(O)) }
	r.entries = append(r.entries, e)
}

func (r *Registry[T]) find(name string) *entry[T] {
	for _, e := range r.entries {
		if e.name == name {
			return e
		}
	}
	return nil
}

// Names returns the registered names, sorted.
func (r *Registry[T]) Names() []string {
	var out []string
	for _, e := range r.entries {
		out = append(out, e.name)
	}
	slices.Sort(out)
	return out
}

// Options returns the options the choice name declares (nil for an
// unknown name).
func (r *Registry[T]) Options(name string) []Option {
	if e := r.find(name); e != nil {
		return slices.Clone(e.options)
	}
	return nil
}

// Parse decodes spec, "name" or "name:key=value:…" (the name and keys
// case-insensitive), into its value and canonical Choice. Defaults are
// settings given apart from the spec (a command's flags, by key) that
// replace the declared defaults for a choice declaring that key and are
// ignored by others; a spec setting a key that defaults also sets to
// another value is refused rather than one of them chosen.
func (r *Registry[T]) Parse(spec string, defaults ...Setting) (T, Choice, error) {
	var zero T
	name, rest, _ := strings.Cut(strings.TrimSpace(spec), ":")
	name = strings.ToLower(strings.TrimSpace(name))
	e := r.find(name)
	if e == nil {
		err := fmt.Errorf("unknown %s %q: want one of %s", r.Kind, name, strings.Join(r.Names(), ", "))
		if strings.TrimSpace(spec) != name {
			err = fmt.Errorf("%s %q: %w", r.Kind, spec, err)
		}
		return zero, Choice{}, err
	}
	o := reflect.New(e.defaults.Type()).Elem()
	o.Set(e.defaults)
	given := map[string]string{}
	if rest != "" {
		for _, kv := range strings.Split(rest, ":") {
			k, v, ok := strings.Cut(kv, "=")
			k = strings.ToLower(strings.TrimSpace(k))
			if !ok || k == "" {
				return zero, Choice{}, fmt.Errorf("%s %q: %q is not key=value", r.Kind, spec, kv)
			}
			if _, dup := given[k]; dup {
				return zero, Choice{}, fmt.Errorf("%s %q: %s given twice", r.Kind, spec, k)
			}
			given[k] = strings.TrimSpace(v)
		}
	}
	for _, d := range defaults {
		opt := e.option(d.Key)
		if opt == nil {
			continue
		}
		if v, ok := given[d.Key]; ok {
			same, err := sameValue(*opt, v, d.Value)
			if err != nil {
				return zero, Choice{}, fmt.Errorf("%s %q: %w", r.Kind, spec, err)
			}
			if !same {
				return zero, Choice{}, fmt.Errorf("%s %q: %s=%s contradicts %s=%s set by a flag of the command", r.Kind, spec, d.Key, v, d.Key, d.Value)
			}
			continue
		}
		if err := set(o.Field(opt.field), *opt, d.Value); err != nil {
			return zero, Choice{}, fmt.Errorf("%s %q: %w", r.Kind, spec, err)
		}
	}
	for k, v := range given {
		opt := e.option(k)
		if opt == nil {
			return zero, Choice{}, fmt.Errorf("%s %q: %s takes no option %q: %s", r.Kind, spec, name, k, e.keys())
		}
		if err := set(o.Field(opt.field), *opt, v); err != nil {
			return zero, Choice{}, fmt.Errorf("%s %q: %w", r.Kind, spec, err)
		}
	}
	c := Choice{Name: name}
	for _, opt := range e.options {
		if v := Format(o.Field(opt.field)); v != opt.Default {
			c.Set = append(c.Set, Setting{opt.Key, v})
		}
	}
	t, err := e.build(o)
	if err != nil {
		return zero, Choice{}, fmt.Errorf("%s %q: %w", r.Kind, spec, err)
	}
	return t, c, nil
}

func (e *entry[T]) option(key string) *Option {
	for i := range e.options {
		if e.options[i].Key == key {
			return &e.options[i]
		}
	}
	return nil
}

// keys describes the options of e for a message.
func (e *entry[T]) keys() string {
	if len(e.options) == 0 {
		return "it has none"
	}
	var ks []string
	for _, o := range e.options {
		ks = append(ks, o.Key)
	}
	return "it has " + strings.Join(ks, ", ")
}

// set parses s as opt's value into f.
func set(f reflect.Value, opt Option, s string) error {
	if err := SetValue(f, s); err != nil {
		return fmt.Errorf("%s=%s: %w", opt.Key, s, err)
	}
	return nil
}

// SetValue parses s into f, a bool, int, float64 or string, as a spec
// writes them (what Format writes): "true" or "false", a whole or a finite
// decimal number without a sign of +, a string not empty. internal/option
// reads its declared defaults with it too.
func SetValue(f reflect.Value, s string) error {
	switch f.Kind() {
	case reflect.Bool:
		switch s {
		case "true":
			f.SetBool(true)
		case "false":
			f.SetBool(false)
		default:
			return errors.New("want true or false")
		}
	case reflect.Int:
		n, err := strconv.ParseInt(s, 10, 0)
		if err != nil || strings.HasPrefix(s, "+") {
			return errors.New("want a whole number")
		}
		f.SetInt(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || strings.ContainsAny(s, "_xXpP") || strings.HasPrefix(s, "+") {
			return errors.New("want a decimal number")
		}
		f.SetFloat(x)
	case reflect.String:
		if s == "" {
			return errors.New("want a value")
		}
		f.SetString(s)
	default:
		return fmt.Errorf("a %s is no option's type", f.Type())
	}
	return nil
}

// sameValue reports whether a and b are one value of opt.
func sameValue(opt Option, a, b string) (bool, error) {
	x := reflect.New(reflect.TypeOf(kindZero[opt.kind])).Elem()
	y := reflect.New(x.Type()).Elem()
	if err := set(x, opt, a); err != nil {
		return false, err
	}
	if err := set(y, opt, b); err != nil {
		return false, err
	}
	return x.Interface() == y.Interface(), nil
}

var kindZero = map[reflect.Kind]any{reflect.Bool: false, reflect.Int: 0, reflect.Float64: 0.0, reflect.String: ""}

// Format writes an option's value (a bool, int, float64 or string) as a
// spec does: what internal/option shows of its options too.
func Format(f reflect.Value) string {
	switch f.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(f.Bool())
	case reflect.Int:
		return strconv.FormatInt(f.Int(), 10)
	case reflect.Float64:
		return strconv.FormatFloat(f.Float(), 'g', -1, 64)
	}
	return f.String()
}

// Help describes every choice for a flag's help text, sorted by name:
// "bleu (order=4, tokenize=none, lowercase=false), chrf (…), …".
func (r *Registry[T]) Help() string {
	var parts []string
	for _, name := range r.Names() {
		e := r.find(name)
		var opts []string
		for _, o := range e.options {
			opts = append(opts, strings.TrimSuffix(o.Key+"="+o.Default, "="))
		}
		if len(opts) > 0 {
			name += " (" + strings.Join(opts, ", ") + ")"
		}
		parts = append(parts, name)
	}
	return strings.Join(parts, ", ")
}

// Table is the Markdown table of every choice's options, the docs' table
// (a test keeps the docs' copy equal to it): one row an option, in
// declared order, the choices sorted by name.
func (r *Registry[T]) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "| %s | option | default | what |\n|---|---|---|---|\n", r.Kind)
	for _, name := range r.Names() {
		e := r.find(name)
		if len(e.options) == 0 {
			fmt.Fprintf(&b, "| `%s` | | | %s; no option |\n", name, e.summary)
			continue
		}
		for i, o := range e.options {
			first := ""
			if i == 0 {
				first = "`" + name + "`"
			}
			def := "none"
			if o.Default != "" {
				def = "`" + o.Default + "`"
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", first, o.Key, def, o.Help)
		}
	}
	return b.String()
}
