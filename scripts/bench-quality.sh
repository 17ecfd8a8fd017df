#!/usr/bin/env bash
# Tunes two europarl-fr-en systems with every mtune configuration of
# issue 5 and writes RESULTS.md: tune on the tune split (lines 8001-9000),
# held-out test BLEU on the test split (9001-10000).
#
# Models: "moses" is Moses' own model of the train split
# (../shared/data/moses-models/europarl-fr-en-8k, so that the rows compare
# with Moses' tuning of the same model); "built" is the model `mtune build`
# makes from the train split (lines 1-8000).
#
# Each configuration runs `mtune tune` (prism, 2 shards where shards apply,
# 100-best, seed 1) and keeps the epoch with the best tune BLEU
# (best/weights); the test split is then decoded once with those weights.
# For the AdaGrad rows on Moses' model the test split is also decoded with
# every epoch's weights, up to the first epoch at or above Moses' MERT
# (23.85), for the "minutes to 23.85" column (tuning time only).
#
# Every finished configuration leaves WORK/MODEL/NAME/result.tsv; a run of
# the script skips those, so it can be stopped and started again. RESULTS.md
# is rewritten from all results found at the end of every configuration,
# with WORK/speed.md (the output of scripts/bench-pipeline.sh) and
# WORK/notes.md (remarks on the runs) appended when they exist.
#
# usage: scripts/bench-quality.sh [-m moses|built|both] [-o NAME[,NAME…]] [SHARED_DATA_DIR]
# environment: WORK (default bench-quality-out), EPOCHS_ONLINE (default 4),
#   EPOCHS_BATCH (default 8), SPARSE (templates of the sparse rows, default all)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
models=both
only=
while getopts "m:o:" opt; do
  case $opt in
    m) models=$OPTARG ;;
    o) only=$OPTARG ;;
    *) echo "usage: $0 [-m moses|built|both] [-o NAME[,NAME…]] [SHARED_DATA_DIR]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
data=$(cd "${1:-../shared/data}" && pwd)
work=${WORK:-bench-quality-out}
mkdir -p "$work"
work=$(cd "$work" && pwd)
eo=${EPOCHS_ONLINE:-4}
eb=${EPOCHS_BATCH:-8}
sparse=${SPARSE:-all}
target=23.85 # Moses' MERT on its model

moses_model=$data/moses-models/europarl-fr-en-8k
[ -f "$moses_model/moses.ini" ] || { echo "bench-quality: $moses_model/moses.ini not found" >&2; exit 1; }
export MODEL_PATH=$moses_model

mkdir -p "$work/bin" "$work/data"
go build -o "$work/bin/mtune" ./cmd/mtune
mtune=$work/bin/mtune
for side in fr en; do
  gzip -dc "$data/europarl-fr-en/$side.gz" | sed -n 8001,9000p > "$work/data/tune.$side"
  gzip -dc "$data/europarl-fr-en/$side.gz" | sed -n 9001,10000p > "$work/data/test.$side"
done

ini_of() {
  case $1 in
    moses) echo "$moses_model/moses.ini" ;;
    built)
      if [ ! -f "$work/built/model/moses.ini" ]; then
        "$mtune" build --src "$data/europarl-fr-en/fr.gz" --tgt "$data/europarl-fr-en/en.gz" \
          --align "$data/europarl-fr-en/align.fr-en.gz" --lines 1-8000 --out "$work/built/model" >&2
      fi
      echo "$work/built/model/moses.ini" ;;
  esac
}

# bleu HYP REF prints the BLEU of HYP (multi-bleu.perl's figure).
bleu() { "$mtune" score -r "$2" "$1" | sed -n 's/^BLEU = \([0-9.]*\),.*/\1/p'; }

# decode_test MODEL INI WEIGHTS SPARSE OUT decodes the test split.
decode_test() {
  local args=(--config "$2")
  [ -n "$3" ] && args+=(--weights "$3")
  [ -n "$4" ] && args+=(--sparse "$4")
  "$mtune" decode "${args[@]}" "$work/data/test.fr" > "$5" 2>> "$work/$1/decode.log" < /dev/null
}

