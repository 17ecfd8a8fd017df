package tune

import (
	"reflect"
	"testing"
	"time"
)

func TestWorkAdd(t *testing.T) {
	w := Work{Sentences: 2, Hypotheses: 20, Updates: 1, Pairs: 30, Decode: time.Second, Learn: time.Millisecond, Staleness: StaleStats{Histogram: []int{1}}}
	w.Add(Work{Sentences: 3, Hypotheses: 30, Updates: 2, Pairs: 45, Decode: 2 * time.Second, Learn: time.Millisecond, Staleness: StaleStats{Histogram: []int{1, 1}, Recomputes: 1}})
	want := Work{Sentences: 5, Hypotheses: 50, Updates: 3, Pairs: 75, Decode: 3 * time.Second, Learn: 2 * time.Millisecond, Staleness: StaleStats{Histogram: []int{2, 1}, Recomputes: 1}}
	if !reflect.DeepEqual(w, want) {
		t.Errorf("sum %+v, want %+v", w, want)
	}
}
