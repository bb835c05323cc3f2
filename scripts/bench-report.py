#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the raw output of scripts/bench-guest.sh into docs/results/:
results-MODE.csv (every measurement), summary-MODE.json, results-MODE.md
and PNG plots (gnuplot).

  bench-report.py RAW ENV OUTDIR MODE

Throughput numbers are normalised to the empty program (or the loop
without a lookup) of the same round: delta-ns = ns/hit(variant) -
ns/hit(empty).  Medians over rounds (of every boot), with min and max, and
the median of each boot when there are several. Under QEMU -icount
(accel=icount) the guest's ns are instructions and are labelled so.
Exit status 1 when a map lookup missed or a run failed.
"""
import csv
import json
import os
import re
import statistics
import subprocess
import sys

raw_path, env_path, out, mode = sys.argv[1:5]
KV = re.compile(r'(\w+)=(\S+)')


def kv(line):
    return dict(KV.findall(line))


def nums(line):
    """the NAME=VALUE pairs of a line, numbers as floats"""
    d = kv(line)
    for k, v in d.items():
        try:
            d[k] = float(v)
        except ValueError:
            pass
    return d


env = {}
with open(env_path) as f:
    for line in f:
        k, _, v = line.rstrip('\n').partition('=')
        env[k] = v

rows = []          # (section, bench, param, round, metric, value)
thr = []           # throughput results
mem, pop, att = [], [], []
guest = []
vuln = []
fails = []
# RHASH as 7.3 hashes (scripts/bench.sh's "_nofix" runs, without patch
# rhashfix): refused inserts and the lookups they make miss are what is
# measured there, not failures of the run.
NOFIX = '_nofix'
nofix = {'refused': [], 'misses': {}, 'other': []}
rnd = 0
boot = 1
boots = set()
with open(raw_path) as f:
    for line in f:
        line = line.rstrip('\n')
        # "ipc-TAG: REST"
        tag, rest = line.partition(':')[0], line[line.find(':') + 2:]
        if tag == 'ipc-boot':
            boot = int(kv(line)['boot'])
        elif tag == 'ipc-run':
            rnd = '%d.%s' % (boot, kv(line)['round'])
            boots.add(boot)
        elif tag == 'ipc-result':
            thr.append(dict(nums(line), round=rnd, boot=boot))
        elif tag == 'ipc-mem':
            mem.append(nums(line))
        elif tag == 'ipc-populate':
            pop.append(nums(line))
        elif tag == 'ipc-attach' and 'mode=' in line:
            att.append(nums(line))
        elif tag in ('ipc-attach', 'ipc-kmulti'):
            env['attachable'] = kv(line).get('attachable', '?')
        elif tag == 'ipc-fmulti':
            env['fmulti_attachable'] = kv(line).get('attachable', '?')
        elif tag == 'ipc-env':
            guest.append(rest)
        elif tag == 'ipc-vuln':
            vuln.append(rest)
        elif tag == 'ipc-fail' and NOFIX + ':' in line:
            nofix['refused' if 'refused' in line else 'other'].append(rest)
        elif tag == 'ipc-fail':
            fails.append(rest)


def med(xs):
    return statistics.median(xs) if xs else float('nan')


ICOUNT = env.get('accel') == 'icount'
UNIT = 'instructions' if ICOUNT else 'ns'
NBOOTS = len(boots)


def bstat(pairs):
    """pairs: (boot, value); median, min and max over all, each boot's median"""
    xs = [x for _, x in pairs]
    by = {}
    for b, x in pairs:
        by.setdefault(b, []).append(x)
    return {'median': med(xs), 'min': min(xs), 'max': max(xs), 'n': len(xs),
            'boots': [med(by[b]) for b in sorted(by)]}


def missed(d, what):
    """Lookups a run missed: measured on the _nofix kernel, else a failure."""
    if d['misses'] and d['bench'].endswith(NOFIX):
        nofix['misses'].setdefault('%s %s' % (d['bench'], what), []).append(d['misses'])
    elif d['misses']:
        fails.append('%s %s: %d misses' % (d['bench'], what, d['misses']))


# --- hot path: kprobe.multi and fentry, delta over the empty program
bootof = {}
outliers = []


def hot(prefix, key):
    by = {}   # (param, round) -> {variant: ns}
    mops = {}
    for d in thr:
        if not d['bench'].startswith(prefix):
            continue
        p = int(d[key]) if key else 1
        v = d['bench'][len(prefix):]
        by.setdefault((p, d['round']), {})[v] = d['ns']
        bootof[d['round']] = d['boot']
        mops.setdefault((p, v), []).append(d['mops'])
        rows.append((prefix.rstrip('-'), v, p, d['round'], 'ns_per_hit', d['ns']))
        rows.append((prefix.rstrip('-'), v, p, d['round'], 'fires_per_hit',
                     d['fires_per_hit']))
        missed(d, '%s=%s' % (key, p))
    res = {}
    for (p, r), vs in by.items():
        # A variant kernel's rounds have their own empty program
        # ("empty_o1": scripts/bench.sh renames its variants).
        base = next((v for v in vs if v.startswith('empty')), None)
        if base is None:
            continue
        for v, ns in vs.items():
            res.setdefault(p, {}).setdefault(v, []).append((bootof[r], ns - vs[base]))
            rows.append((prefix.rstrip('-'), v, p, r, 'delta_ns', ns - vs[base]))
    find_outliers(prefix, by, 'empty')
    out_ = {}
    for p in sorted(res):
        out_[p] = {v: dict(bstat(xs), mops=med(mops[(p, v)]))
                   for v, xs in res[p].items()}
    return out_


