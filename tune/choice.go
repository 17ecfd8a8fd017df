package tune

import (
	"fmt"
	"strings"
)

// Mode is how a run's epochs learn (--mode): each is one pipeline launch
// (DESIGN.md §1). The zero value is IPM.
type Mode int

const (
	// IPM is per-shard online learning with the decoder in the loop, the
	// shards mixed at the end of the epoch (iterative parameter mixing,
	// McDonald et al. 2010; Watanabe 2012, Alg. 3).
	IPM Mode = iota
	// Stale is IPM with Green et al.'s stale gradients inside each shard
	// (Alg. 2): a pool of decoders, one applier (StalePool).
	Stale
	// Batch decodes the whole tuning set, pools the n-best lists of every
	// epoch and runs a batch optimizer on the pool (Cherry & Foster 2012).
	Batch
)

var modeNames = []string{IPM: "ipm", Stale: "stale", Batch: "batch"}

// Modes returns the modes' names, the values --mode takes.
func Modes() []string { return modeNames }

// String returns the mode's --mode value.
func (m Mode) String() string {
	if m < 0 || int(m) >= len(modeNames) {
		return fmt.Sprintf("Mode(%d)", int(m))
	}
	return modeNames[m]
}

// Online reports whether the mode's shards learn online (IPM, Stale): the
// modes that mix shards and take an online learner.
func (m Mode) Online() bool { return m == IPM || m == Stale }

// MarshalText returns the mode's name.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText parses a mode's name (Modes); "" is IPM.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := parseChoice("mode", string(b), modeNames)
	if err == nil {
		*m = Mode(v)
	}
	return err
}

// MixWeights is how the average of an epoch's shards (and so line-search
// mixing's direction) weighs each shard (--mix-weights). The zero value
// is ByUpdates.
type MixWeights int

const (
	// ByUpdates weighs each shard by the updates it made this epoch
	// (uniformly if none made one).
	ByUpdates MixWeights = iota
	// Uniform weighs the shards alike.
	Uniform
)

var mixWeightsNames = []string{ByUpdates: "updates", Uniform: "uniform"}

// String returns the --mix-weights value.
func (w MixWeights) String() string {
	if w < 0 || int(w) >= len(mixWeightsNames) {
		return fmt.Sprintf("MixWeights(%d)", int(w))
	}
	return mixWeightsNames[w]
}

// MarshalText returns the name.
func (w MixWeights) MarshalText() ([]byte, error) { return []byte(w.String()), nil }

// UnmarshalText parses "updates" or "uniform"; "" is ByUpdates.
func (w *MixWeights) UnmarshalText(b []byte) error {
	v, err := parseChoice("mix weights", string(b), mixWeightsNames)
	if err == nil {
		*w = MixWeights(v)
	}
	return err
}

// parseChoice returns the position of s in names, 0 for "", or an error
// naming what and the names.
func parseChoice(what, s string, names []string) (int, error) {
	if s == "" {
		return 0, nil
	}
	for i, n := range names {
		if n == s {
			return i, nil
		}
	}
	return 0, fmt.Errorf("tune: unknown %s %q (%s)", what, s, strings.Join(names, ", "))
}
