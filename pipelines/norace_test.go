//go:build !race

package pipelines_test

// raceEnabled says the tests run under the race detector.
const raceEnabled = false