def find_outliers(what, by, base):
    """Rounds whose baseline (empty program, loop without lookup) is more
    than 15% off its median over rounds: listed, not dropped."""
    per = {}
    for (p, r), vs in by.items():
        if base in vs:
            per.setdefault(p, []).append((r, vs[base]))
    for p, xs in sorted(per.items()):
        m = med([x for _, x in xs])
        for r, x in xs:
            if m and abs(x / m - 1) > 0.15:
                outliers.append('%s%s N=%s round %s: %.2f %s/op vs median %.2f' % (
                    what, base, p, r, x, UNIT, m))


kmulti = hot('ipc-kmulti-', 'funcs')
fentry = hot('ipc-fentry-', None)
fmulti = hot('ipc-fmulti-', 'funcs')
umulti = hot('ipc-umulti-', None)

# --- lookup micro-benchmark, delta over the loop without a lookup
lk_by = {}
resize = {}
for d in thr:
    if not d['bench'].startswith('ipc-lookup-'):
        continue
    v = d['bench'][len('ipc-lookup-'):]
    n = int(d['entries'])
    if int(d['resize']):
        resize.setdefault(n, {}).setdefault('resize', []).append(d['mops'])
        resize[n].setdefault('resizes', []).append(d['resizes'])
        continue
    lk_by.setdefault((n, d['round']), {})[v] = d['ns']
    bootof[d['round']] = d['boot']
    missed(d, 'entries=%d' % n)
    rows.append(('lookup', v, n, d['round'], 'ns_per_loop', d['ns']))
lk = {}
for (n, r), vs in lk_by.items():
    if 'none' not in vs:
        continue
    for v, ns in vs.items():
        if v == 'none':
            continue
        lk.setdefault(n, {}).setdefault(v, []).append((bootof[r], ns - vs['none']))
        rows.append(('lookup', v, n, r, 'delta_ns', ns - vs['none']))
    if 'ipc' in vs:
        resize.setdefault(n, {}).setdefault('quiet', []).append(1000.0 / vs['ipc'])
lookup = {n: {v: bstat(xs) for v, xs in lk[n].items()} for n in sorted(lk)}
find_outliers('ipc-lookup-', lk_by, 'none')
resize = {n: {k: med(v) for k, v in d.items()} for n, d in resize.items()
          if 'resize' in d}

# --- memory, population, attach
# kprobe.multi cookies, derived from the code rather than measured (see
# the note under the memory table), next to each size's measurements.
derived = []
for i, d in enumerate(mem):
    derived.append(d)
    if i + 1 == len(mem) or mem[i + 1]['entries'] != d['entries']:
        derived.append({'kind': 'kmulti-cookies', 'entries': d['entries'],
                        'memlock_per_entry': 16.0, 'memcg_per_entry': 0.0})
mem = derived
def oneshot(ds, section, size, kind, metrics=None):
    """{size: {kind: {metric: median}}} of one-shot lines; CSV rows too"""
    acc = {}
    for d in ds:
        for m in metrics or [k for k in d if k not in (size, kind)]:
            if m not in d:
                continue
            acc.setdefault(int(d[size]), {}).setdefault(d[kind], {}) \
               .setdefault(m, []).append(d[m])
            rows.append((section, d[kind], int(d[size]), 0, m, d[m]))
    return {n: {k: {m: med(x) for m, x in v.items()} for k, v in g.items()}
            for n, g in sorted(acc.items())}


memory = oneshot(mem, 'mem', 'entries', 'kind',
                 ('memlock_per_entry', 'memcg_per_entry', 'memcg_filled_per_entry'))
popul = oneshot(pop, 'populate', 'entries', 'kind')
attach = oneshot(att, 'attach', 'funcs', 'mode', ('attach_ms', 'fill_ms', 'detach_ms'))

# --- targets (issue 11; the same rules for every unit)
targets = []


def target(name, ok, figure):
    targets.append({'target': name, 'met': ok, 'figure': figure})


def mdn(fam, p, v):
    """the median of variant v at N = p, NaN when not measured"""
    return fam.get(p, {}).get(v, {}).get('median', float('nan'))


def empty_ns(fam, p):
    """the empty program's ns (instructions) per trigger at N = p"""
    e = fam.get(p, {}).get('empty', {})
    return 1000.0 / e['mops'] if e.get('mops') else float('nan')


def pct_of_empty(eh, d):
    return 100.0 * eh / (eh + d)


def best_of(*xs):
    return min((x for x in xs if x == x), default=float('nan'))


def by_n(fam):
    """the sizes N of a family, N = all (0) last"""
    return sorted(fam, key=lambda x: (x == 0, x))


