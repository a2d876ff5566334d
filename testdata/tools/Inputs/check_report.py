#!/usr/bin/env python3
"""check_report.py CASE FILE: asserts the fields of one hlo-opt --json
report (json.test); prints 'report CASE' when they hold."""
import json
import sys

case, path = sys.argv[1], sys.argv[2]
r = json.load(open(path))
assert r['schema'] == 'hlo-toolchain-report' and r['version'] == 1 and r['tool'] == 'hlo-opt', r
if case == 'ok':
  assert r['ok'] is True and r['errors'] == [] and len(r['modules']) == 1, r
  m = r['modules'][0]
  assert m['ok'] and m['diagnostics'] == [], m
  names = [p['name'] for p in m['passes']]
  assert names[:4] == ['dynamic-padder', 'batchnorm_expander', 'call-inliner', 'zero_sized_hlo_elimination'], names
  assert all(p['ms'] >= 0 and isinstance(p['changed'], bool) for p in m['passes'])
  assert abs(sum(p['ms'] for p in m['passes']) - m['passes_total_ms']) < 1e-6
  # The cost of the optimized module; the loop still runs 5 times.
  w = [i for c in m['cost']['computations'] if c['is_entry'] for i in c['instructions']
       if i['opcode'] == 'while'][0]
  assert w['trip_count'] == 5, w
  assert m['output'].startswith('HloModule cost_loop'), m['output'][:40]
elif case == 'file':
  m = r['modules'][0]
  assert r['ok'] and 'output' not in m and m['passes'] == [], m
  assert m['cost']['total'] == {'flops': 663, 'transcendentals': 80, 'bytes_accessed': 1894}, m['cost']['total']
elif case == 'bad':
  assert r['ok'] is False and r['errors'] == [], r
  m = r['modules'][0]
  assert not m['ok'] and m['cost'] is None and 'output' not in m, m
  d = m['diagnostics']
  assert len(d) == 1, d
  d = d[0]
  assert d['severity'] == 'error' and d['file'].endswith('undefined_operand.hlo'), d
  assert (d['line'], d['column']) == (8, 31) and d['message'] == 'instruction does not exist: y', d
  assert d['context'].splitlines()[1].strip() == '^', d
elif case == 'io':
  assert r['ok'] is False and r['modules'] == [] and len(r['errors']) == 1, r
  assert 'missing.hlo' in r['errors'][0] and 'No such file' in r['errors'][0], r
elif case == 'split':
  assert r['ok'] is False and len(r['modules']) == 2, r
  a, b = r['modules']
  assert a['ok'] and a['cost']['total']['flops'] == 0 and a['output'].startswith('HloModule a'), a
  assert not b['ok'] and b['diagnostics'][0]['line'] == 9, b
  assert r['errors'] == ['1 of 2 input chunks failed'], r['errors']
else:
  sys.exit('unknown case ' + case)
print('report ' + case)
