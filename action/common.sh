# Functions the Action's scripts (start.sh, finish.sh) share; sourced by
# them, not run.

# error prints a workflow error annotation (newlines escaped as the runner
# wants them).
error() {
	local msg="$*"
	msg=${msg//'%'/'%25'}
	msg=${msg//$'\r'/'%0D'}
	msg=${msg//$'\n'/'%0A'}
	echo "::error title=paysandbox::$msg"
}

# log_tail LINES FILE shows the last LINES lines of the server's log FILE
# (none when it is unset or empty) in a collapsed group.
log_tail() {
	if [[ -n $2 && -s $2 ]]; then
		echo "::group::paysandbox server log (last $1 lines of $2)"
		tail -n "$1" "$2"
		echo "::endgroup::"
	fi
}
