package transforms

import (
	"runtime"
	"testing"
)

// TestDecodeThreads: by default a shard offers its mini-batch to all of
// the worker's cores, however many shards there are: a runner that runs
// the shards one after another (prism's PROCESS workers) kept half of a
// 2-core worker idle when each shard took the cores over the shards.
func TestDecodeThreads(t *testing.T) {
	for _, tt := range []struct{ threads, want int }{
		{0, max(1, runtime.NumCPU())},
		{1, 1},
		{5, 5},
	} {
		if got := decodeThreads(tt.threads); got != tt.want {
			t.Errorf("decodeThreads(%d) = %d, want %d", tt.threads, got, tt.want)
		}
	}
}
