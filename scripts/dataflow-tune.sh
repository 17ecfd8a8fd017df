#!/usr/bin/env bash
# dataflow-tune.sh: run "mtune tune" on Google Cloud Dataflow.
#
# Builds a linux/amd64 mtune (the worker binary Dataflow stages and runs in
# the Beam Go SDK container as "mtune --worker=true …"; see
# pipelines.IsWorker) and launches the tuning run from this machine, one
# Dataflow job per epoch. Credentials are the usual Application Default Credentials
# (gcloud auth application-default login, or GOOGLE_APPLICATION_CREDENTIALS);
# the script neither reads nor prints them.
set -euo pipefail

usage() {
	cat <<'USAGE'
usage: scripts/dataflow-tune.sh [--dry_run] [more mtune tune flags…]

Builds BIN_DIR/mtune-linux-amd64 and runs
  mtune tune --runner dataflow --project $PROJECT --region $REGION
    --temp_location gs://$BUCKET/tmp --staging_location gs://$BUCKET/staging
    --worker_binary BIN_DIR/mtune-linux-amd64
    --config $CONFIG --src $SRC --ref $REF --out $OUT [flags…]

required environment:
  PROJECT   Google Cloud project
  REGION    Dataflow region, e.g. europe-west1
  BUCKET    GCS bucket (no gs://) for Beam's temporary and staging files
  CONFIG    gs:// path of the moses.ini to tune (its model files on gs:// too)
  SRC       gs:// path of the tuning set's source side
  REF       gs:// path of its references (file, folder or prefix)
  OUT       gs:// output folder
optional:
  DEV_SRC, DEV_REF   a held-out dev set (gs://) choosing best/weights
  BIN_DIR            where the binaries go (default: ${TMPDIR:-/tmp}/mtune-dataflow)

Any further flags go to "mtune tune" (--mode, --algo, --shards, --epochs,
--num_workers, --worker_machine_type, …). With --dry_run each epoch's job
is printed instead of submitted (Beam's Dataflow runner flag).

example:
  PROJECT=my-proj REGION=europe-west1 BUCKET=my-bucket \
  CONFIG=gs://my-bucket/model/moses.ini SRC=gs://my-bucket/tune.fr \
  REF=gs://my-bucket/tune.en OUT=gs://my-bucket/runs/1 \
  scripts/dataflow-tune.sh --shards 8 --epochs 5
USAGE
}

for a in "$@"; do
	case "$a" in -h | --help | -help) usage; exit 0 ;; esac
done

missing=()
for v in PROJECT REGION BUCKET CONFIG SRC REF OUT; do
	[[ -n "${!v:-}" ]] || missing+=("$v")
done
if ((${#missing[@]})); then
	echo "dataflow-tune: set ${missing[*]} (see $0 -h)" >&2
	exit 2
fi
for v in CONFIG SRC REF OUT; do
	if [[ "${!v}" != gs://* ]]; then
		echo "dataflow-tune: $v=${!v} must be a gs:// path: Dataflow workers cannot read this machine's files" >&2
		exit 2
	fi
done
if [[ "$BUCKET" == gs://* || "$BUCKET" == */* ]]; then
	echo "dataflow-tune: BUCKET=$BUCKET must be a bare bucket name" >&2
	exit 2
fi

cd "$(dirname "$0")/.."
bin="${BIN_DIR:-${TMPDIR:-/tmp}/mtune-dataflow}"
mkdir -p "$bin"
echo "dataflow-tune: building $bin/mtune-linux-amd64 and $bin/mtune" >&2
CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -o "$bin/mtune-linux-amd64" ./cmd/mtune
go build -o "$bin/mtune" ./cmd/mtune

dev=()
if [[ -n "${DEV_SRC:-}" ]]; then
	dev=(--dev-src "$DEV_SRC" --dev-ref "${DEV_REF:?DEV_SRC needs DEV_REF}")
fi

set -x
"$bin/mtune" tune --runner dataflow \
	--project "$PROJECT" --region "$REGION" \
	--temp_location "gs://$BUCKET/tmp" --staging_location "gs://$BUCKET/staging" \
	--worker_binary "$bin/mtune-linux-amd64" \
	--config "$CONFIG" --src "$SRC" --ref "$REF" --out "$OUT" \
	"${dev[@]}" "$@"
