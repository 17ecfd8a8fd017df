package tune

import (
	"context"
	"runtime"
)

// coreSlots bounds how many decodings of the built-in decoder run at once
// in a process: a token a decoding, as many tokens as cores.
//
// A shard or a decoding batch cannot know how many others its worker runs
// beside it: prism's loopback workers have run an epoch's two shards side
// by side, its PROCESS workers and the direct runner one after the other
// (RESULTS.md, "Scale"), and Dataflow may run several bundles at once in
// one worker process. Each therefore offers its sentences to all of the
// worker's cores, and the decoder shares them: with the shards one after
// another every core decodes, with them side by side no more decodings run
// than there are cores (nor are more search graphs held at once). Decoding
// is CPU-bound, so a decoding waiting for a token loses no time a core
// could have given it.
type coreSlots chan struct{}

// cores are the process' decoding tokens: GOMAXPROCS of them.
var cores = make(coreSlots, runtime.GOMAXPROCS(0))

// acquire takes a token, waiting for one; it fails, holding none, when ctx
// ends first.
func (c coreSlots) acquire(ctx context.Context) error {
	select {
	case c <- struct{}{}:
		return nil
	default:
	}
	select {
	case c <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release returns a token acquire took.
func (c coreSlots) release() { <-c }
