package tune

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCoreSlots(t *testing.T) {
	if got, want := cap(cores), runtime.GOMAXPROCS(0); got != want {
		t.Fatalf("the process has %d decoding tokens, want GOMAXPROCS = %d", got, want)
	}
	c := make(coreSlots, 3)
	var running, most atomic.Int32
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if err := c.acquire(context.Background()); err != nil {
				t.Error(err)
				return
			}
			n := running.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(time.Millisecond)
			running.Add(-1)
			c.release()
		})
	}
	wg.Wait()
	if m := most.Load(); m > 3 {
		t.Errorf("%d holders at once of 3 tokens", m)
	}
	if len(c) != 0 {
		t.Errorf("%d tokens still held", len(c))
	}
	// Every token taken: acquire waits, and gives up when its context ends.
	for range 3 {
		if err := c.acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := c.acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("acquire with every token taken: %v, want the context's deadline", err)
	}
	c.release()
	if err := c.acquire(context.Background()); err != nil {
		t.Errorf("acquire after a release: %v", err)
	}
}

// TestMosesWaitsForACore: the built-in decoder does not decode while the
// process' cores are all taken by other decodings.
func TestMosesWaitsForACore(t *testing.T) {
	for range cap(cores) {
		if err := cores.acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for range cap(cores) {
			cores.release()
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// No model: a decoding that did not wait for a core would fail on it
	// (or panic) rather than on the context.
	_, err := (&Moses{}).NBest(ctx, 7, "a b", nil, 10)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("NBest with every core taken and its context cancelled: %v, want context.Canceled", err)
	}
}
