#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: our sample tools next to the real bpftrace (Debian 12's 0.17),
# in one boot of the base kernel, on the same deterministic workloads.
#
# Why these rows, and what '@[probe]' gives that '@[func]' does not:
# docs/tools.md ("`@[func]`: the row to compare with first").
#
# What runs in the guest (each tool alone, the workload started only once
# the tool says it is attached):
#   a. 'vfs_*': bpftrace 'kprobe:vfs_* { @[probe] = count(); }', the same
#      with @[func], and ipcookie_funccount 'vfs_*'; the calls of the
#      vfs_* functions only the workload makes (mkdir, rmdir, symlink,
#      link, rename, mknod, unlink of DEMO_N iterations) must be equal in
#      all three and equal to what the workload makes.
#   b. 'tcp_*' (under bpftrace's limits) and DEMO_BIG ('s*', 2,000
#      functions or more: over them) with all three; bpftrace refuses the
#      big one with @[probe], and takes it with @[func].
#      bpftrace 'kprobe:s* { @ = count(); }' (no 'probe': one kprobe_multi
#      program, but no per-function counts) for comparison.
#   c. for every run: attach time (start to the tool's "attached" line),
#      detach time (SIGTERM to exit, printing included) and the BPF
#      programs and attachments it holds (bpftool, while attached).
#   d. ipcookie_funclatency -u do_nanosleep and bpftrace's kprobe+kretprobe
#      equivalent on three usleeps (1, 10, 100 ms).
#   f. bpftrace with contrib/bpftrace (make bpftrace) as ./bpftrace-ipc:
#      '@[probe]' in one kprobe_multi program, its probe found at run time
#      in the ip_cookie map or from cookies, over 'vfs_*' (counts equal to
#      the workload and to part a's), the seed thread's '_raw_spin*' and
#      'ksys_*', and 'vfs_*' plus DEMO_BIG (2,000 functions or more); see
#      scripts/bpftrace-guest.sh.
#   e. a summary table (parts a, b, d, f).
# Then, with the patched bpftrace, a second boot under QEMU -icount:
# scripts/bench-bpftrace.sh, the instructions one hit of its program
# costs, map against cookies (docs/results/bpftrace-icount.md; about
# 13 minutes; DEMO_BPFTRACE_ICOUNT=0 skips it).
# The guest output goes to docs/results/demo.txt (DEMO_OUT), under a header
# with the date, commit, kernel and accelerator.
#
# bpftrace in the busybox guest: it runs from /bpf with the libraries the
# initramfs builder copies (ldd: LLVM 14, clang 14, bcc, ...: ~200 MB more
# initramfs), with what scripts/guest-init.sh already sets up: /proc
# (kallsyms), sysfs (/sys/kernel/btf/vmlinux: the base kernel has BTF),
# debugfs with tracefs (0.17 reads /sys/kernel/debug/tracing when it exists,
# else /sys/kernel/tracing). It needs no BPFTRACE_* variable and no
# writable /tmp (checked with /tmp mounted read-only), nor kernel headers
# for these one-liners. __BPFTRACE_NOTIFY_PROBES_ATTACHED=1 (0.17's hook
# for its runtime tests) makes it print a line on stderr once every probe
# is attached: its "Attaching N probes..." line comes before attaching.
#
# Variables:
#   DEMO_BUILD=0      use build/ as it is (no tree sync, no builds)
#   DEMO_N=100        workload iterations of part a
#   DEMO_BIG='s*'     the pattern over bpftrace's limits
#   DEMO_BPFTRACE_PATCHED=0  no part f (bpftrace with contrib/bpftrace, which
#                     make bpftrace builds: half an hour the first time)
#   DEMO_BPFTRACE_ICOUNT=0  no -icount boot for the per-hit cost
#   DEMO_BPFTRACE_RAISED=1  also run bpftrace on DEMO_BIG with both limits
#                     raised (one program and one perf kprobe per function:
#                     minutes under TCG, so not by default)
#   DEMO_OUT=file     where the raw output goes (docs/results/demo.txt;
#                     a failed run writes DEMO_LOG.demo.txt instead)
#   DEMO_LOG=file     the VM console log (build/vm/demo.log)
#   VM_ACCEL, VM_TIMEOUT (default here 1200 s for the TCG boot; the -icount
#                     boot keeps scripts/bench-bpftrace.sh's own default unless
#                     VM_TIMEOUT is set): see scripts/vm-run.sh
# Exit status: non-zero when counts that must be equal are not, a tool
# fails where it should not, or the VM shows a kernel splat.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
S=$ROOT/scripts
OUT=${DEMO_OUT:-$ROOT/docs/results/demo.txt}
LOG=${DEMO_LOG:-$BUILD/vm/demo.log}
N=${DEMO_N:-100}
BIG=${DEMO_BIG:-s*}
RAISED=${DEMO_BPFTRACE_RAISED:-0}
DEMO_TIMEOUT=${VM_TIMEOUT:-1200}

