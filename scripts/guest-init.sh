#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the test VM (busybox sh). Mounts the usual filesystems, runs
# /cmd (or a shell when /cmd is absent), then scans for kmemleak reports,
# dumps the kernel log between markers and prints the command's exit status
# on a marker line that scripts/vm-run.sh parses.
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
mkdir -p /sys/fs/bpf /sys/fs/cgroup
mount -t bpf bpffs /sys/fs/bpf
mount -t cgroup2 cgroup2 /sys/fs/cgroup
ulimit -l unlimited
ip link set lo up 2>/dev/null
cd /bpf
export LD_LIBRARY_PATH=/bpf

if [ ! -f /cmd ]; then
	echo "VM shell: test_progs, bench and bpftool are in /bpf; exit to power off"
	setsid cttyhack sh
	reboot -f
fi

# A blank line first: the console may have escape codes pending on this line.
echo
echo "HARNESS-CMD-BEGIN"
sh /cmd
rc=$?
echo "HARNESS-CMD-END"

if [ -f /sys/kernel/debug/kmemleak ]; then
	echo scan > /sys/kernel/debug/kmemleak
	sleep 5
	echo scan > /sys/kernel/debug/kmemleak
	echo "HARNESS-KMEMLEAK-BEGIN"
	cat /sys/kernel/debug/kmemleak
	echo "HARNESS-KMEMLEAK-END"
fi
echo "HARNESS-DMESG-BEGIN"
dmesg
echo "HARNESS-DMESG-END"
echo "HARNESS-EXIT-STATUS: $rc"
sync
reboot -f
