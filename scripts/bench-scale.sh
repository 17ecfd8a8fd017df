#!/usr/bin/env bash
# bench-scale.sh: how one tuning epoch scales with the tuning set (DESIGN.md
# §10), on Moses' europarl-fr-en-8k model with --sparse all, AdaGrad, 2
# shards, 100-best, averaging, one epoch, dev = europarl lines 9001–9200.
#
# For each tuning set (SIZES; default 1k = lines 8001–9000, 4k = 5001–9000,
# 8k = 1–8000 — the model was trained on lines 1–8000, so the 8k row's BLEU
# means nothing, its speed and memory do) it runs
#   - the epoch on a standalone prism job server with the SDK workers as
#     separate processes (--runner universal --environment_type PROCESS,
#     scripts/prism-process-worker.sh), so that the driver (the mtune
#     process that launches the epoch), the runner (prism, which holds the
#     data between stages) and the workers each have their own peak RSS;
#   - mtune decode of the same sentences (tuning set and dev set, 1-best,
#     the same --sparse all), the cost of decoding them once;
# and for the first size also the epoch in one process (prism in mtune,
# LOOPBACK workers), to give the separate processes' overhead, and the
# epoch with --filter-model (each shard and decoding batch loads the model
# filtered to its sentences; cold cache), workers as separate processes.
#
# Peak RSS: the driver's from /usr/bin/time; prism's and each worker's from
# /proc/PID/status VmHWM, sampled every 0.2 s while they run (a worker is
# killed when its job ends; its last sample is within 0.2 s of its end).
#
# Prints a Markdown table. Run it on an otherwise idle machine; the 8k row
# takes about ten minutes on 2 cores.
set -euo pipefail

usage_environment() {
	cat <<'USAGE'
  SIZES       tuning sets as FIRST-LAST line ranges of europarl-fr-en,
              space-separated (default "8001-9000 5001-9000 1-8000")
  PRISM_PORT  the job server's port (default 8074)
  KEEP        a folder to keep the runs, logs and samples in (default: a
              temporary folder, removed on exit)
USAGE
}

source "$(dirname "$0")/lib/europarl.sh"
europarl_setup bench-scale "${1:-}"
sizes="${SIZES:-8001-9000 5001-9000 1-8000}"
port="${PRISM_PORT:-8074}"

tmp=$(mktemp -d)
prism_pid=""
sampler_pid=""
cleanup() {
	local status=$?
	[[ -n "$sampler_pid" ]] && kill "$sampler_pid" 2>/dev/null || true
	if [[ -n "$prism_pid" ]] && kill -0 "$prism_pid" 2>/dev/null; then
		kill "$prism_pid" 2>/dev/null || true
		wait "$prism_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
	exit $status
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
work="${KEEP:-$tmp}"
mkdir -p "$work"

echo "bench-scale: building mtune and prism" >&2
go build -o "$tmp/mtune" ./cmd/mtune
go build -o "$tmp/prism" github.com/apache/beam/sdks/v2/go/cmd/prism
bin="$tmp/mtune"

europarl_lines fr.gz 9001 9200 >"$work/dev.fr"
europarl_lines en.gz 9001 9200 >"$work/dev.en"

"$tmp/prism" --job_port "$port" >"$work/prism.log" 2>&1 &
prism_pid=$!
prism_wait "$port"

export MODEL_PATH="$model"
config=$(process_config "$bin")
inproc="" filtered="" fmem=0
common=(tune --config "$model/moses.ini" --sparse all --mix average --shards 2 --epochs 1 --seed 1
	--dev-src "$work/dev.fr" --dev-ref "$work/dev.en" --overwrite)

# epoch NAME SET ARGS…: one epoch of set SET into $work/NAME; prints wall
# seconds, epoch seconds, the driver's peak RSS in MB, tune BLEU (decoded),
# dev BLEU and non-zero weights.
epoch() {
	local name=$1 set=$2
	shift 2
	local TIMEFORMAT='%R'
	if ! { time /usr/bin/time -f '%M' -o "$work/$name.rss" "$bin" "${common[@]}" --src "$work/$set.fr" --ref "$work/$set.en" \
		--out "$work/$name" "$@" >"$work/$name.log" 2>&1; } 2>"$work/$name.time"; then
		echo "bench-scale: the $name run failed; its last lines ($work/$name.log):" >&2
		tail -n 20 "$work/$name.log" >&2
		exit 1
	fi
	awk -v wall="$(cat "$work/$name.time")" -v rss="$(tail -n 1 "$work/$name.rss")" '{
		if (match($0, /"seconds":[0-9.eE+-]+/)) s = substr($0, RSTART + 10, RLENGTH - 10)
		if (match($0, /"tune_score":[0-9.eE+-]+/)) b = substr($0, RSTART + 13, RLENGTH - 13)
		if (match($0, /"dev_score":[0-9.eE+-]+/)) d = substr($0, RSTART + 12, RLENGTH - 12)
		if (match($0, /"nonzero":[0-9]+/)) z = substr($0, RSTART + 10, RLENGTH - 10)
	} END { printf "%.1f %.1f %.0f %.2f %.2f %d\n", wall, s, rss / 1024, b, d, z }' "$work/$name/metrics.jsonl"
}

