#!/usr/bin/env python3
"""show_expect.py RECORDS.csv SHOW.csv SHOW.text: the arrival figures that
`collsel show` prints for the golden profile with arrivals, computed here
from the records mkprofile put into it (`mkprofile records`), by the
definitions of record/arrivals.h, not by its code:
  wait       min(last arrival, own exit) - own entry, per rank
  completion max(0, own exit - last arrival)
  spread     last - first arrival per operation: weighted mean, and p50 /
             p95 linear within the quarter-octave bin that holds them
  late       the world rank that arrived last, share of weighted operations
  exits      per pair of consecutive operations: the wait had the first one
             released every rank at its last exit (each rank's next arrival
             later by how much earlier it left; a rank that left before the
             last arrival leaves as long after its own arrival, the others
             as long after the new last arrival), pair weight 2^max(level)
             (+1 where both are sampled); per operation, as a share of the
             cell's matched time per operation, times its recorded time
  before     a rank's entry minus its exit from the previous operation
  causes     the wait a cell's uneven exits add at the next operations (the
             same pairs, summed at the predecessor's cell)
A weight is 2^wexp of the operation (its records' largest).  Each figure
is compared with the CSV row of its cell (to the digits printed) and with
the text's rows; one FAIL line per difference, exit 1 on any."""
import csv
import math
import sys
from collections import defaultdict

fails = []


def check(what, got, want, tol):
    if got is None or abs(got - want) > tol:
        fails.append('%s: show says %s, computed %.9g' % (what, got, want))


def qbin(v):
    """The quarter-octave bin [lo, hi) of a value v >= 1 (record/profile.h)."""
    e = int(math.floor(math.log2(v)))
    m = int((v / 2.0 ** e - 1) * 4)
    lo = 2.0 ** e * (1 + m / 4.0)
    return lo, lo + 2.0 ** e / 4.0


def quantile(hist, q):
    """hist: {spread ns: weight}; linear within the quarter-octave bin."""
    bins = defaultdict(float)
    for v, w in hist.items():
        bins[qbin(v) if v >= 1 else (0.0, 0.0)] += w
    total, at = sum(bins.values()), 0.0
    for (lo, hi) in sorted(bins):
        h = bins[(lo, hi)]
        if at + h >= q * total:
            return lo + (hi - lo) * min(1.0, max(0.0, (q * total - at) / h))
        at += h
    raise ValueError('empty histogram')


