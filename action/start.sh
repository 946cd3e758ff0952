#!/usr/bin/env bash
# The start mode of the paysandbox GitHub Action (action.yml at the
# repository's root): gets the binary, starts `paysandbox serve` in the
# background, waits for /readyz, creates a tenant for the job and exports
# PAYSANDBOX_URL, PAYSANDBOX_API_KEY and PAYSANDBOX_SIGNING_SECRET (with
# PAYSANDBOX_TENANT_ID) to $GITHUB_ENV and as step outputs.
#
# Inputs are environment variables, as action.yml passes them:
#   INPUT_BINARY         a paysandbox binary to run instead of a download
#   INPUT_BUILD          "true": go build the action's own source (needs Go)
#                        instead of downloading a release
#   INPUT_VERSION        the release to download (v0.1.0; default: the
#                        action's ref when it is a version tag, else latest)
#   INPUT_RELEASES_URL   where releases are downloaded from
#   INPUT_ADDR           the listen address (127.0.0.1:8080)
#   INPUT_READY_TIMEOUT  seconds serve has to answer /readyz (30)
#   INPUT_SERVE_ARGS     more flags for serve, split on spaces
#   INPUT_TTL, INPUT_SCENARIOS, INPUT_WEBHOOK_URL, INPUT_WEBHOOK_VERSION
#                        the tenant's ttl, scenario rules file, webhook
#                        endpoint and webhook body version
# and the runner's: GITHUB_ENV, GITHUB_OUTPUT, GITHUB_PATH, RUNNER_TEMP,
# RUNNER_OS, RUNNER_ARCH, GITHUB_ACTION_PATH, ACTION_REF.
#
# It exits non-zero, with the reason as an ::error:: line and the server's
# log tail, when any of it fails; a server it started is then stopped, and
# nothing is exported.
set -euo pipefail

