package pipelines

import (
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// Replicas (Options.Replicas, --replicas) share each epoch's launch: the
// tuning and dev sets are read once, and each replica's steps — sharding
// with its seed, learning, mixing, 1-best decodings, files — sit in a
// scope of their own (replicaScope). The launch's Beam metrics cannot be
// told apart by replica (prism names a step by an id of its own, not by
// its scope), so they go to replica 0's Metrics only, summed over every
// replica. A decoder loads once per worker process
// (transforms.OpenDecoder), so the replicas share it.

// replicaScope returns the scope of replica r's steps in a run of
// replicas: s itself for a run of one (whose graph is that of a run without
// replicas), else s's sub-scope "replicaR".
func replicaScope(s beam.Scope, r, replicas int) beam.Scope {
	if replicas <= 1 {
		return s
	}
	return s.Scope(fmt.Sprintf("replica%d", r))
}