U = UNIT
for p in by_n(kmulti):
    c, i, il = mdn(kmulti, p, 'cookie'), mdn(kmulti, p, 'ipc'), mdn(kmulti, p, 'ipc_link')
    target('kprobe.multi N=%s: IP_COOKIE below the cookie' % (p or 'all'),
           i < c, 'ipc %+.2f vs cookie %+.2f %s over empty' % (i, c, U))
    best = best_of(i, mdn(kmulti, p, 'kfunc'))
    o1 = mdn(kmulti, p, 'cookie_o1')
    if o1 == o1:
        target('kprobe.multi N=%s: IP_COOKIE at or below the O(1) cookie (issue 22)' % (p or 'all'),
               best <= o1, 'best of ipc/kfunc %+.2f vs O(1) cookie %+.2f %s over empty' % (
                   best, o1, U))
    target('kprobe.multi N=%s: IP_COOKIE at most +30 over empty (issue 22)' % (p or 'all'),
           best <= 30, 'best of ipc/kfunc %+.2f %s' % (best, U))
    if il == il:
        target('kprobe.multi N=%s: {ip, link_id} at or below the cookie' % (p or 'all'),
               il <= c, '{ip,link} %+.2f vs cookie %+.2f %s over empty' % (il, c, U))
    r = mdn(kmulti, p, 'rhash')
    if r == r:
        target('kprobe.multi N=%s: IP_COOKIE below RHASH (issue 45)' % (p or 'all'),
               best < r, 'best of ipc/kfunc %+.2f vs ip->RHASH %+.2f %s over empty' % (
                   best, r, U))
ipc_d = [mdn(kmulti, p, 'ipc') for p in by_n(kmulti)]
if len(ipc_d) > 1 and min(ipc_d) > 0:
    spread = max(ipc_d) / min(ipc_d) - 1
    target('kprobe.multi: IP_COOKIE flat within 2%% over N=%s' %
           ','.join(str(p or 'all') for p in by_n(kmulti)),
           spread <= 0.02, 'delta %s %s (spread %.1f%%)' % (
               ', '.join('%.2f' % x for x in ipc_d), U, 100 * spread))
if 1 in fentry:
    c, i = mdn(fentry, 1, 'cookie'), mdn(fentry, 1, 'ipc')
    target('fentry: IP_COOKIE at most 2x the cookie (over empty)',
           i <= 2 * c, 'ipc %+.2f vs cookie %+.2f %s over empty (%.1fx)' % (
               i, c, U, i / c if c > 0 else float('nan')))
    eh = empty_ns(fentry, 1)
    target('fentry: IP_COOKIE at >= 90% of the empty program (issue 22)',
           eh / (eh + i) >= 0.9, '%.1f%% (empty %.2f, +%.2f %s)' % (
               100 * eh / (eh + i), eh, i, U))
    k = mdn(fentry, 1, 'kfunc')
    if k == k:
        target('fentry: bpf_ip_cookie_lookup() at >= 90% of the empty program (issue 22)',
               eh / (eh + k) >= 0.9, '%.1f%% (empty %.2f, +%.2f %s)' % (
                   100 * eh / (eh + k), eh, k, U))
    ca = mdn(fentry, 1, 'cookie_array')
    target('fentry: IP_COOKIE at or below cookie->ARRAY (over empty)',
           i <= ca, 'ipc %+.2f vs cookie->ARRAY %+.2f %s' % (i, ca, U))
    wa, wi = mdn(fentry, 1, 'wide_array'), mdn(fentry, 1, 'wide_ipc')
    target('fentry, 64 B of data: IP_COOKIE at or below cookie->ARRAY',
           wi <= wa, 'ipc %+.2f vs cookie->ARRAY %+.2f %s' % (wi, wa, U))
for n in sorted(lookup):
    li = lookup[n].get('ipc', {})
    if li.get('n', 0) > 1 and li['median'] > 0:
        sp = (li['max'] - li['min']) / li['median']
        target('lookup N=%d: IP_COOKIE spread across rounds at most 5%% (issue 22)' % n,
               sp <= 0.05, '%.2f [%.2f, %.2f] %s (%.1f%%)' % (
                   li['median'], li['min'], li['max'], U, 100 * sp))
for n in sorted(lookup):
    i, h = mdn(lookup, n, 'ipc'), mdn(lookup, n, 'hash')
    target('lookup N=%d: IP_COOKIE at most 1/3 of HASH' % n,
           i > 0 and 3 * i <= h, 'ipc %.2f, hash %.2f %s (%.2fx)' %
           (i, h, U, h / i if i > 0 else float('nan')))
    rh = mdn(lookup, n, 'rhash')
    if rh == rh:
        target('lookup N=%d: IP_COOKIE at most 1/3 of RHASH (issue 45)' % n,
               i > 0 and 3 * i <= rh, 'ipc %.2f, rhash %.2f %s (%.2fx)' %
               (i, rh, U, rh / i if i > 0 else float('nan')))


