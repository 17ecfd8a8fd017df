package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTuneReplicasRefused: a count of replicas below 1, and replicas in
// batch mode, are refused (exit 2) before the output folder is made.
func TestTuneReplicasRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"zero", []string{"--replicas", "0"}, "--replicas 0: must be positive"},
		{"negative", []string{"--replicas", "-2"}, "--replicas -2: must be positive"},
		{"not a number", []string{"--replicas", "two"}, "invalid value \"two\" for flag -replicas"},
		{"batch mode", []string{"--mode", "batch", "--replicas", "3"}, "--replicas applies to --mode ipm and stale, not batch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name)
			code, _, errOut := mtune(t, "", append([]string{"tune", "--out", out}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errOut, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a refused option still made the output folder")
			}
		})
	}
}
