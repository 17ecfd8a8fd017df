package mix_test

import (
	"fmt"

	"github.com/mtune/mtune/feature"
	"github.com/mtune/mtune/learner/mix"
)

func ExampleAverage() {
	shards := []mix.Shard{
		{Weights: feature.Weights{1, 2}, Updates: 10},
		{Weights: feature.Weights{3, 0}, Updates: 30},
	}
	fmt.Println(mix.Average(shards, false))
	fmt.Println(mix.Average(shards, true))
	// Output:
	// [2 1]
	// [2.5 0.5]
}