for p in by_n(fmulti):
    eh = empty_ns(fmulti, p)
    c = mdn(fmulti, p, 'cookie')
    best = best_of(mdn(fmulti, p, 'ipc'), mdn(fmulti, p, 'kfunc'))
    if c == c and best == best:
        pc, pb = pct_of_empty(eh, c), pct_of_empty(eh, best)
        target('fentry.multi N=%s: IP_COOKIE within 10 points of the multi-link cookie (issue 45)' % (p or 'all'),
               pc - pb <= 10, 'best of ipc/kfunc %.1f%% vs cookie %.1f%% of empty '
               '(%+.2f vs %+.2f %s over empty %.2f)' % (pb, pc, best, c, U, eh))
    wa, wi = mdn(fmulti, p, 'wide_array'), mdn(fmulti, p, 'wide_ipc')
    if wa == wa and wi == wi:
        target('fentry.multi N=%s, 64 B of data: IP_COOKIE at or below cookie->ARRAY (issue 45)' % (p or 'all'),
               wi <= wa, 'ipc %+.2f vs cookie->ARRAY %+.2f %s' % (wi, wa, U))
if 100000 in memory and 'ipc' in memory[100000]:
    m = memory[100000]['ipc']
    target('memory at 100k: <= 40 B per 8-byte-value entry',
           m['memlock_per_entry'] <= 40 and 0 <= m['memcg_per_entry'] <= 40,
           'memlock %.1f B, memcg %.1f B' % (m['memlock_per_entry'],
                                            m['memcg_per_entry']))
if 100000 in memory and 'ipc' in memory[100000] and 'rhash' in memory[100000]:
    m, r = memory[100000]['ipc'], memory[100000]['rhash']
    target('memory at 100k: IP_COOKIE at or below RHASH by memcg (issue 45)',
           m['memcg_per_entry'] <= r['memcg_per_entry'],
           'IP_COOKIE %.1f B, RHASH %.1f B per entry' % (m['memcg_per_entry'],
                                                         r['memcg_per_entry']))
for n in sorted(popul):
    # Like for like where the run has it: IP_COOKIE with the size hint
    # (map_extra) RHASH gets.
    h = 'ipc-hint' in popul[n]
    m, r = popul[n].get('ipc-hint' if h else 'ipc'), popul[n].get('rhash')
    if m and r:
        target('populate N=%d: IP_COOKIE%s batch insert at least as fast as RHASH\'s (issue 45)' % (
                   n, ', given the same map_extra hint,' if h else ''),
               m['batch_ns_per_op'] <= r['batch_ns_per_op'],
               'IP_COOKIE %.0f vs RHASH %.0f ns per insert' % (
                   m['batch_ns_per_op'], r['batch_ns_per_op']))
if attach:
    big = 50000 if 50000 in attach else max(attach)
    a = attach[big]
    if 'cookies' in a and 'map' in a:
        r = a['map']['fill_ms'] / a['cookies']['attach_ms']
        target('batch load of %d entries < 10%% of kprobe.multi attach to them' % big,
               r < 0.10, 'fill %.1f ms vs attach %.1f ms (%.1f%%)' % (
                   a['map']['fill_ms'], a['cookies']['attach_ms'], 100 * r))

# --- write
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, 'results-%s.csv' % mode), 'w', newline='') as f:
    w = csv.writer(f)
    w.writerow(['section', 'variant', 'param', 'round', 'metric', 'value'])
    w.writerows(rows)
summary = {'env': env, 'guest': guest, 'vulnerabilities': vuln,
           'failures': fails, 'kmulti': kmulti, 'fentry': fentry, 'fmulti': fmulti,
           'umulti': umulti, 'lookup': lookup, 'resize': resize, 'memory': memory,
           'populate': popul, 'attach': attach, 'targets': targets,
           'rhash_nofix': nofix,
           'unit': UNIT, 'boots': NBOOTS, 'outliers': outliers}
with open(os.path.join(out, 'summary-%s.json' % mode), 'w') as f:
    json.dump(summary, f, indent=1, sort_keys=True, default=str)

KM = ['funcip', 'cookie', 'cookie_array', 'cookie_o1', 'cookie_array_o1', 'hash', 'rhash',
      'rhash_nofix', 'ipc',
      'kfunc', 'funcip_link', 'ipc_link']
KM = [v for v in KM if any(v in kmulti[p] for p in kmulti)]
NAMES = {'empty': 'empty', 'cookie': 'cookie', 'cookie_array': 'cookie->ARRAY',
         'cookie_o1': 'O(1) cookie', 'cookie_array_o1': 'O(1) cookie->ARRAY',
         'funcip': 'ip only (no lookup)', 'funcip_link': 'ip + link ID only (no lookup)',
         'wide_array': 'cookie->ARRAY, 64 B', 'wide_ipc': 'ip->IP_COOKIE, 64 B',
         'hash': 'ip->HASH', 'rhash': 'ip->RHASH', 'ipc': 'ip->IP_COOKIE',
         'rhash_nofix': 'ip->RHASH (7.3 hash)',
         'kfunc': 'bpf_ip_cookie_lookup()',
         'ipc_link': '{ip,link}->IP_COOKIE', 'array': 'ARRAY (by index)',
         'hash-nopre': 'HASH no-prealloc', 'kmulti-cookies': 'kprobe.multi cookies'}
MAPS = {'ipc': 'IP_COOKIE', 'hash': 'HASH prealloc', 'hash-nopre': 'HASH no-prealloc',
        'rhash': 'RHASH', 'ipc-hint': 'IP_COOKIE, map_extra'}
