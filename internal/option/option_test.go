package option

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
)

type poolOptions struct {
	Workers int     `option:"workers" modes:"fast,slow" min:"1" default:"3" help:"how many workers"`
	Depth   int     `option:"depth" modes:"slow" min:"1" help:"how deep (default: no bound)"`
	Rate    float64 `option:"rate" min:"0.5" help:"how fast"`
	Loud    bool    `option:"loud" help:"say more"`
	Label   string  `option:"label" help:"a name"`
}

func TestRegisterAndCheck(t *testing.T) {
	for _, tc := range []struct {
		name, mode string
		args       []string
		want       string // error substring; "" means accepted
	}{
		{"defaults", "fast", nil, ""},
		{"given", "slow", []string{"--workers", "4", "--depth", "2", "--rate", "0.5", "--loud", "--label", "x"}, ""},
		{"not the mode's", "fast", []string{"--depth", "2"}, "--depth applies to --mode slow, not fast"},
		{"two modes named", "other", []string{"--workers", "2"}, "--workers applies to --mode fast and slow, not other"},
		{"zero typed in", "slow", []string{"--depth", "0"}, "--depth 0: must be positive (leave it out for the default)"},
		{"negative", "slow", []string{"--workers", "-2"}, "--workers -2: must be positive"},
		{"below a float bound", "fast", []string{"--rate", "0.25"}, "--rate 0.25: must be at least 0.5"},
		{"NaN", "fast", []string{"--rate", "NaN"}, "--rate NaN: must be at least 0.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o poolOptions
			Defaults(&o)
			fs := flag.NewFlagSet("", flag.ContinueOnError)
			Register(fs, &o)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			err := Check(&o, tc.mode, func(n string) bool { return set[n] })
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestDefaultsAndHelp(t *testing.T) {
	var o poolOptions
	Defaults(&o)
	if o.Workers != 3 || o.Depth != 0 {
		t.Fatalf("defaults: %+v", o)
	}
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	Register(fs, &o)
	if f := fs.Lookup("workers"); f == nil || f.DefValue != "3" || f.Usage != "how many workers" {
		t.Fatalf("flag workers: %+v", f)
	}
	if got, want := strings.Join(Names(o), " "), "workers depth rate loud label"; got != want {
		t.Errorf("Names = %q, want %q", got, want)
	}
	if got, want := Usage(o), "[--workers N] [--depth N] [--rate X] [--loud] [--label S]"; got != want {
		t.Errorf("Usage = %q, want %q", got, want)
	}
}

// TestCheckValues: without the flags given, a field is given when it holds
// neither zero nor its default.
func TestCheckValues(t *testing.T) {
	if err := Check(&poolOptions{Workers: 3}, "other", nil); err != nil {
		t.Errorf("the default refused: %v", err)
	}
	if err := Check(&poolOptions{Workers: 4}, "other", nil); err == nil || !strings.Contains(err.Error(), "--workers applies to --mode fast and slow, not other") {
		t.Errorf("got %v", err)
	}
	if err := Check(&poolOptions{Depth: -1}, "slow", nil); err == nil || !strings.Contains(err.Error(), "--depth -1: must be positive") {
		t.Errorf("got %v", err)
	}
}

// speed is an enumeration that marshals to text, as tune.MixWeights does.
type speed int

func (v speed) MarshalText() ([]byte, error) { return []byte([]string{"slow", "fast"}[v]), nil }

func (v *speed) UnmarshalText(b []byte) error {
	switch string(b) {
	case "slow":
		*v = 0
	case "fast":
		*v = 1
	default:
		return fmt.Errorf("want slow or fast, not %q", b)
	}
	return nil
}

// TestTextOption: an option of a text-marshalling type takes its flag by
// name, records its name, and reads it back.
func TestTextOption(t *testing.T) {
	var o struct {
		Speed speed `option:"speed" modes:"fast" help:"how fast"`
	}
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	Register(fs, &o)
	if err := fs.Parse([]string{"--speed", "fast"}); err != nil || o.Speed != 1 {
		t.Fatalf("parse: %v, %v", o.Speed, err)
	}
	if err := fs.Parse([]string{"--speed", "warp"}); err == nil {
		t.Fatal("--speed warp taken")
	}
	vals := Record(&o)
	if string(vals["Speed"]) != `"fast"` {
		t.Fatalf("Record = %s", vals["Speed"])
	}
	o.Speed = 0
	if err := Load(&o, vals); err != nil || o.Speed != 1 || Settings(&o)[0].Value != "fast" {
		t.Fatalf("Load: %v, %v, %v", o.Speed, err, Settings(&o))
	}
	if Usage(o) != "[--speed V]" {
		t.Errorf("Usage = %q", Usage(o))
	}
	o.Speed = 0
	if vals := Record(&o); len(vals) != 0 {
		t.Errorf("the zero value recorded: %v", vals)
	}
}

func TestValidateKeepsZero(t *testing.T) {
	// A zero field is the default, valid where a typed-in 0 is not.
	if err := Validate(&poolOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := Validate(&poolOptions{Depth: -1}); err == nil || !strings.Contains(err.Error(), "--depth -1") {
		t.Fatalf("got %v", err)
	}
}

func TestRecordLoad(t *testing.T) {
	o := poolOptions{Workers: 4, Depth: 2, Loud: true}
	ForMode(&o, "fast") // depth is slow mode's
	vals := Record(&o)
	b, err := json.Marshal(vals)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"Loud":true,"Workers":4}`; got != want {
		t.Fatalf("Record = %s, want %s (zeros and other modes' options left out)", got, want)
	}
	var back poolOptions
	back.Label = "stale"
	if err := Load(&back, vals); err != nil {
		t.Fatal(err)
	}
	if back != o {
		t.Fatalf("Load = %+v, want %+v", back, o)
	}
	got := Settings(&back)
	want := []Setting{{"workers", "4"}, {"depth", "0"}, {"rate", "0"}, {"loud", "true"}, {"label", ""}}
	if len(got) != len(want) {
		t.Fatalf("Settings = %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("setting %d = %v, want %v", i, got[i], want[i])
		}
	}
	if err := Load(&back, Values{"Workers": json.RawMessage(`"four"`)}); err == nil || !strings.Contains(err.Error(), "Workers (workers)") {
		t.Fatalf("a value of the wrong type: %v", err)
	}
}

func TestMalformedDeclarations(t *testing.T) {
	for name, v := range map[string]any{
		"untagged": struct{ N int }{},
		"upper case": struct {
			N int `option:"N"`
		}{},
		"unsupported": struct {
			N []int `option:"n"`
		}{},
		"bad bound": struct {
			N int `option:"n" min:"one"`
		}{},
		"bad default": struct {
			N int `option:"n" default:"x"`
		}{},
		"not a struct": 3,
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			Fields(v)
		})
	}
}

func TestDeclareTwice(t *testing.T) {
	type a struct {
		N int `option:"test-declare-n"`
	}
	type b struct {
		M int `option:"test-declare-n"`
	}
	Declare(a{})
	found := false
	for _, d := range Declared() {
		_, found = d.(*a)
		if found {
			break
		}
	}
	if !found {
		t.Fatal("a not declared")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a flag declared twice was taken")
		}
	}()
	Declare(b{})
}
