#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Results section of the cover letter, as plain-text tables for e-mail.

  series-results.py SUMMARY.json LABEL [TIME_SUMMARY.json]

SUMMARY.json is a summary-MODE.json written by scripts/bench-report.py
(make bench); LABEL names where it came from (path and commit). When it
holds instruction counts (QEMU -icount), memory and attach figures come
from TIME_SUMMARY.json, the time run of the same make bench. Every number
printed here is read from those files. "@N:bench@" is left for
scripts/series.sh to replace by the number of the benchmark patch.
"""
import json
import sys


def die(msg):
    sys.exit('series-results: %s' % msg)


path, label = sys.argv[1:3]
with open(path) as f:
    s = json.load(f)
for k in ('env', 'kmulti', 'fentry', 'lookup', 'memory', 'attach', 'targets'):
    if k not in s:
        die('%s has no "%s" section (rerun make bench)' % (label, k))
env = s['env']
UNIT = s.get('unit', 'ns')
if len(sys.argv) > 3:
    with open(sys.argv[3]) as f:
        t = json.load(f)
    s['memory'], s['attach'] = t.get('memory', {}), t.get('attach', {})
    s['targets'] = s['targets'] + [x for x in t.get('targets', [])
                                   if x['target'].startswith(('memory', 'batch'))]
allN = str(env.get('attachable', ''))


def med(d, *keys):
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d.get('median') if isinstance(d, dict) else d


def num(v, fmt='%.0f'):
    return '-' if v is None else fmt % v


def table(head, rows, first=0):
    """Fixed-width table: first column left-aligned, others right."""
    cols = len(head)
    width = [max(len(str(r[i])) for r in [head] + rows) for i in range(cols)]
    width[0] = max(width[0], first)
    out = []
    for r in [head] + rows:
        line = '  ' + str(r[0]).ljust(width[0])
        for i in range(1, cols):
            line += '  ' + str(r[i]).rjust(width[i])
        out.append(line.rstrip())
    return out


def nlabel(n):
    return 'all (%s)' % '{:,}'.format(int(n)) if n == allN else '{:,}'.format(int(n))


def by_num(d):
    return sorted(d, key=int)


out = []
rounds = ''
for g in s.get('guest', []):
    if g.startswith('quick='):
        rounds = ' (%s)' % g.split()[1] if len(g.split()) > 1 else ''
if UNIT == 'instructions':
    out.append('Measured with the benchmarks of patch @N:bench@ in a QEMU guest '
               'counting instructions (-icount shift=0: the guest clock '
               'advances one ns per instruction, so the figures below are '
               'guest instructions, the same on any host; they do not see '
               'caches or branch prediction), guest kernel config: %s, %s '
               'mode%s, %s. Medians over rounds; source: %s.' %
               (env.get('kernel_config', '?'), env.get('mode', '?'), rounds,
                env.get('date', '?'), label))
else:
    out.append('Measured with the benchmarks of patch @N:bench@ in a QEMU guest '
               '(accelerator: %s, %s host CPUs, guest kernel config: %s), %s '
               'mode%s, %s. Under TCG emulation absolute times mean little: '
               'compare the variants, which ran side by side in every round. '
               'Medians over rounds; source: %s.' %
               (env.get('accel', '?').upper(), env.get('host_nproc', '?'),
                env.get('kernel_config', '?'), env.get('mode', '?'), rounds,
                env.get('date', '?'), label))
out.append('')

# kprobe.multi
km = s['kmulti']
ns = by_num(km)
names = [('cookie', 'cookie'), ('cookie_o1', 'O(1) cookie (variant)'),
         ('cookie_array', 'cookie -> ARRAY'),
         ('hash', 'ip -> HASH'), ('rhash', 'ip -> RHASH'), ('ipc', 'ip -> IP_COOKIE'),
         ('kfunc', 'bpf_ip_cookie_lookup()'),
         ('ipc_link', '{ip, link_id} -> IP_COOKIE')]
out.append('kprobe.multi, one program on N functions, %s per trigger over '
           'an empty program:' % UNIT)
out.append('')
rows = [[label_] + [num(med(km, n, v)) for n in ns] for v, label_ in names
        if any(med(km, n, v) is not None for n in ns)]
out += table(['N'] + [nlabel(n) for n in ns], rows)
out.append('')
# An empty program that costs much more at the largest N ran more than
# once per trigger there (other attached functions on the trigger's path).
e0 = km.get(str(ns[0]), {}).get('empty', {}).get('mops') if ns else None
e1 = km.get(str(ns[-1]), {}).get('empty', {}).get('mops') if ns else None
if e0 and e1 and e0 > 1.5 * e1:
    out.append('At %s the program also ran for other attached functions '
               'on the trigger\'s path: the empty program took %.0f %s per '
               'trigger there against %.0f at N = %s, and each figure of that '
               'column holds those runs, each with its own lookup.' % (
                   nlabel(ns[-1]), 1000.0 / e1, UNIT, 1000.0 / e0, nlabel(ns[0])))
    out.append('')

# fentry
fe = s['fentry'].get('1', {})


def pct(d, v):
    e = d.get('empty', {}).get('mops')
    x = med(d, v)
    if not e or x is None:
        return ''
    eh = 1000.0 / e
    return ' (%.1f%%)' % (100.0 * eh / (eh + x))


parts = ['%s +%s%s' % (lbl, num(med(fe, v), '%.1f'), pct(fe, v))
         for v, lbl in (('cookie', 'cookie'), ('cookie_array', 'cookie -> ARRAY'),
                        ('kfunc', 'bpf_ip_cookie_lookup()'),
                        ('ipc', 'IP_COOKIE'), ('hash', 'HASH'), ('rhash', 'RHASH'))
         if med(fe, v) is not None]
if parts:
    out.append('fentry on one function, %s over an empty program (and its '
               'rate as a share of the empty program\'s): %s.' % (UNIT, ', '.join(parts)))
    out.append('')
fm = s.get('fmulti', {})
if fm:
    fns = by_num(fm)
    out.append('fentry.multi, one program on one tracing multi-link over N '
               'functions, %s per trigger over an empty program (its rate as a '
               'share of the empty program\'s):' % UNIT)
    out.append('')
    rows = [[lbl] + ['%s%s' % (num(med(fm[n], v), '%.1f'), pct(fm[n], v))
                     if med(fm[n], v) is not None else '-' for n in fns]
            for v, lbl in (('cookie', 'multi-link cookie'),
                           ('cookie_array', 'cookie -> ARRAY'),
                           ('hash', 'ip -> HASH'), ('rhash', 'ip -> RHASH'),
                           ('ipc', 'ip -> IP_COOKIE'),
                           ('kfunc', 'bpf_ip_cookie_lookup()'),
                           ('wide_array', 'cookie -> ARRAY, 64 B'),
                           ('wide_ipc', 'ip -> IP_COOKIE, 64 B'))
            if any(med(fm[n], v) is not None for n in fns)]
    out += table(['N'] + [nlabel(n) for n in fns], rows)
    out.append('')
um = s.get('umulti', {}).get('1', {})
parts = ['%s %s%s' % (lbl, num(med(um, v), '%+.1f'), pct(um, v))
         for v, lbl in (('cookie', 'cookie'), ('cookie_array', 'cookie -> ARRAY'),
                        ('ipc', 'offset -> IP_COOKIE'),
                        ('ipc_link', '{offset, link_id} -> IP_COOKIE'))
         if med(um, v) is not None]
if parts:
    out.append('uprobe.multi on one function, %s over an empty program '
               '(the uprobe trap included in it, so the shares are all '
               'close to 100%%): %s.' % (UNIT, ', '.join(parts)))
    out.append('')

# lookups
lk = s['lookup']
es = by_num(lk)
out.append('Lookups from bpf_loop() over shuffled kernel text addresses, '
           '%s per lookup:' % UNIT)
out.append('')
rows = [[lbl] + [num(med(lk, e, v), '%.1f') for e in es]
        for v, lbl in (('ipc', 'IP_COOKIE'), ('hash', 'HASH'), ('rhash', 'RHASH'))
        if v != 'rhash' or any(med(lk, e, v) is not None for e in es)]
ratio = [(med(lk, e, 'ipc'), med(lk, e, 'hash')) for e in es]
rows.append(['HASH / IP_COOKIE'] + ['%.1fx' % (b / a) if a and b else '-' for a, b in ratio])
out += table(['entries'] + [nlabel(e) for e in es], rows)
out.append('')

# memory
mem = s['memory']
ms = by_num(mem)
out.append('Bytes per entry with an 8-byte value, map_mem_usage / memcg '
           'charge:')
out.append('')


def mcell(e, m):
    d = mem[e].get(m)
    return '%.1f / %.1f' % (d['memlock_per_entry'], d['memcg_per_entry']) if d else '-'


mk = [k for k in ('ipc', 'hash', 'hash-nopre', 'rhash')
      if k != 'rhash' or any(mem[e].get(k) for e in ms)]
rows = [[nlabel(e)] + [mcell(e, k) for k in mk] for e in ms]
out += table(['entries'] + [{'ipc': 'IP_COOKIE', 'hash': 'HASH prealloc',
                             'hash-nopre': 'HASH no-prealloc',
                             'rhash': 'RHASH'}[k] for k in mk], rows)
out.append('')
out.append('kprobe.multi cookies, for comparison (from the code, not '
           'measured): 8 bytes per function for the cookies array, next to '
           'the 8-byte address array the link has anyway; not charged to a '
           'memcg.')
out.append('')

# attach vs fill
at = s['attach']
parts = []
for n in by_num(at):
    c, m = at[n].get('cookies', {}), at[n].get('map', {})
    if c.get('attach_ms') and m.get('fill_ms') is not None:
        parts.append('%s functions: %.0f ms to attach with cookies, %.1f ms '
                     'to create and batch-fill the map (%.1f%%)' %
                     ('{:,}'.format(int(n)), c['attach_ms'], m['fill_ms'],
                      100.0 * m['fill_ms'] / c['attach_ms']))
if parts:
    out.append('kprobe.multi attach against filling the map: %s.' %
               '; '.join(parts))
    out.append('')

# where it falls short
missed = [t for t in s['targets'] if not t.get('met')]
if missed:
    out.append('Targets the map missed in this run:')
    for t in missed:
        out.append('- %s: %s' % (t['target'], t['figure']))
    out.append('')
if s.get('failures'):
    out.append('Benchmark failures reported: %s' % '; '.join(s['failures']))
    out.append('')

# wrap the prose lines at 72 columns; tables are left as they are
res = []
for line in out:
    if line.startswith('  ') or len(line) <= 72:
        res.append(line)
        continue
    cur, ind = '', '  ' if line.startswith('- ') else ''
    for w in line.split(' '):
        if cur and len(cur) + 1 + len(w) > 72:
            res.append(cur)
            cur = ind + w
        else:
            cur = (cur + ' ' + w) if cur else w
    res.append(cur)
print('\n'.join(res).rstrip())