# configurations: name|description|mtune tune flags (after the common ones)
configs() {
  cat <<EOF
mert|dense MERT (batch)|--mode batch --algo mert --epochs $eb
kbmira|dense kb-MIRA (batch)|--mode batch --algo kbmira --epochs $eb
pro|dense PRO (batch)|--mode batch --algo pro --epochs $eb
adagrad-avg|dense AdaGrad+FOBOS, ipm/average|--mode ipm --mix average --epochs $eo
adagrad-ls|dense AdaGrad+FOBOS, ipm/linesearch|--mode ipm --mix linesearch --epochs $eo
adagrad-stale|dense AdaGrad+FOBOS, stale (2 threads/shard)|--mode stale --threads 2 --epochs $eo
sparse-avg|sparse AdaGrad+FOBOS ($sparse), ipm/average|--mode ipm --mix average --sparse $sparse --epochs $eo
sparse-ls|sparse AdaGrad+FOBOS ($sparse), ipm/linesearch|--mode ipm --mix linesearch --sparse $sparse --epochs $eo
sparse-stale|sparse AdaGrad+FOBOS ($sparse), stale (2 threads/shard)|--mode stale --threads 2 --sparse $sparse --epochs $eo
oro-ls|Watanabe (oro, hinge), ipm/linesearch|--mode ipm --algo oro --mix linesearch --epochs $eo
noise|sparse AdaGrad ($sparse) + feature noising δ=0.1, ipm/average|--mode ipm --mix average --noise 0.1 --sparse $sparse --epochs $eo
gauss|sparse AdaGrad ($sparse) + Gaussian feature noising σ=1, ipm/average|--mode ipm --mix average --noise-type gaussian --noise 1 --sparse $sparse --epochs $eo
svm|dense structured SVM (batch)|--mode batch --algo svm --epochs $eb
EOF
}

wanted() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }

# untuned MODEL: the model's default weights, decoded on both splits.
untuned() {
  local model=$1 ini dir
  ini=$(ini_of "$model")
  dir=$work/$model/untuned
  [ -f "$dir/result.tsv" ] && return 0
  mkdir -p "$dir"
  "$mtune" decode --config "$ini" "$work/data/tune.fr" > "$dir/tune.out" 2>> "$work/$model/decode.log" < /dev/null
  decode_test "$model" "$ini" "" "" "$dir/test.out"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' untuned "untuned default weights" \
    "$(bleu "$dir/test.out" "$work/data/test.en")" "$(bleu "$dir/tune.out" "$work/data/tune.en")" \
    "" "" "" "" > "$dir/result.tsv"
}

run_config() {
  local model=$1 name=$2 desc=$3 flags=$4 ini dir out start end secs best nz ep epochs tmpl test reach
  ini=$(ini_of "$model")
  dir=$work/$model/$name
  [ -f "$dir/result.tsv" ] && return 0
  rm -rf "$dir"
  mkdir -p "$dir"
  out=$dir/out
  echo "== $model/$name: mtune tune $flags" >&2
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$mtune" tune --config "$ini" --src "$work/data/tune.fr" --ref "$work/data/tune.en" \
    --seed 1 --nbest 100 --out "$out" $flags 2> "$dir/tune.log" > /dev/null < /dev/null
  end=$(date +%s.%N)
  secs=$(echo "$end - $start" | bc)
  best=$(sed -n 's/.*"tune_score":\([0-9.]*\).*/\1/p' "$out/best/epoch.json")
  nz=$(sed -n 's/.*"nonzero":\([0-9]*\).*/\1/p' "$out/best/epoch.json")
  ep=$(sed -n 's/.*"epoch":\([0-9]*\).*/\1/p' "$out/best/epoch.json")
  epochs=$(wc -l < "$out/metrics.jsonl")
  tmpl=
  [[ $flags == *--sparse* ]] && tmpl=$sparse
  decode_test "$model" "$ini" "$out/best/weights.json" "$tmpl" "$dir/test.out"
  test=$(bleu "$dir/test.out" "$work/data/test.en")
  reach=
  if [ "$model" = moses ] && [[ $name == adagrad-* || $name == sparse-* ]]; then
    # Test BLEU of every epoch until the first at or above the target;
    # the time is the tuning seconds of the epochs so far (metrics.jsonl).
    local n=0 cum=0 s b
    while read -r line; do
      n=$((n + 1))
      s=$(echo "$line" | sed -n 's/.*"seconds":\([0-9.e+-]*\).*/\1/p')
      cum=$(echo "$cum + $s" | bc -l)
      decode_test "$model" "$ini" "$out/epochs/$(printf %03d $n)/weights.json" "$tmpl" "$dir/test.$n.out"
      b=$(bleu "$dir/test.$n.out" "$work/data/test.en")
      echo "epoch $n: test BLEU $b after $cum s" >> "$dir/curve.txt"
      if [ "$(echo "$b >= $target" | bc)" = 1 ]; then
        reach=$(printf '%.1f (epoch %d)' "$(echo "$cum / 60" | bc -l)" "$n")
        break
      fi
    done < "$out/metrics.jsonl"
    [ -n "$reach" ] || reach="not reached in $epochs"
  fi
  printf '%s\t%s\t%s\t%.2f\t%s\t%s/%s\t%.0f\t%s\n' "$name" "$desc" "$test" "$best" "$nz" "$ep" "$epochs" "$secs" "$reach" > "$dir/result.tsv"
  echo "== $model/$name: test BLEU $test, tune BLEU $best, $nz non-zeros, epoch $ep of $epochs, $secs s" >&2
}

