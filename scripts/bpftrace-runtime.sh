#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bpftrace's own runtime test suite (tests/runtime: the Python engine and
# the suite files) run in the busybox VM for one bpftrace binary; writes
# the result of every test to FILE.
#   scripts/bpftrace-runtime.sh --bpftrace BIN --tests DIR --testprogs DIR
#       --out FILE [--testlibs DIR] [--filter PATTERN]... [--disable LIST]
#       [--kernel base|debug] [--timeout S] [--timeout-scale N]
#       [--bpftool FILE]
# --tests: a tests/runtime dir (engine/, scripts/, outputs/, the suites),
#   from a source tree (engine/cmake_vars.py still a cmake template: its
#   @VARS@ become 0, so no AOT) or a cmake build dir (build/tests/runtime).
# --testprogs: the compiled testprogs (build/tests/testprogs, or
#   build/tests), or the sources (tests/testprogs/*.c), then built here as
#   tests/CMakeLists.txt does (gcc -g -O0 -no-pie; -DHAVE_SYSTEMTAP_SYS_SDT_H
#   only when the host has sys/sdt.h). --testlibs: the same for testlibs
#   (default: the testlibs dir next to the testprogs).
# --filter: the engine's filter, a glob over SUITE.TEST (fnmatch, as
#   main.py --filter); given more than once or as 'a|b': any of them.
#   Default: every test. --disable: SUITE.TEST,... skipped by the engine
#   (its RUNTIME_TEST_DISABLE: for a test that would hang the run).
# --timeout-scale N: every timeout of the engine (the 5 s it waits for
#   bpftrace to attach and each test's TIMEOUT) times N, for TCG guests;
#   written into FILE's header. --timeout: the VM's (vm-run.sh, 3600 s).
#
# The guest gets, through VM_EXTRA_ROOT (scripts/mkinitramfs.sh), the
# binary as /bt/bpftrace and the tests as /bt/runtime, /bt/testprogs,
# /bt/testlibs (the engine runs in /bt, as in bpftrace's build dir), our
# bpftool as /usr/sbin/bpftool (the tests name that path), Debian's
# python3.11 (also as python) with its stdlib (without test, idlelib,
# tkinter, ensurepip, lib2to3, pydoc_data, config-*, __pycache__), what
# the tests run that busybox lacks (bash, pkill, nm, strace; env at
# /usr/bin/env), the headers of libc6-dev and linux-libc-dev, the booted
# kernel's vmlinux without its debug info as /boot/vmlinux-RELEASE (for
# kprobe offset checks), and the shared libraries of all of them. Not
# there, so the tests needing them skip or fail, listed in FILE with why:
# the kernel's own headers, a C compiler, nft and nf_tables, perf hardware
# counters; USDT probes only when the testprogs were built with sys/sdt.h
# (those of bpftrace's cmake build dir are when its configure found it).
#
# FILE: one line per test (PASS, FAIL with the reason, SKIP with the
# engine's reason), the counts, then the guest's whole output. Next to
# it, FILE.console.log (.txt): the VM console. Exit status: non-zero when
# the engine reports a failure, the VM shows a kernel splat or times out,
# or no test ran.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
BPFTRACE="" TESTS="" TESTPROGS="" TESTLIBS="" OUT="" FILTER="" DISABLE=""
KERNEL=base VM_TIMEOUT_S=${VM_TIMEOUT:-3600} SCALE=1
BPFTOOL=$BUILD/tools/bpftool/bpftool
PYTHON=/usr/bin/python3.11
usage() { sed -n '6,9s/^# //p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--bpftrace)	BPFTRACE=$2 ;;
	--tests)	TESTS=$2 ;;
	--testprogs)	TESTPROGS=$2 ;;
	--testlibs)	TESTLIBS=$2 ;;
	--out)		OUT=$2 ;;
	--filter)	FILTER=${FILTER:+$FILTER|}$2 ;;
	--disable)	DISABLE=${DISABLE:+$DISABLE,}$2 ;;
	--kernel)	KERNEL=$2 ;;
	--timeout)	VM_TIMEOUT_S=$2 ;;
	--timeout-scale) SCALE=$2 ;;
	--bpftool)	BPFTOOL=$2 ;;
	*)		usage ;;
	esac
	shift 2
