#!/usr/bin/env bash
# Runs `mtune tune-nbest` with every learner on Moses' europarl100 n-best
# lists from init.weights and prints a Markdown table: 1-best BLEU of the
# re-ranked lists, wall seconds and non-zero weights.
# Moses on the same data: init 13.68, mert 14.39, kbmira (fixed) 14.28,
# pro 13.35.
#
# usage: scripts/bench-learners.sh [SHARED_DATA_DIR] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-../shared/data}
seed=${2:-1}
src=$data/nbest/europarl100
[ -f "$src/nbest.gz" ] || { echo "bench-learners: $src/nbest.gz not found" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/mtune" ./cmd/mtune

echo "| learner | settings | BLEU | seconds | non-zero weights |"
echo "|---|---|---|---|---|"
run() {
  local name=$1; shift
  local start end line nz
  start=$(date +%s.%N)
  line=$("$work/mtune" tune-nbest --seed "$seed" --init "$src/init.weights" --nbest "$src/nbest.gz" \
    -r "$src/reference" --out "$work/out" --overwrite "$@" 2>"$work/log" | tail -n 1)
  end=$(date +%s.%N)
  nz=$(grep -o '[0-9]* non-zero weights' "$work/log" | tail -n 1 | cut -d' ' -f1)
  printf '| %s | %s | %s | %.2f | %s |\n' "$name" "$*" "$(echo "$line" | cut -d, -f1 | cut -d' ' -f3)" \
    "$(echo "$end - $start" | bc)" "$nz"
}
run mert --algo mert
run kbmira --algo kbmira
run pro --algo pro
run svm --algo svm
run mr --algo mr
run adagrad --algo adagrad --epochs 10
run "adagrad + noising" --algo adagrad --noise 0.1 --epochs 10
run sgd --algo sgd --epochs 10
run mira --algo mira --epochs 10
run oro --algo oro --epochs 5