def main():
    recs, show_csv, show_text = sys.argv[1:4]
    ops = defaultdict(list)
    for r in csv.DictReader(open(recs)):
        ops[(int(r['comm']), int(r['seq']))].append(r)
    cells = {}
    for (comm, seq), g in sorted(ops.items()):
        n = int(g[0]['comm_size'])
        if len(g) != n:
            continue  # an operation without all its ranks' records: not matched
        g.sort(key=lambda r: int(r['comm_rank']))
        key = (g[0]['coll'], n, int(g[0]['bin']))
        c = cells.setdefault(key, defaultdict(float, hist=None, late=None, prev=None))
        if c['hist'] is None:
            c['hist'], c['late'] = defaultdict(float), defaultdict(float)
        ent = [int(r['entry_ns']) for r in g]
        ext = [int(r['exit_ns']) for r in g]
        lev = max(int(r['wexp']) for r in g)
        w = 2.0 ** lev
        last = max(ent)
        for e, x in zip(ent, ext):
            c['wait'] += w * (min(x, last) - e) * 1e-9
            c['compl'] += w * max(0, x - last) * 1e-9
            c['entries'] += 1
        c['ops'] += w
        spread = last - min(ent)
        c['spread'] += w * spread * 1e-9
        c['hist'][spread] += w
        c['late'][int(g[ent.index(last)]['world_rank'])] += w
        p = c['prev']
        if p is not None and p['seq'] == seq - 1 and p['comm'] == comm:
            pw = 2.0 ** (max(lev, p['lev']) + (1 if lev and p['lev'] else 0))
            top = max(p['exit'])
            a2 = [e + top - px for e, px in zip(ent, p['exit'])]
            last2 = max(a2)
            for i in range(n):
                x2 = a2[i] + ext[i] - ent[i] if ext[i] < last else ext[i] + last2 - last
                c['pwait'] += pw * (min(ext[i], last) - ent[i]) * 1e-9
                c['swait'] += pw * (min(x2, last2) - a2[i]) * 1e-9
                c['gap'] += pw * max(0, ent[i] - p['exit'][i]) * 1e-9
                c['ngap'] += pw
            c['npair'] += pw
            c['nprev'] += pw  # the predecessor's cell: this one (no pairs across cells here)
            c['induced'] += sum(pw * ((min(ext[i], last) - ent[i]) - (min(
                a2[i] + ext[i] - ent[i] if ext[i] < last else ext[i] + last2 - last, last2) - a2[i]))
                for i in range(n)) * 1e-9
        c['prev'] = {'comm': comm, 'seq': seq, 'lev': lev, 'exit': ext}

    text = open(show_text).read()
    rows = {}
    for r in csv.DictReader(ln for ln in open(show_csv) if not ln.startswith('#')):
        rows[(r['collective'], int(r['comm_size']), int(r['bin_lo']))] = r
    total_wait = 0.0
    for (coll, n, b), c in sorted(cells.items()):
        e, m = divmod(b - 1, 4)
        lo = 0 if b == 0 else int(2 ** e * (1 + m / 4.0))
        row = rows.get((coll, n, lo))
        name = '%s %d ranks' % (coll, n)
        if row is None:
            fails.append('%s: no CSV row' % name)
            continue
        f = lambda k: float(row[k]) if row[k] != '' else None
        t_total = float(row['time_s'])
        share = c['wait'] / (c['wait'] + c['compl'])
        wait_s = t_total * share
        total_wait += wait_s
        check(name + ' wait_share', f('wait_share'), share, 6e-5)
        check(name + ' wait_s', f('wait_s'), wait_s, 1e-9 + 1e-6 * wait_s)
        check(name + ' arrival_entries', f('arrival_entries'), c['entries'], 0)
        mean = c['spread'] / c['ops'] * 1e6
        p50, p95 = quantile(c['hist'], 0.5) / 1e3, quantile(c['hist'], 0.95) / 1e3
        check(name + ' spread_mean_us', f('spread_mean_us'), mean, 6e-4)
        check(name + ' spread_p50_us', f('spread_p50_us'), p50, 6e-4)
        check(name + ' spread_p95_us', f('spread_p95_us'), p95, 6e-4)
        late = sorted(c['late'].items(), key=lambda kv: (-kv[1], kv[0]))
        want_late = ';'.join('%d:%.4f' % (k, v / c['ops']) for k, v in late)
        if row['late_ranks'] != want_late:
            fails.append('%s late_ranks: show says %s, computed %s' % (name, row['late_ranks'], want_late))
        per_op = (c['wait'] + c['compl']) / c['ops']
        caused = 0.0
        if c['npair'] > 0:
            caused = t_total * ((c['pwait'] - c['swait']) / c['npair']) / per_op
            caused = max(-wait_s, min(wait_s, caused))
            before = c['gap'] / c['ngap'] * 1e6
            check(name + ' exits_caused_wait_s', f('exits_caused_wait_s'), caused, 1e-11 + 1e-6 * abs(caused))
            check(name + ' before_us', f('before_us'), before, 6e-4)
            causes = t_total * (c['induced'] / c['nprev']) / per_op
            check(name + ' exits_cause_wait_s', f('exits_cause_wait_s'), causes,
                  1e-11 + 1e-6 * abs(causes))
        # the text's row: wait, compl, exits, spread mean / p50 / p95, before
        pct = lambda x: '%.1f%%' % (100 * x)
        us = lambda x: '%.1f us' % x
        want = '%s %s %s %s / %s / %s %s' % (
            pct(share), pct(1 - share), pct(caused / t_total), us(mean), us(p50), us(p95),
            us(before) if c['npair'] > 0 else '-')
        norm = ' '.join(want.split())
        got = [' '.join(ln.split()) for ln in text.splitlines()
               if ln.split()[:2] == [coll, str(n)] and ' / ' in ln]
        if not any(norm in g for g in got):
            fails.append('%s text row: show says %r, computed %r' % (name, got, norm))
    head = next((ln for ln in open(show_csv) if ln.startswith('# wait_s: ')), None)
    check('the profile wait_s', float(head.split()[2]) if head else None, total_wait,
          1e-9 + 1e-6 * total_wait)
    for x in fails:
        print('FAIL: ' + x)
    if not fails:
        print('show_expect: %d cells with arrivals as computed from the records' % len(cells))
    sys.exit(1 if fails else 0)


main()
