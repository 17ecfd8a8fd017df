// Package opt holds what the options of mtune's learners share.
package opt

// OrOff reads an option whose zero value means the default def and whose
// negative values mean none: it returns def for zero, zero for a negative
// v, and v otherwise (NaN included). A regulariser's strength, MERT's
// restarts and PRO's minimum BLEU difference are such options.
func OrOff[T int | float64](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}
