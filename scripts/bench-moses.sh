#!/usr/bin/env bash
# bench-moses.sh MOSES_DIR [SHARED_DATA_DIR]: mtune beside Moses built from
# source (scripts/build-moses.sh; MOSES_DIR/bin holds moses, extractor, mert,
# kbmira, pro), each run timed by /usr/bin/time on this machine in one run:
# wall seconds, CPU seconds (user + sys), peak RSS, and the BLEU of what it
# produced. Prints Markdown tables (RESULTS.md "Against Moses, side by side").
#
# Decoder: the 200 test sentences 9001–9200 of europarl-fr-en with Moses'
# europarl-fr-en-8k model, untuned weights, load included: Moses' stack
# search and cube pruning (pop limit 1000) against `mtune decode` with the
# same moses.ini setting, on 1 and 2 threads; BLEU against the references.
#
# Batch optimizers: europarl100's n-best list repeated 100 times with its
# sentence ids offset (1M hypotheses, 10,000 sentences), its old-style labels
# ("d: v …") turned into current ones ("d= v …") so that Moses' extractor
# reads 15 dense features and invents none. Moses: extractor, then mert
# (-n 20, init.opt from init.weights with ranges [0, 1], 1 thread), kbmira
# (60 passes) or pro (its pair sampling alone: Moses leaves the classifier
# to megam, which is not built). mtune: the whole `tune-nbest` command
# (reading, pooling, scoring and the optimizer) and `extract`, --threads 1;
# tune-nbest twice: the first run writes its pool cache (--pool-cache), the
# second reads it instead of the n-best lists (and must give the same
# weights).
# BLEU: each optimizer's weights re-ranking europarl100 (the repeated list's
# BLEU is the same), with `mtune rerank` and `mtune score`.
#
# Run it on an otherwise idle machine (about 15 minutes on 2 cores).
set -euo pipefail

usage_environment() {
	cat <<'USAGE'
  SECTIONS  which tables: "decoder optimizers" (default both)
  SEED      the optimizers' seed (default 1)
  REPEAT    how many times europarl100 is repeated (default 100)
  KEEP      a folder to keep the runs in (default: a temporary folder,
            removed on exit)
USAGE
}

case "${1:-}" in -h | --help | -help | "")
	{
		echo "usage: scripts/bench-moses.sh MOSES_DIR [SHARED_DATA_DIR]"
		echo
		echo "MOSES_DIR is scripts/build-moses.sh's OUT; SHARED_DATA_DIR defaults to ../shared/data."
		echo
		echo "environment:"
		usage_environment
	} >&2
	[[ -n "${1:-}" ]] && exit 0 || exit 2 ;;
esac
mosesdir=$(cd "$1" && pwd)
source "$(dirname "$0")/lib/europarl.sh"
europarl_setup bench-moses "${2:-}"
sections="${SECTIONS:-decoder optimizers}"
seed="${SEED:-1}"
repeat="${REPEAT:-100}"
need=()
[[ " $sections " == *" decoder "* ]] && need+=(moses)
[[ " $sections " == *" optimizers "* ]] && need+=(extractor mert kbmira pro)
for p in "${need[@]}"; do
	[[ -x "$mosesdir/bin/$p" ]] || { echo "bench-moses: $mosesdir/bin/$p not found (scripts/build-moses.sh builds it)" >&2; exit 1; }
