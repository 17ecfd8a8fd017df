// Package option declares a run's options once, as tagged fields of the
// struct that uses them (DESIGN §13). From that one declaration come the
// command's flag (Register), the refusal of a flag the mode does not use
// and of a value out of bounds (Check, Validate), the value zero stands for
// (Defaults), and what the run's manifest records and --resume compares
// (Record, Settings; rundir.ManifestFlags holds the record). A new option
// is one field and its use.
//
// A field is declared by its tags:
//
//	option:"max-staleness"   the flag's name (required)
//	help:"…"                 the flag's help text
//	modes:"ipm,stale"        the modes it applies to, comma-separated (none: all)
//	min:"1"                  the least value a flag may give (0 in the struct
//	                         still means the default)
//	default:"2"              the value a zero field stands for
//	manifest:"-"             not recorded: the results do not depend on it
//
// The field's type is bool, int, float64 or string, or a type that
// marshals to text and back (encoding.TextMarshaler, its pointer a
// TextUnmarshaler: an enumeration such as tune.MixWeights, whose zero
// value is its default). The manifest records
// it under the field's Go name, left out at its zero value, so a manifest
// of an earlier mtune that held the same field by hand reads the same.
// The structs whose options the manifest records are declared once, at
// init, with Declare.
package option

import (
	"encoding"
	"encoding/json"
	"flag"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mtune/mtune/internal/spec"
)

// Field is one declared option of a struct.
type Field struct {
	Flag    string   // the flag's name ("max-staleness")
	Key     string   // the manifest's key, the Go field's name ("MaxStaleness")
	Help    string   // the flag's help text
	Modes   []string // the modes it applies to; nil: all
	Default string   // the value a zero field stands for ("" : zero itself)
	// Recorded says whether the manifest records the option (not for one
	// the results do not depend on, tagged manifest:"-").
	Recorded bool
	text     bool // the field's type marshals to text
	min      *float64
	index    int
}

// Applies reports whether the option applies to mode.
func (f Field) Applies(mode string) bool { return f.Modes == nil || slices.Contains(f.Modes, mode) }

// fieldCache holds each declared struct type's fields, parsed once.
var fieldCache sync.Map // reflect.Type → []Field

// Fields returns the declared options of the struct type of v (a struct or
// a pointer to one), in field order. It panics on a malformed declaration
// (an untagged field, an unsupported type, a bad bound): declarations are
// the program's, and such a mistake must stop it at once.
func Fields(v any) []Field {
	t := structType(v)
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]Field)
	}
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("option: %s is not a struct", t))
	}
	var out []Field
	for i := range t.NumField() {
		sf := t.Field(i)
		name, ok := sf.Tag.Lookup("option")
		if !ok || name == "" || name != strings.ToLower(name) {
			panic(fmt.Sprintf("option: %s.%s: want an option:\"flag-name\" tag in lower case", t, sf.Name))
		}
		text := sf.Type.Implements(textMarshaler) && reflect.PointerTo(sf.Type).Implements(textUnmarshaler)
		switch sf.Type.Kind() {
		case reflect.Bool, reflect.Int, reflect.Float64, reflect.String:
		default:
			if !text {
				panic(fmt.Sprintf("option: %s.%s is a %s (want bool, int, float64, string or a text marshaler)", t, sf.Name, sf.Type))
			}
		}
		f := Field{Flag: name, Key: sf.Name, Help: sf.Tag.Get("help"), Default: sf.Tag.Get("default"), Recorded: sf.Tag.Get("manifest") != "-", text: text, index: i}
		if m := sf.Tag.Get("modes"); m != "" {
			f.Modes = strings.Split(m, ",")
		}
		if s, ok := sf.Tag.Lookup("min"); ok {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				panic(fmt.Sprintf("option: %s.%s: min %q: %v", t, sf.Name, s, err))
			}
			f.min = &x
		}
		if f.Default != "" {
			if err := parse(reflect.New(sf.Type).Elem(), f.Default); err != nil {
				panic(fmt.Sprintf("option: %s.%s: default: %v", t, sf.Name, err))
			}
		}
		out = append(out, f)
	}
	fieldCache.Store(t, out)
	return out
}

