#!/usr/bin/env bash
# Reproduces the decoder's checks against Moses on its full-size model
# (../shared/data/moses-models/europarl-fr-en-8k, test lines 9001-9200):
#  (a) 1-best model score >= Moses' for each sentence, and identical strings;
#  (b) BLEU (Moses: 19.79);
#  (c) dense features of both n-best lists on the first 20 sentences (a test);
#  (d) load time and memory, sentences per second on 1 and 2 threads
#      (Moses: load 4.6-7.6 s / 693 MiB; 5.6 sent/s on 1 thread, 8.9 on 2);
#  (e) cube pruning ([search-algorithm] 1) with pop limits 1000 (Moses'
#      default) and 200: sentences per second on 1 and 2 threads, BLEU, the
#      mean model score difference from Moses' (= the stack search's) 1-best
#      and the number of identical 1-best (BenchmarkEuroparl8kDecodeCube,
#      then the command).
#
# usage: scripts/bench-decoder.sh [SHARED_DATA_DIR]
# BENCH_COUNT=5 repeats each Go benchmark 5 times (report the medians: the
# machine may be shared).
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(cd "${1:-../shared/data}" && pwd)
model=$data/moses-models/europarl-fr-en-8k
[ -f "$model/moses.ini" ] || { echo "bench-decoder: $model/moses.ini not found" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/mtune" ./cmd/mtune
gzip -dc "$data/europarl-fr-en/fr.gz" | sed -n 9001,9200p > "$work/test.fr"
gzip -dc "$data/europarl-fr-en/en.gz" | sed -n 9001,9200p > "$work/test.en"

echo "== (a), (b), (d), (e): the Go benchmarks (load; decode on 1 and 2 threads with the stack search and cube pruning, BLEU, score >= Moses, score-diff)"
MTUNE_SHARED_DATA=$data go test -run XXX -bench 'Europarl8k' -benchtime 1x -count "${BENCH_COUNT:-1}" -timeout 60m ./decoder/

echo "== (c): n-best features against Moses' 100-best lists of the first 20 sentences"
MTUNE_SHARED_DATA=$data go test -count=1 -run 'Europarl8k' ./decoder/

echo "== the command: wall time, peak memory (max RSS), BLEU and identity with Moses' 1-best"
for threads in 1 2; do
  MODEL_PATH=$model /usr/bin/time -f "threads=$threads: %e s wall, %M KB max RSS" \
    "$work/mtune" decode --threads "$threads" --config "$model/moses.ini" "$work/test.fr" > "$work/out.$threads" 2> "$work/log.$threads"
  grep -h 'msg=decode\|wall' "$work/log.$threads"
done
"$work/mtune" score -r "$work/test.en" "$work/out.1"
if diff -q <(sed 's/ *$//' "$work/out.1") <(sed 's/ *$//' "$model/expected-moses-test200.txt") >/dev/null; then
  echo "1-best identical to Moses' for all 200 sentences"
else
  echo "1-best differs from Moses' for $(diff <(sed 's/ *$//' "$work/out.1") <(sed 's/ *$//' "$model/expected-moses-test200.txt") | grep -c '^<') sentences"
fi

echo "== (e): the command with cube pruning"
for pop in 1000 200; do
  { cat "$model/moses.ini"; printf '\n[search-algorithm]\n1\n[cube-pruning-pop-limit]\n%d\n' "$pop"; } > "$work/cube$pop.ini"
  for threads in 1 2; do
    MODEL_PATH=$model /usr/bin/time -f "pop limit $pop, threads=$threads: %e s wall, %M KB max RSS" \
      "$work/mtune" decode --threads "$threads" --config "$work/cube$pop.ini" "$work/test.fr" > "$work/cube$pop.$threads" 2> "$work/cubelog.$threads"
    grep -h 'msg=decode\|wall' "$work/cubelog.$threads"
  done
  "$work/mtune" score -r "$work/test.en" "$work/cube$pop.1"
  echo "pop limit $pop: $(diff <(sed 's/ *$//' "$work/cube$pop.1") <(sed 's/ *$//' "$model/expected-moses-test200.txt") | grep -c '^<' || true) of 200 1-best differ from Moses'"
done
