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

# decode LABEL CONFIG OUT THREADS: the command translates the test lines
# with CONFIG on THREADS threads into OUT (its log in OUT.log), timed; it
# prints the log's summary and the wall time and max RSS under LABEL.
decode() {
  MODEL_PATH=$model /usr/bin/time -f "$1: %e s wall, %M KB max RSS" \
    "$work/mtune" decode --threads "$4" --config "$2" "$work/test.fr" > "$3" 2> "$3.log"
  grep -h 'msg=decode\|wall' "$3.log"
}

# differing OUT: the number of 1-best lines of OUT that differ from Moses'
# (trailing spaces aside).
differing() {
  diff <(sed 's/ *$//' "$1") <(sed 's/ *$//' "$model/expected-moses-test200.txt") | grep -c '^<' || true
}

echo "== (a), (b), (d), (e): the Go benchmarks (load; decode on 1 and 2 threads with the stack search and cube pruning, BLEU, score >= Moses, score-diff)"
MTUNE_SHARED_DATA=$data go test -run XXX -bench 'Europarl8k' -benchtime 1x -count "${BENCH_COUNT:-1}" -timeout 60m ./decoder/

echo "== (c): n-best features against Moses' 100-best lists of the first 20 sentences"
MTUNE_SHARED_DATA=$data go test -count=1 -run 'Europarl8k' ./decoder/

echo "== the command: wall time, peak memory (max RSS), BLEU and identity with Moses' 1-best"
for threads in 1 2; do
  decode "threads=$threads" "$model/moses.ini" "$work/out.$threads" "$threads"
done
"$work/mtune" score -r "$work/test.en" "$work/out.1"
if diff -q <(sed 's/ *$//' "$work/out.1") <(sed 's/ *$//' "$model/expected-moses-test200.txt") >/dev/null; then
  echo "1-best identical to Moses' for all 200 sentences"
else
  echo "1-best differs from Moses' for $(differing "$work/out.1") sentences"
fi

echo "== (e): the command with cube pruning"
for pop in 1000 200; do
  { cat "$model/moses.ini"; printf '\n[search-algorithm]\n1\n[cube-pruning-pop-limit]\n%d\n' "$pop"; } > "$work/cube$pop.ini"
  for threads in 1 2; do
    decode "pop limit $pop, threads=$threads" "$work/cube$pop.ini" "$work/cube$pop.$threads" "$threads"
  done
  "$work/mtune" score -r "$work/test.en" "$work/cube$pop.1"
  echo "pop limit $pop: $(differing "$work/cube$pop.1") of 200 1-best differ from Moses'"
done