releases_url=${INPUT_RELEASES_URL:-https://github.com/paysandbox/paysandbox/releases}
addr=${INPUT_ADDR:-127.0.0.1:8080}
ready_timeout=${INPUT_READY_TIMEOUT:-30}
ready_timeout=${ready_timeout%s}

pid=""
log=""
started=false

# shellcheck disable=SC1091 # common.sh is checked on its own
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

die() {
	error "$*"
	log_tail 50 "$log"
	exit 1
}

# A server started by a run that then fails is stopped: the job gets no
# half-started sandbox.
cleanup() {
	if [[ $started != true && -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
		kill "$pid" 2>/dev/null || true
	fi
}
trap cleanup EXIT

[[ $ready_timeout =~ ^[0-9]+$ ]] || die "ready-timeout must be a number of seconds, not '${INPUT_READY_TIMEOUT}'"
for f in GITHUB_ENV GITHUB_OUTPUT; do
	[[ -n ${!f:-} ]] || die "$f is not set: run this script as a step of a GitHub Actions job (or set it to a file)"
done

work=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/paysandbox.XXXXXX")
mkdir -p "$work/bin"

# action_version is the action's ref when it is a version tag (v0.1.0),
# else empty. github.action_ref is empty in composite actions on some
# runners: the action's directory (.../_actions/OWNER/REPO/REF) names the
# ref too.
action_version() {
	local v=${ACTION_REF:-}
	if [[ -z $v && -n ${GITHUB_ACTION_PATH:-} ]]; then
		v=$(basename "$GITHUB_ACTION_PATH")
	fi
	if [[ $v =~ ^v[0-9]+\.[0-9]+\.[0-9]+ ]]; then
		echo "$v"
	fi
}

# version is the release to download: the input (with or without its v),
# else the action's version, else the latest release.
version() {
	local v=${INPUT_VERSION:-}
	if [[ -z $v ]]; then
		v=$(action_version)
	fi
	if [[ -z $v || $v == latest ]]; then
		echo latest
	elif [[ $v == v* ]]; then
		echo "$v"
	else
		echo "v$v"
	fi
}

sha256() {
	if command -v sha256sum >/dev/null; then
		sha256sum "$1" | awk '{print $1}'
	else
		shasum -a 256 "$1" | awk '{print $1}'
	fi
}

# download fetches the release archive for this runner and checks it
# against the release's checksums.txt.
download() {
	local v os arch dl name want got
	v=$(version)
	case ${RUNNER_OS:-$(uname -s)} in
	Linux | linux) os=linux ;;
	macOS | Darwin) os=darwin ;;
	*) die "no release archive for ${RUNNER_OS:-$(uname -s)}: set build: true (with Go on PATH) or give a binary" ;;
	esac
	case ${RUNNER_ARCH:-$(uname -m)} in
	X64 | x86_64 | amd64) arch=amd64 ;;
	ARM64 | arm64 | aarch64) arch=arm64 ;;
	*) die "no release archive for the ${RUNNER_ARCH:-$(uname -m)} architecture: set build: true (with Go on PATH) or give a binary" ;;
	esac
	if [[ $v == latest ]]; then
		dl=$releases_url/latest/download
	else
		dl=$releases_url/download/$v
	fi
	curl -fsSL --retry 3 -o "$work/checksums.txt" "$dl/checksums.txt" ||
		die "cannot download $dl/checksums.txt: is $v a release of paysandbox?"
	if [[ $v == latest ]]; then
		name=$(awk -v s="_${os}_${arch}.tar.gz" '{n=$2; sub(/^\*/, "", n)} n ~ /^paysandbox_/ && substr(n, length(n)-length(s)+1) == s {print n; exit}' "$work/checksums.txt")
	else
		name=paysandbox_${v#v}_${os}_${arch}.tar.gz
	fi
	want=$(awk -v n="$name" '$2 == n || $2 == "*" n {print $1; exit}' "$work/checksums.txt")
	[[ -n $name && -n $want ]] || die "$dl/checksums.txt lists no archive for ${os}/${arch}"
	curl -fsSL --retry 3 -o "$work/$name" "$dl/$name" || die "cannot download $dl/$name"
	got=$(sha256 "$work/$name")
	[[ $got == "$want" ]] || die "$name has SHA-256 $got, checksums.txt says $want: not using it"
	mkdir -p "$work/archive"
	tar -xzf "$work/$name" -C "$work/archive" || die "cannot unpack $name"
	[[ -f $work/archive/paysandbox ]] || die "$name has no paysandbox binary at its top"
	mv "$work/archive/paysandbox" "$work/bin/paysandbox"
	chmod +x "$work/bin/paysandbox"
	echo "paysandbox: downloaded $name ($v)"
}

# build compiles the action's own source, the repository at the action's
# ref, so the binary matches the action whatever the ref; a version tag
# stamps its version, as a release build does.
build() {
	local src v flags=()
	command -v go >/dev/null || die "build: true needs Go on PATH (actions/setup-go)"
	src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	v=$(action_version)
	if [[ -n $v ]]; then
		flags=(-ldflags "-X main.version=$v")
	fi
	echo "paysandbox: building $src/cmd/paysandbox with $(go version)"
	(cd "$src" && CGO_ENABLED=0 go build ${flags[@]+"${flags[@]}"} -o "$work/bin/paysandbox" ./cmd/paysandbox) ||
		die "go build of $src/cmd/paysandbox failed"
}

if [[ -n ${INPUT_BINARY:-} ]]; then
	[[ -f $INPUT_BINARY && -x $INPUT_BINARY ]] || die "binary: $INPUT_BINARY is not an executable file"
	bin=$(cd "$(dirname "$INPUT_BINARY")" && pwd)/$(basename "$INPUT_BINARY")
else
	if [[ ${INPUT_BUILD:-false} == true ]]; then
		build
	else
		download
	fi
	bin=$work/bin/paysandbox