done
if [ -z "$BPFTRACE" ] || [ -z "$TESTS" ] || [ -z "$TESTPROGS" ] || [ -z "$OUT" ]; then
	usage
fi
die() { echo "bpftrace-runtime: $*" >&2; exit 2; }
[ -d "$TESTS/runtime/engine" ] && TESTS=$TESTS/runtime
[ -d "$TESTPROGS/testprogs" ] && TESTPROGS=$TESTPROGS/testprogs
[ -x "$BPFTRACE" ] || die "no bpftrace binary $BPFTRACE"
[ -f "$TESTS/engine/main.py" ] || die "$TESTS is not a tests/runtime dir (no engine/main.py)"
[ -d "$TESTPROGS" ] || die "no testprogs dir $TESTPROGS"
TESTLIBS=${TESTLIBS:-$(dirname "$TESTPROGS")/testlibs}
[ -x "$BPFTOOL" ] || die "no bpftool $BPFTOOL (make tools, or --bpftool FILE)"
[ -x "$PYTHON" ] || die "no $PYTHON (apt-get install python3.11)"
[[ $SCALE =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--timeout-scale wants a number"
mkdir -p "$(dirname "$OUT")"
OUT=$(realpath "$OUT")

mkdir -p "$BUILD"
W=$(mktemp -d "$BUILD/bpftrace-runtime.XXXXXX")
trap 'rm -rf "$W"' EXIT
R=$W/root			# VM_EXTRA_ROOT: copied onto the guest's /
BT=$R/bt
mkdir -p "$BT/testprogs" "$BT/testlibs" "$R/usr/sbin" "$R/usr/bin" "$R/usr/lib" "$R/bin"

# 1. bpftrace and the tests.
cp -L "$BPFTRACE" "$BT/bpftrace"
cp -rL "$TESTS" "$BT/runtime"
find "$BT/runtime" -name __pycache__ -prune -exec rm -rf {} +
# A source tree's engine/cmake_vars.py is a template cmake fills in.
sed -i 's/@[A-Za-z_]*@/0/g' "$BT/runtime/engine/cmake_vars.py"

# testlibs, then testprogs (usdt_lib links libusdt_tp.so): binaries are
# copied, sources built.
SDT=()
[ -f /usr/include/sys/sdt.h ] && SDT=(-DHAVE_SYSTEMTAP_SYS_SDT_H)
built=""
if [ -d "$TESTLIBS" ]; then
	for f in "$TESTLIBS"/*; do
		case $f in
		*.so)	cp -L "$f" "$BT/testlibs/" ;;
		*.c)	n=$(basename "$f" .c)
			gcc -g -O0 -fPIC -shared "${SDT[@]}" -o "$BT/testlibs/lib$n.so" "$f" ||
				echo "bpftrace-runtime: warning: testlib $n does not build" >&2
			chmod -x "$BT/testlibs/lib$n.so" 2>/dev/null || true
			built="$built lib$n.so" ;;
		*.h)	cp "$f" "$BT/testlibs/" ;;
		esac
	done
fi
for f in "$TESTPROGS"/*; do
	[ -f "$f" ] || continue
	case $f in
	*.c)	n=$(basename "$f" .c)
		extra=()
		[ "$n" = usdt_lib ] && extra=(-I"$BT/testlibs" -L"$BT/testlibs" -lusdt_tp "-Wl,-rpath,/bt/testlibs")
		gcc -g -O0 -no-pie -Wno-undef "${SDT[@]}" -o "$BT/testprogs/$n" "$f" "${extra[@]}" ||
			echo "bpftrace-runtime: warning: testprog $n does not build" >&2
		built="$built $n" ;;
	*)	if [ -x "$f" ]; then cp -L "$f" "$BT/testprogs/"; fi ;;
	esac
done
[ -z "$built" ] || echo "bpftrace-runtime: built from source:$built${SDT[*]:+ (with sys/sdt.h)}"
[ -n "$(ls "$BT/testprogs")" ] || die "no testprogs in $TESTPROGS"

# 2. What the engine and the tests call.
cp -L "$BPFTOOL" "$R/usr/sbin/bpftool"
cp -L "$PYTHON" "$R/usr/bin/python3.11"
ln -s python3.11 "$R/usr/bin/python3"
# The stdlib; -h: sitecustomize.py is a link to /etc.
tar -C /usr/lib -chf - --exclude=test --exclude=idlelib --exclude=tkinter \
	--exclude=ensurepip --exclude=lib2to3 --exclude=pydoc_data \
	--exclude='config-3.*' --exclude=__pycache__ python3.11 | tar -C "$R/usr/lib" -xf -
ln -s python3 "$R/usr/bin/python"
cp -L /bin/bash "$R/bin/bash"
ln -s /bin/busybox "$R/usr/bin/env"
# Tools the tests call that busybox lacks, from the host when there.
for t in pkill nm strace; do
	p=$(command -v "$t" || true)
	if [ -n "$p" ]; then
		cp -L "$p" "$R/usr/bin/$t"
	else
		echo "bpftrace-runtime: warning: no $t on the host: the tests calling it fail" >&2
	fi
done
# The headers of libc6-dev and linux-libc-dev: bpftrace parses a program's
# own struct definitions and --include with them (builtin.curtask_field,
# call.strerror). Not the kernel's headers (/lib/modules/*/build).
dpkg -L libc6-dev linux-libc-dev 2>/dev/null | grep '^/usr/include/' | while read -r f; do
	if [ -f "$f" ]; then printf '%s\0' "$f"; fi
done | xargs -0 -r cp -L --parents -t "$R"
# The booted kernel's vmlinux (symbols only) where bpftrace looks for it
# to check a kprobe offset against the function's size
# (probe.kprobe_offset_fail_size).
KB=$BUILD/kbuild-$KERNEL
if [ -f "$KB/vmlinux" ] && [ -f "$KB/include/config/kernel.release" ]; then
	mkdir -p "$R/boot"
	objcopy --strip-debug "$KB/vmlinux" "$R/boot/vmlinux-$(cat "$KB/include/config/kernel.release")"
fi

# 3. The guest side: run-engine.py wraps the engine's main.py (filters,
# timeouts), guest.sh runs it.
printf '%s\n' "${FILTER:-*}" > "$BT/filter"
printf '%s\n' "$DISABLE" > "$BT/disable"
printf '%s\n' "$SCALE" > "$BT/timeout-scale"
cat > "$BT/run-engine.py" <<'EOF'
# Guest side of scripts/bpftrace-runtime.sh: bpftrace's runtime/engine/main.py
# with 'a|b' filters (any glob matches) and every timeout times a scale.
# And a guard: the engine waits for a test's output with no time limit
# after its own timeout fired (p.communicate()), forever when a process
# the test left behind holds the pipe (signals.sigint quit, when bpftrace
# attaches after the SIGINT meant for it; other.sigint under heavy load;
# a bpftrace on 'k:*' that never exits). After HANG_S such a wait kills
# the test's process group (the engine starts each with setsid) and says
# so; the test then fails as the engine decides (a timeout).
import fnmatch
import os
import signal
import subprocess
import sys
import threading

pattern = sys.argv[1]
scale = float(sys.argv[2])
sys.argv = sys.argv[:1]
sys.path.insert(0, os.path.join(os.getcwd(), "runtime", "engine"))
import runner
import parser
import main

HANG_S = 60 * scale


class GuardedPopen(subprocess.Popen):
    # A timer, not communicate(timeout=): that would read the pipe past
    # what the engine's readline() has buffered, and lose it.
    def communicate(self, input=None, timeout=None):
        if timeout is not None:
            return super().communicate(input, timeout)
        timer = threading.Timer(HANG_S, self.hung)
        timer.daemon = True
        timer.start()
        try:
            return super().communicate(input)
        finally:
            timer.cancel()

    def hung(self):
        print("BT-HUNG: killed the test's processes after %d s of waiting" % HANG_S,
              flush=True)
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass


runner.subprocess.Popen = GuardedPopen

if scale != 1:
    runner.ATTACH_TIMEOUT = int(round(runner.ATTACH_TIMEOUT * scale))
    runner.DEFAULT_TIMEOUT = int(round(runner.DEFAULT_TIMEOUT * scale))
    read = parser.TestParser.read

    def scaled_read(file_name):
        suite, tests = read(file_name)
        return suite, [t._replace(timeout=int(round(t.timeout * scale))) for t in tests]

    parser.TestParser.read = staticmethod(scaled_read)
main.fnmatch = lambda name, pat: any(fnmatch.fnmatch(name, p) for p in pat.split("|"))
main.main(pattern, False)
EOF
cat > "$BT/guest.sh" <<'EOF'
# Guest side of scripts/bpftrace-runtime.sh (busybox sh, cwd /bt).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export BPFTRACE_RUNTIME_TEST_EXECUTABLE=/bt
# The testprogs of a cmake build dir have its testlibs dir as RUNPATH, a
# host path: load /bt/testlibs, their ./testlibs here, as there.
export LD_LIBRARY_PATH=/bt/testlibs:$LD_LIBRARY_PATH
RUNTIME_TEST_DISABLE=$(cat /bt/disable)
export RUNTIME_TEST_DISABLE
cd /bt || exit 1
echo "BT-KERNEL: $(uname -r)"
echo "BT-VERSION: $(./bpftrace --version 2>&1)"
echo "BT-INFO-BEGIN"
./bpftrace --info 2>&1
echo "BT-INFO-END"
echo "BT-ENGINE-BEGIN"
start=$(date +%s)
(python3 -u -B run-engine.py "$(cat /bt/filter)" "$(cat /bt/timeout-scale)"; echo $? > /tmp/engine.rc) 2>&1 | cat
rc=$(cat /tmp/engine.rc 2>/dev/null || echo 99)
echo "BT-ENGINE-END"
echo "BT-ENGINE-RC: $rc"
echo "BT-ENGINE-SECONDS: $(($(date +%s) - start))"
exit "$rc"
EOF

# 4. The VM.
LOG=$OUT.console.log
echo "bpftrace-runtime: $BPFTRACE, tests $TESTS, filter '${FILTER:-*}', $KERNEL kernel"
t0=$(date +%s)
set +e
VM_EXTRA_ROOT=$R "$ROOT/scripts/vm-run.sh" --kernel "$KERNEL" --timeout "$VM_TIMEOUT_S" \
	--log "$LOG" -- 'sh /bt/guest.sh'
vrc=$?
set -e
secs=$(($(date +%s) - t0))

# 5. The results list, from the engine's lines:
#   [ RUN      ] s.t   [       OK ] s.t   [  FAILED  ] s.t   [  TIMEOUT ] s.t
#   [   SKIP   ] s.t (before the summary: which; in it: why)
TXT=$LOG.txt
[ -f "$TXT" ] || { echo "bpftrace-runtime: no console log $TXT" >&2; exit 1; }
sed -n '/^BT-ENGINE-BEGIN$/,/^BT-ENGINE-END$/p' "$TXT" > "$W/engine.out"
val() { sed -n "s/^$1: //p" "$TXT" | tail -1; }
erc=$(val BT-ENGINE-RC)
awk '
	# One entry per test run (two tests may share a name): i = the entry.
	function entry(t) {
		if (!(t in last) || st[last[t]] != "RUN") { name[++n] = t; last[t] = n }
		return last[t]
	}
	/^\[==========\] [0-9]+ tests from [0-9]+ test cases ran/ { summary = 1; next }
	summary && /^\[   SKIP   \] / && !/ tests, listed below:$/ {
		s = substr($0, 14)
		for (i = 1; i <= n; i++)
			if (st[i] == "SKIP" && !(i in why) && index(s, name[i] " (") == 1)
				why[i] = substr(s, length(name[i]) + 3, length(s) - length(name[i]) - 3)
	}
	summary { next }
	/^\[ RUN      \] / { t = substr($0, 14); name[++n] = t; last[t] = n; st[n] = "RUN"; cur = n; next }
	/^\[       OK \] / { st[entry(substr($0, 14))] = "PASS"; cur = 0; next }
	/^\[   SKIP   \] / { st[entry(substr($0, 14))] = "SKIP"; cur = 0; next }
	/^\[  FAILED  \] / { cur = entry(substr($0, 14)); st[cur] = "FAIL"; why[cur] = "output does not match EXPECT"; next }
	/^\[  TIMEOUT \] / { cur = entry(substr($0, 14)); st[cur] = "FAIL"; why[cur] = "timeout: not attached in ATTACH_TIMEOUT"; next }
	!cur { next }
	/^\tUnclean exit code: / { why[cur] = "exit code " substr($0, 21) }
	/^BT-HUNG: / { hung[cur] = 1 }
	why[cur] ~ /^timeout/ && /__BPFTRACE_NOTIFY_PROBES_ATTACHED$/ { why[cur] = "timeout: attached, EXPECT not seen in TIMEOUT" }
	END {
		for (i = 1; i <= n; i++) {
			s = st[i]
			if (s == "RUN") { s = "FAIL"; why[i] = "no result (engine died?)" }
			if (i in hung) why[i] = why[i] "; hung: its processes killed"
			c[s]++
			printf "%-4s  %s%s\n", s, name[i], (i in why) ? "  (" why[i] ")" : ""
		}
		printf "COUNTS %d %d %d %d\n", n - c["SKIP"], c["PASS"], c["FAIL"], c["SKIP"]
	}' "$W/engine.out" > "$W/list"
read -r _ ran passed failed skipped < <(grep '^COUNTS ' "$W/list")
{
	echo "# bpftrace runtime tests in the VM (scripts/bpftrace-runtime.sh)"
	echo "# bpftrace: $BPFTRACE ($(val BT-VERSION))"
	echo "# tests: $TESTS; testprogs: $TESTPROGS; filter: '${FILTER:-*}'${DISABLE:+; disabled: $DISABLE}"
	echo "# kernel: $KERNEL ($(val BT-KERNEL)), $(vm_accel); timeouts x$SCALE"
	echo "# VM: ${secs}s in all, engine $(val BT-ENGINE-SECONDS)s; engine rc ${erc:-none}, vm-run rc $vrc"
	grep -v '^COUNTS ' "$W/list"
	echo "# ran $ran, passed $passed, failed $failed, skipped $skipped"
	echo
	echo "# bpftrace --info in the guest:"
	sed -n '/^BT-INFO-BEGIN$/,/^BT-INFO-END$/p' "$TXT" | sed '1d;$d'
	echo
	echo "# the engine's output:"
	sed '1d;$d' "$W/engine.out"
} > "$OUT"
echo "bpftrace-runtime: ran $ran, passed $passed, failed $failed, skipped $skipped; VM ${secs}s; $OUT"
[ -f "$LOG.splat" ] && echo "bpftrace-runtime: the kernel log shows a splat: $LOG.splat" >&2
if [ "$vrc" != 0 ] || [ "${erc:-1}" != 0 ] || [ "$ran$skipped" = 00 ]; then
	exit 1
fi
