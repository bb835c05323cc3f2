#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Markdown table of make bench-gen-lookup: the same benchmarks on the base
kernel with the inlined IP_COOKIE lookup and without it (direct call);
with WITHOUT=funcip (make bench-funcip), with the inlined
bpf_get_func_ip() of kprobe.multi (patches/variants/funcip.patch) and
without it (the series).

usage: gen-lookup-report.py RAW ACCEL GIT KERNEL [gen-lookup|funcip] > OUT.md
"""
import os
import re
import statistics
import sys

raw, accel, git, kconf = sys.argv[1:5]
mode = sys.argv[5] if len(sys.argv) > 5 else 'gen-lookup'
KV = re.compile(r'(\w+)=(\S+)')

# samples[kernel][(bench, param)] -> [ns per op, one per round]
samples = {'inline': {}, 'call': {}}
kernel = None
boots = {'inline': 0, 'call': 0}
with open(raw) as f:
    for line in f:
        if line.startswith('ipc-boot:'):
            kernel = dict(KV.findall(line))['kernel']
            boots[kernel] += 1
        elif line.startswith('ipc-result:') and kernel:
            d = dict(KV.findall(line))
            b = d['bench']
            p = int(d['entries'] if b.startswith('ipc-lookup') else d['funcs'])
            samples[kernel].setdefault((b, p), []).append(float(d['ns']))


def med(xs):
    return statistics.median(xs) if xs else float('nan')


def delta(k, bench, p):
    """Per-round differences to the baseline of the same round: the loop
    without a lookup, or the family's empty program."""
    base = ('ipc-lookup-none' if bench.startswith('ipc-lookup-')
            else bench.rsplit('-', 1)[0] + '-empty')
    a = samples[k].get((bench, p), [])
    z = samples[k].get((base, p), [])
    return [x - y for x, y in zip(a, z)]


def row(label, bench, p):
    d = {k: med(delta(k, bench, p)) for k in samples}
    ratio = d['call'] / d['inline'] if d['inline'] > 0 else float('nan')
    return '| %s | %s | %.2f | %.2f | %.2fx |' % (label, p, d['inline'],
                                                   d['call'], ratio)


# Under -icount a guest "ns" is an instruction.
unit = 'instructions' if accel == 'icount' else 'ns'
n = min(boots.values())
nboots = '%d boot%s' % (n, '' if n == 1 else 's')
if mode == 'funcip':
    head = ['# bpf_get_func_ip() of kprobe.multi: inlined (patch "funcip") '
            'against the helper call\n',
            'Produced by `make bench-funcip` (scripts/bench-gen-lookup.sh, '
            'WITHOUT=funcip): the base kernel with the series and the same '
            'with `patches/variants/funcip.patch` (the inline), booted in '
            'turn, %s each, running the same benchmarks '
            '(`SET=funcip`). Raw: `raw-funcip.txt`.\n' % nboots]
    cols = ('with funcip ' + unit, 'without ' + unit, 'without / with')
    # (sizes, rows): each size's rows in turn
    rows = [((1, 1000), [('kprobe.multi, bpf_get_func_ip()', 'ipc-kmulti-funcip'),
                         ('kprobe.multi, ip -> IP_COOKIE', 'ipc-kmulti-ipc'),
                         ('kprobe.multi, cookie (*control*)', 'ipc-kmulti-cookie')]),
            ((1,), [('fentry, bpf_get_func_ip() (inlined upstream: *control*)',
                     'ipc-fentry-funcip')])]
else:
    head = ['# IP_COOKIE: inlined lookup (map_gen_lookup) against a direct '
            'call\n',
            'Produced by `make bench-gen-lookup` (scripts/bench-gen-lookup.sh): '
            'the base kernel as built (lookup inlined into the program by '
            '`ip_cookie_map_gen_lookup()`) and the same kernel rebuilt without '
            '`.map_gen_lookup` (the verifier then emits a direct call to '
            '`ip_cookie_map_lookup_elem()`), booted in turn, %s each, '
            'running the same benchmarks (`SET=gen_lookup`). Raw: '
            '`raw-gen-lookup.txt`.\n' % nboots]
    cols = ('inlined ' + unit, 'direct call ' + unit, 'call / inlined')
    rows = [((1, 1000, 100000), [('lookup micro-benchmark, IP_COOKIE', 'ipc-lookup-ipc'),
                                 ('lookup micro-benchmark, HASH (*control*)',
                                  'ipc-lookup-hash')]),
            # ipc_link inlined since 5ef54f2 where no Spectre v1 clamp is
            # needed (before, a control); the variant kernel calls it
            # either way.
            ((1, 1000), [('kprobe.multi, ip -> IP_COOKIE', 'ipc-kmulti-ipc'),
                         ('kprobe.multi, {ip, link} -> IP_COOKIE (16-byte key)',
                          'ipc-kmulti-ipc_link'),
                         ('kprobe.multi, cookie (*control*)', 'ipc-kmulti-cookie')]),
            ((1,), [('fentry, ip -> IP_COOKIE', 'ipc-fentry-ipc'),
                    ('fentry, cookie (*control*)', 'ipc-fentry-cookie')])]
out = head + [
       '- Accelerator: **%s**%s; git %s.' % (
           accel.upper(), ' (pure emulation: compare ratios, not absolute '
           'times)' if accel == 'tcg' else '', git),
       '- Kernel: %s; host: %d CPUs, guest: 2 vCPUs.' % (kconf.strip(),
                                                        os.cpu_count()),
       '- Figures: %s over the baseline of the same round (the empty '
       'program, or the loop without a lookup), median over all rounds of '
       'all boots of one kernel.  Rows marked *control* run the same code '
       'in both kernels: their spread shows the noise between boots.\n'
       % unit,
       '| what | N | %s | %s | %s |' % cols,
       '|---|---|---|---|---|']
for sizes, what in rows:
    for p in sizes:
        out += [row(label, bench, p) for label, bench in what]
print('\n'.join(out))
