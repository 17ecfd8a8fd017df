package spec

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

type shapeOptions struct {
	Sides  int     `spec:"sides" help:"how many sides"`
	Scale  float64 `spec:"scale" help:"its scale"`
	Filled bool    `spec:"filled" help:"filled or not"`
	Color  string  `spec:"color" help:"its colour"`
}

type shape struct {
	name string
	o    shapeOptions
}

func testRegistry() *Registry[shape] {
	r := &Registry[shape]{Kind: "shape"}
	mk := func(name string) func(shapeOptions) (shape, error) {
		return func(o shapeOptions) (shape, error) {
			if o.Sides < 3 {
				return shape{}, errors.New("fewer than 3 sides")
			}
			return shape{name, o}, nil
		}
	}
	Register(r, "poly", "a polygon", shapeOptions{Sides: 3, Scale: 1, Color: "red"}, mk("poly"))
	Register(r, "dot", "a dot", struct{}{}, func(struct{}) (shape, error) { return shape{name: "dot"}, nil })
	return r
}

func TestParse(t *testing.T) {
	r := testRegistry()
	for _, tc := range []struct {
		spec     string
		defaults []Setting
		want     shapeOptions
		canon    string
		err      string
	}{
		{"poly", nil, shapeOptions{3, 1, false, "red"}, "poly", ""},
		{" POLY:Sides=5 ", nil, shapeOptions{5, 1, false, "red"}, "poly:sides=5", ""},
		{"poly:filled=true:sides=4", nil, shapeOptions{4, 1, true, "red"}, "poly:sides=4:filled=true", ""},
		{"poly:sides=3:scale=1.0", nil, shapeOptions{3, 1, false, "red"}, "poly", ""},
		{"poly:scale=0.25:color=Blue", nil, shapeOptions{3, 0.25, false, "Blue"}, "poly:scale=0.25:color=Blue", ""},
		{"poly", []Setting{{"sides", "6"}, {"unknown", "x"}}, shapeOptions{6, 1, false, "red"}, "poly:sides=6", ""},
		{"poly:sides=6", []Setting{{"sides", "6"}}, shapeOptions{6, 1, false, "red"}, "poly:sides=6", ""},
		{"dot", []Setting{{"sides", "6"}}, shapeOptions{}, "dot", ""},
		{"poly:sides=5", []Setting{{"sides", "6"}}, shapeOptions{}, "", "sides=5 contradicts sides=6 set by a flag"},
		{"hex", nil, shapeOptions{}, "", `unknown shape "hex": want one of dot, poly`},
		{"poly:sides", nil, shapeOptions{}, "", `"sides" is not key=value`},
		{"poly:=4", nil, shapeOptions{}, "", `"=4" is not key=value`},
		{"poly:sides=4:sides=5", nil, shapeOptions{}, "", "sides given twice"},
		{"poly:corners=4", nil, shapeOptions{}, "", `poly takes no option "corners": it has sides, scale, filled, color`},
		{"dot:size=1", nil, shapeOptions{}, "", `dot takes no option "size": it has none`},
		{"poly:sides=4.5", nil, shapeOptions{}, "", "sides=4.5: want a whole number"},
		{"poly:sides=+4", nil, shapeOptions{}, "", "want a whole number"},
		{"poly:filled=yes", nil, shapeOptions{}, "", "filled=yes: want true or false"},
		{"poly:filled=1", nil, shapeOptions{}, "", "want true or false"},
		{"poly:scale=nan", nil, shapeOptions{}, "", "want a decimal number"},
		{"poly:scale=inf", nil, shapeOptions{}, "", "want a decimal number"},
		{"poly:scale=0x1p1", nil, shapeOptions{}, "", "want a decimal number"},
		{"poly:scale=1_0", nil, shapeOptions{}, "", "want a decimal number"},
		{"poly:color=", nil, shapeOptions{}, "", "color=: want a value"},
		{"poly:sides=2", nil, shapeOptions{}, "", "fewer than 3 sides"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			got, c, err := r.Parse(tc.spec, tc.defaults...)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				if !strings.Contains(err.Error(), fmt.Sprintf("shape %q", tc.spec)) {
					t.Errorf("error %v does not name the spec", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.o != tc.want || c.String() != tc.canon {
				t.Fatalf("got %+v %q, want %+v %q", got.o, c, tc.want, tc.canon)
			}
			// The canonical spec parses to the same value and itself.
			again, c2, err := r.Parse(c.String())
			if err != nil || again != got || c2.String() != c.String() {
				t.Errorf("canonical %q parses to %+v %q, %v", c, again, c2, err)
			}
		})
	}
}

func TestHelpAndTable(t *testing.T) {
	r := testRegistry()
	if got, want := r.Help(), "dot, poly (sides=3, scale=1, filled=false, color=red)"; got != want {
		t.Errorf("Help = %q, want %q", got, want)
	}
	want := "| shape | option | default | what |\n|---|---|---|---|\n" +
		"| `dot` | | | a dot; no option |\n" +
		"| `poly` | `sides` | `3` | how many sides |\n" +
		"|  | `scale` | `1` | its scale |\n" +
		"|  | `filled` | `false` | filled or not |\n" +
		"|  | `color` | `red` | its colour |\n"
	if got := r.Table(); got != want {
		t.Errorf("Table =\n%s\nwant\n%s", got, want)
	}
}

func TestRegisterRefuses(t *testing.T) {
	mk := func(shapeOptions) (shape, error) { return shape{}, nil }
	for name, f := range map[string]func(r *Registry[shape]){
		"twice":      func(r *Registry[shape]) { Register(r, "poly", "", shapeOptions{}, mk) },
		"upper case": func(r *Registry[shape]) { Register(r, "Poly2", "", shapeOptions{}, mk) },
		"colon":      func(r *Registry[shape]) { Register(r, "a:b", "", shapeOptions{}, mk) },
		"not struct": func(r *Registry[shape]) { Register(r, "n", "", 3, func(int) (shape, error) { return shape{}, nil }) },
		"untagged": func(r *Registry[shape]) {
			Register(r, "u", "", struct{ X int }{}, func(struct{ X int }) (shape, error) { return shape{}, nil })
		},
		"unsupported": func(r *Registry[shape]) {
			type o struct {
				X []int `spec:"x"`
			}
			Register(r, "s", "", o{}, func(o) (shape, error) { return shape{}, nil })
		},
		"repeated key": func(r *Registry[shape]) {
			type o struct {
				A int `spec:"a"`
				B int `spec:"a"`
			}
			Register(r, "k", "", o{}, func(o) (shape, error) { return shape{}, nil })
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f(testRegistry())
		})
	}
}

// FuzzParse: any spec parses or is refused without a panic, and a parsed
// spec's canonical form parses to the same value and form.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"poly", "poly:sides=5:filled=true", "dot", "poly:scale=1e-3:color=x", "poly:sides=4:sides=5", ":", "poly::"} {
		f.Add(s)
	}
	r := testRegistry()
	f.Fuzz(func(t *testing.T, s string) {
		v, c, err := r.Parse(s)
		if err != nil {
			return
		}
		v2, c2, err := r.Parse(c.String())
		if err != nil || v2 != v || c2.String() != c.String() {
			t.Fatalf("%q → %q → %+v %q %v", s, c, v2, c2, err)
		}
	})
}
