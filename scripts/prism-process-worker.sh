#!/bin/sh
# prism-process-worker.sh: the command of prism's PROCESS environment for
# mtune, so that the pipeline's SDK worker runs as a separate mtune process.
#
# With --environment_type PROCESS, prism (Beam v2.77,
# runners/prism/internal/environments.go) starts one worker process per job
# as
#   COMMAND --id='ID' --provision_endpoint=HOST:PORT
# with literal single quotes around the id, the environment of the prism
# process plus the "env" of --environment_config, and kills it (SIGKILL) when
# the job ends. That is the Beam boot program's contract, which mtune does
# not speak (mtune runs the harness only when started with --worker=true,
# as the boot program starts the staged binary), and Beam's Go boot program
# cannot be the command either: it sends the quoted id back to prism, which
# does not know it, and it would leave a copy of the binary in /tmp and an
# orphaned worker after prism's SIGKILL. So this script
#   - strips the quotes from the id,
#   - takes the control and logging endpoints to be the provision endpoint
#     (prism serves every Fn API service of a worker on that one address;
#     it is what its provision service answers),
#   - and replaces itself (exec) with
#       $MTUNE_WORKER_BINARY --worker=true --id=ID --control_endpoint=EP --logging_endpoint=EP
#     so that the process prism kills is the worker itself.
# The staged --worker_binary is not fetched: the worker is the local binary
# named by MTUNE_WORKER_BINARY (default: mtune on PATH), which must be the
# same build as the launcher's (the DoFns are looked up by name). The
# pipeline options are not passed to the worker (mtune's DoFns read none).
#
# usage (see scripts/prism-process.sh and docs/scale.md, "A local multi-process job"):
#   mtune tune --runner prism --environment_type PROCESS \
#     --environment_config '{"command": "/abs/path/scripts/prism-process-worker.sh",
#                            "env": {"MTUNE_WORKER_BINARY": "/abs/path/mtune"}}' \
#     --worker_binary /abs/path/mtune …
set -eu

bin="${MTUNE_WORKER_BINARY:-}"
if [ -z "$bin" ]; then
	bin="$(command -v mtune || true)"
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
	echo "prism-process-worker: no mtune binary (set MTUNE_WORKER_BINARY, e.g. in --environment_config's \"env\")" >&2
	exit 2
fi

id=""
endpoint=""
for a in "$@"; do
	case "$a" in
	--id=*) id="${a#--id=}" ;;
	--provision_endpoint=*) endpoint="${a#--provision_endpoint=}" ;;
	esac
done
id="${id#\'}"
id="${id%\'}"
if [ -z "$id" ] || [ -z "$endpoint" ]; then
	echo "prism-process-worker: want --id=ID --provision_endpoint=HOST:PORT, got: $*" >&2
	exit 2
fi

exec "$bin" --worker=true --id="$id" --control_endpoint="$endpoint" --logging_endpoint="$endpoint"
