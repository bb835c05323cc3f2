#!/bin/bash
# SPDX-License-Identifier: GPL-2.0

source ./benchs/run_common.sh

set -eufo pipefail

# "Summary: hits 1.234 ± 0.005M/s, 810.372 ns/hit, misses 0, ..."
ns_per_hit()
{
	echo "$*" | sed -E "s/.*, +([0-9]+\.[0-9]+ ns\/hit).*/\1/"
}

summarize_ipc()
{
	local bench="$1"
	local summary
	summary=$(echo "$2" | grep '^Summary')

	printf "%-28s %s, %s\n" "$bench" "$(hits "$summary")" "$(ns_per_hit "$summary")"
}

# "Summary: <what was measured>"
summarize_oneshot()
{
	local bench="$1"

	printf "%-28s %s\n" "$bench" "$(echo "$2" | sed -n 's/^Summary: //p')"
}

header "kprobe.multi, one program on N functions"
for n in 1 1000; do
	subtitle "N = $n"
	for v in empty funcip cookie cookie_array hash rhash ipc kfunc funcip_link ipc_link; do
		summarize_ipc "ipc-kmulti-$v" \
			"$($RUN_BENCH --ipc-funcs $n ipc-kmulti-$v)"
	done
done

header "fentry"
for v in empty funcip cookie cookie_array hash rhash ipc kfunc wide_array wide_ipc; do
	summarize_ipc "ipc-fentry-$v" "$($RUN_BENCH ipc-fentry-$v)"
done

header "fentry.multi, one tracing multi-link on N functions"
for n in 1 1000; do
	subtitle "N = $n"
	for v in empty funcip cookie cookie_array hash rhash ipc kfunc wide_array wide_ipc; do
		summarize_ipc "ipc-fmulti-$v" \
			"$($RUN_BENCH --ipc-funcs $n ipc-fmulti-$v)"
	done
done

header "uprobe.multi"
for v in empty offset offset_link cookie cookie_array ipc ipc_link; do
	summarize_ipc "ipc-umulti-$v" "$($RUN_BENCH ipc-umulti-$v)"
done

header "Lookups of N shuffled kernel addresses"
for n in 1000 100000; do
	subtitle "N = $n"
	for v in none ipc hash rhash array; do
		summarize_ipc "ipc-lookup-$v" \
			"$($RUN_BENCH --ipc-entries $n ipc-lookup-$v)"
	done
	summarize_ipc "ipc-lookup-ipc --ipc-resize" \
		"$($RUN_BENCH --ipc-entries $n --ipc-resize ipc-lookup-ipc)"
done

header "Memory, 100000 entries"
for v in ipc hash hash-nopre rhash; do
	summarize_oneshot "ipc-mem-$v" \
		"$($RUN_BENCH --ipc-entries 100000 ipc-mem-$v)"
done

header "Populate, 100000 entries"
for v in ipc hash hash-nopre rhash ipc-hint; do
	summarize_oneshot "ipc-populate-$v" \
		"$($RUN_BENCH --ipc-entries 100000 ipc-populate-$v)"
done

header "kprobe.multi attach, 10000 functions"
for v in cookies map; do
	summarize_oneshot "ipc-attach-$v" \
		"$($RUN_BENCH --ipc-funcs 10000 ipc-attach-$v)"
done
