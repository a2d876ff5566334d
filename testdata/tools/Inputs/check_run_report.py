#!/usr/bin/env python3
"""check_run_report.py CASE FILE: asserts the fields of one hlo-run --json
report (run_json.test, schema in docs/hlo-run-json.md); prints
'run report CASE' when they hold."""
import json
import sys

case, path = sys.argv[1], sys.argv[2]
r = json.load(open(path))
assert r['schema'] == 'hlo-toolchain-report' and r['version'] == 1 and r['tool'] == 'hlo-run', r
for key in ('input', 'ok', 'exit_status', 'errors', 'diagnostics', 'notes', 'run'):
  assert key in r, key
if case == 'ok':
  assert r['ok'] is True and r['exit_status'] == 0 and r['errors'] == [] and r['diagnostics'] == [], r
  run = r['run']
  assert run['iterations'] == 3 and run['warmup'] == 1, run
  assert len(run['times_ms']) == 3 and all(t > 0 for t in run['times_ms']), run['times_ms']
  assert run['min_ms'] == min(run['times_ms']), run
  assert sorted(run['times_ms'])[1] == run['median_ms'], run
  assert run['peak_memory_bytes'] > 0, run
  # All array buffers (arguments and results too) hold at least the live values.
  assert run['peak_buffer_bytes'] >= run['peak_memory_bytes'], run
  # The profile is the --profile-json object.
  p = run['profile']
  assert p['runs'] == 3 and p['seconds_per_run'] > 0, p
  c = run['comparison']
  assert c == {'reference': 'interpreter', 'ok': True, 'elements': 33, 'mismatches': 0,
               'abs_error_bound': 0.001, 'rel_error_bound': 0.001, 'message': ''}, c
  # The result as hlo-run prints it without --json.
  assert run['result'] == open(sys.argv[3]).read(), run['result'][:80]
  assert any('close enough' in n for n in r['notes']), r['notes']
elif case == 'plain':
  # No profiling, no comparison asked for: nulls, not absent fields.
  run = r['run']
  assert r['ok'] and run['profile'] is None and run['comparison'] is None, run
  assert run['peak_memory_bytes'] is None and run['peak_buffer_bytes'] is None, run
  assert len(run['times_ms']) == 1, run
elif case == 'bad':
  assert r['ok'] is False and r['exit_status'] == 1 and r['run'] is None and r['errors'] == [], r
  d = r['diagnostics']
  assert len(d) == 1 and d[0]['file'].endswith('undefined_operand.hlo'), d
  assert (d[0]['line'], d[0]['column']) == (8, 31) and d[0]['message'] == 'instruction does not exist: y', d
elif case == 'missing':
  assert r['ok'] is False and r['exit_status'] == 1 and r['run'] is None, r
  assert len(r['errors']) == 1 and 'missing.hlo' in r['errors'][0], r['errors']
elif case == 'usage':
  assert r['exit_status'] == 2 and r['errors'] == ["--iterations needs a whole number >= 1, got 'x'"], r
else:
  sys.exit('unknown case ' + case)
print('run report ' + case)
