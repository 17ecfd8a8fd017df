#!/usr/bin/env bash
# prism-jobserver.sh: run "mtune tune" on a standalone prism job server.
#
# Builds prism (the Beam Go SDK's runner, from the module cache: no network
# once the module is downloaded) and mtune, starts prism as a job server on
# PRISM_PORT, waits until it listens, runs
#   mtune tune --runner universal --endpoint localhost:PRISM_PORT --environment_type LOOPBACK ARGS…
# (the SDK workers run inside the mtune process), and stops the job server
# when the script exits, however it exits.
set -euo pipefail

usage() {
	cat <<'USAGE'
usage: scripts/prism-jobserver.sh [mtune tune flags…]

Starts a standalone prism job server, runs "mtune tune" against it with
--runner universal --environment_type LOOPBACK and the given flags (none:
the embedded demo), then stops the server.

environment:
  PRISM_PORT   job service port (default 8073)
  PRISM_LOG    prism's log file (default: a temporary file, shown on failure)
  BIN_DIR      where the prism and mtune binaries are built (default: a
               temporary folder, removed on exit)

example:
  scripts/prism-jobserver.sh --epochs 1 --out /tmp/mtune-prism
USAGE
}

case "${1:-}" in -h | --help | -help) usage; exit 0 ;; esac

cd "$(dirname "$0")/.."
port="${PRISM_PORT:-8073}"
tmp="$(mktemp -d)"
bin="${BIN_DIR:-$tmp}"
log="${PRISM_LOG:-$tmp/prism.log}"
pid=""

cleanup() {
	local status=$?
	if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	if [[ $status -ne 0 && -s "$log" ]]; then
		echo "prism-jobserver: last lines of the job server's log ($log):" >&2
		tail -n 20 "$log" >&2
	fi
	rm -rf "$tmp"
	exit $status
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$bin"
echo "prism-jobserver: building prism and mtune into $bin" >&2
go build -o "$bin/prism" github.com/apache/beam/sdks/v2/go/cmd/prism
go build -o "$bin/mtune" ./cmd/mtune

if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
	echo "prism-jobserver: port $port is already in use (set PRISM_PORT)" >&2
	exit 1
fi
"$bin/prism" --job_port "$port" --serve_http=false --log_level warn >"$log" 2>&1 &
pid=$!

# Wait up to 30 s for the job service to listen.
for _ in $(seq 300); do
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		break
	fi
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "prism-jobserver: prism exited before listening on port $port" >&2
		exit 1
	fi
	sleep 0.1
done
if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
	echo "prism-jobserver: prism does not listen on port $port after 30 s" >&2
	exit 1
fi
echo "prism-jobserver: job server (pid $pid) listening on localhost:$port" >&2

"$bin/mtune" tune --runner universal --endpoint "localhost:$port" --environment_type LOOPBACK "$@"
