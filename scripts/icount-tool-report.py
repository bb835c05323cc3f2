#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# scripts/icount-tool-report.py bpftrace|retsnoop RAW MD: the report of
# scripts/bench-TOOL.sh, RAW (the raw file it writes) -> MD, also printed.
import re
import statistics
import sys

tool, raw, out = sys.argv[1:4]
lines = [line.rstrip('\n') for line in open(raw)]
head = {}  # the header lines, "key: value"; the first of each key
for m in filter(None, (re.match(r'([^:]+): (.*)', line) for line in lines)):
    head.setdefault(m.group(1), m.group(2))
TRIGGER = ('- Trigger: `bt-trigger` (`scripts/bt-trigger.c`), `syscall(SYS_getppid)` in a loop, '
           'run for M then 2M iterations')


def fmt(v, p=1):
    md, lo, hi = statistics.median(v), min(v), max(v)
    if p == 0:
        return '{:,.0f} ({:,.0f}-{:,.0f})'.format(md, lo, hi)
    return '%.*f (%.*f-%.*f)' % (p, md, p, lo, p, hi)


def median_base(base):
    return statistics.median(base) if base else sys.exit('bench-%s: no baseline run' % tool)


def intro(title, how, figures, flavour, kernel):
    return ['# ' + title, '',
            'Written by `scripts/bench-%s.sh` (%s) on %s at commit %s. Raw guest output: '
            '`raw-%s-icount.txt`.' % (tool, how, head.get('date', '?'), head.get('commit', '?'), tool), '',
            '- Method: QEMU `-icount shift=0,sleep=off` (TCG): guest time advances one ns per '
            'instruction, so %s guest **instructions**, the same on any host. One boot of the '
            '**%s kernel** %s' % (figures, flavour, kernel)]


def baseline(base, p, tail=''):
    return ['', '```', head.get('command', '?'), '```', '',
            'Baseline, no %s: **%.*f** instructions per loop iteration (%s%s).' % (
                tool, p, statistics.median(base), ', '.join('%.*f' % (p, x) for x in base), tail), '']


