#!/usr/bin/env bash
# Per-epoch wall time of the tuning pipeline on the europarl-fr-en tune split
# (1,000 sentences, Moses' europarl-fr-en-8k model, AdaGrad, 100-best,
# averaging) with 1 and 2 shards on prism and on the direct runner, and the
# pipeline's overhead over calling the decoder and the learner directly
# ("plain": LearnShard per shard, the shards concurrently, mix.Average, then
# the 1-best decoding of the tune split that gives an epoch's tune BLEU).
# Target: overhead under 15% on prism.
#
# Runs BenchmarkEpochEuroparl8k (pipelines/bench_test.go) once per case and
# prints a Markdown table. Run it on an otherwise idle machine.
#
# usage: scripts/bench-pipeline.sh [SHARED_DATA_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(cd "${1:-../shared/data}" && pwd)
[ -f "$data/moses-models/europarl-fr-en-8k/moses.ini" ] || { echo "bench-pipeline: $data/moses-models/europarl-fr-en-8k not found" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
MTUNE_SHARED_DATA=$data go test -run XXX -bench 'EpochEuroparl8k' -benchtime 1x -timeout 60m ./pipelines/ 2>/dev/null |
  grep '^BenchmarkEpochEuroparl8k' > "$out"
cat "$out" >&2
# Lines look like: BenchmarkEpochEuroparl8k/prism/shards=1-2  1  44169268410 ns/op  24.06 BLEU  44.17 s/epoch
awk '
  {
    split($1, p, "/"); runner = p[2]; shards = p[3]; sub(/-[0-9]+$/, "", shards); sub(/shards=/, "", shards)
    for (i = 2; i < NF; i++) { if ($(i+1) == "s/epoch") s = $i; if ($(i+1) == "BLEU") b = $i }
    sec[runner, shards] = s; bleu[runner, shards] = b
  }
  END {
    print "| runner | shards | s/epoch | tune BLEU | overhead over plain |"
    print "|---|---|---|---|---|"
    n = split("plain prism direct", rs, " ")
    for (sh = 1; sh <= 2; sh++)
      for (i = 1; i <= n; i++) {
        r = rs[i]
        if (!((r, sh) in sec)) continue
        ov = (r == "plain") ? "—" : sprintf("%+.1f%%", 100 * (sec[r, sh] / sec["plain", sh] - 1))
        printf "| %s | %d | %.1f | %s | %s |\n", r, sh, sec[r, sh], bleu[r, sh], ov
      }
  }' "$out"