MEMK = ('ipc', 'hash', 'hash-nopre', 'rhash')


def cell(s):
    if not s:
        return '-'
    c = '%.2f' % s['median']
    if s['n'] > 1:
        c += ' [%.2f, %.2f]' % (s['min'], s['max'])
    if len(s.get('boots', [])) > 1:
        c += ' (boots %s)' % ' / '.join('%.1f' % x for x in s['boots'])
    return c


def pcts(fam, p, vs):
    """each variant's rate as a share of the empty program's"""
    eh = empty_ns(fam, p)
    return ' | '.join('%.1f%%' % pct_of_empty(eh, fam[p][v]['median'])
                      if v in fam[p] else '-' for v in vs)


def hot_table(fam, vs, section, attachable):
    """per N: the empty program, each variant over it, and the empty
    program's runs per trigger call beyond the trigger's own"""
    fires = {}
    for (s, v, p, r, m, x) in rows:
        if s == section and m == 'fires_per_hit' and v == 'empty':
            fires.setdefault(p, []).append(x - 1)
    md.append('| N | empty %s/hit | ' % UNIT + ' | '.join(NAMES[v] for v in vs) +
              ' | other fires per hit |')
    md.append('|---|---|' + '---|' * len(vs) + '---|')
    for p in by_n(fam):
        md.append('| %s | %.2f (%.3f M/s) | ' % (
            'all (%s)' % env.get(attachable, '?') if p == 0 else str(p), empty_ns(fam, p),
            fam[p].get('empty', {}).get('mops', float('nan'))) +
            ' | '.join(cell(fam[p].get(v)) for v in vs) +
            ' | %.3f |' % med(fires.get(p, [])))


def n1_table(fam, vs, names):
    """N = 1: the empty program, each variant over it and as % of it"""
    md.append('| empty %s/hit | ' % UNIT + ' | '.join(names[v] for v in vs) + ' |')
    md.append('|---|' + '---|' * len(vs))
    if 1 in fam:
        md.append('| %.2f | ' % empty_ns(fam, 1) +
                  ' | '.join(cell(fam[1].get(v)) for v in vs) + ' |')
        md.append('| % of empty | ' + pcts(fam, 1, vs) + ' |')


vul = sorted(set(v.split('=', 1)[1] for v in vuln)) if vuln else ['(none reported)']
md = []
md.append('# IP_COOKIE benchmark results (%s mode)\n' % mode)
md.append('Produced by `%s` (scripts/bench.sh -> '
          'scripts/bench-guest.sh in the VM -> '
          'scripts/bench-report.py). Raw output: `raw-%s.txt`, every sample: '
          '`results-%s.csv`, medians: `summary-%s.json`.\n' %
          ('make bench' + (' QUICK=1' if 'quick' in mode.split('-') else '') +
           (' ONLY=icount' if ICOUNT else '') +
           (' FAMILIES="%s"' % env['families'] if env.get('families') else '') +
           (' OS_ROUNDS=%s' % env['os_rounds'] if env.get('os_rounds') else '') +
           (' ROUNDS=%s' % env['rounds'] if env.get('rounds') else '') +
           (' BOOTS=%s' % env['boots'] if env.get('boots') else ''),
           mode, mode, mode))
md.append('- Accelerator: **%s**%s' % (env.get('accel', '?').upper(), {
    'tcg': ' (pure emulation: calls, returns, indirect branches and TLB '
           'misses cost far more than on hardware; a TCG time ratio is not a '
           'hardware ratio)',
    'icount': ' (QEMU -icount shift=0: the guest clock advances one ns per '
              'instruction executed, so every "ns" below is a count of guest '
              'instructions; independent of the host, not a time)'}.get(
        env.get('accel'), '')))
md.append('- Figures: %s; median [min, max] over %s%s' % (
    'instructions' if ICOUNT else 'ns', 'rounds',
    ', then each boot\'s median (%d boots)' % NBOOTS if NBOOTS > 1 else ''))
md.append('- Kernel: base config (%s), guest `%s`' % (
    env.get('kernel_config', '?'),
    next((g for g in guest if g.startswith('kernel=')), '?')))
md.append('- Mitigations: config `%s`; guest /sys/devices/system/cpu/vulnerabilities: %s' % (
    env.get('config_mitigations', '').strip() or '?', '; '.join(vul)))
md.append('- Host: %s, %s CPUs; guest: 2 vCPUs; git %s; %s' % (
    env.get('host_cpu', '?'), env.get('host_nproc', '?'), env.get('git', '?'),
    env.get('date', '?')))
md.append('- Runs: %s' % next((g for g in guest if g.startswith('quick=')), '?'))
if fails:
    md.append('- **Problems**: ' + '; '.join(fails))
md.append('')

md.append('## kprobe.multi: %s per trigger over the empty program\n' % UNIT)
hot_table(kmulti, KM, 'ipc-kmulti', 'attachable')
md.append('\n"other fires per hit": runs of the program for attached functions '
          'other than the trigger, per trigger call (same for every variant; '
          'they are included in the delta-ns).\n')