case $N in ''|*[!0-9]*|0) echo "demo: DEMO_N must be a positive number" >&2; exit 2 ;; esac
case $BIG in *"'"*) echo "demo: DEMO_BIG must not hold a quote" >&2; exit 2 ;; esac

# 1. bpftrace from Debian's archive (bookworm main has 0.17), installed the
# way scripts/install-deps.sh installs the rest: only this target needs it.
if ! dpkg-query -W -f='${Status}\n' bpftrace 2>/dev/null | grep -q '^install ok installed$'; then
	echo "demo: installing bpftrace from Debian's archive"
	SUDO=""
	if [ "$(id -u)" != 0 ]; then
		if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
			SUDO="sudo -n"
		else
			echo "demo: need root (or passwordless sudo) to install bpftrace" >&2
			exit 1
		fi
	fi
	$SUDO apt-get update -q
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends bpftrace
fi
BPFTRACE=$(command -v bpftrace)
BT_VERSION=$("$BPFTRACE" --version)
case $BT_VERSION in
*v0.17.*) ;;
*)	echo "demo: warning: $BT_VERSION, not Debian 12's 0.17: the limits and messages this demo expects may differ" >&2 ;;
esac

# The base kernel, libbpf/bpftool and the sample tools (fast when built).
if [ "${DEMO_BUILD:-1}" != 0 ]; then
	"$S/prepare-tree.sh"
	"$S/build-kernel.sh" base
	"$S/build-tools.sh"
	"$S/build-samples.sh"
	[ "${DEMO_BPFTRACE_PATCHED:-1}" = 0 ] || "$S/build-bpftrace.sh"
fi
BTP=""
if [ "${DEMO_BPFTRACE_PATCHED:-1}" != 0 ]; then
	BTP=$BUILD/bpftrace/build/src/bpftrace
	[ -x "$BTP" ] || { echo "demo: no $BTP (make bpftrace, or DEMO_BPFTRACE_PATCHED=0)" >&2; exit 1; }
fi
for f in "$BUILD/kbuild-base/vmlinux" "$BUILD/tools/bpftool/bpftool" \
	 "$BUILD/samples/ipcookie_funccount" "$BUILD/samples/ipcookie_funclatency"; do
	[ -x "$f" ] || { echo "demo: no $f (run without DEMO_BUILD=0)" >&2; exit 1; }
done

