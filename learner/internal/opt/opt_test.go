package opt

import (
	"math"
	"testing"
)

func TestOrOff(t *testing.T) {
	if got := OrOff(0, 20); got != 20 {
		t.Errorf("OrOff(0, 20) = %d, want the default", got)
	}
	if got := OrOff(-3, 20); got != 0 {
		t.Errorf("OrOff(-3, 20) = %d, want 0", got)
	}
	if got := OrOff(7, 20); got != 7 {
		t.Errorf("OrOff(7, 20) = %d, want 7", got)
	}
	if got := OrOff(0.0, 0.1); got != 0.1 {
		t.Errorf("OrOff(0, 0.1) = %v, want the default", got)
	}
	if got := OrOff(math.Inf(-1), 0.1); got != 0 {
		t.Errorf("OrOff(-Inf, 0.1) = %v, want 0", got)
	}
	if got := OrOff(math.NaN(), 0.1); !math.IsNaN(got) {
		t.Errorf("OrOff(NaN, 0.1) = %v, want NaN, left for validation", got)
	}
}
