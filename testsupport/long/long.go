// Package long marks the tests of the long suite: end-to-end runs too slow
// for the README's plain `go test ./...` (at most 4 minutes a package on 2
// idle cores) that must keep being checked. They run when MTUNE_LONG=1 is
// set, as .ci/run sets it in a step beside the README's command.
package long

import (
	"os"
	"testing"
)

// Env names the environment variable that runs the long suite.
const Env = "MTUNE_LONG"

// Enabled reports whether the long suite runs.
func Enabled() bool { return os.Getenv(Env) == "1" }

// Test skips t, one of the long suite's tests, unless MTUNE_LONG=1; what
// says what it runs.
func Test(t testing.TB, what string) {
	t.Helper()
	if !Enabled() {
		t.Skipf("long suite (%s): set %s=1 to run it", what, Env)
	}
}
