package main

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestMosesDecodeArgs(t *testing.T) {
	ncpu := strconv.Itoa(runtime.NumCPU())
	cases := []struct {
		name string
		in   []string
		want []string
		err  string // the usage error's text holds it; "" means no error
	}{
		{"distinct", []string{"-f", "m.ini", "-n-best-list", "nb.txt", "100", "distinct", "-threads", "2"},
			[]string{"-f", "m.ini", "--nbest-out", "nb.txt", "--nbest", "100", "-threads", "2"}, ""},
		{"every derivation", []string{"-n-best-list", "nb.txt", "7", "-weight-overwrite", "LM0= 1"},
			[]string{"--nbest-out", "nb.txt", "--nbest", "7", "--nbest-all-derivations", "-weight-overwrite", "LM0= 1"}, ""},
		{"two dashes, last", []string{"in.txt", "--n-best-list", "x", "1"},
			[]string{"in.txt", "--nbest-out", "x", "--nbest", "1", "--nbest-all-derivations"}, ""},
		{"a file named distinct", []string{"-n-best-list", "distinct", "3", "distinct"},
			[]string{"--nbest-out", "distinct", "--nbest", "3"}, ""},
		{"threads all", []string{"-threads", "all", "--threads", "3"}, []string{"--threads", ncpu, "--threads", "3"}, ""},
		{"mtune's own", []string{"--config", "m.ini", "--nbest", "5", "--nbest-out", "f", "in"},
			[]string{"--config", "m.ini", "--nbest", "5", "--nbest-out", "f", "in"}, ""},
		{"after --", []string{"-f", "m", "--", "-n-best-list", "x"}, []string{"-f", "m", "--", "-n-best-list", "x"}, ""},
		{"no size", []string{"-n-best-list", "nb.txt"}, nil, "-n-best-list FILE N [distinct]: too few values"},
		{"nothing", []string{"-f", "m", "-n-best-list"}, nil, "too few values"},
		{"bad size", []string{"-n-best-list", "nb.txt", "distinct"}, nil, "-n-best-list nb.txt distinct: N must be a positive count"},
		{"zero size", []string{"--n-best-list", "nb.txt", "0"}, nil, "N must be a positive count"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mosesDecodeArgs(tc.in)
			if tc.err != "" {
				var ue usageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("mosesDecodeArgs(%q) = %q, %v; want a usage error saying %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("mosesDecodeArgs(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

// FuzzMosesDecodeArgs checks that the rewriting never panics, leaves a
// command line without Moses' multi-value options as it is, and that
// whatever it returns holds no -n-best-list before "--".
func FuzzMosesDecodeArgs(f *testing.F) {
	f.Add("-f\x00m.ini\x00-n-best-list\x00nb\x00100\x00distinct")
	f.Add("-threads\x00all\x00-n-best-list\x00a\x001")
	f.Add("--\x00-n-best-list")
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, "\x00")
		out, err := mosesDecodeArgs(args)
		moses := false
		for i, a := range args {
			if a == "--" {
				break
			}
			if a == "-n-best-list" || a == "--n-best-list" || (a == "-threads" || a == "--threads") && i+1 < len(args) && args[i+1] == "all" {
				moses = true
			}
		}
		if !moses {
			if err != nil || !slices.Equal(out, args) {
				t.Fatalf("mosesDecodeArgs(%q) = %q, %v; want it unchanged", args, out, err)
			}
			return
		}
		if err != nil {
			return
		}
		for _, a := range out {
			if a == "--" {
				break
			}
			if a == "-n-best-list" || a == "--n-best-list" {
				t.Fatalf("mosesDecodeArgs(%q) = %q: %s left", args, out, a)
			}
		}
	})
}

// TestDecodeMosesCommandLine decodes the demo's first tuning sentences
// with Moses' command line and with mtune's own: the same 1-best and the
// same n-best file; -show-weights; the Moses options' errors.
func TestDecodeMosesCommandLine(t *testing.T) {
	tmp := t.TempDir()
	model := filepath.Join(tmp, "demo")
	if code, _, errOut := mtune(t, "", "build", "--demo", "--out", model); code != 0 {
		t.Fatalf("build --demo: exit %d: %s", code, errOut)
	}
	ini := filepath.Join(model, "moses.ini")
	data, err := os.ReadFile(filepath.Join(model, "corpus", "tune.src"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	input := strings.Join(lines[:12], "")
	in := filepath.Join(tmp, "in.txt")
	if err := os.WriteFile(in, []byte(input), 0o666); err != nil {
		t.Fatal(err)
	}
	// The same weights as a Moses file (one thread: the sparse features are
	// written in the order decoding meets them) (with a sparse one, for -weight-file)
	// and as -weight-overwrite plus -weight-file.
	const dense = "LM0= 0.25 WordPenalty0= -0.5 TranslationModel0= 0.1 0.3 0.2 0.125"
	w := filepath.Join(tmp, "w")
	sparse := filepath.Join(tmp, "sparse")
	if err := os.WriteFile(w, []byte(strings.ReplaceAll(dense, " T", "\nT")+"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sparse, []byte("pp_ka~ve 0.5\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	ownNB, mosesNB := filepath.Join(tmp, "own.nbest"), filepath.Join(tmp, "moses.nbest")
	code, own, errOut := mtune(t, "", "decode", "--config", ini, "--weights", w, "--sparse-weights", sparse, "--nbest", "5", "--nbest-out", ownNB, "--threads", "1", in)
	if code != 0 {
		t.Fatalf("decode: exit %d: %s", code, errOut)
	}
	code, moses, errOut := mtune(t, input, "decode", "-f", ini, "-weight-overwrite", dense, "-weight-file", sparse, "-n-best-list", mosesNB, "5", "distinct", "-threads", "1")
	if code != 0 {
		t.Fatalf("decode with Moses' command line: exit %d: %s", code, errOut)
	}
	if own != moses || strings.Count(own, "\n") != 12 {
		t.Errorf("1-best differs:\n%s\nwith Moses' command line:\n%s", own, moses)
	}
	a, b := readFile(t, ownNB), readFile(t, mosesNB)
	if al, bl := strings.Split(a, "\n"), strings.Split(b, "\n"); !slices.Equal(al, bl) || !strings.Contains(a, "pp_ka~ve") {
		t.Errorf("n-best lists differ (or lack the sparse feature pp_ka~ve): %d and %d lines", len(al), len(bl))
		for i := range min(len(al), len(bl)) {
			if al[i] != bl[i] {
				t.Errorf("line %d:\n%s\nwith Moses' command line:\n%s", i+1, al[i], bl[i])
				break
			}
		}
	}
	// Without "distinct", every derivation: a target may come twice.
	allNB := filepath.Join(tmp, "all.nbest")
	if code, _, errOut := mtune(t, "", "-input-file", in, "decode", "-config", ini, "-n-best-list", allNB, "20"); code != 2 {
		t.Fatalf("a flag before the command: exit %d, want 2: %s", code, errOut)
	}
	if code, _, errOut := mtune(t, "", "decode", "-input-file", in, "-config", ini, "-n-best-list", allNB, "20", "-threads", "all"); code != 0 {
		t.Fatalf("decode -n-best-list F 20: exit %d: %s", code, errOut)
	}
	if !hasRepeatedTarget(readFile(t, allNB)) {
		t.Error("-n-best-list FILE N without distinct gave distinct targets only")
	}
	// -show-weights, as mert-moses.pl reads it.
	code, shown, errOut := mtune(t, "", "decode", "-f", ini, "-inputtype", "0", "-show-weights", "-weight-overwrite", "LM0= 0.75")
	want := "UnknownWordPenalty0= 1\nWordPenalty0= -1\nPhrasePenalty0= 0.2\nTranslationModel0= 0.2 0.2 0.2 0.2\n" +
		"LexicalReordering0= 0.3 0.3 0.3 0.3 0.3 0.3\nDistortion0= 0.3\nLM0= 0.75\n"
	if code != 0 || shown != want {
		t.Errorf("-show-weights: exit %d, %q, want %q (stderr %s)", code, shown, want, errOut)
	}
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"-f", ini, "-n-best-list", mosesNB}, 2, "-n-best-list FILE N [distinct]: too few values"},
		{[]string{"-f", ini, "-n-best-list", mosesNB, "many"}, 2, "N must be a positive count"},
		{[]string{"-f", ini, "-inputtype", "1"}, 2, "-inputtype 1: mtune reads plain text only (0)"},
		{[]string{"-f", ini, "-input-file", in, in}, 2, "one input at most"},
		{[]string{"-f", ini, "-weight-overwrite", "LM0= 1 2"}, 1, "LM0"},
		{[]string{"-f", ini, "-weight-overwrite", "pp_x 1"}, 2, `value "pp_x" before any label`},
		{[]string{"-f", ini, "-weight-overwrite", "LM0= 1 TranslationModel0= 1"}, 1, "has 1 weights for TranslationModel0, which has 4 features"},
		{[]string{"-f", ini, "-weight-overwrite", "LM0= x"}, 2, "-weight-overwrite \"LM0= x\""},
	} {
		code, _, errOut := mtune(t, input, append([]string{"decode"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.err) {
			t.Errorf("decode %q: exit %d, stderr %q; want exit %d saying %q", tc.args, code, errOut, tc.code, tc.err)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// hasRepeatedTarget reports whether an n-best list has a sentence with
// the same target twice.
func hasRepeatedTarget(list string) bool {
	seen := map[string]bool{}
	for _, line := range strings.Split(list, "\n") {
		f := strings.SplitN(line, " ||| ", 3)
		if len(f) < 3 {
			continue
		}
		k := f[0] + " ||| " + f[1]
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	return false
}
