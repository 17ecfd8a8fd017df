// Package shared locates the project's reference data, ../shared/data beside
// the repository, for tests and benchmarks.
//
// The data is never committed to the repository. A user's clone may not have
// it: tests that need it are then skipped with a message saying so. On CI
// (CI=true) the data must be there and a missing folder fails the test.
package shared

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// EnvDir names an environment variable that overrides where the data is.
const EnvDir = "MTUNE_SHARED_DATA"

// Dir returns the data folder, or "" if it cannot be found.
func Dir() string {
	if d := os.Getenv(EnvDir); d != "" {
		return d
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	// file is <repo>/testsupport/shared/shared.go; the data is <repo>/../shared/data.
	d := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d
	}
	return ""
}

// LiveHeapMiB runs a garbage collection and returns the heap in use
// after it, in MiB: what the live objects hold.
func LiveHeapMiB() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20)
}

// Path returns the path of rel inside the data folder. When the folder is
// missing it skips tb, or fails it when CI=true.
func Path(tb testing.TB, rel ...string) string {
	tb.Helper()
	d := Dir()
	if d == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("../shared/data is missing (set %s to its path); on CI the tests that read it must run", EnvDir)
		}
		tb.Skipf("skipping: needs ../shared/data beside the repository (or %s); it is not here", EnvDir)
	}
	p := filepath.Join(append([]string{d}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("shared data: %v", err)
	}
	return p
}
