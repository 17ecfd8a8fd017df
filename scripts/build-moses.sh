#!/usr/bin/env bash
# build-moses.sh SRC OUT: build Moses from mosesdecoder's source for the
# side-by-side runs of scripts/bench-moses.sh (docs/benchmarks.md, "Moses built
# from source"). Nothing of Moses is committed to mtune.
#
#   SRC  a mosesdecoder git repository, bare or not, fetched beforehand
#        (e.g. a clone of github.com/moses-smt/mosesdecoder)
#   OUT  the folder to build in; OUT/bin gets moses, extractor, mert, kbmira,
#        pro, evaluator, sentence-bleu; OUT/build.log the compiler's output
#
# Boost, zlib and bzip2 come from Debian's packages (apt-get, as root). The
# build is bjam's release build, static, -j2 (MOSES_JOBS to change), without
# TRACE macros; the mert tools are built first so a failed decoder build still
# leaves them. The commit built is MOSES_COMMIT (default: SRC's HEAD).
set -euo pipefail

SRC=${1:?usage: build-moses.sh MOSESDECODER_GIT_DIR OUT}
OUT=${2:?usage: build-moses.sh MOSESDECODER_GIT_DIR OUT}
JOBS=${MOSES_JOBS:-2}
COMMIT=${MOSES_COMMIT:-HEAD}

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  pkgs="g++ make libboost-program-options-dev libboost-system-dev libboost-thread-dev
        libboost-filesystem-dev libboost-iostreams-dev libboost-regex-dev
        libboost-serialization-dev libboost-test-dev zlib1g-dev libbz2-dev liblzma-dev"
  # shellcheck disable=SC2086
  if ! dpkg -s $pkgs >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $pkgs
  fi
else
  echo "build-moses.sh: not root or no apt-get; assuming Boost, zlib and bzip2 dev packages are installed" >&2
fi

mkdir -p "$OUT/bin"
OUT=$(cd "$OUT" && pwd)
if [ ! -d "$OUT/src/.git" ]; then
  rm -rf "$OUT/src"
  git clone -q --no-checkout "$SRC" "$OUT/src"
fi
cd "$OUT/src"
# A snapshot may lack its largest blobs (test data of contrib/); check out
# every file whose blob is present, and say how many were not.
git ls-tree -r --format='%(objectname) %(path)' "$COMMIT" |
  awk '{print $1}' | git cat-file --batch-check='%(objectname) %(objecttype)' |
  awk '$2 == "missing" {print $1}' | sort > "$OUT/missing-blobs"
git ls-tree -r --format='%(objectname) %(path)' "$COMMIT" | sort |
  join -v1 - "$OUT/missing-blobs" | cut -d' ' -f2- > "$OUT/present-paths"
git checkout -q "$COMMIT" --pathspec-from-file="$OUT/present-paths"
echo "build-moses.sh: $(wc -l < "$OUT/missing-blobs") files absent from the source snapshot (not needed to build)" >&2
git rev-parse HEAD > "$OUT/COMMIT"
echo "build-moses.sh: mosesdecoder $(cat "$OUT/COMMIT") in $OUT/src, -j$JOBS" >&2

start=$(date +%s)
# The mert tools (extractor, mert, kbmira, pro) first: minutes, not an hour.
./bjam -j"$JOBS" --notrace -q mert//programs >>"$OUT/build.log" 2>&1 ||
  { tail -40 "$OUT/build.log" >&2; echo "build-moses.sh: the mert tools failed; see $OUT/build.log" >&2; exit 1; }
mert_done=$(date +%s)
for p in extractor mert kbmira pro evaluator sentence-bleu; do
  cp "$(find bin mert/bin -type f -name "$p" -perm -u+x 2>/dev/null | head -n1)" "$OUT/bin/$p"
done
echo "build-moses.sh: mert tools in $((mert_done - start)) s" >&2

./bjam -j"$JOBS" --notrace -q moses-cmd//moses >>"$OUT/build.log" 2>&1 ||
  { tail -40 "$OUT/build.log" >&2; echo "build-moses.sh: the decoder failed; see $OUT/build.log" >&2; exit 1; }
end=$(date +%s)
cp "$(find bin moses-cmd/bin -type f -name moses -perm -u+x 2>/dev/null | head -n1)" "$OUT/bin/moses"
echo "build-moses.sh: moses in $((end - mert_done)) s; all in $((end - start)) s" >&2
printf 'mert_tools_s %d\nmoses_s %d\ntotal_s %d\njobs %d\n' \
  $((mert_done - start)) $((end - mert_done)) $((end - start)) "$JOBS" > "$OUT/build-time"
"$OUT/bin/moses" --help 2>&1 | head -n 3 >&2 || true
