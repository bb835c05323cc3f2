# SPDX-License-Identifier: GPL-2.0
# Guest part of make demo (part f) and make test-bpftrace: bpftrace with
# the patch of contrib/bpftrace ($BTP), whose '@[probe]' under a kprobe
# wildcard is one kprobe_multi program that finds its probe at run time,
# from the ip_cookie map (BPFTRACE_MULTI_PROBE_ID=map) or from the link's
# cookies (=cookie). Runs after scripts/guest-tool-lib.sh (stop, ...) and
# scripts/demo-guest-lib.sh (run, workload_fs, ...) with N and BIG set;
# sets eq_f (yes/NO).
#
# Checked: each run exits 0, loads one BPF program, reports no hit that
# found no probe ID; over 'vfs_*' and over 'vfs_*' plus BIG (2,000 functions
# or more, two kprobe_multi links of one program), the workload's calls are
# counted exactly, equal with the map and with cookies (and to
# ipcookie_funccount where part a ran it).

echo
echo "=== f. bpftrace with contrib/bpftrace: '@[probe]' in one kprobe_multi program"
$BTP --version
$BTP --info 2>&1 | grep -E 'kprobe_multi|ip_cookie' | sed 's/^ */bpftrace --info: /'

# The workload's calls of the seven vfs functions part a checks.
VFS_FUNCS="vfs_mkdir vfs_rmdir vfs_symlink vfs_link vfs_rename vfs_mknod vfs_unlink"
VFS_CALLS="1 1 1 1 1 1 3"

# ID: the patched bpftrace's run ID; checks what every run must show.
bt_checks() {	# ID
	[ $RC = 0 ] || bad "$1: bpftrace exited $RC"
	if has_line $W/$1.err "found no probe ID"; then
		bad "$1: $(grep 'found no probe ID' $W/$1.err)"
	fi
	case $(grep "^$1|" $W/rows | cut -d'|' -f5) in
	"1 kprobe") ;;
	*) bad "$1: not one BPF program: $(grep "^$1|" $W/rows | cut -d'|' -f5)" ;;
	esac
}

# The counts of VFS_FUNCS in ID's output: "function count" lines.
bt_vfs_counts() {	# ID
	sed -n 's/^@\[kprobe:\([^]]*\)\]: \([0-9]*\)$/\1 \2/p' $W/$1.out |
		awk -v f="$VFS_FUNCS" 'BEGIN { n = split(f, a, " "); for (i = 1; i <= n; i++) w[a[i]] = 1 }
			$1 in w { print }' | sort > $W/$1.vfs
}

# Compare the VFS_FUNCS counts of the runs given with the workload (and
# with part a's ipcookie_funccount when it ran); prints a table.
bt_compare() {	# TITLE ID...
	local title=$1 ok=yes
	shift
	echo
	echo "Counts, $title (workload: calls the workload makes):"
	for id in "$@"; do bt_vfs_counts $id; done
	[ -f $W/a-fc.counts ] || : > $W/a-fc.counts
	awk -v n=$N -v f="$VFS_FUNCS" -v m="$VFS_CALLS" -v ids="$*" '
		FILENAME == ARGV[1] { fc[$1] = $2; hasfc = 1; next }
		{ id = FILENAME; sub(/.*\//, "", id); sub(/\.vfs$/, "", id); c[id, $1] = $2 }
		END {
			nf = split(f, fn, " "); split(m, mul, " "); ni = split(ids, id, " ")
			printf "%-12s %9s", "function", "workload"
			for (j = 1; j <= ni; j++) printf " %18s", id[j]
			if (hasfc) printf " %18s", "ipcookie_funccount"
			printf "  %s\n", "equal?"
			bad = 0
			for (i = 1; i <= nf; i++) {
				w = n * mul[i]; ok = "yes"
				printf "%-12s %9d", fn[i], w
				for (j = 1; j <= ni; j++) {
					v = c[id[j], fn[i]] + 0
					printf " %18d", v
					if (v != w) ok = "NO"
				}
				if (hasfc) { printf " %18d", fc[fn[i]]; if (fc[fn[i]] != w) ok = "NO" }
				if (ok != "yes") bad = 1
				printf "  %s\n", ok
			}
			exit bad
		}' $W/a-fc.counts $(for id in "$@"; do echo $W/$id.vfs; done) ||
		{ ok=NO; bad "$title: counts differ"; }
	[ $ok = yes ] || eq_f=NO
}

# fc-ID-map and fc-ID-cookie: '@[probe] = count()' over the kprobe
# wildcards of PATTERN (comma-separated), with the map and with cookies,
# on the workload.
bt_map_cookie() {	# ID PATTERN
	local mode
	for mode in map cookie; do
		run fc-$1-$mode "$2" "bpftrace+patch @[probe], $mode" err $BT_READY workload_fs -- \
			env BPFTRACE_MULTI_PROBE_ID=$mode $BTP -e "kprobe:$(echo "$2" | sed 's/,/,kprobe:/g') { @[probe] = count(); }"
		bt_checks fc-$1-$mode
	done
}

eq_f=yes
bt_map_cookie vfs 'vfs_*'
bt_compare "'vfs_*'" fc-vfs-map fc-vfs-cookie

# The seed thread's one-liners: no workload of their own, the counts are
# whatever the guest does meanwhile; shown, not compared.
run f-spin-map '_raw_spin*' 'bpftrace+patch @[probe], map' err $BT_READY workload_fs -- \
	$BTP -e 'kprobe:_raw_spin* { @[probe] = count(); }'
bt_checks f-spin-map
run f-ksys-map 'ksys_*' 'bpftrace+patch @[probe], map' err $BT_READY workload_fs -- \
	$BTP -e 'kprobe:ksys_* { @[probe] = count(); }'
bt_checks f-ksys-map

# Two wildcards of one probe, BIG among them: two kprobe_multi links of
# one program, one ip_cookie map.
bt_map_cookie big "vfs_*,$BIG"
big_funcs=$(grep '^fc-big-map|' $W/rows | cut -d'|' -f4)
[ "${big_funcs:-0}" -ge 2000 ] || bad "'vfs_*,$BIG': ${big_funcs:-no} functions, want 2,000 or more"
bt_compare "'vfs_*,$BIG' ($big_funcs functions)" fc-big-map fc-big-cookie

# The 'probe' names of the map and of the cookies are the same set of
# functions where both ran the same workload: every name either printed
# is a function of the pattern (no wrong names).
for id in fc-vfs-map fc-vfs-cookie fc-big-map fc-big-cookie; do
	sed -n 's/^@\[kprobe:\([^]]*\)\]: .*/\1/p' $W/$id.out | grep -v -e '^vfs_' -e "^$(echo "$BIG" | sed 's/[*]/.*/g')\$" > $W/$id.stray || true
	[ ! -s $W/$id.stray ] || bad "$id: names outside the pattern: $(head -3 $W/$id.stray | tr '\n' ' ')"
done