# decode SET: mtune decode of the set's and the dev set's sentences, 1-best;
# prints wall seconds.
decode() {
	local TIMEFORMAT='%R'
	cat "$work/$1.fr" "$work/dev.fr" >"$work/$1+dev.fr"
	{ time "$bin" decode --config "$model/moses.ini" --sparse all "$work/$1+dev.fr" >"$work/$1.decoded" 2>"$work/$1.decode.log"; } 2>&1 |
		awk '{ printf "%.1f\n", $1 }'
}

rows=()
first=1
for range in $sizes; do
	from=${range%-*} to=${range#*-}
	n=$((to - from + 1))
	set="tune-$range"
	europarl_lines fr.gz "$from" "$to" >"$work/$set.fr"
	europarl_lines en.gz "$from" "$to" >"$work/$set.en"
	[[ $(wc -l <"$work/$set.fr") -eq $n ]] || { echo "bench-scale: europarl-fr-en has fewer than $to lines" >&2; exit 1; }

	echo "bench-scale: $n sentences ($range): decoding them and the dev set…" >&2
	dec=$(decode "$set")
	echo "bench-scale: … one epoch, workers as separate processes…" >&2
	: >"$work/$set.samples"
	sample_peaks "$work/$set.samples" &
	sampler_pid=$!
	proc=$(epoch "$set-process" "$set" --runner universal --endpoint "localhost:$port" \
		--environment_type PROCESS --environment_config "$config" --worker_binary "$bin")
	kill "$sampler_pid" 2>/dev/null || true
	wait "$sampler_pid" 2>/dev/null || true
	sampler_pid=""
	mem=$(awk '$2 == "worker" && $3 > w[$1] { w[$1] = $3 } $2 == "prism" && $3 > p { p = $3 }
		END { m = 0; k = 0; for (i in w) { k++; if (w[i] > m) m = w[i] } printf "%.0f %.0f %d\n", p / 1024, m / 1024, k }' "$work/$set.samples")
	if ((first)); then
		echo "bench-scale: … and in one process (LOOPBACK)" >&2
		inproc=$(epoch "$set-inproc" "$set")
		echo "bench-scale: … and with --filter-model, workers as separate processes" >&2
		: >"$work/$set.filter-samples"
		sample_peaks "$work/$set.filter-samples" &
		sampler_pid=$!
		filtered=$(XDG_CACHE_HOME="$work/cache" epoch "$set-filter" "$set" --filter-model --runner universal --endpoint "localhost:$port" \
			--environment_type PROCESS --environment_config "$config" --worker_binary "$bin")
		kill "$sampler_pid" 2>/dev/null || true
		wait "$sampler_pid" 2>/dev/null || true
		sampler_pid=""
		fmem=$(awk '$2 == "worker" && $3 > w[$1] { w[$1] = $3 } END { m = 0; for (i in w) if (w[i] > m) m = w[i]; printf "%.0f\n", m / 1024 }' "$work/$set.filter-samples")
		first=0
	fi
	rows+=("$n $range $dec $proc $mem")
done

echo "| tuning set | lines | wall s | epoch s | s/sentence | epoch / decode | driver peak MB | prism peak MB | worker peak MB (processes) | tune BLEU (decoded) | dev BLEU | non-zeros |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}" | awk -v inproc="$inproc" -v filtered="$filtered" -v fmem="$fmem" '
	# n range dec | wall epoch rss tune dev nz | prism worker workers
	{ printf "| %d | %s | %.1f | %.1f | %.4f | %.2f | %d | %d | %d (%d) | %.2f | %.2f | %d |\n",
		$1, $2, $4, $5, $5 / $1, $5 / $3, $6, $10, $11, $12, $7, $8, $9
	  if (NR == 1) {
		split(inproc, a, " "); split(filtered, f, " ")
		first = sprintf("%s: in one process (LOOPBACK) wall %.1f s, epoch %.1f s, peak RSS %d MB, tune BLEU %.2f, dev BLEU %.2f; separate processes: epoch %+.1f%%.\n", $2, a[1], a[2], a[3], a[4], a[5], 100 * ($5 / a[2] - 1))
		first = first sprintf("%s with --filter-model (separate processes, cold cache): wall %.1f s, epoch %.1f s, worker peak %d MB against %d MB, tune BLEU %.2f, dev BLEU %.2f", $2, f[1], f[2], fmem, $11, f[4], f[5])
	  }
	  if (NR == 1) { s1 = $5 / $1; n1 = $1 }
	  if (NR == 2) ratio = sprintf("s/sentence from %d to %d sentences: ×%.2f", n1, $1, ($5 / $1) / s1)
	  decs = decs sprintf("%s%d sentences + 200 dev decoded in %.1f s", (NR > 1 ? "; " : ""), $1, $3) }
	END { print ""; print first; if (ratio != "") print ratio; print "mtune decode, 1-best, --sparse all: " decs }'
