#!/usr/bin/env python3
"""tools/testlog.py STAGE TESTLOG.JSON: the results of one `meson test` run
(meson's meson-logs/testlog.json, one JSON object per test) as lines
RESULT<TAB>STAGE: NAME<TAB>REASON for tools/test.sh to count:
  pass   OK, EXPECTEDFAIL
  fail   FAIL, TIMEOUT, ERROR, UNEXPECTEDPASS, INTERRUPT (reason: the result)
  skip   SKIP (exit 77); reason: the test's line that says it skipped (its
         last line naming a skip, else its last line), from stdout and stderr
A missing or empty log is one fail line: a stage that ran no test is not a pass.
"""
import json
import sys

PASS = {'OK', 'EXPECTEDFAIL'}


def skip_reason(test):
    lines = [ln.strip() for key in ('stdout', 'stderr')
             for ln in (test.get(key) or '').splitlines() if ln.strip()]
    said = [ln for ln in lines if 'skip' in ln.lower()]
    if said:
        return said[-1]
    return lines[-1] if lines else '(the test printed no reason)'


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: testlog.py STAGE TESTLOG.JSON')
    stage, path = sys.argv[1], sys.argv[2]
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            tests = [json.loads(ln) for ln in f if ln.strip()]
    except (OSError, ValueError) as e:
        print('fail\t%s: (its log)\tmeson wrote no readable %s: %s' % (stage, path, e))
        return
    if not tests:
        print('fail\t%s: (no test)\tthe stage ran no test' % stage)
    for t in tests:
        name, res = '%s: %s' % (stage, t.get('name', '?')), t.get('result', '?')
        if res in PASS:
            print('pass\t%s\t' % name)
        elif res == 'SKIP':
            print('skip\t%s\t%s' % (name, skip_reason(t).replace('\t', ' ')))
        else:
            print('fail\t%s\t%s (exit %s)' % (name, res, t.get('returncode')))


main()
