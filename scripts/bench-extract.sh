#!/usr/bin/env bash
# Measures `mtune extract` on the europarl100 n-best list duplicated 100
# times with renumbered sentence ids (10,000 sentences x 100 hypotheses =
# 1M hypotheses, about 227 MB), on one and on two threads: wall seconds,
# CPU seconds (user+sys) and peak memory (max RSS).
# Moses' extractor takes 23 s and 457 MB on this data and machine.
#
# usage: scripts/bench-extract.sh [SHARED_DATA_DIR]   (default ../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-../shared/data}
src=$data/nbest/europarl100
[ -f "$src/nbest.gz" ] || { echo "bench-extract: $src/nbest.gz not found (pass the shared data folder)" >&2; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "bench-extract: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/mtune" ./cmd/mtune

for k in $(seq 0 99); do
  gzip -dc "$src/nbest.gz" | awk -v off=$((k * 100)) -F'[|][|][|]' 'BEGIN { OFS = "|||" } { $1 = $1 + off; print }'
done > "$work/nbest"
for k in $(seq 0 99); do cat "$src/reference"; done > "$work/ref"
echo "input: $(wc -l < "$work/nbest") hypotheses, $(du -m "$work/nbest" | cut -f1) MB"

printf '%-8s %8s %8s %8s\n' threads wall_s cpu_s rss_MB
for threads in 1 2; do
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" \
    "$work/mtune" extract --threads "$threads" --nbest "$work/nbest" -r "$work/ref" --out "$work/out" 2>/dev/null
  read -r wall user sys rss < "$work/time"
  printf '%-8s %8.2f %8.2f %8.0f\n' "$threads" "$wall" "$(echo "$user + $sys" | bc)" "$(echo "$rss / 1024" | bc)"
done
