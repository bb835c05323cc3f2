#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run the IP_COOKIE benchmarks of bench_ip_cookie.c, interleaved: every
# round runs every variant once, so slow drifts of the machine hit all
# variants alike.  Plain POSIX sh: it also runs under busybox in the VM.
#   QUICK=1   fewer sizes and rounds, shorter samples (a few minutes)
#   ROUNDS=n  rounds of the throughput benchmarks
#   BENCH=./bench
#   SET=gen_lookup  only what the inlined lookup changes (kprobe.multi and
#             fentry hot paths, lookup micro-benchmark), for comparing
#             kernels with and without ip_cookie_map_gen_lookup()
#   ONESHOT=0 skip the one-shot measurements (memory, populate, attach)
#   SET=hot   the throughput families only (kprobe.multi N sweep, fentry,
#             uprobe.multi, lookups, {ip, link}), with short samples: for a guest whose
#             clock counts instructions (QEMU -icount), where every run
#             gives the same figure and the one-shot timings mean nothing
#   SET=kmulti_cookie  as SET=hot, the kprobe.multi cookie variants only,
#             for comparing kernels whose bpf_kprobe_multi_cookie() differs
# A lookup that misses prints "ipc-fail:"; the report fails the run on it.
set -u

BENCH=${BENCH:-./bench}
QUICK=${QUICK:-0}
if [ "${SET:-}" = hot ] || [ "${SET:-}" = kmulti_cookie ]; then
	ROUNDS=${ROUNDS:-3}
	RUN="-w 1 -d 2 -a --ipc-batch 1000"
	if [ "$QUICK" = 1 ]; then
		KMULTI_N="1 100 1000 10000"
		LOOKUP_N="1 1000 100000 1000000"
	else
		KMULTI_N="1 100 1000 10000 0"
		LOOKUP_N="1 10 100 1000 10000 100000 1000000"
	fi
elif [ "$QUICK" = 1 ]; then
	ROUNDS=${ROUNDS:-2}
	RUN="-w 1 -d 2 -a --ipc-batch 1000"
	KMULTI_N="1 100 1000 10000"
	LOOKUP_N="1 1000 100000 1000000"
	MEM_N="1000,10000,100000,1000000"
	POP_N="1000,10000"
	ATTACH_N="10000"
	ONESHOT_ROUNDS=1
else
	ROUNDS=${ROUNDS:-3}
	RUN="-w 2 -d 5 -a --ipc-batch 1000"
	KMULTI_N="1 100 1000 10000 0"	# 0: every attachable function
	LOOKUP_N="1 10 100 1000 10000 100000 1000000"
	MEM_N="1000,10000,100000,1000000"
	POP_N="1000,10000,100000"
	ATTACH_N="10000,50000,0"
	ONESHOT_ROUNDS=2
fi

run() {
	echo "ipc-run: round=$r $*"
	# shellcheck disable=SC2086
	$BENCH $RUN "$@" 2>&1 | grep -E '^(Summary|ipc-)' || echo "ipc-fail: $*"
}

echo "ipc-env: quick=$QUICK rounds=$ROUNDS run='$RUN' nproc=$(nproc)"
echo "ipc-env: kernel=$(uname -r) cmdline='$(cat /proc/cmdline)'"
for f in /sys/devices/system/cpu/vulnerabilities/*; do
	[ -f "$f" ] && echo "ipc-vuln: $(basename "$f")=$(cat "$f")"
done

# One pass over the hot-path benchmarks: VARIANTS then sizes.
fentry() {
	for v in $1; do
		run "ipc-fentry-$v"
	done
}

umulti() {
	for v in $1; do
		run "ipc-umulti-$v"
	done
}

kmulti() {
	vs=$1
	shift
	for n; do
		for v in $vs; do
			run "ipc-kmulti-$v" --ipc-funcs "$n"
		done
	done
}

lookup() {
	vs=$1
	shift
	for n; do
		for v in $vs; do
			run "ipc-lookup-$v" --ipc-entries "$n"
		done
	done
}

r=0
if [ "${SET:-}" = kmulti_cookie ]; then
	for r in $(seq 1 "$ROUNDS"); do
		# shellcheck disable=SC2086
		kmulti "empty cookie cookie_array" $KMULTI_N
	done
	echo "ipc-done"
	exit 0
fi
if [ "${SET:-}" = gen_lookup ]; then
	for r in $(seq 1 "$ROUNDS"); do
		fentry "empty cookie ipc hash"
		kmulti "empty cookie hash ipc ipc_link" 1 1000
		lookup "none ipc hash" 1 1000 100000
	done
	echo "ipc-done"
	exit 0
fi

for r in $(seq 1 "$ROUNDS"); do
	fentry "empty funcip cookie cookie_array ipc kfunc hash wide_array wide_ipc"
	umulti "empty offset offset_link cookie cookie_array ipc ipc_link"
	# shellcheck disable=SC2086
	kmulti "empty funcip funcip_link cookie cookie_array hash ipc kfunc ipc_link" $KMULTI_N
	# shellcheck disable=SC2086
	lookup "none ipc hash array" $LOOKUP_N
	[ "${SET:-}" = hot ] && continue
	# Lookups while another CPU resizes; the quiet figure to compare
	# with is this round's ipc-lookup-ipc run above.
	for n in 1000 100000; do
		run ipc-lookup-ipc --ipc-entries "$n" --ipc-resize
	done
done
if [ "${SET:-}" = hot ]; then
	echo "ipc-done"
	exit 0
fi

if [ "${ONESHOT:-1}" = 0 ]; then
	echo "ipc-done"
	exit 0
fi
r=0
$BENCH ipc-mem --ipc-sizes "$MEM_N" --ipc-rounds "$ONESHOT_ROUNDS" 2>&1 |
	grep '^ipc-' || echo "ipc-fail: ipc-mem"
$BENCH ipc-populate --ipc-sizes "$POP_N" --ipc-rounds "$ONESHOT_ROUNDS" 2>&1 |
	grep '^ipc-' || echo "ipc-fail: ipc-populate"
$BENCH ipc-attach --ipc-sizes "$ATTACH_N" --ipc-rounds "$ONESHOT_ROUNDS" 2>&1 |
	grep '^ipc-' || echo "ipc-fail: ipc-attach"
echo "ipc-done"
