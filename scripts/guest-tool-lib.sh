#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest helpers of the scripts that start a tracing tool in the busybox
# guest, wait until it is attached and stop it (make demo, make
# test-bpftrace, scripts/bench-bpftrace.sh). The host scripts put this
# file first in the script the guest runs; say() comes later, from the
# script's own part.
#
# Waiting neither forks nor calls nanosleep (make demo times do_nanosleep):
# "read -t" on a FIFO nobody writes, fd 9. Timestamps come from
# /proc/uptime (10 ms steps), read by the shell itself.
mkfifo /tmp/guest-tool-never
exec 9<>/tmp/guest-tool-never

nap() { read -t "${1:-0.05}" -u 9 _; }	# seconds, default 0.05
stamp() { read -r T _ < /proc/uptime; }	# T: guest seconds, 2 decimals

has_line() {	# FILE TEXT
	while IFS= read -r l; do
		case $l in *"$2"*) return 0 ;; esac
	done < "$1"
	return 1
}

# PID has exited (a child not yet waited for is a zombie, which kill -0
# does not tell).
gone() {
	[ -r /proc/$1/stat ] || return 0
	local st
	read -r _ _ st _ < /proc/$1/stat
	[ "$st" = Z ]
}

# PID sits in epoll_wait (232), epoll_pwait (281) or epoll_pwait2 (441):
# bpftrace 0.17's poll loop, where it is between two prints.
in_poll() {
	local sc=running
	{ read -r sc _ < /proc/$1/syscall; } 2> /dev/null
	case $sc in 232|281|441) return 0 ;; esac
	return 1
}

# Wait until FILE holds a line with TEXT (0), or PID exits first (1), or
# 600 s pass (2).
wait_line() {	# FILE TEXT PID
	stamp; local end=${T%.*}; end=$((end + 600))
	while :; do
		has_line "$1" "$2" && return 0
		if gone "$3"; then has_line "$1" "$2"; return; fi
		stamp; [ "${T%.*}" -lt $end ] || return 2
		nap
	done
}

# SIGTERM PID and wait for its exit status. bpftrace 0.17 can miss the
# signal: its handler only sets a flag, which poll_perf_events() reads
# only when epoll_wait() fails with EINTR, so a signal that lands while it
# runs between two of its 100 ms epoll_wait() calls leaves it polling for
# ever. When PID sits in epoll_wait at two looks 0.5 s apart, the signal
# is sent again (bpftrace's detaching and printing make no such call; its
# final drain waits 100 ms once). TERMS counts the signals; a detach
# time counts from the first.
stop() {	# PID
	local last seen=0
	kill -TERM $1
	TERMS=1
	# centiseconds of uptime (two decimals: never a leading 0 this late)
	stamp; last=${T%.*}${T#*.}
	while ! gone $1; do
		nap
		stamp
		[ $((${T%.*}${T#*.} - last)) -ge 50 ] || continue
		last=${T%.*}${T#*.}
		if in_poll $1; then seen=$((seen + 1)); else seen=0; fi
		if [ $seen -ge 2 ]; then
			say "pid $1 still in epoll_wait after SIGTERM: it missed it; sending it again"
			kill -TERM $1
			TERMS=$((TERMS + 1))
			seen=0
		fi
	done
	wait $1
}
