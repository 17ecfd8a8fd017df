// Package enum names the values of mtune's enumerated types, the String
// methods of io/weights.Format, io/nbest.Style, decoder.Algorithm,
// metric.SmoothMethod, learner/loss.NoiseType and decoder/model's
// reordering types.
package enum

import "strconv"

// Name returns names[v], or typ(v), such as "Format(7)", when v has no
// name: it is negative, past the end of names, or names[v] is empty.
func Name[T ~int](v T, names []string, typ string) string {
	if v >= 0 && int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return typ + "(" + strconv.Itoa(int(v)) + ")"
}
