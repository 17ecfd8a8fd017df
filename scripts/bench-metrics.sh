#!/usr/bin/env bash
# Tunes on Moses' europarl100 n-best lists toward each metric with every
# learner (mtune tune-nbest --metric; the online ones for tune-nbest's
# default 10 epochs, the best kept), from init.weights, and scores every
# tuned system's 1-bests under every metric: a Markdown table of
# tuned-for × scored-by (the classic result: each metric is best under its
# own tuning).
#
# usage: scripts/bench-metrics.sh [SHARED_DATA_DIR] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-../shared/data}
seed=${2:-1}
src=$data/nbest/europarl100
[ -f "$src/nbest.gz" ] || { echo "bench-metrics: $src/nbest.gz not found" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/mtune" ./cmd/mtune
metrics=(bleu chrf ter)
# score W METRIC: the figure of the lists re-ranked by the weights W.
score() {
  "$work/mtune" rerank --metric "$2" --weights "$1" --nbest "$src/nbest.gz" -r "$src/reference" 2>&1 >/dev/null |
    tail -n 1 | sed -E 's/^[^=]*= ([-0-9.]+).*/\1/'
}
echo "| learner | tuned for | BLEU | chrF2 | TER |"
echo "|---|---|---|---|---|"
row() {
  local w=$1; shift
  local cells=()
  for m in "${metrics[@]}"; do cells+=("$(score "$w" "$m")"); done
  echo "| $* | ${cells[0]} | ${cells[1]} | ${cells[2]} |"
}
row "$src/init.weights" "— | init.weights"
for algo in mert pro kbmira mr svm adagrad sgd mira oro; do
  for m in "${metrics[@]}"; do
    "$work/mtune" tune-nbest --algo "$algo" --metric "$m" --seed "$seed" --init "$src/init.weights" \
      --nbest "$src/nbest.gz" -r "$src/reference" --out "$work/$algo-$m" > /dev/null 2>&1
    row "$work/$algo-$m/best/weights" "$algo | $m"
  done
done
