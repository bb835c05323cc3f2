#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Figures in the docs, generated from docs/results/ and checked against it.

  docs-figures.py write   rewrite every marked table and inline figure
  docs-figures.py check   exit 1 on anything that does not match its source

A source is a table of a results file: SRC#HEADING, the first Markdown
table under the heading whose text starts with HEADING (SRC relative to
the repository, or REV:SRC, the file as committed at REV, for a figure
kept from an earlier run). An inline figure may also come from a raw
file: SRC; line=TEXT; field=NAME, the NAME=VALUE of its first line that
holds TEXT. The report scripts write those files; nothing here measures
anything.

A table, in README.md, docs/*.md or series/cover-letter.txt:

  <!-- figures: SRC#HEADING; OPTION; ... -->
  (generated: a provenance line, then the table)
  <!-- /figures -->

  cols=A|B: these columns, in this order (the first is always kept);
  rows=A|B: these rows, by first cell; transpose; round=K: numeric cells
  to K decimals, their [min, max] and (...) dropped; header=A|B: the
  generated table's header, after the other options.

An inline figure is a number followed by its source:

  29<!-- fig SRC#HEADING; row=KEY; col=NAME -->

  row=KEY: the row whose first cell is KEY (row=#1: the first row);
  col=NAME: the column headed NAME; agg=min|max: over the whole column
  instead of one row; nth=K: the cell's K-th number (default the first);
  minus=NAME: less the same row's NAME; div=NAME: over it; pct=NAME: the
  rate as a share of NAME's, 100 * NAME / (NAME + col) ("% of empty", col
  a delta over it); neg: the sign turned ("9 below"); spread: of a cell
  "median [min, max]", 100 * (max - min) / median, in percent. The figure
  matches when the source's number, rounded to as many decimals as the
  doc gives, is the doc's number.

check also fails on: a table whose source is empty; a results file or
doc naming a plot that does not exist; a paragraph or table row that
cites results files and a commit none of them names; and, in the files
of STRICT, a measured figure (a number with a unit) outside a generated
table without a source (a line ending in <!-- not measured --> holds
none: design constants such as a load factor).
"""
import glob
import os
import re
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ['README.md', 'series/cover-letter.txt'] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, 'docs/*.md'))
    + [os.path.join(ROOT, 'contrib/retsnoop/README.md')])
# Files whose every measured figure is generated or has a source.
STRICT = ['README.md', 'series/cover-letter.txt']

REGION = re.compile(r'^<!-- figures: (.+?) -->\n(.*?)^<!-- /figures -->$',
                    re.M | re.S)
# A sign only after a space, '(' or '**': "6.2<!-- .. -->-7.6" is a range.
INLINE = re.compile(r'(?<![`\w.])(\*\*)?((?:(?<![^\s(*])[-+])?[0-9][0-9,]*(?:\.[0-9]+)?)'
                    r'(\*\*)?<!-- fig (.+?) -->', re.S)
NUMBER = re.compile(r'[-+]?[0-9][0-9,]*(?:\.[0-9]+)?')
COMMIT = re.compile(r'(?<![0-9a-zA-Z/.])([0-9a-f]{7,12})(?![0-9a-zA-Z])')
RESULT_REF = re.compile(r'(?:\b([0-9a-f]{7,40}):)?(?:docs/results/)?\b([a-z0-9-]+\.(?:md|txt))\b')
PLOT = re.compile(r'([A-Za-z0-9_./-]+\.png)\b')
# A measured figure: a number and a unit (prose, not a table row).
MEASURED = re.compile(r'(?<![\w.@])[0-9][0-9,.]*\s?'
                      r'(?:ns|instructions|M/s|ms|B per entry|B\b|%|x\b)')

errors = []


def err(where, msg):
    """A finding; None, which a lookup that fails returns."""
    errors.append('%s: %s' % (where, msg))


def clean(cell):
    return cell.strip().replace('**', '').replace('`', '').strip()


_files = {}


def source_text(path):
    """A file of the tree, or REV:PATH, the file as committed at REV."""
    if path not in _files:
        full = os.path.join(ROOT, path)
        if ':' in path:
            r = subprocess.run(['git', '-C', ROOT, 'show', path],
                               capture_output=True, text=True)
            _files[path] = r.stdout if r.returncode == 0 else None
        else:
            _files[path] = open(full).read() if os.path.isfile(full) else None
    return _files[path]


def table(spec, where):
    """(header, rows, provenance) of SRC#HEADING, or None."""
    path, _, heading = spec.partition('#')
    text = source_text(path)
    if text is None:
        return err(where, 'source %s does not exist' % path)
    lines = text.split('\n')
    start = None
    for i, line in enumerate(lines):
        if line.startswith('#') and line.lstrip('#').strip().startswith(heading):
            start = i
            break
    if start is None:
        return err(where, '%s has no heading "%s"' % (path, heading))
    tab = []
    for line in lines[start + 1:]:
        if line.startswith('#'):
            break
        if line.startswith('|'):
            tab.append(line)
        elif tab:
            break
    if len(tab) < 2:
        return err(where, '%s#%s has no table' % (path, heading))
    split = [[c.strip() for c in row.strip().strip('|').split('|')] for row in tab]
    header, rows = split[0], [r for r in split[2:]]
    if not rows:
        return err(where, '%s#%s: the table is empty in its source (no rows)' % (path, heading))
    return header, rows, provenance(path, text)


def provenance(path, text):
    head = text.split('\n## ')[0]
    m = re.search(r'\b(?:git|commit|at) `?([0-9a-f]{7,40})\b', head)
    commit = m.group(1)[:7] if m else None
    if re.search(r'icount', head, re.I):
        method = 'QEMU -icount, guest instructions'
    elif re.search(r'\bTCG\b', head):
        method = 'QEMU TCG time'
    elif re.search(r'natively|host CPU', head):
        method = 'native model on the host CPU'
    else:
        method = None
    m = re.search(r'(?:Host|CPU): ([^;,\n]+)', head)
    host = m.group(1).strip() if m else None
    return {'path': path, 'commit': commit, 'method': method, 'host': host}


def first_number(cell, nth=1):
    m = NUMBER.findall(clean(cell))
    return Decimal(m[nth - 1].replace(',', '')) if len(m) >= nth else None


def parse_opts(text):
    spec, *opts = [o.strip() for o in text.split(';')]
    out = {}
    for o in opts:
        k, _, v = o.partition('=')
        out[k.strip()] = v.strip()
    return spec, out


def fmt(d, places):
    q = Decimal(1).scaleb(-places)
    return str(d.quantize(q, rounding=ROUND_HALF_UP))


def render(marker, where):
    spec, opts = parse_opts(marker)
    t = table(spec, where)
    if t is None:
        return None
    header, rows, prov = t
    if not prov['commit'] or not prov['method']:
        return err(where, '%s names no commit or no method in its header' % prov['path'])
    if 'round' in opts:
        k = int(opts['round'])

        def rnd(c):
            c = re.sub(r'\s*(\[[^]]*\]|\([^)]*\))', '', c)
            return NUMBER.sub(lambda m: fmt(Decimal(m.group(0).replace(',', '')), k), c, 1)
        rows = [[r[0]] + [rnd(c) for c in r[1:]] for r in rows]
    if 'cols' in opts:
        want = [header[0]] + opts['cols'].split('|')
        idx = []
        for c in want:
            if c not in header:
                return err(where, '%s has no column "%s"' % (spec, c))
            idx.append(header.index(c))
        header = [header[i] for i in idx]
        rows = [[r[i] for i in idx] for r in rows]
    if 'transpose' in opts:
        grid = [header] + rows
        grid = [list(x) for x in zip(*grid)]
        header, rows = grid[0], grid[1:]
    if 'rows' in opts:
        by = {clean(r[0]): r for r in rows}
        sel = []
        for k in opts['rows'].split('|'):
            if k not in by:
                return err(where, '%s has no row "%s"' % (spec, k))
            sel.append(by[k])
        rows = sel
    if 'header' in opts:
        header = opts['header'].split('|')
    out = ['_%s, %s; git %s%s._' % (
        '`' + prov['path'] + '`', prov['method'], prov['commit'],
        '; host ' + prov['host'] if prov['host'] else ''), '']
    out.append('| ' + ' | '.join(header) + ' |')
    out.append('|' + '---|' * len(header))
    for r in rows:
        out.append('| ' + ' | '.join(r) + ' |')
    return '\n'.join(out) + '\n'


def lookup(marker, where):
    spec, opts = parse_opts(marker)
    if '#' not in spec:
        # A raw file: the first line holding line=TEXT, its field=NAME.
        text = source_text(spec)
        if text is None:
            return err(where, 'source %s does not exist' % spec)
        line = next((x for x in text.split('\n') if opts.get('line', '\0') in x), None)
        m = re.search(r'\b%s=([-0-9.]+)' % re.escape(opts.get('field', '')), line or '')
        if not m:
            return err(where, '%s: no line with "%s" and %s=' %
                       (spec, opts.get('line'), opts.get('field')))
        return Decimal(m.group(1))
    t = table(spec, where)
    if t is None:
        return None
    header, rows, _ = t
    col = opts.get('col')
    hdr = [clean(h) for h in header]
    if col not in hdr:
        return err(where, '%s has no column "%s"' % (spec, col))
    ci = hdr.index(col)
    def cell(c):
        if 'spread' not in opts:
            return first_number(c, int(opts.get('nth', 1)))
        m, lo, hi = (first_number(c, k) for k in (1, 2, 3))
        return None if hi is None or not m else 100 * (hi - lo) / m

    if 'agg' in opts:
        vals = [cell(r[ci]) for r in rows if ci < len(r)]
        vals = [v for v in vals if v is not None]
        if not vals:
            return err(where, '%s: column "%s" has no numbers' % (spec, col))
        return min(vals) if opts['agg'] == 'min' else max(vals)
    key = opts.get('row', '')
    if key.startswith('#'):
        row = rows[int(key[1:]) - 1] if int(key[1:]) <= len(rows) else None
    else:
        row = next((r for r in rows if clean(r[0]) == key), None)
    if row is None:
        return err(where, '%s has no row "%s"' % (spec, key))
    v = cell(row[ci])
    if v is None:
        return err(where, '%s row "%s" col "%s": "%s" is not a number' % (spec, key, col, row[ci]))
    for op in ('minus', 'div', 'pct'):
        if op not in opts:
            continue
        if opts[op] not in hdr:
            return err(where, '%s has no column "%s"' % (spec, opts[op]))
        w = first_number(row[hdr.index(opts[op])])
        if w is None:
            return err(where, '%s row "%s" col "%s" is not a number' % (spec, key, opts[op]))
        v = v - w if op == 'minus' else v / w if op == 'div' else 100 * w / (w + v)
    return -v if 'neg' in opts else v


def process(path, write):
    full = os.path.join(ROOT, path)
    text = open(full).read()

    def region(m):
        where = '%s:%d' % (path, text[:m.start()].count('\n') + 1)
        new = render(m.group(1), where)
        if new is None:
            return m.group(0)
        if new != m.group(2):
            if not write:
                err(where, 'table differs from %s (run: make docs-figures)' %
                    m.group(1).split(';')[0])
        return '<!-- figures: %s -->\n%s<!-- /figures -->' % (m.group(1), new)

    def inline(m):
        where = '%s:%d' % (path, text[:m.start()].count('\n') + 1)
        doc = m.group(2)
        v = lookup(m.group(4), where)
        if v is None:
            return m.group(0)
        places = len(doc.split('.')[1]) if '.' in doc else 0
        want = fmt(v, places)
        have = doc.replace(',', '').lstrip('+')
        if Decimal(want) != Decimal(have):
            if not write:
                err(where, 'figure %s, source says %s (%s)' % (doc, want, m.group(4).split(';')[0]))
            sign = '+' if doc.startswith('+') and v >= 0 else ''
            grouped = '{:,}'.format(Decimal(want)) if ',' in doc else want
            doc = sign + grouped
        b = m.group(1) or ''
        return '%s%s%s<!-- fig %s -->' % (b, doc, m.group(3) or '', m.group(4))

    new = REGION.sub(region, text)
    new = INLINE.sub(inline, new)
    if write and new != text:
        open(full, 'w').write(new)
        print('docs-figures: rewrote %s' % path)
    check_text(path, new)


def check_commits(path, text):
    """A paragraph (or table row) citing results files and a commit: one
    of those files names the commit, or its figures are not from there."""
    units, start, cur = [], 1, []
    for n, line in enumerate(text.split('\n') + [''], 1):
        if line.startswith('|') or not line.strip():
            if cur:
                units.append((start, ' '.join(cur)))
            cur = []
            if line.startswith('|'):
                units.append((n, line))
            continue
        if not cur:
            start = n
        cur.append(line)
    for n, unit in units:
        unit = re.sub(r'<!--.*?-->', '', unit)
        refs = sorted(set(('%s:docs/results/%s' % (rev, f)) if rev else 'docs/results/' + f
                          for rev, f in RESULT_REF.findall(unit)))
        refs = [r for r in refs if source_text(r) is not None]
        revs = set(rev for rev, _ in RESULT_REF.findall(unit) if rev)
        for c in sorted(set(COMMIT.findall(unit)) - revs) if refs else []:
            if not any(c in source_text(r) for r in refs):
                err('%s:%d' % (path, n), 'cites %s and commit %s, which none of them names'
                    % (', '.join(r.replace('docs/results/', '') for r in refs), c))


def check_text(path, text):
    check_commits(path, text)
    lines = text.split('\n')
    in_region = False
    for n, line in enumerate(lines, 1):
        where = '%s:%d' % (path, n)
        if line.startswith('<!-- figures:'):
            in_region = True
        elif line.startswith('<!-- /figures'):
            in_region = False
        for p in PLOT.findall(line):
            if not any(os.path.isfile(os.path.join(ROOT, d, p))
                       for d in ('', 'docs/results', os.path.dirname(path))):
                err(where, 'names plot %s, which does not exist' % p)
        if path in STRICT and not in_region and '<!-- not measured -->' not in line:
            bare = re.sub(r'<!-- fig .*?-->', '', INLINE.sub('', line))
            for m in MEASURED.finditer(bare):
                err(where, 'measured figure "%s" has no source (<!-- fig ... -->)' % m.group(0))


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ('write', 'check'):
        sys.exit(__doc__)
    write = sys.argv[1] == 'write'
    for path in DOCS:
        process(path, write)
    for res in sorted(glob.glob(os.path.join(ROOT, 'docs/results/*.md'))):
        rel = os.path.relpath(res, ROOT)
        for n, line in enumerate(open(res), 1):
            for p in PLOT.findall(line):
                if not os.path.isfile(os.path.join(os.path.dirname(res), os.path.basename(p))):
                    err('%s:%d' % (rel, n), 'names plot %s, which does not exist' % p)
    for e in errors:
        print('docs-figures: ' + e)
    if errors:
        print('docs-figures: %d finding(s)' % len(errors))
        sys.exit(1)
    print('docs-figures: %s' % ('written' if write else 'check: every figure matches its source'))


main()
