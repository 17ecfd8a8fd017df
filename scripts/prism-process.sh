#!/usr/bin/env bash
# prism-process.sh: what running the SDK worker as a separate process costs:
# one tuning run in process and the same with a worker process, on the
# europarl-fr-en tune split with Moses' europarl-fr-en-8k model (as
# scripts/bench-pipeline.sh).
#
# Builds mtune, then runs
#   mtune tune --config MODEL/moses.ini --src tune.fr --ref tune.en --shards 2 --epochs 1 --seed 1
# on prism with its default LOOPBACK environment (the workers run inside the
# mtune process), then the same with
#   --environment_type PROCESS --worker_binary BIN/mtune
#   --environment_config '{"command": ".../scripts/prism-process-worker.sh", "env": {"MTUNE_WORKER_BINARY": "BIN/mtune"}}'
# (prism starts one "mtune --worker=true …" process per epoch, see
# scripts/prism-process-worker.sh), REPEAT times, alternately, and prints a
# Markdown table: each run's wall seconds, CPU seconds (user + system, the
# worker process's included), the epochs' seconds from metrics.jsonl, tune
# BLEU and the PROCESS run's overhead; then whether every epoch's
# weights.json is identical, byte for byte. Run it on an otherwise idle
# machine.
set -euo pipefail

usage_environment() {
	cat <<'USAGE'
  SENTENCES  tune sentences, lines 8001… of europarl-fr-en (default 1000,
             the tune split of bench-pipeline.sh)
  SHARDS     shards (default 2)
  EPOCHS     epochs (default 1)
  REPEAT     run both REPEAT times, alternately (default 1); the table
             gives every run and the best of each
  KEEP       a folder to keep the runs in (default: a temporary folder,
             removed on exit)
USAGE
}

source "$(dirname "$0")/lib/europarl.sh"
europarl_setup prism-process "${1:-}"
n="${SENTENCES:-1000}"
shards="${SHARDS:-2}"
epochs="${EPOCHS:-1}"
repeat="${REPEAT:-1}"

europarl_build prism-process

europarl_lines fr.gz 8001 $((8000 + n)) >"$work/tune.fr"
europarl_lines en.gz 8001 $((8000 + n)) >"$work/tune.en"
[[ $(wc -l <"$work/tune.fr") -eq $n ]] || { echo "prism-process: fewer than $((8000 + n)) lines in $data/europarl-fr-en" >&2; exit 1; }

common=(tune --config "$model/moses.ini" --src "$work/tune.fr" --ref "$work/tune.en"
	--shards "$shards" --epochs "$epochs" --seed 1 --overwrite)
config=$(process_config "$bin")

# run NAME ARGS…: runs mtune tune into $work/NAME, logs to $work/NAME.log,
# and prints its wall seconds and CPU seconds (user + system, the worker
# processes' included: the launcher's prism waits for them).
run() {
	local name=$1
	shift
	local TIMEFORMAT='%R %U %S'
	if ! { time "$bin" "${common[@]}" --out "$work/$name" "$@" >"$work/$name.log" 2>&1; } 2>"$work/$name.time"; then
		echo "prism-process: the $name run failed; its last lines ($work/$name.log):" >&2
		tail -n 20 "$work/$name.log" >&2
		exit 1
	fi
	awk '{ printf "%.1f %.1f\n", $1, $2 + $3 }' "$work/$name.time"
}

# metric RUN: the epochs' seconds (summed) and the last tune BLEU of a
# run's metrics.jsonl.
metric() {
	awk '{
		if (match($0, /"seconds":[0-9.eE+-]+/)) s += substr($0, RSTART + 10, RLENGTH - 10)
		if (match($0, /"tune_score":[0-9.eE+-]+/)) b = substr($0, RSTART + 13, RLENGTH - 13)
	} END { printf "%.1f %.2f\n", s, b }' "$1/metrics.jsonl"
}

# The two runs alternate, REPEAT times; each repetition's PROCESS run is
# compared with the in-process run before it.
rows=()
same=yes
for ((r = 1; r <= repeat; r++)); do
	echo "prism-process: $n sentences, $shards shards, $epochs epoch(s), run $r/$repeat: in process (LOOPBACK)…" >&2
	in=$(run "inproc$r")
	echo "prism-process: … and with a worker process (PROCESS)" >&2
	proc=$(run "process$r" --environment_type PROCESS --environment_config "$config" --worker_binary "$bin")
	rows+=("$r $in $(metric "$work/inproc$r") $proc $(metric "$work/process$r")")
	for f in "$work/inproc$r"/epochs/*/weights.json; do
		e=$(basename "$(dirname "$f")")
		cmp -s "$f" "$work/process$r/epochs/$e/weights.json" || same="no (run $r, epoch $e differs)"
	done
done

# Each row: r, then wall, CPU, epoch seconds and tune BLEU in process, the
# same with a worker process.
echo "| run | environment | wall s | CPU s | epoch s | tune BLEU | PROCESS overhead: wall, CPU |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}" | awk '
	{ printf "| %d | in process (LOOPBACK) | %.1f | %.1f | %s | %s | — |\n", $1, $2, $3, $4, $5
	  printf "| %d | worker process (PROCESS) | %.1f | %.1f | %s | %s | %+.1f s (%+.1f%%), %+.1f s (%+.1f%%) |\n", $1, $6, $7, $8, $9,
		$6 - $2, 100 * ($6 / $2 - 1), $7 - $3, 100 * ($7 / $3 - 1)
	  if (NR == 1 || $2 < wi) wi = $2
	  if (NR == 1 || $6 < wp) wp = $6
	  if (NR == 1 || $3 < ci) ci = $3
	  if (NR == 1 || $7 < cp) cp = $7 }
	END { if (NR > 1) printf "| best of %d | | %.1f vs %.1f | %.1f vs %.1f | | | %+.1f s (%+.1f%%), %+.1f s (%+.1f%%) |\n",
		NR, wi, wp, ci, cp, wp - wi, 100 * (wp / wi - 1), cp - ci, 100 * (cp / ci - 1) }'
echo
echo "weights.json identical in every epoch: $same"