write_results() {
  local f=$repo/RESULTS.md tmp model name desc test tune nz ep secs reach
  tmp=$(mktemp "$repo/RESULTS.md.XXXXXX")
  {
    echo "# Tuning quality on europarl-fr-en"
    echo
    echo "Written by \`scripts/bench-quality.sh\` (do not edit by hand; run the script again). Tune on lines"
    echo "8001-9000 of ../shared/data/europarl-fr-en, test BLEU (multi-bleu.perl's, \`mtune score\`) on lines"
    echo "9001-10000, never tuned on. Every mtune row: \`mtune tune\` on prism, 100-best, seed 1, 2 shards"
    echo "(ipm, stale); the weights are those of the epoch with the best tune BLEU (\`best/weights\`). Tune"
    echo "BLEU is that epoch's: the tune split decoded again with its weights (ipm, stale), or in batch mode"
    echo "the BLEU of the pooled n-best lists re-ranked by them (batch mode decodes with the previous"
    echo "epoch's weights, so its figure is the optimizer's, not a fresh decoding). \"Epoch\" is best/run;"
    echo "wall seconds are the whole \`mtune tune\` run. Machine: $(nproc) cores, $(date -u +%Y-%m-%d);"
    echo "commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)."
    for model in moses built; do
      ls "$work/$model"/*/result.tsv > /dev/null 2>&1 || continue
      echo
      if [ "$model" = moses ]; then
        echo "## Moses' model of the train split (moses-models/europarl-fr-en-8k)"
        echo
        echo "| configuration | test BLEU | tune BLEU | non-zero features | epoch | wall s | min. to test $target |"
        echo "|---|---|---|---|---|---|---|"
        echo "| Moses: untuned default weights | 22.53 | 22.49 | 15 | — | — | — |"
        echo "| Moses: MERT, weights after 8 iterations | 23.85 | — | 15 | 8 | ≈ 2400 | ≈ 40 |"
        echo "| Moses: kb-MIRA with its bug fixed, best of 8 | 23.98 | 24.78 | 15 | —/8 | ≈ 1338 | — |"
      else
        echo "## The model \`mtune build\` makes of the train split (lines 1-8000)"
        echo
        echo "| configuration | test BLEU | tune BLEU | non-zero features | epoch | wall s | |"
        echo "|---|---|---|---|---|---|---|"
      fi
      for name in untuned $(configs | cut -d'|' -f1); do
        [ -f "$work/$model/$name/result.tsv" ] || continue
        IFS=$'\t' read -r _ desc test tune nz ep secs reach < "$work/$model/$name/result.tsv"
        echo "| mtune: $desc | $test | $tune | ${nz:-15} | ${ep:-—} | ${secs:-—} | ${reach:-—} |"
      done
    done
    if [ -f "$work/speed.md" ]; then
      echo
      echo "## Pipeline speed (scripts/bench-pipeline.sh > WORK/speed.md)"
      echo
      cat "$work/speed.md"
    fi
    if [ -f "$work/notes.md" ]; then
      echo
      cat "$work/notes.md"
    fi
    # The sections other scripts wrote, or measurements added by hand,
    # between "<!-- NAME -->" and "<!-- /NAME -->" lines stay (the
    # nightly one of scripts/bench-nightly.sh, the scale one of
    # scripts/bench-scale.sh, …).
    if [ -f "$f" ]; then
      awk '/^<!-- [a-z0-9-]+ -->$/ { keep = 1; print "" } keep { print } /^<!-- \/[a-z0-9-]+ -->$/ { keep = 0 }' "$f"
    fi
  } > "$tmp"
  mv "$tmp" "$f"
}

for model in moses built; do
  [ "$models" = both ] || [ "$models" = "$model" ] || continue
  mkdir -p "$work/$model"
  if wanted untuned; then untuned "$model"; write_results; fi
  while IFS='|' read -r name desc flags; do
    wanted "$name" || continue
    run_config "$model" "$name" "$desc" "$flags"
    write_results
  done < <(configs)
done
write_results
echo "bench-quality: wrote RESULTS.md" >&2