md.append('## fentry (N = 1): %s per trigger over the empty program\n' % UNIT)
FV_ALL = ['funcip', 'cookie', 'cookie_array', 'hash', 'rhash', 'rhash_nofix', 'ipc', 'kfunc',
          'wide_array', 'wide_ipc']
FV = [v for v in FV_ALL if 1 in fentry and v in fentry[1]]
# "% of empty", the convention of the upstream fentry-multi and fprobe
# threads: a variant's rate as a share of the empty program's.
n1_table(fentry, FV, NAMES)
md.append('')
md.append('"%% of empty": the empty program\'s %s per trigger over the '
          'variant\'s (empty + delta), i.e. its rate as a share of the empty '
          'program\'s. The 64 B variants read all 64 bytes of per-function '
          'data found by the cookie as an ARRAY index or by the IP in an '
          'IP_COOKIE map.\n' % UNIT)

if fmulti:
    FMV = [v for v in FV_ALL if any(v in fmulti[p] for p in fmulti)]
    md.append('## fentry.multi: %s per trigger over the empty program\n' % UNIT)
    md.append('One fentry.multi program on one tracing multi-link over N functions '
              '(the trigger among them), function i with multi-link cookie i + 1; '
              'N = all: every function with BTF, an ftrace site and a unique name '
              '(%s).\n' % env.get('fmulti_attachable', '?'))
    hot_table(fmulti, FMV, 'ipc-fmulti', 'fmulti_attachable')
    md.append('')
    md.append('## fentry.multi: % of the empty program\n')
    md.append('| N | ' + ' | '.join(NAMES[v] for v in FMV) + ' |')
    md.append('|---|' + '---|' * len(FMV))
    for p in by_n(fmulti):
        md.append('| %s | ' % ('all (%s)' % env.get('fmulti_attachable', '?') if p == 0 else p) +
                  pcts(fmulti, p, FMV) + ' |')
    md.append('\n"%% of empty": the empty program\'s %s per trigger over the '
              'variant\'s (empty + delta), its rate as a share of the empty '
              'program\'s, as the upstream fentry-multi threads report it. '
              '"other fires per hit": runs of the program for attached functions '
              'other than the trigger, per trigger call.\n' % UNIT)

if 1 in umulti:
    md.append('## uprobe.multi (N = 1): %s per trigger over the empty program\n' % UNIT)
    UV = [v for v in ('offset', 'offset_link', 'cookie', 'cookie_array', 'ipc', 'ipc_link')
          if v in umulti[1]]
    UN = {'cookie': 'cookie', 'cookie_array': 'cookie->ARRAY', 'offset': 'offset only (no lookup)',
          'offset_link': 'offset + link ID only (no lookup)',
          'ipc': 'offset->IP_COOKIE (kfunc)', 'ipc_link': '{offset,link}->IP_COOKIE'}
    n1_table(umulti, UV, UN)
    md.append('\nThe producer calls ipc_uprobe_target() of the bench binary; the '
              'empty program\'s figure holds the uprobe trap and return. '
              '"offset": bpf_get_uprobe_offset(), looked up with '
              'bpf_ip_cookie_lookup().\n')

md.append('## Lookup micro-benchmark: %s per lookup over the loop without a lookup\n' % UNIT)
md.append('Keys: real kernel text addresses from /proc/kallsyms, shuffled; above '
          'their number, synthetic addresses 16 bytes apart (see raw `ipc-keys:` lines).\n')
LNF = any('rhash_nofix' in lookup[n] for n in lookup)
md.append('| entries | IP_COOKIE | HASH | RHASH | ' +
          ('RHASH (7.3 hash) | ' if LNF else '') +
          'ARRAY (by index) | HASH / IP_COOKIE | RHASH / IP_COOKIE |' +
          (' RHASH (7.3 hash) / IP_COOKIE |' if LNF else ''))
md.append('|---|---|---|---|---|---|---|' + ('---|---|' if LNF else ''))
for n in sorted(lookup):
    i, h, rh, rn = (mdn(lookup, n, v) for v in ('ipc', 'hash', 'rhash', 'rhash_nofix'))
    md.append('| %d | %s | %s | %s | %s%s | %.2fx | %.2fx |%s' % (
        n, cell(lookup[n].get('ipc')), cell(lookup[n].get('hash')),
        cell(lookup[n].get('rhash')),
        cell(lookup[n].get('rhash_nofix')) + ' | ' if LNF else '',
        cell(lookup[n].get('array')),
        h / i if i > 0 else float('nan'), rh / i if i > 0 else float('nan'),
        ' %.2fx |' % (rn / i if i > 0 else float('nan')) if LNF else ''))
