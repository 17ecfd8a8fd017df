#!/usr/bin/env bash
# Reproduces the decoder's checks against Moses on its full-size model
# (../shared/data/moses-models/europarl-fr-en-8k, test lines 9001-9200):
#  (a) 1-best model score >= Moses' for each sentence, and identical strings;
#  (b) BLEU (Moses: 19.79);
#  (c) dense features of both n-best lists on the first 20 sentences (a test);
#  (d) load time and memory, sentences per second on 1 and 2 threads
#      (Moses: load 4.6-7.6 s / 693 MiB; 5.6 sent/s on 1 thread, 8.9 on 2).
#
# usage: scripts/bench-decoder.sh [SHARED_DATA_DIR]
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

echo "== (a), (b), (d): the Go benchmarks (load; decode on 1 and 2 threads, BLEU, score >= Moses)"
MTUNE_SHARED_DATA=$data go test -run XXX -bench 'Europarl8k' -benchtime 1x ./decoder/

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
