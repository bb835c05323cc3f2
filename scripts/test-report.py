#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare two make test-full console logs (pristine, patched).

Prints a Markdown summary: per runner (test_progs, test_verifier, test_maps)
the pass/fail/skip counts on each kernel, then every test_progs test whose
result differs, then the tests that fail on both. Exit status 1 when a test
that passes on the pristine kernel fails (or is missing) on the patched one.

usage: test-full-report.py PRISTINE.log.txt PATCHED.log.txt
"""
import re
import sys

TOP = re.compile(r'^#(\d+)\s+([^/\s]+):(OK|FAIL|SKIP)(.*)$')
SUB = re.compile(r'^#(\d+)/(\d+)\s+(\S+):(OK|FAIL|SKIP)')
VSUM = re.compile(r'^Summary: (\d+) PASSED, (\d+) SKIPPED, (\d+) FAILED')
TPSUM = re.compile(r'^Summary: (\d+)/(\d+) PASSED, (\d+) SKIPPED, (\d+) FAILED')
RC = re.compile(r'^HARNESS-RC (\S+) (\d+)')


def parse(path):
    with open(path, errors='replace') as f:
        text = f.read()
    m = re.search(r'^HARNESS-CMD-BEGIN$(.*?)(^HARNESS-CMD-END$|\Z)', text,
                  re.S | re.M)
    body = m.group(1) if m else ''
    status = re.search(r'^HARNESS-EXIT-STATUS: (\d+)', text, re.M)
    r = {'top': {}, 'sub': {}, 'rc': {}, 'tp_sum': None, 'v_sum': None,
         'maps': None, 'complete': bool(m and m.group(2)),
         'exit': status.group(1) if status else None}
    runner = 'test_progs'
    in_errlog = False
    for line in body.splitlines():
        line = line.rstrip()
        rc = RC.match(line)
        if rc:
            r['rc'][rc.group(1)] = int(rc.group(2))
            runner = {'test_progs': 'test_verifier',
                      'test_verifier': 'test_maps'}.get(rc.group(1), '')
            in_errlog = False
            continue
        if runner == 'test_progs':
            if line == 'All error logs:':
                in_errlog = True
            s = TPSUM.match(line)
            if s:
                r['tp_sum'] = tuple(int(x) for x in s.groups())
                in_errlog = False
                continue
            if in_errlog:
                continue
            t = TOP.match(line)
            if t:
                res = t.group(3)
                if res == 'OK' and '(SKIP:' in t.group(4):
                    res = 'OK+SKIP'
                r['top'][t.group(2)] = res
                continue
            s = SUB.match(line)
            if s:
                r['sub'][s.group(3)] = s.group(4)
        elif runner == 'test_verifier':
            s = VSUM.match(line)
            if s:
                r['v_sum'] = tuple(int(x) for x in s.groups())
        elif runner == 'test_maps':
            if line.startswith('test_maps:'):
                r['maps'] = line
    return r


def counts(top):
    ok = sum(1 for v in top.values() if v == 'OK')
    part = sum(1 for v in top.values() if v == 'OK+SKIP')
    fail = sum(1 for v in top.values() if v == 'FAIL')
    skip = sum(1 for v in top.values() if v == 'SKIP')
    return ok, part, fail, skip


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    pri, pat = parse(sys.argv[1]), parse(sys.argv[2])
    out = []
    out.append('| runner | pristine 6.12 | with the series |')
    out.append('|---|---|---|')
    for name, r in (('pristine', pri), ('patched', pat)):
        r['c'] = counts(r['top'])
    fmt = '{} OK, {} OK with skipped subtests, {} FAIL, {} SKIP'
    out.append('| test_progs (tests) | %s | %s |' % (fmt.format(*pri['c']),
                                                   fmt.format(*pat['c'])))
    out.append('| test_progs (its summary line) | %s | %s |' % (
        pri['tp_sum'] and '%d/%d passed, %d skipped, %d failed' % pri['tp_sum'],
        pat['tp_sum'] and '%d/%d passed, %d skipped, %d failed' % pat['tp_sum']))
    out.append('| test_verifier | %s | %s |' % (
        pri['v_sum'] and '%d passed, %d skipped, %d failed' % pri['v_sum'],
        pat['v_sum'] and '%d passed, %d skipped, %d failed' % pat['v_sum']))
    out.append('| test_maps | %s | %s |' % (pri['maps'], pat['maps']))
    out.append('| exit status (test_progs, test_verifier, test_maps; VM) | %s; %s | %s; %s |' % (
        pri['rc'], pri['exit'], pat['rc'], pat['exit']))
    out.append('')

    own = re.compile(r'^ip_cookie')
    names = sorted(set(pri['top']) | set(pat['top']))
    regress, fixed, other, both = [], [], [], []
    for n in names:
        a, b = pri['top'].get(n, '-'), pat['top'].get(n, '-')
        if own.match(n):
            continue
        if a == b:
            if a == 'FAIL':
                both.append(n)
            continue
        if a in ('OK', 'OK+SKIP') and b not in ('OK', 'OK+SKIP'):
            regress.append((n, a, b))
        elif a == 'FAIL' and b in ('OK', 'OK+SKIP'):
            fixed.append((n, a, b))
        else:
            other.append((n, a, b))
    ours = [(n, pat['top'][n]) for n in names if own.match(n) and n in pat['top']]

    out.append('Upstream tests that pass on the pristine kernel and not with '
               'the series: **%d**%s' % (len(regress), '.' if not regress else ':'))
    for n, a, b in regress:
        out.append('- `%s`: %s -> %s' % (n, a, b))
    out.append('')
    if fixed or other:
        out.append('Other differences (pristine -> with the series):')
        for n, a, b in fixed + other:
            out.append('- `%s`: %s -> %s' % (n, a, b))
        out.append('')
    out.append('The series\' own tests on the patched kernel: %s' % (
        ', '.join('`%s` %s' % t for t in ours) or 'none'))
    out.append('')
    out.append('Tests that fail on both kernels (%d), with their failed subtests:' % len(both))
    for n in both:
        subs = sorted(s for s in set(pri['sub']) | set(pat['sub'])
                      if s.startswith(n + '/') and
                      'FAIL' in (pri['sub'].get(s), pat['sub'].get(s)))
        out.append('- `%s`%s' % (n, (': ' + ', '.join(
            '`%s`' % s.split('/', 1)[1] for s in subs)) if subs else ''))
    print('\n'.join(out))
    return 1 if regress else 0


if __name__ == '__main__':
    sys.exit(main())
