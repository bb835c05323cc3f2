#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a kernel in QEMU with the test initramfs and run one command in it.
#   scripts/vm-run.sh [--kernel debug|base|debug-arm64|debug-s390x|debug-i386] [--timeout S] -- 'guest command'
#   scripts/vm-run.sh [--kernel debug|base] --interactive
# --log FILE: console log (default build/vm/console-<kernel>.log; FILE.txt
# is the same without CRs and escape codes).
# Exit status: the guest command's, 1 on a splat (SPLAT below; docs/
# harness.md step 4; then also written to FILE.splat), 124 when the guest
# timed out, 125 when the guest never reported a status.
# VM_ACCEL=kvm|tcg|icount forces the accelerator (default: kvm when usable).
# icount: TCG counting instructions (-icount shift=0,sleep=off): guest
# time advances one ns per instruction executed, so a benchmark's "ns"
# are instructions, the same on any host; the vCPUs take turns on one
# host thread, and an idle guest jumps to its next timer.
# --image FILE boots FILE instead of the flavour's kernel (a variant of it:
# the initramfs still comes from the flavour's build).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/base-lib.sh"
FLAVOR=debug
TIMEOUT=${VM_TIMEOUT:-3600}
INTERACTIVE=0
LOG=""
IMAGE=""
while [ $# -gt 0 ]; do
	case $1 in
	--kernel)	FLAVOR=$2; shift 2 ;;
	--timeout)	TIMEOUT=$2; shift 2 ;;
	--interactive)	INTERACTIVE=1; shift ;;
	--log)		LOG=$2; shift 2 ;;
	--image)	IMAGE=$2; shift 2 ;;
	--)		shift; break ;;
	*)		break ;;
	esac
done
CMD=$*

# The debug kernels of other architectures (make test ARCH=...) run under
# TCG on QEMU's usual machine for each.
VM_ARCH=""
QEMU_SYS=(qemu-system-x86_64)
CONSOLE=ttyS0,115200
case $FLAVOR in
base)	KERNEL=$BUILD/kbuild-base/vmlinux ;;		# PVH entry
debug|full|kcsan) KERNEL=$BUILD/kbuild-$FLAVOR/arch/x86/boot/bzImage ;; # debug vmlinux does not boot via PVH
debug-arm64)
	VM_ARCH=arm64
	KERNEL=$BUILD/kbuild-$FLAVOR/arch/arm64/boot/Image
	# pauth-impdef: QEMU's cheap pointer-authentication algorithm (the
	# architected one dominates the emulation's time otherwise).
	QEMU_SYS=(qemu-system-aarch64 -machine virt -cpu max,pauth-impdef=on)
	CONSOLE=ttyAMA0 ;;
debug-s390x)
	VM_ARCH=s390x
	KERNEL=$BUILD/kbuild-$FLAVOR/arch/s390/boot/bzImage
	QEMU_SYS=(qemu-system-s390x -machine s390-ccw-virtio -cpu max)
	CONSOLE=ttysclp0 ;;
debug-i386)
	VM_ARCH=i386
	KERNEL=$BUILD/kbuild-$FLAVOR/arch/x86/boot/bzImage
	QEMU_SYS=(qemu-system-i386 -cpu max) ;;
*)	echo "vm-run: unknown kernel '$FLAVOR'" >&2; exit 2 ;;
esac
[ -z "$IMAGE" ] || KERNEL=$IMAGE
[ -f "$KERNEL" ] || { echo "vm-run: no $KERNEL (make kernel / make kernel-debug)" >&2; exit 2; }

if [ -n "$VM_ARCH" ]; then
	ACCEL=${VM_ACCEL:-tcg}
else
	ACCEL=$(vm_accel)
fi
APPEND="console=$CONSOLE panic=-1 log_buf_len=16M"
# Debug kernel: freed memory is zeroed at once, so a program (whose JITed
# loads KASAN does not check) reading memory freed too early sees it.
[ "${FLAVOR%%-*}" = debug ] && APPEND="$APPEND init_on_free=1"
ICOUNT=()
case $ACCEL in
kvm)	ACCEL_OPT=kvm ;;
tcg)	ACCEL_OPT=tcg,thread=multi
	# Emulation is slow: allow for it before calling a CPU stalled or
	# locked up (the soft-lockup report comes after 2 x watchdog_thresh).
	APPEND="$APPEND rcupdate.rcu_cpu_stall_timeout=60 watchdog_thresh=30" ;;
icount)	ACCEL_OPT=tcg,thread=single
	ICOUNT=(-icount shift=0,sleep=off)
	# The TSC follows the instruction count: do not let the guest
	# judge it against another clock.
	APPEND="$APPEND rcupdate.rcu_cpu_stall_timeout=60 tsc=reliable" ;;
*)	echo "vm-run: VM_ACCEL must be kvm, tcg or icount" >&2; exit 2 ;;
esac