def bpftrace():
    sess, order = {}, []
    for line in lines:
        m = re.match(r'bb-(\w+) (.*)', line)
        if not m:
            continue
        kind = m.group(1)
        d = dict(re.findall(r'(\w+)=(\S+)', m.group(2)))
        if 'id' not in d:
            continue
        s = sess.setdefault(d['id'], {'funcs': [], 'warn': []})
        if kind == 'session':
            s.update(d)
            order.append(d['id'])
        elif kind == 'run':
            s['ns%s' % d['k']] = int(d['ns'])
            s['iters%s' % d['k']] = int(d['iters'])
        elif kind == 'func':
            s['funcs'].append((d['name'], int(d['d1']), int(d['d2'])))
        elif kind in ('hits', 'check', 'exit', 'attach'):
            s.update({kind + '_' + k: v for k, v in d.items() if k != 'id'})
        elif kind == 'inv':
            s.update({d['tag'] + '_' + k: v for k, v in d.items() if k not in ('id', 'tag')})
        elif kind == 'snap':
            s['rm%s' % d['k']] = int(d['recursion_misses'])
        elif kind == 'warn':
            s['warn'].append(m.group(2))

    def per_iter(s):
        return (s['ns2'] - s['ns1']) / (s['iters2'] - s['iters1'])

    base = [per_iter(sess[i]) for i in order if sess[i]['set'] == 'base' and 'ns2' in sess[i]]
    b = median_base(base)
    rows = {}
    for i in order:
        s = sess[i]
        if s['set'] == 'base' or 'ns2' not in s or 'hits_d1' not in s:
            continue
        m = s['iters2'] - s['iters1']
        loop = sum(d2 - d1 for _, d1, d2 in s['funcs'] if (d2 - d1) / m >= 0.5) / m
        total = (int(s['hits_d2']) - int(s['hits_d1'])) / m
        t = per_iter(s)
        r = rows.setdefault((s['set'], s['mode']), {'hit': [], 'hitloop': [], 'loop': [], 'other': [],
                                                    'iter': [], 'n': set(), 'miss': [], 'exact': [],
                                                    'pattern': s['pattern'], 'names': set(), 'warn': 0,
                                                    'attach': []})
        r['hit'].append((t - b) / total)
        r['hitloop'].append((t - b) / loop if loop else float('nan'))
        r['loop'].append(loop)
        r['other'].append(total - loop)
        r['iter'].append(t)
        r['n'].add(s.get('attached_func_cnt') if s['mode'] != 'expand' and s.get('attached_func_cnt')
                   else s.get('attached_enabled_functions'))
        r['names'].update(n.split(':', 1)[-1] for n, d1, d2 in s['funcs'] if (d2 - d1) / m >= 0.5)
        r['exact'].append(s.get('check_exact', '?'))
        r['warn'] += len(s['warn']) + (s.get('exit_rc', '0') != '0')
        r['attach'].append(float(s.get('attach_guest_s', 'nan')))
        # Recursion-blocked probe entries per iteration, per hit.
        if all('rm%d' % k in s for k in range(3)):
            blocked = ((s['rm2'] - s['rm1']) - (s['rm1'] - s['rm0'])) / m
            r['miss'].append(blocked / total)

    def num(n):
        try:
            return '{:,}'.format(int(n))
        except (TypeError, ValueError):
            return str(n)

    im = re.match(r'(\d+) and \d+; reps: (\d+)', head.get('iterations', ''))
    iters = 'M = {:,}, {} reps'.format(int(im.group(1)), im.group(2)) if im else '?'
    setorder = []
    for i in order:
        if sess[i]['set'] != 'base' and sess[i]['set'] not in setorder:
            setorder.append(sess[i]['set'])
    md = intro('bpftrace `@[probe] = count()`: instructions per probe hit (QEMU -icount)', 'command below',
               'every figure is', 'base', '(%s); %s traceable functions.' % (
                   head.get('kernel', '?').split(' (')[0],
                   num(head.get('traceable functions (available_filter_functions)')))) + [
          '- bpftrace: %s, `kprobe:PATTERN { @[probe] = count(); }`, `BPFTRACE_MULTI_PROBE_ID` = '
          '`map` (one kprobe_multi program, `bpf_get_func_ip()` -> `BPF_MAP_TYPE_IP_COOKIE`), '
          '`cookie` (one program, `bpf_get_attach_cookie()`) or `expand` (stock 0.17: one program '
          'and one perf-event kprobe per function). `func`: Debian\'s bpftrace (%s), '
          '`kprobe:PATTERN { @[func] = count(); }`: one kprobe_multi program that keys its counts '
          'by the function\'s address (`bpf_get_func_ip()`) and names it only when it prints.' % (
              head.get('bpftrace', '?'), head.get('stock bpftrace (func rows)', '?')),
          TRIGGER + ' while bpftrace is attached, its counts snapshotted '
          '(SIGUSR1) before, between and after. Per iteration = (2M run - M run) / M, for the '
          'instructions and for every function\'s count; the fixed work around each run cancels.',
          '- Per hit = (traced - baseline instructions per iteration) / (hits per iteration), '
          'hits = loop + other. Loop: the functions at 0.5 hits per iteration or more (the '
          'syscall path). Other: the rest of the growth, hits that come with time rather than '
          'with the loop (mostly timer ticks on both vCPUs during the loop: a traced iteration '
          'takes longer, so it sees more of them), whose instructions the clock counts too '
          '(both vCPUs share one instruction counter). "over loop hits only" divides by loop '
          'hits alone.',
          '- Patterns: one wildcard each, so one kprobe_multi link in every map and cookie row '
          '(several wildcards make several links of the program). The loop\'s syscall enters '
          '`__do_sys_getppid` (`__x64_sys_getppid` is its alias, which available_filter_functions '
          'and so bpftrace\'s wildcards do not list); every pattern holds it.',
          '- Median (min-max) over the reps (%s), each rep one bpftrace start per row; N: '
          'functions attached (bpftool func_cnt of the kprobe_multi link; for expand: '
          'functions in enabled_functions). The VM ran %s (host wall time, beside other work).' % (
              iters, head.get('VM run', '?')),
          ] + baseline(base, 2, ' over %d reps' % len(base)) + [
          '| N | pattern | mode | per hit | over loop hits only | loop hits / iter | other hits / iter | '
          'instructions / iter | blocked entries / hit | getppid count exact |',
          '|---|---|---|---|---|---|---|---|---|---|']
    for st in setorder:
        for mode in ('map', 'cookie', 'expand', 'func'):
            r = rows.get((st, mode))
            if not r:
                continue
            md.append('| %s | `%s` | %s | **%s** | %s | %s | %s | %s | %s | %s |' % (
                ' / '.join(num(n) for n in sorted(r['n'], key=str)), r['pattern'], mode, fmt(r['hit']),
                fmt(r['hitloop']), fmt(r['loop'], 3), fmt(r['other'], 3), fmt(r['iter']),
                fmt(r['miss'], 2) if r['miss'] else '-',
                'yes' if all(e == 'yes' for e in r['exact']) else ' '.join(r['exact'])))
    med = {k: statistics.median(v['hit']) for k, v in rows.items()}
    diffs = ['N = %s: %+.0f' % (' / '.join(num(n) for n in sorted(rows[(st, 'map')]['n'], key=str)),
                                med[(st, 'cookie')] - med[(st, 'map')])
             for st in setorder if (st, 'map') in med and (st, 'cookie') in med]
    if diffs:
        md += ['', 'cookie - map, instructions per hit (medians): %s.' % '; '.join(diffs)]
    ex = ['N = %s: %+.0f' % (' / '.join(num(n) for n in sorted(rows[(st, 'map')]['n'], key=str)),
                             med[(st, 'expand')] - med[(st, 'map')])
          for st in setorder if (st, 'map') in med and (st, 'expand') in med]
    if ex:
        md += ['expand - map (stock 0.17 path, one perf-event kprobe and program per function): %s.' % '; '.join(ex)]
    fx = ['N = %s: %+.0f' % (' / '.join(num(n) for n in sorted(rows[(st, 'map')]['n'], key=str)),
                             med[(st, 'func')] - med[(st, 'map')])
          for st in setorder if (st, 'map') in med and (st, 'func') in med]
    if fx:
        md += ['func - map (stock 0.17 `@[func]`: the same one kprobe_multi program, keyed by '
               '`bpf_get_func_ip()` in its own hash, no probe string): %s.' % '; '.join(fx)]
    md += ['', 'Loop functions (>= 0.5 hits per iteration):', '']
    for st in setorder:
        names = set()
        for mode in ('map', 'cookie', 'expand', 'func'):
            if (st, mode) in rows:
                names |= rows[(st, mode)]['names']
        md.append('- `%s`: %s' % (rows.get((st, 'map'), rows.get((st, 'cookie'), {'pattern': st}))['pattern'],
                                  ', '.join('`%s`' % n for n in sorted(names)) or '-'))
    md += ['', 'Blocked entries / hit: the program\'s `recursion_misses` (/proc/PID/fdinfo, read at '
           'each snapshot, per iteration as above) per counted hit: probe entries that ran '
           'into a BPF program already running on that CPU, i.e. the program\'s own calls '
           'into attached functions (helpers, map code). Their cost is in the per-hit figure.',
           'Warnings in the raw output: %d.' % sum(r['warn'] for r in rows.values())]
    return md