# 2. The guest script, in a private dir (several people share build/).
mkdir -p "$BUILD/vm" "$(dirname "$OUT")"
TMP=$(mktemp -d "$BUILD/vm/demo.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
GUEST=$TMP/demo-guest.sh
# The patched bpftrace goes in as ./bpftrace-ipc, next to Debian's.
[ -z "$BTP" ] || cp "$BTP" "$TMP/bpftrace-ipc"
{
	echo "# generated by scripts/demo.sh"
	echo "N=$N"
	echo "BIG='$BIG'"
	echo "RAISED=$RAISED"
	cat "$S/guest-tool-lib.sh" "$S/demo-guest-lib.sh"
	cat <<'EOF'

FC_READY="Tracing "
TCP='tcp_*'

echo "=== bpftrace in the guest"
./bpftrace --version
echo "kernel: $(cat /proc/version)"
echo "traceable functions (available_filter_functions): $(wc -l < /sys/kernel/tracing/available_filter_functions)"

echo
echo "=== a. 'vfs_*', $N workload iterations + dd of 1,000 bytes"
run a-bpftrace 'vfs_*' 'bpftrace @[probe]' err $BT_READY workload_fs -- \
	./bpftrace -e 'kprobe:vfs_* { @[probe] = count(); }'
[ $RC = 0 ] || bad "bpftrace 'vfs_*' exited $RC"
run a-bpftrace-func 'vfs_*' 'bpftrace @[func]' err $BT_READY workload_fs -- \
	./bpftrace -e 'kprobe:vfs_* { @[func] = count(); }'
[ $RC = 0 ] || bad "bpftrace 'vfs_*' @[func] exited $RC"
run a-funccount 'vfs_*' 'ipcookie_funccount' out "$FC_READY" workload_fs -- \
	./ipcookie_funccount -v 'vfs_*'
[ $RC = 0 ] || bad "ipcookie_funccount 'vfs_*' exited $RC"
# What 0.17's 'func' names in a kretprobe (it reads the registers' IP):
# shown, not checked.
run a-bpftrace-func-ret 'vfs_*' 'bpftrace kretprobe @[func]' err $BT_READY workload_fs -- \
	./bpftrace -e 'kretprobe:vfs_* { @[func] = count(); }'
[ $RC = 0 ] || bad "bpftrace kretprobe 'vfs_*' @[func] exited $RC"
sed -n 's/^@\[\([^]]*\)\]: \([0-9]*\)$/\1 \2/p' $W/a-bpftrace-func-ret.out |
	awk '$1 ~ /^vfs_/ { v++; vn += $2; next } { o++; on += $2; if (o <= 5) ex = ex " " $1 }
		END { printf "demo: kretprobe:vfs_* @[func]: %d keys named vfs_* (%d calls), %d other keys (%d calls)%s\n",
			v, vn, o, on, o ? ", e.g." ex : "" }'

echo
echo "Why the numbers of functions differ:"
bt_unlisted 'vfs_*'

sed -n 's/^@\[kprobe:\([^]]*\)\]: \([0-9]*\)$/\1 \2/p' $W/a-bpftrace.out > $W/a-bt.counts
sed -n 's/^@\[\([^]]*\)\]: \([0-9]*\)$/\1 \2/p' $W/a-bpftrace-func.out > $W/a-btf.counts
awk 'NF == 2 && $1 ~ /^[0-9]+$/ { print $2, $1 }' $W/a-funccount.out > $W/a-fc.counts
echo
echo "Counts, 'vfs_*' (workload: calls the workload makes):"
awk -v n=$N '
	FILENAME == ARGV[1] { bt[$1] = $2; next }
	FILENAME == ARGV[2] { btf[$1] = $2; next }
	{ fc[$1] = $2 }
	END {
		split("vfs_mkdir vfs_rmdir vfs_symlink vfs_link vfs_rename vfs_mknod vfs_unlink", f, " ")
		split("1 1 1 1 1 1 3", m, " ")
		printf "%-14s %10s %17s %16s %18s  %s\n", "function", "workload", "bpftrace @[probe]", "bpftrace @[func]", "ipcookie_funccount", "equal?"
		bad = 0
		for (i = 1; i <= 7; i++) {
			w = n * m[i]; b = bt[f[i]] + 0; bf = btf[f[i]] + 0; c = fc[f[i]] + 0
			ok = (b == c && b == w && bf == w) ? "yes" : "NO"
			if (ok != "yes") bad = 1
			printf "%-14s %10d %17d %16d %18d  %s\n", f[i], w, b, bf, c, ok
		}
		split("vfs_read vfs_write", g, " ")
		for (i = 1; i <= 2; i++)
			printf "%-14s %10s %17d %16d %18d  %s\n", g[i], ">= 1000", bt[g[i]], btf[g[i]], fc[g[i]], "- (also the harness, bpftool, the tools)"
		exit bad
	}' $W/a-bt.counts $W/a-btf.counts $W/a-fc.counts || bad "'vfs_*' counts differ"
eq_a=yes
[ $fail = 0 ] || eq_a=NO

echo
echo "=== b. '$TCP' (under bpftrace's limits) and '$BIG' (over them)"
run b-tcp-bpftrace "$TCP" 'bpftrace @[probe]' err $BT_READY true -- \
	./bpftrace -e "kprobe:$TCP { @[probe] = count(); }"
[ $RC = 0 ] || bad "bpftrace '$TCP' exited $RC"
run b-tcp-bpftrace-func "$TCP" 'bpftrace @[func]' err $BT_READY true -- \
	./bpftrace -e "kprobe:$TCP { @[func] = count(); }"
[ $RC = 0 ] || bad "bpftrace '$TCP' @[func] exited $RC"
run b-tcp-funccount "$TCP" 'ipcookie_funccount' out "$FC_READY" true -- \
	./ipcookie_funccount -v "$TCP"
[ $RC = 0 ] || bad "ipcookie_funccount '$TCP' exited $RC"
bt_unlisted "$TCP"
run b-big-bpftrace "$BIG" 'bpftrace @[probe]' err $BT_READY true -- \
	./bpftrace -e "kprobe:$BIG { @[probe] = count(); }"
# 0.17 refuses at code generation (BPFTRACE_MAX_BPF_PROGS); only a run that
# attached after all is a surprise worth failing on.
if grep -q 'exceeds the current limit' $W/b-big-bpftrace.err; then
	say "bpftrace refused '$BIG', as expected: $(grep -m1 'limit' $W/b-big-bpftrace.err)"
else
	bad "bpftrace did not refuse '$BIG' with a limit message (exit $RC)"
fi
# 'func' needs no expansion: 0.17 makes one kprobe_multi program, keyed by
# the function's address, which it names when it prints.
run b-big-bpftrace-func "$BIG" 'bpftrace @[func]' err $BT_READY workload_fs -- \
	./bpftrace -e "kprobe:$BIG { @[func] = count(); }"
[ $RC = 0 ] || bad "bpftrace '$BIG' @[func] exited $RC"
run b-big-funccount "$BIG" 'ipcookie_funccount' out "$FC_READY" workload_fs -- \
	./ipcookie_funccount -v -n 15 "$BIG"
[ $RC = 0 ] || bad "ipcookie_funccount '$BIG' exited $RC"
run b-big-bpftrace-total "$BIG" 'bpftrace @ (no probe)' err $BT_READY workload_fs -- \
	./bpftrace -e "kprobe:$BIG { @ = count(); }"
[ $RC = 0 ] || bad "bpftrace '$BIG' without probe exited $RC"
bt_unlisted "$BIG"
if [ "$RAISED" = 1 ]; then
	# Both limits up, and the open files too: one program and one perf
	# event per function exceed the default 1024 (0.17 aborts with
	# "dup(fd): Too many open files").
	run b-big-bpftrace-raised "$BIG" 'bpftrace @[probe] (limits up)' err $BT_READY workload_fs -- \
		sh -c 'ulimit -n 65536 && exec env BPFTRACE_MAX_BPF_PROGS=100000 BPFTRACE_MAX_PROBES=100000 ./bpftrace -e "kprobe:$0 { @[probe] = count(); }"' "$BIG"
	[ $RC = 0 ] || bad "bpftrace '$BIG' with raised limits exited $RC"
fi

echo
echo "=== d. do_nanosleep latency, usleep 1000, 10000, 100000"
run d-funclatency do_nanosleep 'ipcookie_funclatency' out "$FC_READY" workload_sleep -- \
	./ipcookie_funclatency -u do_nanosleep
[ $RC = 0 ] || bad "ipcookie_funclatency exited $RC"
run d-bpftrace do_nanosleep 'bpftrace hist()' err $BT_READY workload_sleep -- \
	./bpftrace -e 'kprobe:do_nanosleep { @start[tid] = nsecs; }
		kretprobe:do_nanosleep /@start[tid]/ { @usecs = hist((nsecs - @start[tid]) / 1000); delete(@start[tid]); }'
[ $RC = 0 ] || bad "bpftrace do_nanosleep exited $RC"
lat_fc=$(sed -n 's/.*, count: \([0-9]*\)$/\1/p' $W/d-funclatency.out)
lat_bt=$(sed -n 's/^\[[^]]*[])] *\([0-9]*\) .*/\1/p' $W/d-bpftrace.out | awk '{ s += $1 } END { print s + 0 }')
say "do_nanosleep calls: ipcookie_funclatency ${lat_fc:-none}, bpftrace $lat_bt, workload 3"
eq_d=yes
if [ "${lat_fc:-x}" != 3 ] || [ "$lat_bt" != 3 ]; then
	eq_d=NO
	bad "do_nanosleep counts: ipcookie_funclatency ${lat_fc:-none}, bpftrace $lat_bt, want 3"
fi

EOF
	if [ -n "$BTP" ]; then
		echo "BTP=./bpftrace-ipc"
		cat "$S/bpftrace-guest.sh"
	else
		echo "eq_f=-"
	fi
	cat <<'EOF'

echo
echo "=== e. summary (attach: start to the tool's attached line; detach: SIGTERM to exit, output included;"
echo "    seconds of /proc/uptime, looked at every 50 ms)"
awk -F'|' -v ea=$eq_a -v ed=$eq_d -v ef=$eq_f '
	function row(a, b, c, d, e, f, g, h) {
		printf "%-14s %-12s %-30s %-12s %-32s %8s %8s  %s\n", a, b, c, d, e, f, g, h
	}
	BEGIN { row("pattern", "functions", "tool", "BPF progs", "attached by", "attach s", "detach s", "counts equal") }
	{
		eq = "-"
		if ($1 ~ /^a-/) eq = ea
		if ($1 == "a-bpftrace-func-ret") eq = "- (shown above)"
		if ($1 ~ /^d-/) eq = ed
		if ($1 ~ /^fc-/) eq = ef
		row("\047" $2 "\047", $4 == "" ? "-" : $4, $3, $5, $6, $7, $8, eq)
	}' $W/rows
echo "(x.xx): seconds from start to its exit with an error, before its attached line"
echo "(N TERMs): the tool missed the first SIGTERM and got N (see stop()); the time counts from the first"
[ "$RAISED" = 1 ] || echo "(bpftrace on '$BIG' with its limits raised: not run; DEMO_BPFTRACE_RAISED=1 runs it)"
echo
if [ $fail = 0 ]; then say "all checks passed"; else say "some checks FAILED"; fi
exit $fail
EOF
} > "$GUEST"

# 3. One boot: the guest script, the sample tools, bpftrace and its
# libraries (ldd, by scripts/mkinitramfs.sh) go into /bpf for this run only.
echo "demo: booting the base kernel ($(vm_accel)), log $LOG"
start=$(date +%s)
set +e
VM_TIMEOUT=$DEMO_TIMEOUT VM_EXTRA_FILES="$BPFTRACE $GUEST $BUILD/samples/ipcookie_funccount $BUILD/samples/ipcookie_funclatency${BTP:+ $TMP/bpftrace-ipc}" \
	"$S/vm-run.sh" --kernel base --log "$LOG" -- "sh /bpf/demo-guest.sh"
rc=$?
set -e
secs=$(($(date +%s) - start))

section=$(sed -n '/^HARNESS-CMD-BEGIN$/,/^HARNESS-CMD-END$/p' "$LOG.txt" | sed '1d;$d')
kernel=$(grep -m1 '^kernel: ' <<< "$section" | sed 's/^kernel: //')
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$ROOT" diff --quiet HEAD 2>/dev/null || commit="$commit (with uncommitted changes)"
# A failed run does not replace the raw file the README figures come from:
# its output goes next to the console log.
[ $rc = 0 ] || OUT=$LOG.demo.txt
{
	echo "make demo (scripts/demo.sh): raw guest output"
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "commit: $commit"
	echo "kernel: ${kernel:-unknown}"
	echo "accelerator: $(vm_accel | tr '[:lower:]' '[:upper:]'), 2 vCPUs (shared host)"
	echo "host bpftrace: $BT_VERSION (Debian package $(dpkg-query -W -f='${Version}' bpftrace))"
	[ -z "$BTP" ] || echo "patched bpftrace (./bpftrace-ipc): $("$BTP" --version) ($(find "$ROOT/contrib/bpftrace" -name "*.patch" | wc -l) patches of contrib/bpftrace on v0.17.0)"
	echo "VM run: ${secs} s, exit status $rc"
	echo
	echo "$section"
} > "$OUT"
echo "demo: guest output in $OUT (${secs} s in the VM)"
if [ $rc != 0 ]; then
	echo "demo: FAILED (exit $rc; console log $LOG.txt)" >&2
	exit "$rc"
fi

# The per-hit cost of the patched bpftrace's program, under -icount.
if [ -n "$BTP" ] && [ "${DEMO_BPFTRACE_ICOUNT:-1}" != 0 ]; then
	echo "demo: the patched bpftrace's cost per hit under QEMU -icount (scripts/bench-bpftrace.sh)"
	"$S/bench-bpftrace.sh"
fi
