#!/usr/bin/env bash
# Tunes Moses' europarl-fr-en-8k model toward chrF and toward BLEU with the
# same learner and seeds 1-3 (mtune tune --metric), the best epoch chosen
# on a dev set by the metric tuned for, and scores each tuned system's test
# translations under both metrics (and TER): the classic check that each
# metric is best under its own tuning, on a decoder in the loop.
#
# Tune on lines 8001-9000 of europarl-fr-en, dev 9001-9200, test
# 9201-10000. Prints a Markdown table, a row a run, then the means by
# metric tuned for.
#
# usage: scripts/bench-metrics-8k.sh [SHARED_DATA_DIR]
# environment: ALGO (default mert; with MODE batch a batch learner, with
#   MODE ipm an online one), MODE (default batch), EPOCHS (default 4),
#   SEEDS (default "1 2 3"), METRICS (default "bleu chrf"), KEEP (a folder
#   to keep the runs in; a run already there is not run again).
set -euo pipefail
# shellcheck source=scripts/lib/europarl.sh
source "$(dirname "$0")/lib/europarl.sh"
usage_environment() {
	cat <<'ENV'
  ALGO     the learner (default mert)
  MODE     mtune tune --mode (default batch)
  EPOCHS   epochs a run (default 4)
  SEEDS    the seeds (default "1 2 3")
  METRICS  the metrics tuned toward (default "bleu chrf")
  KEEP     a folder to keep the runs in (default: a temporary one)
ENV
}
europarl_setup bench-metrics-8k "${1:-}"
europarl_build bench-metrics-8k
algo=${ALGO:-mert}
mode=${MODE:-batch}
epochs=${EPOCHS:-4}
read -r -a seeds <<< "${SEEDS:-1 2 3}"
read -r -a tuned <<< "${METRICS:-bleu chrf}"
mkdir -p "$work/data"
europarl_lines fr.gz 8001 9000 > "$work/data/tune.fr"
europarl_lines en.gz 8001 9000 > "$work/data/tune.en"
europarl_lines fr.gz 9001 9200 > "$work/data/dev.fr"
europarl_lines en.gz 9001 9200 > "$work/data/dev.en"
europarl_lines fr.gz 9201 10000 > "$work/data/test.fr"
europarl_lines en.gz 9201 10000 > "$work/data/test.en"

# score OUT METRIC: the test figure of the translations OUT.
score() {
	"$bin" score --metric "$2" -r "$work/data/test.en" "$1" | sed -E 's/^[^=]*= ([-0-9.]+).*/\1/'
}

# decode WEIGHTS OUT: the test split decoded (WEIGHTS "" for the model's).
decode() {
	local args=(--config "$model/moses.ini")
	[ -n "$1" ] && args+=(--weights "$1")
	"$bin" decode "${args[@]}" "$work/data/test.fr" > "$2" 2>> "$work/decode.log" < /dev/null
}

[ -f "$work/untuned.out" ] || decode "" "$work/untuned.out"
echo "| tuned toward | seed | best epoch | dev (tuned metric) | test BLEU | test chrF2 | test TER | wall s |"
echo "|---|---|---|---|---|---|---|---|"
echo "| — (the model's weights) | — | — | — | $(score "$work/untuned.out" bleu) | $(score "$work/untuned.out" chrf) | $(score "$work/untuned.out" ter) | — |"
declare -A sum_bleu sum_chrf sum_ter
for m in "${tuned[@]}"; do
	sum_bleu[$m]=0 sum_chrf[$m]=0 sum_ter[$m]=0
	for seed in "${seeds[@]}"; do
		out=$work/$m-$seed
		start=$(date +%s)
		if [ ! -f "$out/best/weights.json" ]; then
			echo "bench-metrics-8k: $algo toward $m, seed $seed" >&2
			"$bin" tune --config "$model/moses.ini" --src "$work/data/tune.fr" --ref "$work/data/tune.en" \
				--dev-src "$work/data/dev.fr" --dev-ref "$work/data/dev.en" --mode "$mode" --algo "$algo" \
				--metric "$m" --epochs "$epochs" --seed "$seed" --nbest 100 --out "$out" --overwrite \
				2> "$work/$m-$seed.log" > /dev/null < /dev/null
		fi
		secs=$(($(date +%s) - start))
		[ -f "$out/test.out" ] || decode "$out/best/weights.json" "$out/test.out"
		ep=$(sed -n 's/.*"epoch":\([0-9]*\).*/\1/p' "$out/best/epoch.json")
		dev=$(sed -n 's/.*"dev_score":\([0-9.]*\).*/\1/p' "$out/best/epoch.json")
		b=$(score "$out/test.out" bleu) c=$(score "$out/test.out" chrf) t=$(score "$out/test.out" ter)
		sum_bleu[$m]=$(echo "${sum_bleu[$m]} + $b" | bc -l)
		sum_chrf[$m]=$(echo "${sum_chrf[$m]} + $c" | bc -l)
		sum_ter[$m]=$(echo "${sum_ter[$m]} + $t" | bc -l)
		printf '| %s | %s | %s | %.2f | %s | %s | %s | %s |\n' "$m" "$seed" "$ep" "$dev" "$b" "$c" "$t" "$secs"
	done
done
n=${#seeds[@]}
for m in "${tuned[@]}"; do
	printf '| **%s, mean of %d** | | | | %.2f | %.2f | %.2f | |\n' "$m" "$n" \
		"$(echo "${sum_bleu[$m]} / $n" | bc -l)" "$(echo "${sum_chrf[$m]} / $n" | bc -l)" "$(echo "${sum_ter[$m]} / $n" | bc -l)"
done
