# scripts/lib/europarl.sh: what the benchmark scripts that tune Moses'
# europarl-fr-en-8k model share. Source it from a script in scripts/.

# europarl_setup NAME [SHARED_DATA_DIR]: moves to the repository's root and
# sets root (its path), data (SHARED_DATA_DIR, default ../shared/data, as an
# absolute path) and model (data's moses-models/europarl-fr-en-8k), or exits
# naming what is missing; NAME starts the message. Given -h, --help or -help
# instead of SHARED_DATA_DIR it prints the usage of scripts/NAME.sh, with
# the environment variables the script's usage_environment lists, and
# exits.
europarl_setup() {
	local name=$1 dir=${2:-}
	case "$dir" in -h | --help | -help) europarl_usage "$name"; exit 0 ;; esac
	if [[ -n "$dir" ]]; then
		data=$(cd "$dir" && pwd)
	fi
	cd "$(dirname "${BASH_SOURCE[0]}")/../.."
	root=$(pwd)
	data="${data:-$(cd ../shared/data && pwd)}"
	model="$data/moses-models/europarl-fr-en-8k"
	[[ -f "$model/moses.ini" ]] || { echo "$name: $model/moses.ini not found" >&2; exit 1; }
}

# europarl_usage NAME: the usage of scripts/NAME.sh, which takes the shared
# data folder as its argument; usage_environment, a function of the script,
# prints its environment variables.
europarl_usage() {
	cat <<USAGE
usage: scripts/$1.sh [SHARED_DATA_DIR]

SHARED_DATA_DIR defaults to ../shared/data (europarl-fr-en/{fr,en}.gz and
moses-models/europarl-fr-en-8k).

environment:
USAGE
	usage_environment
}

# europarl_lines FILE FIRST LAST: lines FIRST to LAST of europarl-fr-en's
# FILE (fr.gz or en.gz).
europarl_lines() {
	gzip -cd "$data/europarl-fr-en/$1" | sed -n "$2,$3p"
}

# process_config BIN: the --environment_config of prism's PROCESS
# environment that runs BIN as the SDK worker (scripts/prism-process-worker.sh).
process_config() {
	printf '{"command": "%s", "env": {"MTUNE_WORKER_BINARY": "%s"}}' "$root/scripts/prism-process-worker.sh" "$1"
}

# europarl_build NAME: makes a temporary folder tmp, removed when the script
# exits, and the work folder work (KEEP, default tmp); builds mtune into bin;
# exports MODEL_PATH for the model's moses.ini. Call it after europarl_setup.
europarl_build() {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	work="${KEEP:-$tmp}"
	mkdir -p "$work"
	echo "$1: building mtune" >&2
	go build -o "$tmp/mtune" ./cmd/mtune
	bin="$tmp/mtune"
	export MODEL_PATH="$model"
}

# prism_wait PORT: waits (up to 10 s) until a job server listens on PORT.
prism_wait() {
	for _ in $(seq 100); do
		(exec 3<>"/dev/tcp/localhost/$1") 2>/dev/null && return 0
		sleep 0.1
	done
}

# sample_peaks FILE: every 0.2 s, until killed, appends to FILE a line
# "pid kind kB" with the VmHWM of prism ($tmp/prism) and of every mtune
# worker ($bin --worker=true) running.
sample_peaks() {
	while :; do
		for d in /proc/[0-9]*; do
			cmd=$(tr '\0' ' ' 2>/dev/null <"$d/cmdline") || continue
			case "$cmd" in
			*"$bin --worker=true"*) kind=worker ;;
			*"$tmp/prism"*) kind=prism ;;
			*) continue ;;
			esac
			hwm=$(awk '/^VmHWM:/ { print $2 }' 2>/dev/null <"$d/status") || continue
			[[ -n "$hwm" ]] && echo "${d#/proc/} $kind $hwm"
		done >>"$1"
		sleep 0.2
	done
}
