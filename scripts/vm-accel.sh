#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the accelerator the VM runs on: $VM_ACCEL if set, else kvm when
# /dev/kvm is usable and the CPU has vmx/svm, else tcg (pure emulation).
if [ -n "${VM_ACCEL:-}" ]; then
	echo "$VM_ACCEL"
elif [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
	echo kvm
else
	echo tcg
fi