md.append('')
if nofix['refused'] or nofix['misses'] or LNF:
    # "ipc-lookup-rhash_nofix: 96 of 100000 inserts refused ..." -> per
    # benchmark and size, one count per round
    refused = {}
    for r in nofix['refused']:
        m = re.match(r'ipc-(\w+)-rhash_nofix: (\d+) of (\d+) ', r)
        if m:
            refused.setdefault((m.group(1), int(m.group(3))), []).append(m.group(2))
    md.append('"RHASH (7.3 hash)": the same runs on a kernel built without patch '
              '`rhashfix` (scripts/bench.sh\'s variant kernel, `PATCHES="-rhashfix '
              '-rhashtest"`): RHASH hashing 8-byte keys as 7.3 does, '
              '`(u32)(k ^ (k >> 32)) ^ seed`. Inserts it refused with `-EBUSY` '
              '(a count for each round that refused any; those keys are then missing, '
              'and lookups of them miss): '
              '%s. Lookups that missed (each round that missed any): %s.\n' % (
                  '; '.join('%s N=%d: %s' % (f, n, ' / '.join(c))
                            for (f, n), c in sorted(refused.items())) or 'none',
                  '; '.join(['%s: %s' % (k[len('ipc-'):].replace('-rhash_nofix', ''),
                                         ' / '.join('%d' % x for x in v))
                             for k, v in sorted(nofix['misses'].items())] +
                            [o for o in nofix['other'] if 'lookups missed' not in o])
                  or 'none'))

if resize:
    md.append('## Lookups on one CPU while the other grows and shrinks the map\n')
    md.append('| entries | lookup loop M/s quiet | M/s while resizing | '
              'grow+shrink cycles in the run |')
    md.append('|---|---|---|---|')
    for n in sorted(resize):
        d = resize[n]
        md.append('| %d | %.3f | %.3f | %d |' % (
            n, d.get('quiet', float('nan')), d['resize'], d.get('resizes', 0)))
    md.append('\n(The resizer batch-inserts 4N extra keys, growing the index, '
              'then batch-deletes them, shrinking it; cycles are counted over the '
              'whole run including warm-up.)\n')

NOT_HERE = ('Not measured in this mode: a time run of `make bench` measures it '
            '(its results-quick.md or results-full.md).\n')
md.append('## Memory: bytes per entry (8-byte key, 8-byte value)\n')
if not memory:
    md.append(NOT_HERE)
else:
    md.append('| entries | ' + ' | '.join(
        '%s memlock / memcg (right after filling)' % MAPS[k]
        for k in MEMK) + ' | kprobe.multi cookies |')
    md.append('|---|' + '---|' * len(MEMK) + '---|')
    for n in sorted(memory):
        c = []
        for k in MEMK:
            m = memory[n].get(k)
            c.append(('%.1f / %.1f' % (m['memlock_per_entry'], m['memcg_per_entry'])
                      + (' (%.1f)' % m['memcg_filled_per_entry']
                         if 'memcg_filled_per_entry' in m else ''))
                     if m else '-')
        md.append('| %d | %s | 8 (derived, not charged) |' % (n, ' | '.join(c)))
    md.append('\nmemlock: the map\'s `map_mem_usage` (fdinfo). memcg: delta of '
              '`memory.current` of a fresh child cgroup around creating and filling '
              'the maps (small sizes use several copies to stay above the per-CPU '
              'charge batch), read once memory.current has settled, i.e. after '
              'what the maps free after a grace period (an IP_COOKIE map\'s '
              'replaced indexes) is gone; in parentheses, read right after the '
              'last update. kprobe.multi cookies: derived from the code, not '
              'measured: `bpf_kprobe_multi_link_attach()` (kernel/trace/bpf_trace.c, '
              '7.3) allocates the 8 B per function `addrs` array with or without '
              'cookies, and the `cookies` array (8 B per function) only when '
              'cookies are given; both with `kvmalloc_array(..., GFP_KERNEL)`, '
              'so not charged to a memcg. The cookie\'s own cost is 8 B per '
              'function.\n')

md.append('## Population and resize\n')
if not popul:
    md.append(NOT_HERE)
else:
    md.append('| entries | map | single insert ns/op | load by singles ms | '
              'batch ns/op | load by batch ms | resize (grow) p50/p99/max us | '
              'other updates p50/p99/max us | single delete ns/op | '
              'batch delete ns/op | inserts refused |')
    md.append('|---|---|---|---|---|---|---|---|---|---|---|')
    for n in sorted(popul):
        for k in MEMK[:1] + ('ipc-hint',) + MEMK[1:]:
            d = popul[n].get(k)
            if not d:
                continue
            g = ('%.1f / %.1f / %.1f (%d grows)' % (
                d['grow_p50_us'], d['grow_p99_us'], d['grow_max_us'], d['grow_n'])
                 if d.get('grow_n') else '-')
            md.append('| %d | %s | %.0f | %.2f | %.0f | %.2f | %s | %.1f / %.1f / %.1f | %s | %s | %s |' % (
                n, MAPS[k],
                d['single_ns_per_op'], d['load_single_ms'], d['batch_ns_per_op'],
                d['load_batch_ms'], g, d['other_p50_us'], d['other_p99_us'],
                d['other_max_us'],
                '%.0f' % d['del_single_ns_per_op'] if 'del_single_ns_per_op' in d else '-',
                '%.0f' % d['del_batch_ns_per_op'] if 'del_batch_ns_per_op' in d else '-',
                '%d' % d['refused'] if 'refused' in d else '-'))
    md.append('\nRHASH: `BPF_F_NO_PREALLOC`, `map_extra` (its size hint) the entry '
              'count up to its limit of 65535; rhashtable resizes in a worker, '
              'outside the timed calls, so it has no resize column. Deletes: the '
              'single inserts\' map one key at a time, the batch\'s map by one batch.%s\n' % (
                  ' "IP_COOKIE, map_extra": created with `map_extra` the entry '
                  'count, so its first index holds them all and it never grows '
                  'while filling.' if any('ipc-hint' in d for d in popul.values()) else ''))