// structType returns the type of v, or of what v points to.
func structType(v any) reflect.Type {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// elem returns the struct ptr points to; it panics unless ptr is a
// non-nil pointer to a struct.
func elem(ptr any) reflect.Value {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("option: want a pointer to a struct, not %T", ptr))
	}
	return v.Elem()
}

// Register registers a flag on fs for each option of the struct ptr points
// to, its default the field's value (after Defaults, the declared default).
func Register(fs *flag.FlagSet, ptr any) {
	s := elem(ptr)
	for _, f := range Fields(ptr) {
		if f.text {
			fv := s.Field(f.index)
			fs.TextVar(fv.Addr().Interface().(encoding.TextUnmarshaler), f.Flag, fv.Interface().(encoding.TextMarshaler), f.Help)
			continue
		}
		switch p := s.Field(f.index).Addr().Interface().(type) {
		case *bool:
			fs.BoolVar(p, f.Flag, *p, f.Help)
		case *int:
			fs.IntVar(p, f.Flag, *p, f.Help)
		case *float64:
			fs.Float64Var(p, f.Flag, *p, f.Help)
		case *string:
			fs.StringVar(p, f.Flag, *p, f.Help)
		}
	}
}

// Names returns the flags' names of the options of v's struct type.
func Names(v any) []string {
	var out []string
	for _, f := range Fields(v) {
		out = append(out, f.Flag)
	}
	return out
}

// Defaults sets each zero field of the struct ptr points to that declares
// a default to that default.
func Defaults(ptr any) {
	s := elem(ptr)
	for _, f := range Fields(ptr) {
		if fv := s.Field(f.index); f.Default != "" && fv.IsZero() {
			_ = parse(fv, f.Default) // checked by Fields
		}
	}
}

// ForMode zeroes each field of the struct ptr points to whose option does
// not apply to mode: what such a run records and uses.
func ForMode(ptr any, mode string) {
	s := elem(ptr)
	for _, f := range Fields(ptr) {
		if !f.Applies(mode) {
			fv := s.Field(f.index)
			fv.SetZero()
		}
	}
}

// Check refuses, for a run of mode, each option given (given reports
// whether a flag was typed in; nil: whether the field holds a value other
// than zero and its declared default, as a library's caller sets it) that
// does not apply to the mode, and each value out of its bounds
// (Validate); its messages name the flag, as the command's other
// refusals do.
func Check(ptr any, mode string, given func(flag string) bool) error {
	s := elem(ptr)
	for _, f := range Fields(ptr) {
		fv := s.Field(f.index)
		set := !fv.IsZero() && (f.Default == "" || format(fv) != f.Default)
		if given != nil {
			set = given(f.Flag)
		}
		if !set {
			continue
		}
		if !f.Applies(mode) {
			return fmt.Errorf("--%s applies to --mode %s, not %s", f.Flag, strings.Join(f.Modes, " and "), mode)
		}
		if err := f.inBounds(fv, true); err != nil {
			return err
		}
	}
	return Validate(ptr)
}

// Validate refuses a value out of its option's bounds; a zero field is
// the default and always valid.
func Validate(ptr any) error {
	s := elem(ptr)
	for _, f := range Fields(ptr) {
		if err := f.inBounds(s.Field(f.index), false); err != nil {
			return err
		}
	}
	return nil
}

// inBounds checks fv against f's least value; zero passes unless typed
// in (a flag given as 0 is refused where 0 only means "the default").
func (f Field) inBounds(fv reflect.Value, typed bool) error {
	if f.min == nil || f.text || (fv.IsZero() && !typed) {
		return nil
	}
	var x float64
	switch fv.Kind() {
	case reflect.Int:
		x = float64(fv.Int())
	case reflect.Float64:
		x = fv.Float()
	default:
		return nil
	}
	if x >= *f.min && x == x {
		return nil
	}
	if *f.min == 1 && fv.Kind() == reflect.Int {
		return fmt.Errorf("--%s %s: must be positive (leave it out for the default)", f.Flag, format(fv))
	}
	return fmt.Errorf("--%s %s: must be at least %s (leave it out for the default)", f.Flag, format(fv), strconv.FormatFloat(*f.min, 'g', -1, 64))
}

// Setting is one option as a run's manifest and report show it: the flag's
// name and its value.
type Setting struct {
	Flag, Value string
}

