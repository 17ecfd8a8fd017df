#!/usr/bin/env bash
# bench-batch-dev.sh: batch MERT with and without dev-set selection (Moses'
# --return-best-dev) on Moses' europarl-fr-en-8k model.
#
# Tunes on the tune split (lines 8001–9000) with `mtune tune --mode batch
# --algo ALGO` (100-best, seed 1, EPOCHS epochs), once choosing the best
# epoch by tune BLEU (the optimizer's BLEU on the pooled lists, as the
# RESULTS.md rows) and once with --dev-src/--dev-ref lines 9001–9200, each
# epoch's new weights decoded on them and the best kept by dev BLEU; then
# decodes the test lines 9201–10000 (held out from both) with each run's
# best weights. Prints a Markdown table.
set -euo pipefail

usage_environment() {
	cat <<'USAGE'
  ALGO    batch learner (default mert)
  EPOCHS  epochs (default 8, as RESULTS.md's batch rows)
  KEEP    a folder to keep the runs in (default: a temporary folder)
USAGE
}

source "$(dirname "$0")/lib/europarl.sh"
europarl_setup bench-batch-dev "${1:-}"
algo="${ALGO:-mert}"
epochs="${EPOCHS:-8}"

europarl_build bench-batch-dev
for side in fr en; do
	europarl_lines "$side.gz" 8001 9000 >"$work/tune.$side"
	europarl_lines "$side.gz" 9001 9200 >"$work/dev.$side"
	europarl_lines "$side.gz" 9201 10000 >"$work/test.$side"
done

# run NAME ARGS…: tunes into $work/NAME and prints "best-epoch wall-s
# test-BLEU".
run() {
	local name=$1 TIMEFORMAT='%R'
	shift
	local secs
	secs=$({ time "$bin" tune --config "$model/moses.ini" --src "$work/tune.fr" --ref "$work/tune.en" \
		--mode batch --algo "$algo" --epochs "$epochs" --nbest 100 --seed 1 --out "$work/$name" --overwrite "$@" \
		>"$work/$name.log" 2>&1; } 2>&1 | tail -n 1)
	"$bin" decode --config "$model/moses.ini" --weights "$work/$name/best/weights.json" "$work/test.fr" \
		>"$work/$name.test.out" 2>>"$work/$name.log"
	local best bleu
	best=$(sed -n 's/.*"epoch":\([0-9]*\).*/\1/p' "$work/$name/best/epoch.json")
	bleu=$("$bin" score -r "$work/test.en" "$work/$name.test.out" | sed -n 's/^BLEU = \([0-9.]*\),.*/\1/p')
	echo "$best $secs $bleu"
}

echo "bench-batch-dev: $algo, best epoch by tune BLEU…" >&2
plain=$(run plain)
echo "bench-batch-dev: $algo, best epoch by dev BLEU…" >&2
dev=$(run dev --dev-src "$work/dev.fr" --dev-ref "$work/dev.en")
devs=$(sed -n 's/.*"epoch":\([0-9]*\).*"dev_score":\([0-9.]*\).*/\1:\2/p' "$work/dev/metrics.jsonl" | awk -F: '{ printf "%s%d: %.2f", (NR > 1 ? ", " : ""), $1, $2 }')

echo "| batch $algo, $epochs epochs | best epoch | wall s | test BLEU (9201-10000) |"
echo "|---|---|---|---|"
read -r e s b <<<"$plain"
printf '| best by tune BLEU | %s | %.0f | %s |\n' "$e" "$s" "$b"
read -r e s b <<<"$dev"
printf '| best by dev BLEU (9001-9200) | %s | %.0f | %s |\n' "$e" "$s" "$b"
echo
echo "dev BLEU by epoch: $devs"
