#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Results of test_progs (and test_verifier, test_maps) in VM console logs.

The one reader of test_progs output for make test and make test-full. It
reads the command part of a console log of scripts/vm-run.sh (between
HARNESS-CMD-BEGIN and HARNESS-CMD-END): test_progs' "#N name:RESULT" and
"#N/M name/subtest:RESULT" lines, up to its "All error logs:" repeat;
after a "HARNESS-RC <runner> <status>" line, the next runner's summary.

usage:
  test-report.py summary LOG VM_STATUS [ARCH LIMITS]
      make test (scripts/test.sh): the skipped tests, the failed tests and
      subtests ("test: failed: ..."), and last "counts PASSED FAILED
      SKIPPED REFUSED". A test that is OK with skipped subtests counts as
      skipped, not passed. VM_STATUS is vm-run's exit status: non-zero
      without a failed test (a splat, a timeout) counts as one failure
      more. With ARCH and LIMITS (scripts/arch-limits.txt), a skipped
      subtest that LIMITS lists for ARCH is printed as a documented
      refusal with its reason, and a test whose skips are all such
      refusals counts as REFUSED instead of SKIPPED.
  test-report.py compare PRISTINE.log.txt PATCHED.log.txt
      make test-full (scripts/test-full.sh): Markdown, per runner the
      pass/fail/skip counts on each kernel, then every test_progs test
      whose result differs, then the tests that fail on both. Exit status
      1 when a test that passes on the pristine kernel fails (or is
      missing) on the patched one.
