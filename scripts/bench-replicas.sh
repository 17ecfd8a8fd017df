#!/usr/bin/env bash
# bench-replicas.sh: the optimizer instability (Clark et al. 2011, as
# MultEval reports it) of RESULTS.md's sparse AdaGrad ipm/linesearch row on
# Moses' europarl-fr-en-8k model.
#
# Tunes on the tune split (lines 8001–9000) with that row's settings
# (--sparse all, ipm, --mix linesearch, 2 shards, 100-best, EPOCHS epochs,
# seed 1, no dev set: each replica's best epoch by its tune BLEU) and
# --replicas REPLICAS, every replica's epoch in the same launch; decodes the
# test split (lines 9001–10000) with each replica's best weights
# (OUT/replicas/R/best/weights.json); prints a Markdown section with each
# replica's figures and the mean ± sample sd of test BLEU over the
# replicas, and puts it into RESULTS.md between the "replicas" markers
# (scripts/bench-quality.sh keeps it there). Replica 0 has seed 1, so its
# row is the single run's. About 15 minutes on 2 cores for 3 replicas.
set -euo pipefail

usage() {
	cat <<'USAGE'
usage: scripts/bench-replicas.sh [SHARED_DATA_DIR]

SHARED_DATA_DIR defaults to ../shared/data.

environment:
  REPLICAS  replicas (default 3)
  EPOCHS    tuning epochs (default 4, as RESULTS.md's online rows)
  KEEP      a folder to keep the run in (default: a temporary folder,
            removed on exit)
USAGE
}

case "${1:-}" in -h | --help | -help) usage; exit 0 ;; esac

source "$(dirname "$0")/lib/europarl.sh"
europarl_setup bench-replicas "${1:-}"
replicas="${REPLICAS:-3}"
epochs="${EPOCHS:-4}"

commit=$(git rev-parse --short HEAD)
europarl_build bench-replicas
for side in fr en; do
	europarl_lines "$side.gz" 8001 9000 >"$work/tune.$side"
	europarl_lines "$side.gz" 9001 10000 >"$work/test.$side"
done

# field NAME FILE: the number of JSON field NAME in FILE (one object), 0
# when absent (as "replica" is for replica 0).
field() {
	sed -n "s/.*\"$1\":\([-0-9.e]*\).*/\1/p" "$2" | grep . || echo 0
}

echo "bench-replicas: tuning $replicas replicas, $epochs epochs…" >&2
TIMEFORMAT='%R'
secs=$({ time "$bin" tune --config "$model/moses.ini" --src "$work/tune.fr" --ref "$work/tune.en" --sparse all \
	--mix linesearch --epochs "$epochs" --nbest 100 --seed 1 --replicas "$replicas" --out "$work/run" --overwrite \
	>"$work/run.log" 2>&1; } 2>&1 | tail -n 1)

rows=()
for ((r = 0; r < replicas; r++)); do
	dir=$(printf '%s/run/replicas/%03d' "$work" "$r")
	echo "bench-replicas: decoding the test split with replica $r's best weights…" >&2
	"$bin" decode --config "$model/moses.ini" --weights "$dir/best/weights.json" --sparse all --threads 2 "$work/test.fr" \
		>"$work/test-$r.out" 2>>"$work/run.log"
	bleu=$("$bin" score -r "$work/test.en" "$work/test-$r.out" | sed -n 's/^BLEU = \([0-9.]*\),.*/\1/p')
	seed=$(sed -n 's/.*"replica_seeds":\[\([0-9,]*\)\].*/\1/p' "$work/run/manifest.json" | cut -d, -f$((r + 1)))
	rows+=("$r|$seed|$(field epoch "$dir/best/epoch.json")|$(field tune_score "$dir/best/epoch.json")|$(field nonzero "$dir/best/epoch.json")|$bleu")
done
best=$(field replica "$work/run/best/epoch.json")

{
	echo "<!-- replicas -->"
	echo "## Optimizer instability: $replicas replicas of sparse AdaGrad ipm/linesearch (scripts/bench-replicas.sh)"
	echo
	echo "Moses' 8k model, the first table's sparse AdaGrad+FOBOS (all), ipm/linesearch row (\`--sparse all --mix"
	echo "linesearch\`, 2 shards, 100-best, $epochs epochs, no dev set) run with \`--seed 1 --replicas $replicas\`: every"
	echo "replica's epoch in the same launch, replica r seeded with tune.ReplicaSeed(1, r) (replica 0 with 1"
	echo "itself, so its row is the single run's). Each replica's best epoch by its tune BLEU (the progressive"
	echo "BLEU, as the table above); test = lines 9001-10000 decoded with that epoch's weights. Mean ± sample"
	echo "sd over the replicas (MultEval's s_sel). Machine: 2 cores, $(date -u +%F); commit $commit."
	echo
	echo "| replica | seed | best epoch | tune BLEU (progressive) | non-zero features | test BLEU |"
	echo "|---|---|---|---|---|---|"
	printf '%s\n' "${rows[@]}" | awk -F'|' -v epochs="$epochs" '{
		printf "| %d | %s | %d/%d | %.2f | %d | %.2f |\n", $1, $2, $3, epochs, $4, $5, $6
		n++; t[n] = $4; b[n] = $6; st += $4; sb += $6
	}
	END {
		mt = st / n; mb = sb / n
		for (i = 1; i <= n; i++) { vt += (t[i] - mt) ^ 2; vb += (b[i] - mb) ^ 2 }
		sdt = n > 1 ? sqrt(vt / (n - 1)) : 0; sdb = n > 1 ? sqrt(vb / (n - 1)) : 0
		printf "| mean ± sd | | | %.2f ± %.2f | | **%.2f ± %.2f** |\n", mt, sdt, mb, sdb
	}'
	echo
	printf 'The whole run (%d replicas × %d epochs, %d launches and the model check) took %.0f s of wall time;\n' "$replicas" "$epochs" "$epochs" "$secs"
	echo "best/ holds replica $best's best epoch, the highest tune BLEU of all replicas: without a dev set that"
	echo "choice rests on the BLEU of the data the weights were tuned on."
	echo "<!-- /replicas -->"
} >"$work/replicas.md"
cat "$work/replicas.md"

# Put the section into RESULTS.md in place of the earlier one, or at its
# end.
results="$root/RESULTS.md"
tmp=$(mktemp "$results.XXXXXX")
awk -v section="$work/replicas.md" '
	function insert(line) { while ((getline line < section) > 0) print line; inserted = 1 }
	$0 == "<!-- replicas -->" { insert(); skipping = 1; next }
	skipping { if ($0 == "<!-- /replicas -->") skipping = 0; next }
	{ print }
	END { if (!inserted) { print ""; insert() } }
' "$results" >"$tmp"
mv "$tmp" "$results"
echo "bench-replicas: wrote RESULTS.md" >&2
