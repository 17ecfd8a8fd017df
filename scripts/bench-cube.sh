#!/usr/bin/env bash
# bench-cube.sh: Moses' cube pruning against the stack search, in the
# decoder and in the tuning loop, on Moses' europarl-fr-en-8k model.
#
# For each search ([search-algorithm] 0, the stack search, and 1, cube
# pruning with Moses' default pop limit 1000, each a copy of the model's
# moses.ini with the setting added) it
#   - decodes the test split (lines 9001–10000) with the untuned weights on
#     1 and on 2 threads: sentences per second, and test BLEU;
#   - tunes on the tune split (lines 8001–9000) as RESULTS.md's best row
#     does (sparse AdaGrad, --sparse all, ipm, line-search mixing, 2
#     shards, 100-best, seed 1, EPOCHS epochs), with that search in the loop;
#   - decodes the test split with the tuned weights (best/weights.json,
#     2 threads): test BLEU;
# and prints a Markdown table with the test BLEU gained per minute of
# tuning. Run it on an otherwise idle machine: about 15 minutes on 2 cores.
set -euo pipefail

usage_environment() {
	cat <<'USAGE'
  EPOCHS  tuning epochs (default 4, as RESULTS.md's online rows)
  KEEP    a folder to keep the runs in (default: a temporary folder,
          removed on exit)
USAGE
}

source "$(dirname "$0")/lib/europarl.sh"
europarl_setup bench-cube "${1:-}"
epochs="${EPOCHS:-4}"

europarl_build bench-cube
for side in fr en; do
	europarl_lines "$side.gz" 8001 9000 >"$work/tune.$side"
	europarl_lines "$side.gz" 9001 10000 >"$work/test.$side"
done

# seconds CMD…: runs CMD, its output to $work/out, and prints its wall
# seconds.
seconds() {
	local TIMEFORMAT='%R'
	{ time "$@" >"$work/out" 2>>"$work/log"; } 2>&1 | tail -n 1
}

bleu() { # bleu HYP: test BLEU of HYP
	"$bin" score -r "$work/test.en" "$1" | sed -n 's/^BLEU = \([0-9.]*\),.*/\1/p'
}

rows=()
for algo in 0 1; do
	name=$([[ $algo == 0 ]] && echo "stack search" || echo "cube pruning")
	ini="$work/moses-$algo.ini"
	{ cat "$model/moses.ini"; printf '\n[search-algorithm]\n%s\n' "$algo"; } >"$ini"
	echo "bench-cube: $name: decoding the test split untuned, 1 and 2 threads…" >&2
	s1=$(seconds "$bin" decode --config "$ini" --threads 1 "$work/test.fr")
	s2=$(seconds "$bin" decode --config "$ini" --threads 2 "$work/test.fr")
	cp "$work/out" "$work/untuned-$algo.out"
	untuned=$(bleu "$work/untuned-$algo.out")
	echo "bench-cube: $name: tuning ($epochs epochs)…" >&2
	tuning=$(seconds "$bin" tune --config "$ini" --src "$work/tune.fr" --ref "$work/tune.en" --sparse all --mix linesearch \
		--epochs "$epochs" --seed 1 --nbest 100 --out "$work/tune-$algo" --overwrite)
	"$bin" decode --config "$ini" --weights "$work/tune-$algo/best/weights.json" --sparse all --threads 2 "$work/test.fr" \
		>"$work/tuned-$algo.out" 2>>"$work/log"
	tuned=$(bleu "$work/tuned-$algo.out")
	rows+=("$algo|$name|$s1|$s2|$untuned|$tuned|$tuning")
done

echo "| search | sentences/s, 1 thread | sentences/s, 2 threads | untuned test BLEU | tuned test BLEU | tuning min | test BLEU gained per tuning minute |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}" | awk -F'|' '{
	printf "| %s | %.1f | %.1f | %.2f | %.2f | %.1f | %.3f |\n", $2, 1000 / $3, 1000 / $4, $5, $6, $7 / 60, ($6 - $5) / ($7 / 60)
}'
