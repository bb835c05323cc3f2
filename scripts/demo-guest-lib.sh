#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest half of make demo and make test-bpftrace: helpers that run a
# tracing tool, wait until it is attached, take bpftool's inventory, run
# a workload and stop it, timing each step. The host scripts put it next
# to scripts/guest-tool-lib.sh in the script the guest runs (after the
# variables they set).

# Runs in the busybox guest, in /bpf, after scripts/guest-tool-lib.sh
# (nap, stamp, wait_line, stop).
set -u
W=/tmp/demo
mkdir -p $W
: > $W/f
: > $W/rows
fail=0

say() { echo "demo: $*"; }
bad() { echo "demo: FAIL: $*"; fail=1; }

# What PID holds, from bpftool while it is attached: PROGS ("67 kprobe":
# how many, of which type), FUNCS (functions attached: perf-event kprobes
# plus the func_cnt of kprobe_multi links) and ATT (how).
inventory() {	# PID
	./bpftool prog show > $W/prog.txt 2>&1
	./bpftool link show > $W/link.txt 2>&1
	./bpftool perf show > $W/perf.txt 2>&1
	PROGS=$(awk -v p="($1)" '
		/^[0-9]+: / { t = $2 }
		/^[ \t]+pids / && index($0, p) { n++; if (!c[t]++) k++ }
		END { s = ""; for (t in c) s = s (s ? ", " : "") c[t] " " t
		      if (k == 1) print s; else printf "%d (%s)\n", n, s }' $W/prog.txt)
	set -- $(awk -v p="($1)" '
		/^[0-9]+: / { t = $2; f = 0 }
		/func_cnt/ { for (i = 1; i < NF; i++) if ($i == "func_cnt") f = $(i + 1) }
		/^[ \t]+pids / && index($0, p) && t == "kprobe_multi" { n++; fc += f }
		END { printf "%d %d", n, fc }' $W/link.txt) $(grep -c "^pid $1 " $W/perf.txt)
	FUNCS=$(($2 + $3))
	ATT=""
	[ "$1" = 0 ] || ATT="$1 kprobe_multi link ($2 funcs)"
	[ "$3" = 0 ] || ATT="${ATT:+$ATT + }$3 perf-event kprobes"
	[ -n "$ATT" ] || ATT="none"
}

# run ID PATTERN TOOL READY_FILE READY_TEXT WORKLOAD -- COMMAND...
# Starts COMMAND with stdout in $W/ID.out and stderr in $W/ID.err, waits
# for READY_TEXT in READY_FILE (out|err), takes the inventory, runs
# WORKLOAD, sends SIGTERM and waits for the exit (stop()). A command that exits
# before its ready line gets no inventory: "refused" when bpftrace names a
# limit, else "failed". Appends a row to $W/rows:
# id|pattern|tool|functions|programs|attachments|attach s|detach s|rc
run() {
	local id=$1 pat=$2 tool=$3 rf=$4 txt=$5 wl=$6 pid t0 t1 t2 t3 rc
	shift 7
	say "$id: $*"
	# both files exist before the first look at them
	: > $W/$id.out
	: > $W/$id.err
	stamp; t0=$T
	"$@" > $W/$id.out 2> $W/$id.err &
	pid=$!
	if wait_line $W/$id.$rf "$txt" $pid; then
		stamp; t1=$T
		inventory $pid
		$wl
		stamp; t2=$T
		stop $pid; rc=$?
		stamp; t3=$T
		det=$(awk -v a=$t2 -v b=$t3 'BEGIN { printf "%.2f", b - a }')
		[ $TERMS = 1 ] || det="$det ($TERMS TERMs)"
		echo "$id|$pat|$tool|$FUNCS|$PROGS|$ATT|$(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", b - a }')|$det|$rc" >> $W/rows
	else
		[ $? = 2 ] && kill -KILL $pid
		wait $pid; rc=$?
		stamp; t1=$T
		# the number of functions its error message gives
		FUNCS=$(sed -n -e 's/.*more than \([0-9]*\) BPF programs.*/\1/p' \
			-e 's/.*attach to \([0-9]*\) probes.*/\1/p' $W/$id.err | head -1)
		how="failed, exit $rc"
		grep -q 'exceeds the current limit' $W/$id.err && how="refused, exit $rc"
		echo "$id|$pat|$tool|${FUNCS:+$FUNCS (error)}|-|$how|($(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", b - a }'))|-|$rc" >> $W/rows
	fi
	echo "--- $id stdout"; cat $W/$id.out
	echo "--- $id stderr"; cat $W/$id.err
	echo "--- $id: exit $rc; functions ${FUNCS:--}; BPF programs ${PROGS:-not counted}; attached by ${ATT:-not counted}"
	FUNCS="" PROGS="" ATT=""
	RC=$rc
}

# Part a's workload: per iteration one call of each of vfs_mkdir,
# vfs_symlink, vfs_link, vfs_rename, vfs_mknod and vfs_rmdir and three of
# vfs_unlink, on tmpfs; nothing else in the guest calls them meanwhile
# (the waits, bpftool and the tools do not). Then 1,000 one-byte reads and
# writes: vfs_read and vfs_write, which the tools' own output, bpftool and
# the shell call too, so their counts are shown but not compared.
workload_fs() {
	local i=0
	while [ $i -lt $N ]; do
		mkdir $W/d
		ln -s d $W/s
		ln $W/f $W/h
		mv $W/h $W/h2
		mkfifo $W/p
		rm $W/s $W/h2 $W/p
		rmdir $W/d
		i=$((i + 1))
	done
	dd if=/dev/zero of=/dev/null bs=1 count=1000 2> /dev/null
}
workload_sleep() { usleep 1000; usleep 10000; usleep 100000; }

# The traceable functions matching PATTERN (glob of '*' and '?') against
# what bpftrace -l lists: 0.17 lists each name once (ipcookie_funccount
# traces every definition of a static name defined twice) and skips the names
# holding ".part." (ProbeMatcher::get_symbols_from_file()).
bt_unlisted() {	# PATTERN
	local re
	re="^$(echo "$1" | sed -e 's/[.]/\\./g' -e 's/[*]/.*/g' -e 's/?/./g')\$"
	./bpftrace -l "kprobe:$1" | sed 's/^kprobe://' | sort -u > $W/bt-list
	awk '{ print $1 }' /sys/kernel/tracing/available_filter_functions |
		grep -e "$re" > $W/tr-all
	sort -u $W/tr-all > $W/tr-list
	grep -vxFf $W/bt-list $W/tr-list > $W/unlisted
	echo "'$1': $(wc -l < $W/tr-all) traceable functions, $(wc -l < $W/tr-list) names; bpftrace -l lists $(wc -l < $W/bt-list); names it does not list ($(wc -l < $W/unlisted), first 12): $(head -12 $W/unlisted | tr '\n' ' ')"
}

# bpftrace's hook for its runtime tests: a line on stderr once every probe
# is attached (its "Attaching N probes..." line comes before attaching).
export __BPFTRACE_NOTIFY_PROBES_ATTACHED=1
BT_READY=__BPFTRACE_NOTIFY_PROBES_ATTACHED