fi
"$bin" version || die "$bin version failed: is it a paysandbox binary for this machine?"

# url is where the job reaches the server: an address on every interface
# is reached on loopback.
host=${addr%:*}
port=${addr##*:}
case $host in
"" | 0.0.0.0) host=127.0.0.1 ;;
"[::]") host="[::1]" ;;
esac
url=http://$host:$port

serve_args=()
if [[ -n ${INPUT_SERVE_ARGS:-} ]]; then
	read -r -a serve_args <<<"$INPUT_SERVE_ARGS"
fi
log=$work/serve.log
"$bin" serve --addr "$addr" --db :memory: ${serve_args[@]+"${serve_args[@]}"} </dev/null >"$log" 2>&1 &
pid=$!

deadline=$((SECONDS + ready_timeout))
until "$bin" healthcheck --url "$url/readyz" --timeout 2s >/dev/null 2>&1; do
	if ! kill -0 "$pid" 2>/dev/null; then
		wait "$pid" && rc=0 || rc=$?
		pid=""
		die "paysandbox serve exited (status $rc) before it was ready at $url/readyz"
	fi
	if ((SECONDS >= deadline)); then
		die "paysandbox serve was not ready at $url/readyz within ${ready_timeout}s"
	fi
	sleep 0.2
done
echo "paysandbox: ready at $url (pid $pid, log $log)"

create=(tenants create --url "$url" --output env)
[[ -z ${INPUT_TTL:-} ]] || create+=(--ttl "$INPUT_TTL")
[[ -z ${INPUT_WEBHOOK_URL:-} ]] || create+=(--webhook-url "$INPUT_WEBHOOK_URL")
[[ -z ${INPUT_WEBHOOK_VERSION:-} ]] || create+=(--webhook-version "$INPUT_WEBHOOK_VERSION")
tenant_env=$("$bin" "${create[@]}" 2>"$work/create.err") ||
	die "paysandbox tenants create failed: $(cat "$work/create.err")"
key="" secret="" tenant=""
while IFS='=' read -r k v; do
	case $k in
	PAYSANDBOX_API_KEY) key=$v ;;
	PAYSANDBOX_SIGNING_SECRET) secret=$v ;;
	PAYSANDBOX_TENANT_ID) tenant=$v ;;
	esac
done <<<"$tenant_env"
[[ -n $key && -n $secret && -n $tenant ]] || die "paysandbox tenants create answered no tenant"
echo "::add-mask::$key"
echo "::add-mask::$secret"

if [[ -n ${INPUT_SCENARIOS:-} ]]; then
	"$bin" scenarios apply "$INPUT_SCENARIOS" --url "$url" --api-key "$key" ||
		die "paysandbox scenarios apply $INPUT_SCENARIOS failed"
fi

{
	echo "PAYSANDBOX_URL=$url"
	echo "PAYSANDBOX_API_KEY=$key"
	echo "PAYSANDBOX_SIGNING_SECRET=$secret"
	echo "PAYSANDBOX_TENANT_ID=$tenant"
	# for the finish mode
	echo "PAYSANDBOX_ACTION_BIN=$bin"
	echo "PAYSANDBOX_ACTION_PID=$pid"
	echo "PAYSANDBOX_ACTION_LOG=$log"
} >>"$GITHUB_ENV"
{
	echo "url=$url"
	echo "api-key=$key"
	echo "signing-secret=$secret"
	echo "tenant-id=$tenant"
	echo "binary=$bin"
	echo "log=$log"
} >>"$GITHUB_OUTPUT"
if [[ $bin == "$work/bin/paysandbox" && -n ${GITHUB_PATH:-} ]]; then
	echo "$work/bin" >>"$GITHUB_PATH" # the CLI for the job's later steps
fi
started=true
echo "paysandbox: tenant $tenant; PAYSANDBOX_URL, PAYSANDBOX_API_KEY and PAYSANDBOX_SIGNING_SECRET are set for the next steps"
