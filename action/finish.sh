#!/usr/bin/env bash
# The finish mode of the paysandbox GitHub Action (action.yml at the
# repository's root), run with `if: always()` after the job's tests: it
# appends the tenant's markdown report to $GITHUB_STEP_SUMMARY, writes the
# JUnit report, writes the tenant's snapshot (never with secrets) when the
# job failed, stops the server the start mode started, and exits 1 when
# the report holds a kind --fail-on names (or when the report cannot be
# read).
#
# Inputs are environment variables, as action.yml passes them:
#   INPUT_JOB_STATUS  the job's status (${{ job.status }}): a composite
#                     action cannot read it itself
#   INPUT_SUMMARY     "false": no job summary
#   INPUT_JUNIT       where the JUnit XML goes ("": none)
#   INPUT_SNAPSHOT    where the snapshot of a failed job goes ("": none)
#   INPUT_FAIL_ON     report kinds that fail the step: hints,webhooks,migration
# and what the start mode exported: PAYSANDBOX_URL, PAYSANDBOX_API_KEY,
# PAYSANDBOX_ACTION_BIN, PAYSANDBOX_ACTION_PID, PAYSANDBOX_ACTION_LOG.
set -euo pipefail

# shellcheck disable=SC1091 # common.sh is checked on its own
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

url=${PAYSANDBOX_URL:-}
key=${PAYSANDBOX_API_KEY:-}
bin=${PAYSANDBOX_ACTION_BIN:-}
pid=${PAYSANDBOX_ACTION_PID:-}
log=${PAYSANDBOX_ACTION_LOG:-}
status=${INPUT_JOB_STATUS:-}

if [[ -z $url || -z $key || -z $bin || -z $pid ]]; then
	# The start mode failed (and said why) or did not run in this job.
	echo "::warning title=paysandbox::no sandbox was started by this action in this job: no report"
	exit 0
fi

# stop ends the server: SIGTERM lets it finish in-flight requests and
# close its store; one still running after 15 s gets SIGKILL.
# shellcheck disable=SC2317 # the EXIT trap calls it
stop() {
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		local i
		for ((i = 0; i < 150; i++)); do
			kill -0 "$pid" 2>/dev/null || return 0
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
	fi
}
trap stop EXIT

# run runs the paysandbox command named by its first argument (its
# arguments follow) against the tenant and turns its error into an
# annotation; it answers the command's status.
run() {
	local name=$1 out rc=0
	shift
	out=$("$bin" "$@" --url "$url" --api-key "$key" 2>&1 >/dev/null) || rc=$?
	if ((rc != 0)); then
		error "paysandbox $name: ${out#Error: }"
	fi
	return "$rc"
}


if ! "$bin" healthcheck --url "$url/healthz" --timeout 5s >/dev/null 2>&1; then
	error "the paysandbox server at $url (pid $pid) no longer answers: no report; its log follows"
	log_tail 100 "$log"
	exit 1
fi

failed=0
if [[ ${INPUT_SUMMARY:-true} != false && -n ${GITHUB_STEP_SUMMARY:-} ]]; then
	if out=$("$bin" report --format markdown --url "$url" --api-key "$key" 2>&1); then
		printf '%s\n' "$out" >>"$GITHUB_STEP_SUMMARY"
	else
		error "paysandbox report: ${out#Error: }"
		failed=1
	fi
fi

if [[ -z $status ]]; then
	echo "::warning title=paysandbox::job-status is not set: pass job-status: \${{ job.status }} to keep the tenant's snapshot of a failed job"
elif [[ $status == failure && -n ${INPUT_SNAPSHOT:-} ]]; then
	# Without --include-secrets: the file holds no API key or signing
	# secret, so it can be an artifact. --allow-skipped: a partial
	# snapshot is still what a developer replays.
	if run "tenants export" tenants export --allow-skipped --output "$INPUT_SNAPSHOT"; then
		echo "paysandbox: the tenant's snapshot is in $INPUT_SNAPSHOT (paysandbox tenants import replays it locally)"
	else
		failed=1
	fi
fi

report=(report --format junit --output "${INPUT_JUNIT:-/dev/null}")
if [[ -n ${INPUT_FAIL_ON:-} ]]; then
	report+=(--fail-on "$INPUT_FAIL_ON")
fi
if [[ -n ${INPUT_JUNIT:-} || -n ${INPUT_FAIL_ON:-} ]]; then
	run report "${report[@]}" || failed=1
	if [[ -n ${INPUT_JUNIT:-} && -s $INPUT_JUNIT ]]; then
		echo "paysandbox: JUnit report in $INPUT_JUNIT"
	fi
fi
if [[ $status == failure ]]; then
	log_tail 100 "$log"
fi
exit "$failed"
