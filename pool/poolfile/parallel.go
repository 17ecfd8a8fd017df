package poolfile

import (
	"context"
	"sync"
)

// orderedMap runs work on every item that next yields, on workers
// goroutines, and hands the results to sink in the order next yielded the
// items. At most 2·workers items are in flight, so memory stays bounded.
// next returns ok=false at the end. The first error stops everything and is
// returned.
func orderedMap[J, R any](ctx context.Context, workers int,
	next func() (J, bool, error), work func(J) (R, error), sink func(R) error) error {
	if workers < 1 {
		workers = 1
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	type result struct {
		r   R
		err error
	}
	type job struct {
		j   J
		out chan result
	}
	jobs := make(chan job)
	queue := make(chan chan result, 2*workers)

	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for jb := range jobs {
				r, err := work(jb.j)
				jb.out <- result{r, err}
			}
		})
	}

	// The producer: reads items and queues them in order.
	prodErr := make(chan error, 1)
	go func() {
		defer close(queue)
		defer close(jobs)
		for {
			j, ok, err := next()
			if err != nil {
				prodErr <- err
				return
			}
			if !ok {
				prodErr <- nil
				return
			}
			out := make(chan result, 1)
			select {
			case queue <- out:
			case <-ctx.Done():
				prodErr <- nil
				return
			}
			select {
			case jobs <- job{j, out}:
			case <-ctx.Done():
				prodErr <- nil
				return
			}
		}
	}()

	var firstErr error
	for out := range queue {
		if firstErr != nil {
			continue // drain
		}
		var res result
		select {
		case res = <-out:
		case <-ctx.Done():
			firstErr = context.Cause(ctx)
			continue
		}
		if res.err == nil {
			res.err = sink(res.r)
		}
		if res.err != nil {
			firstErr = res.err
			cancel(res.err)
		}
	}
	wg.Wait()
	if err := <-prodErr; err != nil && firstErr == nil {
		firstErr = err
	}
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return firstErr
}
