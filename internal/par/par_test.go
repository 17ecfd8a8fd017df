package par

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

func TestDo(t *testing.T) {
	for _, tt := range []struct{ n, workers int }{{0, 4}, {1, 4}, {10, 1}, {100, 3}, {7, 0}, {5, 50}} {
		t.Run(fmt.Sprintf("n=%d/workers=%d", tt.n, tt.workers), func(t *testing.T) {
			counts := make([]atomic.Int32, tt.n)
			Do(tt.n, tt.workers, func(i int) { counts[i].Add(1) })
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("fn(%d) called %d times", i, c)
				}
			}
		})
	}
	// One worker: in order, on the caller's goroutine.
	var order []int
	Do(5, 1, func(i int) { order = append(order, i) })
	if fmt.Sprint(order) != "[0 1 2 3 4]" {
		t.Errorf("one worker: order %v", order)
	}
}

func TestDoErr(t *testing.T) {
	bad := errors.New("bad")
	// The lowest failing index wins, whatever the schedule.
	err := DoErr(context.Background(), 50, 1, func(i int) error {
		if i == 7 || i == 30 {
			return fmt.Errorf("item %d: %w", i, bad)
		}
		return nil
	})
	if err == nil || err.Error() != "item 7: bad" {
		t.Errorf("error %v, want item 7's", err)
	}
	if err := DoErr(context.Background(), 20, 4, func(int) error { return nil }); err != nil {
		t.Errorf("no failure: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls atomic.Int32
	if err := DoErr(ctx, 10, 2, func(int) error { calls.Add(1); return nil }); !errors.Is(err, context.Canceled) || calls.Load() != 0 {
		t.Errorf("cancelled: error %v after %d calls", err, calls.Load())
	}
}
