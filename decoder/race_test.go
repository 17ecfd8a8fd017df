//go:build race

package decoder

// raceEnabled says the tests run under the race detector, which makes
// the decoder about ten times slower.
const raceEnabled = true