md.append('## Attach plus populate (kprobe.multi, ms)\n')
if not attach:
    md.append(NOT_HERE)
else:
    md.append('| functions | attach with cookies | detach | attach without cookies | '
              'IP_COOKIE create + batch fill | fill / attach-with-cookies |')
    md.append('|---|---|---|---|---|---|')
    for n in sorted(attach):
        a = attach[n]
        if 'cookies' not in a or 'map' not in a:
            continue
        md.append('| %d | %.1f | %.1f | %.1f | %.2f | %.1f%% |' % (
            n, a['cookies']['attach_ms'], a['cookies']['detach_ms'],
            a['map']['attach_ms'], a['map']['fill_ms'],
            100 * a['map']['fill_ms'] / a['cookies']['attach_ms']))
    md.append('')

if outliers:
    md.append('## Outlier rounds (kept in every median above)\n')
    for o in outliers:
        md.append('- ' + o)
    md.append('')

md.append('## Targets\n')
md.append('| target | met | measured |')
md.append('|---|---|---|')
for t in targets:
    md.append('| %s | %s | %s |' % (t['target'], 'met' if t['met'] else '**missed**',
                                     t['figure']))
md.append('')
md.append('Plots: %s.\n' % ', '.join(
    '`%s-%s.png`' % (name, mode) for name, have in (
        ('kmulti-delta', kmulti), ('lookup-ns', lookup), ('bytes-per-entry', memory))
    if have))
with open(os.path.join(out, 'results-%s.md' % mode), 'w') as f:
    f.write('\n'.join(md))

# --- plots
label = '%s, %s, base kernel' % (env.get('accel', '?').upper(), mode)
if ICOUNT:
    label = 'QEMU -icount: instructions, %s, base kernel' % mode


def plot(name, title, ylabel, series, logx=True, xlabel='N'):
    # An empty data block would shift gnuplot's "index" of the ones after it.
    series = [(t, pts) for t, pts in series if pts]
    dat = os.path.join(out, '%s-%s.dat' % (name, mode))
    with open(dat, 'w') as f:
        for i, (t, pts) in enumerate(series):
            f.write('# %s\n' % t)
            for x, y in pts:
                f.write('%g %g\n' % (x, y))
            f.write('\n\n')
    plots = ', '.join("'%s' index %d with linespoints title '%s'" % (dat, i, t)
                      for i, (t, _) in enumerate(series))
    gp = ("set terminal pngcairo size 900,560 noenhanced\nset output '%s'\n"
          "set title '%s (%s)'\nset xlabel '%s'\nset ylabel '%s'\n%s"
          "set key below\nset grid\nplot %s\n" % (
              os.path.join(out, '%s-%s.png' % (name, mode)), title, label,
              xlabel, ylabel, 'set logscale x\n' if logx else '', plots))
    subprocess.run(['gnuplot'], input=gp.encode(), check=True,
                   stderr=subprocess.DEVNULL)


allN = int(env['attachable']) if str(env.get('attachable', '')).isdigit() else 100000
kser = []
for v in KM:
    pts = [(p if p else allN, kmulti[p][v]['median']) for p in sorted(kmulti, key=lambda x: x or allN)
           if v in kmulti[p]]
    kser.append((NAMES[v], pts))
if kmulti:
    plot('kmulti-delta', 'kprobe.multi: cost over the empty program',
         'delta %s per trigger' % UNIT, kser, xlabel='attached functions N')
LK = {'ipc': 'IP_COOKIE', 'hash': 'HASH', 'rhash': 'RHASH',
      'rhash_nofix': 'RHASH (7.3 hash)', 'array': NAMES['array']}
lser = [(LK[v], [(n, lookup[n][v]['median']) for n in sorted(lookup) if v in lookup[n]])
        for v in ('ipc', 'hash', 'rhash', 'rhash_nofix', 'array')]
if lookup:
    plot('lookup-ns', 'map lookup, shuffled kernel addresses', '%s per lookup' % UNIT,
         lser, xlabel='entries')
mser = []
for k, t in (('ipc', 'IP_COOKIE'), ('hash', 'HASH prealloc'),
             ('hash-nopre', 'HASH no-prealloc'), ('rhash', 'RHASH')):
    mser.append((t + ' (memlock)', [(n, memory[n][k]['memlock_per_entry'])
                                    for n in sorted(memory) if k in memory[n]]))
    mser.append((t + ' (memcg)', [(n, memory[n][k]['memcg_per_entry'])
                                  for n in sorted(memory) if k in memory[n]]))
mser.append(('kprobe.multi cookies (derived)', [(n, 8) for n in sorted(memory)]))
if memory:
    plot('bytes-per-entry', 'memory per entry, 8-byte values', 'bytes per entry',
         mser, xlabel='entries')
print('\n'.join(md))
if fails:
    print('bench-report: FAILED: ' + '; '.join(fails), file=sys.stderr)
    sys.exit(1)