# Initramfs = the common archive + a small one holding /cmd, in a private
# dir so that runs can overlap.
mkdir -p "$BUILD/vm"
VM=$(mktemp -d "$BUILD/vm/run.XXXXXX")
trap 'rm -rf "$VM"' EXIT
VM_KBUILD=$BUILD/kbuild-$FLAVOR VM_ARCH=$VM_ARCH "$ROOT/scripts/mkinitramfs.sh" "$VM" >/dev/null
GEN=$BUILD/vm/gen_init_cpio
INITRD=$VM/run.cpio
if [ $INTERACTIVE = 1 ]; then
	cp "$VM/initramfs.cpio" "$INITRD"
	APPEND="$APPEND loglevel=7"
else
	[ -n "$CMD" ] || { echo "vm-run: no guest command" >&2; exit 2; }
	printf '%s\n' "$CMD" > "$VM/cmd"
	echo "file /cmd $VM/cmd 0644 0 0" > "$VM/cmd.list"
	cat "$VM/initramfs.cpio" <("$GEN" "$VM/cmd.list") > "$INITRD"
	APPEND="$APPEND loglevel=${VM_LOGLEVEL:-4}"
fi

[ -n "$VM_ARCH" ] || QEMU_SYS+=(-cpu max)
QEMU=("${QEMU_SYS[@]}" -accel "$ACCEL_OPT" "${ICOUNT[@]}" -smp 2 -m 4G
	-nographic -no-reboot -kernel "$KERNEL" -initrd "$INITRD"
	-append "$APPEND")

echo "vm-run: $FLAVOR kernel, $ACCEL, timeout ${TIMEOUT}s"
if [ $INTERACTIVE = 1 ]; then
	"${QEMU[@]}"
	exit
fi

LOG=${LOG:-$BUILD/vm/console-$FLAVOR.log}
set +e
timeout -k 10 "$TIMEOUT" "${QEMU[@]}" < /dev/null 2>&1 | tee "$LOG"
qrc=${PIPESTATUS[0]}
set -e
# Plain text for parsing: no CRs, no terminal escape sequences.
tr -d '\r' < "$LOG" | sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1b[A-Za-z]//g' > "$LOG.txt"

section() { sed -n "/^HARNESS-$1-BEGIN\$/,/^HARNESS-$1-END\$/p" "$LOG.txt"; }
status=$(sed -n 's/^HARNESS-EXIT-STATUS: \([0-9]*\)$/\1/p' "$LOG.txt" | tail -1)

# Where to look for splats: the dumped kernel log and kmemleak report, or
# the whole console when the guest did not get that far.
if [ -n "$status" ]; then
	klog=$( (section KMEMLEAK; section DMESG) )
else
	klog=$(cat "$LOG.txt")
fi
# 7.3's workqueue warns (once per boot) when work goes to a deprecated
# workqueue: a finding when the work is the series'.
SPLAT='WARNING:|BUG:|KASAN:|UBSAN:|possible circular locking|INFO: |=====|RCU stall|rcu: .*detected stall|unreferenced object|Call Trace:|Kernel panic|work func (bpf_)?ip_cookie[a-z_]* enqueued on deprecated'
# The NMI backtraces ip_cookie_nmi asks for (sysrq 'l', between its two
# /dev/kmsg lines) print call traces, and under emulation printing them
# from the NMI handler is slow: neither is a finding. Anything else
# between the two lines still is.
klog=$(echo "$klog" | awk '
	/ip_cookie_nmi: sysrq-l begin/ { asked = 1 }
	/ip_cookie_nmi: sysrq-l end/ { asked = 0; skip = 0 }
	asked && /NMI backtrace for cpu [0-9]+$/ { skip = 1; next }
	skip && /<\/TASK>/ { skip = 0; next }
	skip { next }
	asked && /INFO: NMI handler \(nmi_cpu_backtrace_handler\) took too long/ { next }
	{ print }')
bad=$(echo "$klog" | grep -nE -A12 "$SPLAT" | head -150 || true)

rc=0
if [ -z "$status" ]; then
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		echo "vm-run: TIMEOUT: guest did not finish in ${TIMEOUT}s (VM_TIMEOUT=...); log: $LOG" >&2
		rc=124
	else
		echo "vm-run: guest ended without an exit status (qemu rc $qrc, panic?); log: $LOG" >&2
		rc=125
	fi
else
	rc=$status
fi
rm -f "$LOG.splat"
if [ -n "$bad" ]; then
	echo "vm-run: kernel log shows problems ($FLAVOR kernel):" >&2
	echo "$bad" >&2
	echo "$bad" > "$LOG.splat"	# for callers: this run had a splat
	[ "$rc" = 0 ] && rc=1
fi
echo "vm-run: guest status ${status:-none}, result $rc"
exit "$rc"
