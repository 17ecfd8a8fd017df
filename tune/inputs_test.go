package tune

import (
	"strings"
	"testing"
)

// TestSameRun: a run resumes with its starting weights and inputs at other
// paths (a registry moved with its runs) if their content is the same.
func TestSameRun(t *testing.T) {
	in := func(init, sha string) Manifest {
		m := Manifest{Init: init, Inputs: []InputFile{{Role: "src", Path: "/d/tune.src", SHA256: "aa"}}}
		if init != "" {
			m.Inputs = append(m.Inputs, InputFile{Role: "init", Path: init, SHA256: sha})
		}
		return m
	}
	tests := []struct {
		name      string
		prev, cur Manifest
		wantErr   string // "" for none
	}{
		{"same", in("/r1/runs/a/best/weights.json", "01"), in("/r1/runs/a/best/weights.json", "01"), ""},
		{"moved, same content", in("/r1/runs/a/best/weights.json", "01"), in("/r2/runs/a/best/weights.json", "01"), ""},
		{"moved, other content", in("/r1/runs/a/best/weights.json", "01"), in("/r2/runs/a/best/weights.json", "02"), "input init: /r1/runs/a/best/weights.json had sha256 01"},
		{"init, none now", in("/r1/w.json", "01"), in("", ""), `--init: "/r1/w.json" in the run, "" now`},
		{"none, init now", in("", ""), in("/r1/w.json", "01"), `--init: "" in the run, "/r1/w.json" now`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := SameRun("out", tc.prev, tc.cur)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one with %q", err, tc.wantErr)
			}
		})
	}
}
