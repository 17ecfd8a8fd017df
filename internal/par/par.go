// Package par runs the iterations of a loop on a bounded number of
// goroutines: the one worker-pool loop the decoder, the learners and the
// transforms share.
package par

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Do calls fn(0), …, fn(n-1) on up to workers goroutines (workers ≤ 0
// means GOMAXPROCS), each taking the next index as it finishes one, and
// returns when every call has returned. With one worker the calls run in
// order on the calling goroutine.
func Do(n, workers int, fn func(i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// DoErr is Do for calls that can fail: once ctx ends, the calls not yet
// started are skipped. It returns the error of the lowest i that failed
// (ctx's error for a skipped call), or nil.
func DoErr(ctx context.Context, n, workers int, fn func(i int) error) error {
	errs := make([]error, n)
	var failed atomic.Bool
	Do(n, workers, func(i int) {
		if failed.Load() {
			return
		}
		if err := ctx.Err(); err != nil {
			errs[i] = err
		} else {
			errs[i] = fn(i)
		}
		if errs[i] != nil {
			failed.Store(true)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