def retsnoop():
    rows, base, warns = {}, [], []
    for line in lines:
        if line.startswith('rb-warn '):
            warns.append(line[8:])
        if not line.startswith('rb-row '):
            continue
        d = dict(re.findall(r'(\w+)=(\S+)', line))
        per = (int(d['ns2']) - int(d['ns1'])) / int(d['iters'])
        if d['mode'] == 'base':
            base.append(per)
            continue
        r = rows.setdefault((d['mode'], int(d['n']), d['ids']), {'iter': [], 'att': set(), 'runs': [],
                                                                   'attach': [], 'detach': []})
        r['iter'].append(per)
        r['att'].add(int(d['attached']))
        r['runs'].append(int(d['runs']) / int(d['iters']))
        r['attach'].append(float(d['attach_s']))
        r['detach'].append(float(d['detach_s']))
    b = median_base(base)
    name = {'map': 'ip_cookie map', 'cookie': 'cookie', 'hash': 'HASH'}
    md = intro('retsnoop: instructions per traced call (QEMU -icount)', '`make bench-retsnoop`',
               'the per-call figures are', head.get('flavour', '?'), '(%s).' % head.get('kernel', '?').split(' ')[0]) + [
          '- retsnoop a777df0 with `contrib/retsnoop`, `-e` the loop\'s syscall function and `-a` '
          'N - 1 functions the loop does not call (%s). `-M`: kprobe.multi, the function\'s ID from '
          'the ip_cookie map by `bpf_get_func_ip()` or, with `--no-ip-cookie-map`, from '
          '`bpf_get_attach_cookie()` (a binary search of the link\'s cookies). `-F`: fentry/fexit, '
          '`ip_to_id` as the ip_cookie map or, with `--no-ip-cookie-map`, as `BPF_MAP_TYPE_HASH`.'
          % head.get('calibration', '?'),
          TRIGGER + ': per iteration = (2M run - M run) / M. Per traced call = that '
          'less the baseline without retsnoop. Each call runs retsnoop\'s entry and exit programs '
          'once; no call stack is emitted (getppid() does not fail).',
          '- Median (min-max) over the reps (%s). N: functions retsnoop reported attached. Program '
          'runs per iteration: `run_cnt` of the programs, over a separate M iterations with '
          '`kernel.bpf_stats_enabled` (2: only the loop\'s call ran them; a few runs more per pass, '
          'the same at any M, are fixed work around the pass, e.g. functions the calibration did not '
          'see while the trigger starts or bpf_stats is switched on, which the timed runs, 2M less '
          'M, cancel). Attach: from retsnoop\'s '
          'start to "Receiving data..."; detach: from SIGINT to its exit; both on the guest\'s '
          'clock, which under -icount counts one ns per instruction and skips idle time to the next '
          'timer: **not** wall time. The VM ran %s (host wall time, beside other work).'
          % (head.get('iterations', '?'), head.get('VM run', '?')),
          ] + baseline(base, 1) + [
          '## Per traced call', '',
          '| mode | N | IDs from | instructions per traced call | program runs / iteration | '
          'attach (guest s) | detach (guest s) |',
          '|---|---|---|---|---|---|---|']
    order = [(m, n, i) for m in ('M', 'F') for n in sorted({k[1] for k in rows}) for i in ('map', 'cookie', 'hash')]
    med = {}
    for k in order:
        r = rows.get(k)
        if not r:
            continue
        per = [x - b for x in r['iter']]
        med[k] = statistics.median(per)
        md.append('| -%s | %s | %s | **%s** | %s | %s | %s |' % (
            k[0], ' / '.join('{:,}'.format(a) for a in sorted(r['att'])), name[k[2]], fmt(per, 0),
            fmt(r['runs'], 3), fmt(r['attach'], 2), fmt(r['detach'], 2)))
    md += ['', '## Summary: instructions per traced call (medians)', '',
           'N: the functions asked for (the table above has the number attached).', '',
           '| N | -M, cookie | -M, ip_cookie map | -M, cookie - map | -F, HASH | -F, ip_cookie map | -F, HASH - map |',
           '|---|---|---|---|---|---|---|']

    def cell(k):
        return '{:,.0f}'.format(med[k]) if k in med else '-'

    def diff(a, b):
        return '{:+,.0f}'.format(med[a] - med[b]) if a in med and b in med else '-'

    for n in sorted({k[1] for k in med}):
        md.append('| %s | %s | %s | %s | %s | %s | %s |' % (
            '{:,}'.format(n), cell(('M', n, 'cookie')), cell(('M', n, 'map')),
            diff(('M', n, 'cookie'), ('M', n, 'map')), cell(('F', n, 'hash')), cell(('F', n, 'map')),
            diff(('F', n, 'hash'), ('F', n, 'map'))))
    md += ['', 'Warnings in the raw output: %d.' % len(warns)] + ['- %s' % w for w in warns]
    return md


md = {'bpftrace': bpftrace, 'retsnoop': retsnoop}[tool]()
open(out, 'w').write('\n'.join(md) + '\n')
print('\n'.join(md))
print('bench-%s: %s' % (tool, out))