// Settings returns the recorded options of the struct ptr points to as
// settings, in field order; a zero field shows the default it stands for.
func Settings(ptr any) []Setting {
	s := elem(ptr)
	var out []Setting
	for _, f := range Recorded(ptr) {
		v := format(s.Field(f.index))
		if f.Default != "" && s.Field(f.index).IsZero() {
			v = f.Default
		}
		out = append(out, Setting{f.Flag, v})
	}
	return out
}

// Values are the options of a run as its manifest records them: each
// non-zero field under its Go name, as JSON.
type Values map[string]json.RawMessage

// Recorded returns the options of v's struct type the manifest records.
func Recorded(v any) []Field {
	var out []Field
	for _, f := range Fields(v) {
		if f.Recorded {
			out = append(out, f)
		}
	}
	return out
}

// Record returns the recorded options of the structs ptrs point to that
// are not zero, as the manifest records them (each under its field's
// name; a zero is left out).
func Record(ptrs ...any) Values {
	out := Values{}
	for _, ptr := range ptrs {
		s := elem(ptr)
		for _, f := range Recorded(ptr) {
			if fv := s.Field(f.index); !fv.IsZero() {
				b, err := json.Marshal(fv.Interface())
				if err != nil {
					panic(err) // bool, int, finite float64 and string always marshal
				}
				out[f.Key] = b
			}
		}
	}
	return out
}

// Load sets the recorded fields of the struct ptr points to from vals (a
// field vals does not hold is zero).
func Load(ptr any, vals Values) error {
	s := elem(ptr)
	for _, f := range Recorded(ptr) {
		fv := s.Field(f.index)
		fv.SetZero()
		raw, ok := vals[f.Key]
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, fv.Addr().Interface()); err != nil {
			return fmt.Errorf("option %s (%s): %w", f.Key, f.Flag, err)
		}
	}
	return nil
}

var (
	declaredMu sync.Mutex
	declared   []reflect.Type
)

// Declare adds the struct type of v to the options a run's manifest
// records (Declared), in the order of the calls; it is called at init by
// the package that declares the struct. It panics on a malformed
// declaration or on a flag or key another declared struct has.
func Declare(v any) {
	fields, t := Fields(v), structType(v)
	declaredMu.Lock()
	defer declaredMu.Unlock()
	for _, d := range declared {
		for _, g := range Fields(reflect.New(d).Interface()) {
			for _, f := range fields {
				if f.Flag == g.Flag || f.Key == g.Key {
					panic(fmt.Sprintf("option: %s's %s and %s's %s are declared twice", t, f.Flag, d, g.Flag))
				}
			}
		}
	}
	declared = append(declared, t)
}

// Declared returns a new zero value (a pointer) of every declared struct,
// in declaration order.
func Declared() []any {
	declaredMu.Lock()
	defer declaredMu.Unlock()
	var out []any
	for _, t := range declared {
		out = append(out, reflect.New(t).Interface())
	}
	return out
}

var (
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// parse sets fv from s: by its UnmarshalText, else as a spec writes a
// value (spec.SetValue).
func parse(fv reflect.Value, s string) error {
	if u, ok := fv.Addr().Interface().(encoding.TextUnmarshaler); ok {
		return u.UnmarshalText([]byte(s))
	}
	return spec.SetValue(fv, s)
}

// format writes a field's value as the manifest's settings show it.
func format(fv reflect.Value) string {
	if m, ok := fv.Interface().(encoding.TextMarshaler); ok {
		b, err := m.MarshalText()
		if err != nil {
			return fmt.Sprintf("%v (%v)", fv.Interface(), err)
		}
		return string(b)
	}
	return spec.Format(fv)
}

// Usage returns the options of v's struct type as a usage line shows
// them: "[--threads N] [--max-staleness N]" (a bool takes no value).
func Usage(v any) string {
	t := structType(v)
	var parts []string
	for _, f := range Fields(v) {
		meta := map[reflect.Kind]string{reflect.Int: " N", reflect.Float64: " X", reflect.String: " S"}[t.Field(f.index).Type.Kind()]
		if f.text {
			meta = " V"
		}
		parts = append(parts, "[--"+f.Flag+meta+"]")
	}
	return strings.Join(parts, " ")
}
