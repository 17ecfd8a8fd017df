package external

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestModelPaths(t *testing.T) {
	env := map[string]string{"MODELS": "/m", "EMPTY": ""}
	getenv := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	tests := []struct {
		name, ini string
		want      []ModelPath
		err       string // in the error; "" for none
	}{
		{"moses 2 [feature]", "# comment\n[feature]\nUnknownWordPenalty\nPhraseDictionaryMemory name=TM0 num-features=4 path=pt.gz input-factor=0\n" +
			"  KENLM factor=0 path=${MODELS}/lm.bin order=5\nKENLM path=lm2.bin\nSomeFeature file=/x/f.txt\n[weight]\nTM0= 1 1 1 1\n",
			[]ModelPath{{"TM0", 4, "pt.gz"}, {"KENLM0", 5, "/m/lm.bin"}, {"KENLM1", 6, "lm2.bin"}, {"SomeFeature0", 7, "/x/f.txt"}}, ""},
		{"older sections", "[ttable-file]\n0 0 0 5 /m/phrase-table.gz\n0 0 0 5 pt2\n[lmodel-file]\n8 0 3 ${MODELS}/lm.arpa\n" +
			"[distortion-file]\n0-0 wbe-msd-bidirectional-fe-allff 6 /m/reordering.gz\n[weight-file]\n/m/sparse\n[ttable-limit]\n20\n",
			[]ModelPath{{"ttable-file 1", 2, "/m/phrase-table.gz"}, {"ttable-file 2", 3, "pt2"}, {"lmodel-file 1", 5, "/m/lm.arpa"},
				{"distortion-file 1", 7, "/m/reordering.gz"}, {"weight-file 1", 9, "/m/sparse"}}, ""},
		{"nothing", "[weight]\nLM0= 1\n", nil, ""},
		{"empty variable", "[feature]\nKENLM name=LM path=${EMPTY}lm\n", []ModelPath{{"LM", 2, "lm"}}, ""},
		{"empty name", "[feature]\nKENLM name= path=lm\n", []ModelPath{{"KENLM0", 2, "lm"}}, ""},
		{"empty path", "[feature]\nKENLM name=LM0 path=${EMPTY}\n", nil, "x.ini:2: LM0: empty path"},
		{"a path outside [feature] is not a model's", "[input-factors]\n0\n[feature]\n", nil, ""},
		{"unset variable", "[feature]\nWordPenalty\nKENLM name=LM0 path=${NOPE}/lm\n", nil, "x.ini:3: LM0: inconsistent configuration: environment variable NOPE is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ModelPaths([]byte(tt.ini), "x.ini", getenv)
			if tt.err != "" {
				if !errors.Is(err, ErrModelFile) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want ErrModelFile saying %q", err, tt.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestModelPathFiles(t *testing.T) {
	dir := t.TempDir()
	iniDir := filepath.Join(dir, "model")
	write := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o666); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lm := write("model/lm.bin")
	b, a := write("model/probing/b"), write("model/probing/a/x")
	gz, minphr := write("model/pt.gz"), write("model/pt.minphr")
	write("model/pt-other.gz")
	link := filepath.Join(dir, "model", "linked.bin")
	if err := os.Symlink(lm, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	write("lm.bin") // relative paths: the working directory first, as Moses
	tests := []struct {
		path string
		want []string
		err  string
	}{
		{lm, []string{lm}, ""},
		{filepath.Join(iniDir, "probing"), []string{a, b}, ""},
		{filepath.Join(iniDir, "pt"), []string{gz, minphr}, ""},
		{"pt", []string{gz, minphr}, ""},
		{"lm.bin", []string{"lm.bin"}, ""},
		{"linked.bin", []string{link}, ""},
		{"missing", nil, "no file or folder missing or " + filepath.Join(iniDir, "missing") + ", nor missing.*"},
		{filepath.Join(dir, "no", "such"), nil, "no file or folder " + filepath.Join(dir, "no", "such") + ", nor " + filepath.Join(dir, "no", "such") + ".*"},
	}
	// An ini in the working directory: one place to look.
	if _, err := (ModelPath{Feature: "F0", Line: 3, Path: "missing"}).Files("."); err == nil || strings.Contains(err.Error(), "missing or ") {
		t.Errorf("ini beside the working directory: %v, want an error naming one place", err)
	}
	for _, tt := range tests {
		got, err := ModelPath{Feature: "F0", Line: 3, Path: tt.path}.Files(iniDir)
		if tt.err != "" {
			if !errors.Is(err, ErrModelFile) || !strings.Contains(err.Error(), "line 3: F0: "+tt.err) {
				t.Errorf("%s: error %v, want ErrModelFile saying %q", tt.path, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
}

func TestIniVariables(t *testing.T) {
	got := IniVariables([]byte("[feature]\nKENLM path=${A}/lm ${B_1}\nX path=${A}/x $C ${1D}\n"))
	if want := []string{"A", "B_1"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func FuzzModelPaths(f *testing.F) {
	f.Add("[feature]\nKENLM name=LM0 path=${X}/lm\n[ttable-file]\n0 0 0 5 pt\n")
	f.Add("[weight-file]\n\n[feature]\n=\n[\n]\n")
	f.Fuzz(func(t *testing.T, ini string) {
		paths, err := ModelPaths([]byte(ini), "f.ini", func(string) (string, bool) { return "v", true })
		if err != nil {
			return
		}
		for _, p := range paths {
			if p.Line < 1 || p.Line > strings.Count(ini, "\n")+1 || p.Feature == "" {
				t.Fatalf("bad path %+v", p)
			}
		}
	})
}
