#!/usr/bin/env bash
# Three nights of `mtune retrain` on europarl-fr-en with Moses' model of
# the train split (moses-models/europarl-fr-en-8k): night k tunes on the
# k-th third of the tune split (lines 8001-8333, 8334-8666, 8667-9000) as
# that night's new data, the gate compares on dev = lines 9001-9200, and
# the promoted weights after each night are scored on test = lines
# 9201-10000 (never tuned or gated on).
#
# Writes WORK/nightly.md (the table and the history) and puts it into
# RESULTS.md between the "nightly" markers (scripts/bench-quality.sh keeps
# it there). A stopped run can be started again: a finished night does
# nothing, a killed one resumes (that is what retrain does).
#
# usage: scripts/bench-nightly.sh [SHARED_DATA_DIR]
# environment: WORK (default bench-nightly-out), EPOCHS (default 4),
#   FLAGS (more retrain flags, default "--mix linesearch")
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
data=$(cd "${1:-../shared/data}" && pwd)
work=${WORK:-bench-nightly-out}
mkdir -p "$work/bin" "$work/data"
work=$(cd "$work" && pwd)
epochs=${EPOCHS:-4}
flags=${FLAGS:---mix linesearch}
model=$data/moses-models/europarl-fr-en-8k
[ -f "$model/moses.ini" ] || { echo "bench-nightly: $model/moses.ini not found" >&2; exit 1; }
export MODEL_PATH=$model

go build -o "$work/bin/mtune" ./cmd/mtune
mtune=$work/bin/mtune
d=$work/data
for side in fr en; do
  gzip -dc "$data/europarl-fr-en/$side.gz" > "$d/all.$side"
  sed -n 8001,8333p "$d/all.$side" > "$d/tune1.$side"
  sed -n 8334,8666p "$d/all.$side" > "$d/tune2.$side"
  sed -n 8667,9000p "$d/all.$side" > "$d/tune3.$side"
  sed -n 9001,9200p "$d/all.$side" > "$d/dev.$side"
  sed -n 9201,10000p "$d/all.$side" > "$d/test.$side"
  rm "$d/all.$side"
done
reg=$work/registry

# test_bleu WEIGHTS: BLEU of the test split decoded with WEIGHTS ("" for
# the model's own).
test_bleu() {
  local w=()
  [ -n "$1" ] && w=(--weights "$1")
  "$mtune" decode --config "$model/moses.ini" "${w[@]}" "$d/test.fr" 2> /dev/null > "$work/test.out"
  "$mtune" score -r "$d/test.en" < "$work/test.out" | sed -n 's/^BLEU = \([0-9.]*\),.*/\1/p'
}

# field NAME LINE: a number or string field of a JSON line.
field() { sed -n "s/.*\"$1\":\(\"[^\"]*\"\|[-0-9.e+]*\).*/\1/p" <<< "$2" | tr -d '"'; }

untuned=$(test_bleu "")
rows=()
for k in 1 2 3; do
  t0=$(date +%s)
  # shellcheck disable=SC2086
  "$mtune" retrain --registry "$reg" --run-id "night-$k" --config "$model/moses.ini" \
    --src "$d/tune$k.fr" --ref "$d/tune$k.en" --dev-src "$d/dev.fr" --dev-ref "$d/dev.en" \
    --epochs "$epochs" --seed 1 $flags 2> "$work/night-$k.log" || {
      echo "bench-nightly: night $k failed (exit $?); see $work/night-$k.log" >&2; exit 1; }
  secs=$(( $(date +%s) - t0 ))
  line=$(grep "\"run\":\"night-$k\"" "$reg/history.jsonl" | grep -v '"decision":"failed"' | tail -1)
  promoted=$(cat "$reg/promoted.json")
  weights=$(field weights "$promoted")
  tb=$(test_bleu "$weights")
  cand=$reg/runs/night-$k/best/weights.json
  cb=$tb
  [ "$cand" = "$weights" ] || cb=$(test_bleu "$cand")
  ci=$(sed -n 's/.*"ci":\[\([^]]*\)\].*/\1/p' <<< "$line")
  printf -v row '| night-%s | lines %s of the tune split | %s | %.2f | %.2f | %.4f | [%.2f, %.2f] | %s | %s | %s | %s |' \
    "$k" "$(sed -n "${k}p" <<< $'8001-8333\n8334-8666\n8667-9000')" "$(field decision "$line")" \
    "$(field candidate_bleu "$line")" "$(field promoted_bleu "$line")" "$(field p_value "$line")" \
    "${ci%,*}" "${ci#*,}" "$(field run "$promoted")" "$tb" "$cb" "$secs"
  rows+=("$row")
  echo "== $row" >&2
done

{
  echo "<!-- nightly -->"
  echo "## Nightly retraining: three nights (scripts/bench-nightly.sh)"
  echo
  echo "\`mtune retrain\` three times into one registry, Moses' 8k model, night k tuning on the k-th third"
  echo "of the tune split (new data each night), warm-started from the promoted weights; the gate"
  echo "decodes dev = lines 9001-9200 with the candidate and with the promoted weights (the model's own"
  echo "on night 1) and promotes if the gain is ≥ 0 and paired bootstrap p < 0.05 (1,000 samples). Test"
  echo "= lines 9201-10000, never tuned or gated on: the BLEU of the weights promoted after each night,"
  echo "and of the night's candidate, promoted or not (did the gate keep the better weights?). Wall"
  echo "seconds are the retrain call's."
  echo "Retrain flags: --epochs $epochs --seed 1 $flags. Untuned test BLEU $untuned. Machine: $(nproc) cores,"
  echo "$(date -u +%Y-%m-%d); commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)."
  echo
  echo "| night | new tuning data | decision | candidate dev BLEU | promoted dev BLEU | p | gain 95% CI | promoted after | test BLEU of promoted | test BLEU of candidate | wall s |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "\`mtune registry history\`:"
  echo
  echo '```'
  "$mtune" registry history --registry "$reg"
  echo '```'
  echo "<!-- /nightly -->"
} > "$work/nightly.md"

# Put the section into RESULTS.md, in place of the earlier one.
tmp=$(mktemp "$repo/RESULTS.md.XXXXXX")
awk -v f="$work/nightly.md" '
  /^<!-- nightly -->$/ { skip = 1; while ((getline l < f) > 0) print l; done = 1; next }
  /^<!-- \/nightly -->$/ { skip = 0; next }
  !skip { print }
  END { if (!done) { print ""; while ((getline l < f) > 0) print l } }
' "$repo/RESULTS.md" > "$tmp"
mv "$tmp" "$repo/RESULTS.md"
echo "bench-nightly: wrote $work/nightly.md and RESULTS.md" >&2
