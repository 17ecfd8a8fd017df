package build

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBuildDemoIn: the demo system is built once into a folder whose name
// has a space, at the paths DemoIn gives; a second call finds it there.
func TestBuildDemoIn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo model")
	config, files := DemoIn(dir)
	for i, want := range []bool{true, false} {
		built, err := BuildDemoIn(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		if built != want {
			t.Errorf("call %d: built %v, want %v", i+1, built, want)
		}
	}
	for _, p := range []string{config, files.TuneSrc, files.TuneRef, files.TestSrc, files.TestRef} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v, want a non-empty file", p, err)
		}
	}
}