"""
import os
import re
import sys

TOP = re.compile(r'^#(\d+)\s+([^/\s]+):(OK|FAIL|SKIP)(.*)$')
SUB = re.compile(r'^#(\d+)/(\d+)\s+(\S+):(OK|FAIL|SKIP)')
VSUM = re.compile(r'^Summary: (\d+) PASSED, (\d+) SKIPPED, (\d+) FAILED')
# 7.x prints failed tests/subtests ("119/452 FAILED"): the tests are kept.
TPSUM = re.compile(r'^Summary: (\d+)/(\d+) PASSED, (\d+) SKIPPED, (\d+)(?:/\d+)? FAILED')
RC = re.compile(r'^HARNESS-RC (\S+) (\d+)')


def parse(path):
    """The results of one console log.

    top: test name -> OK, OK+SKIP (OK with skipped subtests), FAIL or SKIP;
    sub: "test/subtest" -> OK, FAIL or SKIP; lines: the result lines of
    test_progs as printed, in order; rc: runner -> status of its
    HARNESS-RC line; tp_sum, v_sum, maps: the summaries of test_progs,
    test_verifier and test_maps; complete: the command part ended; exit:
    the guest's HARNESS-EXIT-STATUS.
    """
    with open(path, errors='replace') as f:
        text = f.read()
    m = re.search(r'^HARNESS-CMD-BEGIN$(.*?)(^HARNESS-CMD-END$|\Z)', text,
                  re.S | re.M)
    body = m.group(1) if m else ''
    status = re.search(r'^HARNESS-EXIT-STATUS: (\d+)', text, re.M)
    r = {'top': {}, 'sub': {}, 'lines': [], 'rc': {}, 'tp_sum': None,
         'v_sum': None, 'maps': None, 'complete': bool(m and m.group(2)),
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
            # test_progs repeats the failed tests after "All error logs:".
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
                r['lines'].append(line)
                continue
            s = SUB.match(line)
            if s:
                r['sub'][s.group(3)] = s.group(4)
                r['lines'].append(line)
        elif runner == 'test_verifier':
            s = VSUM.match(line)
            if s:
                r['v_sum'] = tuple(int(x) for x in s.groups())
        elif runner == 'test_maps':
            # Its summary, or else its last line: it stops at the first
            # test that fails.
            if line.startswith('test_maps:'):
                r['maps'] = line
            elif not r['maps'] or not r['maps'].startswith('test_maps:'):
                r['maps'] = 'stopped after: ' + line
    return r


def limits(path, arch):
    """{test/subtest: reason} that LIMITS documents for ARCH."""
    reasons, refused = {}, {}
    with open(path) as f:
        for line in f:
            w = line.split(None, 2)
            if not w or w[0].startswith('#'):
                continue
            if w[0] == 'reason':
                reasons[w[1]] = w[2].strip()
            elif w[0] == arch:
                refused[w[2].strip()] = w[1]
    return {t: reasons[k] for t, k in refused.items()}


def summary(log, vm_status, arch=None, limits_file=None):
    r = parse(log)
    known = limits(limits_file, arch) if limits_file else {}
    # Tests whose every skipped subtest is a documented refusal.
    refusals = {}
    for s, v in r['sub'].items():
        if v == 'SKIP':
            refusals.setdefault(s.split('/', 1)[0], []).append(s)
    refused_tests = set(t for t, subs in refusals.items()
                        if all(s in known for s in subs))
    refused_tests |= set(t for t, v in r['top'].items()
                         if v == 'SKIP' and t in known and t not in refusals)
    passed = sum(1 for v in r['top'].values() if v == 'OK')
    failed = sum(1 for v in r['top'].values() if v == 'FAIL')
    refused = sum(1 for t, v in r['top'].items()
                  if v in ('SKIP', 'OK+SKIP') and t in refused_tests)
    skipped = sum(1 for v in r['top'].values()
                  if v in ('SKIP', 'OK+SKIP')) - refused
    for s in sorted(list(r['sub']) + list(r['top'])):
        if r['sub'].get(s, r['top'].get(s)) == 'SKIP' and s in known:
            print('test: refused on %s, as documented: %s: %s' % (arch, s, known[s]))
    for line in r['lines']:
        t = TOP.match(line)
        if t and t.group(2) in refused_tests:
            continue
        if t and (t.group(3) == 'SKIP' or '(SKIP:' in t.group(4)):
            print('test: skipped (not counted as passed): ' + line)
    # Failed tests and subtests, printed again last: CI keeps the tail.
    for line in r['lines']:
        if ':FAIL' in line:
            print('test: failed: ' + line)
    name = os.path.basename(log)
    if name.endswith('.log.txt'):
        name = name[:-len('.log.txt')]
    if vm_status != 0 and failed == 0:
        print('#vm      %s:FAIL (exit %d: splat, timeout or runner error)' % (name, vm_status))
        print('test: failed: %s (exit %d: splat, timeout or runner error; '
              "see vm-run's report above)" % (name, vm_status))
        failed = 1
    print('counts %d %d %d %d' % (passed, failed, skipped, refused))
    return 0


def compare(pristine, patched):
    pri, pat = parse(pristine), parse(patched)
    out = ['| runner | pristine base | with the series |', '|---|---|---|']
    fmt = '%d OK, %d OK with skipped subtests, %d FAIL, %d SKIP'
    for what, res in (
            ('test_progs (tests)', lambda r: fmt % tuple(
                sum(1 for v in r['top'].values() if v == w)
                for w in ('OK', 'OK+SKIP', 'FAIL', 'SKIP'))),
            ('test_progs (its summary line)',
             lambda r: r['tp_sum'] and '%d/%d passed, %d skipped, %d failed' % r['tp_sum']),
            ('test_verifier', lambda r: r['v_sum'] and '%d passed, %d skipped, %d failed' % r['v_sum']),
            ('test_maps', lambda r: r['maps']),
            ('exit status (test_progs, test_verifier, test_maps; VM)',
             lambda r: '%s; %s' % (r['rc'], r['exit']))):
        out.append('| %s | %s | %s |' % (what, res(pri), res(pat)))
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


def main():
    if len(sys.argv) in (4, 6) and sys.argv[1] == 'summary':
        return summary(sys.argv[2], int(sys.argv[3]), *sys.argv[4:])
    if len(sys.argv) == 4 and sys.argv[1] == 'compare':
        return compare(sys.argv[2], sys.argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
