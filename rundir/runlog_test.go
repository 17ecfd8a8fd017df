package rundir

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunLog: during a run the runner's error reports go to the run's log
// only, warnings to stderr too; the log is appended to that of an earlier
// session of the run.
func TestRunLog(t *testing.T) {
	ctx := context.Background()
	var stderr bytes.Buffer
	l := NewRunLog(&stderr)
	log := slog.New(l)
	log.Info("Job[job-001] state: RUNNING")
	log.Error("[SDK] process bundle failed", "plan", strings.Repeat("x", 5000))
	log.Error("Prism received bundle error from worker response", "bundle", "inst001")
	log.With("shard", 1).Warn("sparse weights without a template")
	l.Detail("the runner's report")
	if s := stderr.String(); strings.Contains(s, "bundle") || strings.Contains(s, "RUNNING") || !strings.Contains(s, "shard=1") {
		t.Errorf("stderr holds %q; want the warning only", s)
	}
	path := filepath.Join(t.TempDir(), "run.log")
	if err := os.WriteFile(path, []byte("the first session\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := l.Save(ctx, path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"the first session", "RUNNING", "[SDK] process bundle failed", "Prism received", "sparse weights", "the runner's report"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("run.log lacks %q", want)
		}
	}
	if !strings.HasPrefix(string(b), "the first session") {
		t.Error("the earlier session's log is not kept first")
	}
}
