package registry

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestDefaultRunID(t *testing.T) {
	now := time.Date(2026, 11, 24, 2, 30, 0, 0, time.UTC)
	for env, want := range map[string]string{
		"":                    "20261124T023000Z",
		"mtune-retrain-x7k2p": "mtune-retrain-x7k2p",
		"not/a plain name":    "20261124T023000Z",
	} {
		got := DefaultRunID(func(k string) string {
			if k == "CLOUD_RUN_EXECUTION" {
				return env
			}
			return ""
		}, now)
		if got != want {
			t.Errorf("CLOUD_RUN_EXECUTION=%q: %q, want %q", env, got, want)
		}
	}
}

// TestOpenRegistry: a local registry is named by its absolute path (the
// weights paths it resolves for a night must hold from cron's or
// systemd's folder); a gs:// one as given.
func TestOpenRegistry(t *testing.T) {
	t.Chdir(t.TempDir())
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"nightly":           filepath.Join(wd, "nightly"),
		"/srv/mtune/reg":    "/srv/mtune/reg",
		"gs://bucket/night": "gs://bucket/night",
	} {
		r, err := Open(in)
		if err != nil || r.Root != want {
			t.Errorf("Open(%q) = %q, %v; want %q", in, r.Root, err, want)
		}
	}
}
