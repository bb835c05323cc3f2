#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the VM (busybox sh), for scripts/bench.sh: run ./bench once per line
# of the plan file $1, "ROUND ARGS...", with ARGS as they are.  Prints what
# scripts/bench-report.py reads: "ipc-env:" and "ipc-vuln:" first (IPC_ENV
# describes the plan), "ipc-run:" before each run, the bench's "Summary"
# and "ipc-*" lines, "ipc-fail:" for a run that printed none of them, and
# "ipc-done" at the end.
set -u

echo "ipc-env: ${IPC_ENV:-} nproc=$(nproc)"
echo "ipc-env: kernel=$(uname -r) cmdline='$(cat /proc/cmdline)'"
for f in /sys/devices/system/cpu/vulnerabilities/*; do
	[ -f "$f" ] && echo "ipc-vuln: $(basename "$f")=$(cat "$f")"
done
while read -r round args; do
	case $round in ""|"#"*) continue ;; esac
	echo "ipc-run: round=$round $args"
	# shellcheck disable=SC2086
	./bench $args < /dev/null 2>&1 | grep -E '^(Summary|ipc-)' ||
		echo "ipc-fail: $args"
done < "$1"
echo "ipc-done"
