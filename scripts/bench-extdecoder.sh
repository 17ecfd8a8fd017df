#!/usr/bin/env bash
# bench-extdecoder.sh: the external decoder's cost in the tuning loop.
#
# Runs `mtune tune --mode batch --epochs 2` (the default batch learner,
# MERT, with a dev set) in process and with --decoder "mtune decode" behind
# a wrapper that counts the decoder's starts, on two systems:
#   demo  the embedded demo (300 tuning and 300 dev sentences; its model
#         loads in a few hundredths of a second)
#   8k    Moses' europarl-fr-en-8k model, 100 tuning sentences (lines
#         8001-8100) and 100 dev sentences (9001-9100): about 2 s a load
# and, with MOSES set to a Moses binary, --decoder "$MOSES -v 0" on 8k.
# REPEAT rounds, the runs of a round interleaved, so that the machine's
# other load falls on every column alike. Prints a Markdown row a run: wall
# seconds, CPU seconds (mtune and its decoders, user + system), starts,
# and the final tune and dev BLEU.
set -euo pipefail

usage_environment() {
	cat <<'USAGE'
  BINS    the mtunes to measure, NAME=PATH separated by blanks (default:
          this=the one built from this clone), e.g.
          "before=/tmp/mtune-old after=/tmp/mtune-new" to compare commits
  MOSES   a Moses decoder binary to measure too on 8k (default: none)
  REPEAT  rounds (default 3)
  SYSTEMS the systems (default "demo 8k")
  KEEP    a folder to keep the runs in (default: a temporary folder)
USAGE
}

source "$(dirname "$0")/lib/europarl.sh"
europarl_setup bench-extdecoder "${1:-}"
europarl_build bench-extdecoder
read -r -a bins <<<"${BINS:-this=$bin}"
repeat=${REPEAT:-3}
for side in fr en; do
	europarl_lines "$side.gz" 8001 8100 >"$work/tune.$side"
	europarl_lines "$side.gz" 9001 9100 >"$work/dev.$side"
done
"${bins[0]#*=}" build --demo --out "$work/demo" >/dev/null 2>&1

# The counting wrapper: one line a start, then the decoder.
count=$work/count.sh
cat >"$count" <<'EOF'
#!/bin/sh
echo start >> "$COUNT_FILE"
exec $COUNTED_DECODER "$@"
EOF
chmod +x "$count"

# run NAME=BIN SYSTEM KIND ROUND: one run of BIN; KIND is in (the
# in-process decoder), mtune ("mtune decode") or moses.
run() {
	local name=${1%%=*} bin=${1#*=}
	shift
	local system=$1 kind=$2 out=$work/$name-$1-$2-$3
	local args=(--mode batch --epochs 2 --seed 1 --out "$out" --overwrite)
	if [[ $system == 8k ]]; then
		# Moses does not replace ${MODEL_PATH} in a moses.ini as mtune
		# does: its runs get a copy with the paths written out.
		local ini=$model/moses.ini
		if [[ $kind == moses ]]; then
			ini=$work/moses-8k.ini
			sed "s|\${MODEL_PATH}|$model|g" "$model/moses.ini" >"$ini"
		fi
		args+=(--config "$ini" --src "$work/tune.fr" --ref "$work/tune.en"
			--dev-src "$work/dev.fr" --dev-ref "$work/dev.en")
	else
		demo=$work/demo
		args+=(--config "$demo/moses.ini" --src "$demo/corpus/tune.src" --ref "$demo/corpus/tune.ref"
			--dev-src "$demo/corpus/test.src" --dev-ref "$demo/corpus/test.ref")
	fi
	export COUNT_FILE=$out.starts
	: >"$COUNT_FILE"
	case $kind in
	mtune) export COUNTED_DECODER="$bin decode" && args+=(--decoder "$count") ;;
	moses) export COUNTED_DECODER="$MOSES -v 0" && args+=(--decoder "$count") ;;
	esac
	/usr/bin/time -f '%e %U %S' -o "$out.time" "$bin" tune "${args[@]}" >"$out.log" 2>&1
	local wall user sys
	read -r wall user sys <"$out.time"
	local last
	last=$(grep '^epoch 2/2: tune BLEU' "$out.log" | sed -E 's/.*tune BLEU +([0-9.]+) dev BLEU +([0-9.]+).*/\1 \2/')
	printf '| %s | %s | %s | %s | %.1f | %.1f | %d | %s |\n' "$name" "$system" "$kind" "$3" "$wall" "$(echo "$user + $sys" | bc)" \
		"$(wc -l <"$COUNT_FILE")" "$last"
}

kinds=(in mtune)
[[ -n "${MOSES:-}" ]] && kinds+=(moses)
echo "| mtune | system | decoder | round | wall s | CPU s | starts | tune, dev BLEU (epoch 2) |"
echo "|---|---|---|---|---|---|---|---|"
for r in $(seq "$repeat"); do
	for system in ${SYSTEMS:-demo 8k}; do
		for kind in "${kinds[@]}"; do
			[[ $kind == moses && $system == demo ]] && continue
			for b in "${bins[@]}"; do
				run "$b" "$system" "$kind" "$r"
			done
		done
	done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