done
command -v /usr/bin/time >/dev/null || { echo "bench-moses: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
europarl_build bench-moses
moses_commit=$(cat "$mosesdir/COMMIT" 2>/dev/null || echo unknown)
echo "mtune $(git rev-parse --short HEAD), mosesdecoder ${moses_commit:0:12}, $(nproc) cores, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# timed NAME CMD…: runs CMD (stdout to $work/NAME.out, stderr to
# $work/NAME.err) under /usr/bin/time and sets wall, cpu and rss (MB).
timed() {
	local name=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err" ||
		{ tail -n 20 "$work/$name.err" >&2; echo "bench-moses: $name failed" >&2; exit 1; }
	local user sys
	read -r wall user sys rss <"$work/$name.time"
	cpu=$(echo "$user + $sys" | bc)
	rss=$((rss / 1024))
}

bleu_of() { # bleu_of HYP REF: corpus BLEU of HYP
	"$bin" score -r "$2" "$1" | sed -n 's/^BLEU = \([0-9.]*\),.*/\1/p'
}

if [[ " $sections " == *" decoder "* ]]; then
	europarl_lines fr.gz 9001 9200 >"$work/test.fr"
	europarl_lines en.gz 9001 9200 >"$work/test.en"
	sed "s|\${MODEL_PATH}|$model|g" "$model/moses.ini" >"$work/stack.ini"
	{ cat "$work/stack.ini"; printf '\n[search-algorithm]\n1\n\n[cube-pruning-pop-limit]\n1000\n'; } >"$work/cube.ini"
	echo "### Decoder: 200 sentences (europarl 9001–9200), Moses' 8k model, load included"
	echo
	echo "| search | threads | Moses s | Moses CPU s | Moses MB | Moses BLEU | mtune s | mtune CPU s | mtune MB | mtune BLEU | Moses s / mtune s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	for search in stack cube; do
		for threads in 1 2; do
			echo "bench-moses: decoder, $search, $threads thread(s)…" >&2
			timed "moses-$search-$threads" "$mosesdir/bin/moses" -f "$work/$search.ini" -threads "$threads" -v 0 -input-file "$work/test.fr"
			mw=$wall mc=$cpu mr=$rss
			mb=$(bleu_of "$work/moses-$search-$threads.out" "$work/test.en")
			timed "mtune-$search-$threads" "$bin" decode --config "$work/$search.ini" --threads "$threads" "$work/test.fr"
			tb=$(bleu_of "$work/mtune-$search-$threads.out" "$work/test.en")
			printf '| %s | %d | %.2f | %.2f | %d | %s | %.2f | %.2f | %d | %s | %.1f× |\n' "$search" "$threads" \
				"$mw" "$mc" "$mr" "$mb" "$wall" "$cpu" "$rss" "$tb" "$(echo "$mw / $wall" | bc -l)"
		done
	done
	echo
fi

if [[ " $sections " == *" optimizers "* ]]; then
	src="$data/nbest/europarl100"
	echo "bench-moses: building the 1M-hypothesis list…" >&2
	for k in $(seq 0 $((repeat - 1))); do
		gzip -dc "$src/nbest.gz" | awk -v off=$((k * 100)) -F'[|][|][|]' 'BEGIN { OFS = "|||" } { $1 = $1 + off; print }'
	done | sed -E 's/ ([A-Za-z][A-Za-z0-9_]*): / \1= /g' >"$work/nbest"
	for k in $(seq 0 $((repeat - 1))); do cat "$src/reference"; done >"$work/ref"
	# init.opt: the starting weights, then the ranges of random restarts.
	awk '{ printf "%s ", $2 } END { print "" }' "$src/init.weights" >"$work/init.opt"
	awk '{ printf "0 " } END { print "" }' "$src/init.weights" >>"$work/init.opt"
	awk '{ printf "1 " } END { print "" }' "$src/init.weights" >>"$work/init.opt"
	hyps=$(wc -l <"$work/nbest")

	# rerank_bleu WEIGHTS: BLEU of europarl100 re-ranked with WEIGHTS.
	rerank_bleu() {
		"$bin" rerank --weights "$1" --nbest "$src/nbest.gz" >"$work/rerank.out" 2>>"$work/log"
		bleu_of "$work/rerank.out" "$src/reference"
	}
	# moses_weights NAMES VALUES: Moses' dense names (d_0 …) and values as
	# mtune weights lines (d= v).
	moses_weights() {
		paste -d' ' <(tr ' ' '\n' <<<"$1" | grep .) <(tr ' ' '\n' <<<"$2" | grep .) | sed -E 's/^(.*)_[0-9]+ /\1= /'
	}

	echo "bench-moses: Moses' extractor…" >&2
	mkdir -p "$work/moses-opt"
	timed extractor "$mosesdir/bin/extractor" --sctype BLEU --reference "$work/ref" --nbest "$work/nbest" \
		--ffile "$work/moses-opt/features.dat" --scfile "$work/moses-opt/scores.dat"
	xw=$wall xc=$cpu xr=$rss
	names=$(head -n 1 "$work/moses-opt/features.dat" | cut -d' ' -f5-)
	dims=$(wc -w <<<"$names")

	echo "bench-moses: Moses' mert, kbmira, pro…" >&2
	(cd "$work/moses-opt" && timed mert "$mosesdir/bin/mert" -d "$dims" --sctype BLEU --ffile features.dat --scfile scores.dat \
		--ifile "$work/init.opt" -n 20 -r "$seed" --threads 1 && echo "$wall $cpu $rss" >"$work/mert.row")
	read -r mw mc mr <"$work/mert.row"
	moses_weights "$names" "$(cat "$work/moses-opt/weights.txt")" >"$work/moses-mert.weights"
	mertb=$(rerank_bleu "$work/moses-mert.weights")
	timed kbmira "$mosesdir/bin/kbmira" --sctype BLEU --ffile "$work/moses-opt/features.dat" --scfile "$work/moses-opt/scores.dat" \
		--dense-init "$work/init.opt" -r "$seed" -o "$work/moses-kbmira.out"
	kw=$wall kc=$cpu kr=$rss
	# Given init.opt, kbmira names the dense features F0 … in order.
	moses_weights "$names" "$(grep '^F[0-9]* ' "$work/moses-kbmira.out" | sort -t F -k 2 -n | cut -d' ' -f2 | tr '\n' ' ')" \
		>"$work/moses-kbmira.weights"
	kbb=$(rerank_bleu "$work/moses-kbmira.weights")
	timed pro "$mosesdir/bin/pro" --ffile "$work/moses-opt/features.dat" --scfile "$work/moses-opt/scores.dat" \
		-r "$seed" -o "$work/moses-pro.pairs"
	pw=$wall pc=$cpu pr=$rss

	echo "bench-moses: mtune extract and tune-nbest…" >&2
	timed mtune-extract "$bin" extract --threads 1 --nbest "$work/nbest" -r "$work/ref" --out "$work/mtune-extract"
	ew=$wall ec=$cpu er=$rss

	echo "### Batch optimizers: $hyps hypotheses (europarl100 × $repeat), 1 thread"
	echo
	echo "| optimizer | Moses: extractor + optimizer s | CPU s | peak MB | BLEU | mtune tune-nbest s | CPU s | peak MB | BLEU | again, pool cached: s, MB | Moses s / mtune s | mtune MB / Moses extractor MB |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	row() { # row ALGO MOSES_WALL MOSES_CPU MOSES_MB MOSES_BLEU
		local algo=$1
		timed "tn-$algo" "$bin" tune-nbest --threads 1 --algo "$algo" --seed "$seed" --init "$src/init.weights" \
			--nbest "$work/nbest" -r "$work/ref" --out "$work/tn-$algo" --overwrite --pool-cache "$work/pool-$algo.cache"
		local w1=$wall c1=$cpu r1=$rss
		local b
		b=$(rerank_bleu "$work/tn-$algo/best/weights")
		timed "tn2-$algo" "$bin" tune-nbest --threads 1 --algo "$algo" --seed "$seed" --init "$src/init.weights" \
			--nbest "$work/nbest" -r "$work/ref" --out "$work/tn2-$algo" --overwrite --pool-cache "$work/pool-$algo.cache"
		cmp -s "$work/tn-$algo/best/weights" "$work/tn2-$algo/best/weights" ||
			{ echo "bench-moses: $algo's weights from the pool cache differ from the first run's" >&2; exit 1; }
		local tot peak
		tot=$(echo "$xw + $2" | bc)
		peak=$(( $4 > xr ? $4 : xr ))
		printf '| %s | %.1f (%.1f + %.1f) | %.1f | %d | %s | %.2f | %.2f | %d | %s | %s | %.1f× | %.2f |\n' "$algo" \
			"$tot" "$xw" "$2" "$(echo "$xc + $3" | bc)" "$peak" "$5" "$w1" "$c1" "$r1" "$b" "$wall, $rss" \
			"$(echo "$tot / $w1" | bc -l)" "$(echo "$r1 / $xr" | bc -l)"
	}
	row mert "$mw" "$mc" "$mr" "$mertb"
	row kbmira "$kw" "$kc" "$kr" "$kbb"
	row pro "$pw" "$pc" "$pr" "– (pairs only)"
	echo
	printf '| extraction | Moses extractor | mtune extract |\n|---|---|---|\n'
	printf '| wall s | %.2f | %.2f |\n| CPU s | %.2f | %.2f |\n| peak MB | %d | %d |\n' "$xw" "$ew" "$xc" "$ec" "$xr" "$er"
fi
