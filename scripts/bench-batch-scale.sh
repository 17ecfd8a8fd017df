#!/usr/bin/env bash
# bench-batch-scale.sh: batch mode at scale (DESIGN.md §10) on Moses'
# europarl-fr-en-8k model: `mtune tune --mode batch --algo ALGO`, 100-best,
# EPOCHS epochs, seed 1, dev = europarl lines 9001–9200, for each tuning
# set of SIZES (default 1k = lines 8001–9000 and 4k = 5001–9000) and each
# optimizer of ALGOS (default mert, whose passes run over the pool's parts
# in launches of their own, and kbmira, which reads the whole pool on one
# worker).
#
# The runs go to a standalone prism job server with the SDK workers as
# separate processes (--environment_type PROCESS), so that the driver
# (the mtune process that launches the epochs and, for MERT, holds the
# runs' points), prism and each worker have their own peak RSS: the
# driver's from /usr/bin/time, the others' from /proc/PID/status VmHWM
# sampled every 0.2 s. A worker's peak includes the model it loads; prism
# serves every run of the script, so its peak is the highest so far.
#
# Prints a Markdown table: wall seconds, the last epoch's pool (distinct
# hypotheses of every epoch), MERT's rounds (launches) in all, tune and dev
# BLEU of the last epoch, and the peaks.
set -euo pipefail

usage_environment() {
	cat <<'USAGE'
  SIZES       tuning sets as FIRST-LAST line ranges of europarl-fr-en,
              space-separated (default "8001-9000 5001-9000")
  ALGOS       batch optimizers, space-separated (default "mert kbmira")
  EPOCHS      epochs (default 2)
  PRISM_PORT  the job server's port (default 8075)
  KEEP        a folder to keep the runs in (default: a temporary folder)
USAGE
}

source "$(dirname "$0")/lib/europarl.sh"
europarl_setup bench-batch-scale "${1:-}"
sizes="${SIZES:-8001-9000 5001-9000}"
algos="${ALGOS:-mert kbmira}"
epochs="${EPOCHS:-2}"
port="${PRISM_PORT:-8075}"

europarl_build bench-batch-scale
go build -o "$tmp/prism" github.com/apache/beam/sdks/v2/go/cmd/prism
prism_pid=""
sampler_pid=""
stop() {
	[[ -n "$sampler_pid" ]] && kill "$sampler_pid" 2>/dev/null || true
	[[ -n "$prism_pid" ]] && kill "$prism_pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap 'stop' EXIT

europarl_lines fr.gz 9001 9200 >"$work/dev.fr"
europarl_lines en.gz 9001 9200 >"$work/dev.en"

"$tmp/prism" --job_port "$port" >"$work/prism.log" 2>&1 &
prism_pid=$!
prism_wait "$port"

config=$(process_config "$bin")
echo "| tuning set | optimizer | wall s | pool (hypotheses) | MERT rounds | tune BLEU | dev BLEU | driver peak MB | prism peak MB | worker peak MB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for range in $sizes; do
	from=${range%-*} to=${range#*-}
	set="tune-$range"
	europarl_lines fr.gz "$from" "$to" >"$work/$set.fr"
	europarl_lines en.gz "$from" "$to" >"$work/$set.en"
	for algo in $algos; do
		name="$set-$algo"
		echo "bench-batch-scale: $range, $algo, $epochs epochs…" >&2
		: >"$work/$name.samples"
		sample_peaks "$work/$name.samples" &
		sampler_pid=$!
		TIMEFORMAT='%R'
		if ! { time /usr/bin/time -f '%M' -o "$work/$name.rss" "$bin" tune --config "$model/moses.ini" \
			--mode batch --algo "$algo" --epochs "$epochs" --seed 1 \
			--src "$work/$set.fr" --ref "$work/$set.en" --dev-src "$work/dev.fr" --dev-ref "$work/dev.en" \
			--out "$work/$name" --overwrite --runner universal --endpoint "localhost:$port" \
			--environment_type PROCESS --environment_config "$config" --worker_binary "$bin" \
			>"$work/$name.log" 2>&1; } 2>"$work/$name.time"; then
			echo "bench-batch-scale: the $name run failed; its last lines ($work/$name.log):" >&2
			tail -n 20 "$work/$name.log" >&2
			exit 1
		fi
		kill "$sampler_pid" 2>/dev/null || true
		wait "$sampler_pid" 2>/dev/null || true
		sampler_pid=""
		mem=$(awk '$2 == "worker" && $3 > w[$1] { w[$1] = $3 } $2 == "prism" && $3 > p { p = $3 }
			END { m = 0; for (i in w) if (w[i] > m) m = w[i]; printf "%.0f %.0f\n", p / 1024, m / 1024 }' "$work/$name.samples")
		awk -v range="$range" -v algo="$algo" -v wall="$(cat "$work/$name.time")" -v rss="$(tail -n 1 "$work/$name.rss")" -v mem="$mem" '{
			if (match($0, /"pool":[0-9]+/)) pool = substr($0, RSTART + 7, RLENGTH - 7)
			r = 0; if (match($0, /"mert_rounds":[0-9]+/)) r = substr($0, RSTART + 14, RLENGTH - 14); rounds += r
			if (match($0, /"tune_score":[0-9.eE+-]+/)) b = substr($0, RSTART + 13, RLENGTH - 13)
			if (match($0, /"dev_score":[0-9.eE+-]+/)) d = substr($0, RSTART + 12, RLENGTH - 12)
		} END { split(mem, m, " "); printf "| %s | %s | %.0f | %d | %d | %.2f | %.2f | %.0f | %d | %d |\n", range, algo, wall, pool, rounds, b, d, rss / 1024, m[1], m[2] }' "$work/$name/metrics.jsonl"
	done
done
