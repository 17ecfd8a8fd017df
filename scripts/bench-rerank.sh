#!/usr/bin/env bash
# Re-ranking with features added from score files (mtune --feature), on
# Moses' europarl100 n-best lists (100 sentences, 100-best, 15 dense
# features): two scores computed outside mtune, with the awk of
# docs/rerank.md, join each hypothesis as the dense features len (its length
# in bytes) and agree (the mean share of the sentence's hypotheses that
# hold each of its words: an n-best consensus score), and MERT and kb-MIRA
# tune the 17 weights toward chrF and toward an external score (the share
# of the hypothesis' words found in its reference, the stand-in for COMET
# of docs/commands.md), from init.weights, the added weights from 0.
# Compared with the lists' first-ranked hypotheses (the decoder's own
# choice), init.weights, equal weights (every one of the 17 weights 1, as
# Marian's rescore.py sums its features) and the same learners on the 15
# features alone.
#
# Each row gives chrF2 and the external score of the 1-bests on the lists
# tuned on (in-sample) and held out: two folds, sentences 0–49 and 50–99,
# each re-ranked with the weights tuned on the other (chrF2 of the 100
# 1-bests; the external score's mean over them). kb-MIRA: seeds 1–5, the
# in-sample cells give seed 1 and the range.
#
# usage: scripts/bench-rerank.sh [SHARED_DATA_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-../shared/data}
src=$data/nbest/europarl100
[ -f "$src/nbest.gz" ] || { echo "bench-rerank: $src/nbest.gz not found" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/mtune" ./cmd/mtune
mt=$work/mtune

# The score files, as docs/rerank.md makes them: one value a line of the list.
gzip -dc "$src/nbest.gz" > "$work/all.nbest"
LC_ALL=C awk -F' *[|][|][|] *' '{ print length($2) }' "$work/all.nbest" > "$work/all.len"
awk -F' *[|][|][|] *' '
  function flush(   i, k, n, w, s) {
    split("", df)
    for (i = 1; i <= nh; i++) {
      split("", seen); n = split(hyp[i], w, " ")
      for (k = 1; k <= n; k++) if (!(w[k] in seen)) { seen[w[k]]; df[w[k]]++ } }
    for (i = 1; i <= nh; i++) {
      n = split(hyp[i], w, " "); s = 0
      for (k = 1; k <= n; k++) s += df[w[k]]
      printf "%.4f\n", (n > 0 ? s / n / nh : 0) }
    nh = 0 }
  nh > 0 && $1 != id { flush() }
  { id = $1; hyp[++nh] = $2 }
  END { flush() }' "$work/all.nbest" > "$work/all.agree"
awk -F' *[|][|][|] *' 'NR == FNR { ref[NR - 1] = $0; next }
  { split("", seen); n = split(ref[$1], r, " "); for (k = 1; k <= n; k++) seen[r[k]] = 1
    n = split($2, w, " "); m = 0; for (k = 1; k <= n; k++) if (w[k] in seen) m++
    printf "%.4f\n", m / n }' "$src/reference" "$work/all.nbest" > "$work/all.ext"
cp "$src/reference" "$work/all.ref"

# The two folds: sentences 0–49 (a) and 50–99 (b), ids from 0 in each,
# with their lines of the score files and of the references.
awk -F'[|][|][|]' '{ print $1 + 0 }' "$work/all.nbest" > "$work/ids"
for fold in a:0:49 b:50:99; do
  IFS=: read -r f lo hi <<< "$fold"
  awk -F'[|][|][|]' -v lo="$lo" -v hi="$hi" '{ id = $1 + 0 } id >= lo && id <= hi { print (id - lo) substr($0, index($0, "|||")) }' \
    "$work/all.nbest" > "$work/$f.nbest"
  for x in len agree ext; do
    paste "$work/ids" "$work/all.$x" | awk -v lo="$lo" -v hi="$hi" '$1 >= lo && $1 <= hi { print $2 }' > "$work/$f.$x"
  done
  sed -n "$((lo + 1)),$((hi + 1))p" "$src/reference" > "$work/$f.ref"
done

# feats SET: the --feature flags of the lists SET (all, a, b).
feats() { echo "--feature len=$work/$1.len --feature agree=$work/$1.agree"; }
# score SET W METRIC [FEATURES…]: the figure of SET's lists re-ranked by W.
score() {
  local set=$1 w=$2 metric=$3
  shift 3
  local ref=(-r "$work/$set.ref")
  [ "$metric" = external ] && ref=(--scores "$work/$set.ext")
  # shellcheck disable=SC2068
  "$mt" rerank --metric "$metric" --weights "$w" --nbest "$work/$set.nbest" "${ref[@]}" $@ 2>&1 >/dev/null |
    tail -n 1 | sed -E 's/^[^=]*= ([-0-9.]+).*/\1/'
}
# best SET W OUT [FEATURES…]: SET's 1-bests under W into OUT.
best() {
  local set=$1 w=$2 out=$3
  shift 3
  # shellcheck disable=SC2068
  "$mt" rerank --weights "$w" --nbest "$work/$set.nbest" -r "$work/$set.ref" $@ > "$out" 2>/dev/null
}
# tune SET ALGO METRIC SEED OUT [FEATURES…]
tune() {
  local set=$1 algo=$2 metric=$3 seed=$4 out=$5
  shift 5
  local ref=(-r "$work/$set.ref")
  [ "$metric" = external ] && ref=(--scores "$work/$set.ext")
  # shellcheck disable=SC2068
  "$mt" tune-nbest --algo "$algo" --metric "$metric" --seed "$seed" --init "$src/init.weights" \
    --nbest "$work/$set.nbest" "${ref[@]}" $@ --out "$out" --overwrite > /dev/null 2>&1
}
# heldout ALGO METRIC SEED ADDED: chrF2 and external of the two folds,
# each re-ranked with the weights tuned on the other (ADDED: yes/no).
heldout() {
  local algo=$1 metric=$2 seed=$3 added=$4 ext=0
  : > "$work/held.txt"
  for pair in a:b b:a; do
    IFS=: read -r on test <<< "$pair"
    local fon="" ftest=""
    [ "$added" = yes ] && fon=$(feats "$on") && ftest=$(feats "$test")
    # shellcheck disable=SC2086
    tune "$on" "$algo" "$metric" "$seed" "$work/held-$on" $fon
    # shellcheck disable=SC2086
    best "$test" "$work/held-$on/best/weights" "$work/held-$test.txt" $ftest
    # shellcheck disable=SC2086
    ext=$(awk -v a="$ext" -v b="$(score "$test" "$work/held-$on/best/weights" external $ftest)" 'BEGIN { print a + b / 2 }')
  done
  cat "$work/held-a.txt" "$work/held-b.txt" > "$work/held.txt"
  printf '%s | %.4f' "$("$mt" score --metric chrf -r "$src/reference" "$work/held.txt" | sed -E 's/^[^=]*= ([-0-9.]+).*/\1/')" "$ext"
}

echo "| weights | features | tuned toward | chrF2 | external | held out: chrF2 | external |"
echo "|---|---|---|---|---|---|---|"
# The lists' first-ranked hypotheses, the decoder's own choice.
awk -F' *[|][|][|] *' '!seen[$1]++ { print $2 }' "$work/all.nbest" > "$work/first.txt"
first_chrf=$("$mt" score --metric chrf -r "$src/reference" "$work/first.txt" | sed -E 's/^[^=]*= ([-0-9.]+).*/\1/')
first_ext=$(paste "$work/ids" "$work/all.ext" | awk '!seen[$1]++ { s += $2; n++ } END { printf "%.4f", s / n }')
echo "| first-ranked (the decoder's) | — | — | $first_chrf | $first_ext | $first_chrf | $first_ext |"
c=$(score all "$src/init.weights" chrf) e=$(score all "$src/init.weights" external)
echo "| init.weights | 15 | — | $c | $e | $c | $e |"
printf 'd= 1 1 1 1 1 1 1\nlm= 1 1\ntm= 1 1 1 1 1\nw= 1\nlen= 1\nagree= 1\n' > "$work/equal.weights"
# shellcheck disable=SC2046
c=$(score all "$work/equal.weights" chrf $(feats all)) e=$(score all "$work/equal.weights" external $(feats all))
echo "| equal (all 1) | 17 | — | $c | $e | $c | $e |"
for metric in chrf external; do
  for algo in mert kbmira; do
    for added in no yes; do
      f="" n=15
      [ "$added" = yes ] && f=$(feats all) n=17
      cells=() seeds=1
      [ "$algo" = kbmira ] && seeds=5
      for seed in $(seq 1 "$seeds"); do
        # shellcheck disable=SC2086
        tune all "$algo" "$metric" "$seed" "$work/run" $f
        # shellcheck disable=SC2086
        cells+=("$(score all "$work/run/best/weights" chrf $f) $(score all "$work/run/best/weights" external $f)")
      done
      read -r c e <<< "${cells[0]}"
      if [ "$seeds" -gt 1 ]; then
        c="$c ($(printf '%s\n' "${cells[@]}" | cut -d' ' -f1 | sort -n | awk 'NR == 1 { lo = $0 } END { print lo "–" $0 }'))"
        e="$e ($(printf '%s\n' "${cells[@]}" | cut -d' ' -f2 | sort -n | awk 'NR == 1 { lo = $0 } END { print lo "–" $0 }'))"
      fi
      echo "| $algo | $n | $metric | $c | $e | $(heldout "$algo" "$metric" 1 "$added") |"
    done
  done
done
