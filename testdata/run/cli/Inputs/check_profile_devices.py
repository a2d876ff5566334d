"""Checks the --profile-json of profile_replicas.hlo (4 devices, 1 pool thread).

Rates given by flags stand for the pool width (machine.threads 0): the bound
of every row is the one-device bound times devices * min(pool threads,
cores) / min(devices * pool threads, cores) (at least 1); waits are never negative, only
collectives wait, and the instruction time is the rows' own time plus their
waits. Prints "devices ok".
"""
import json
import sys

p = json.load(open(sys.argv[1]))
d = p['devices']
assert d['count'] == 4 and d['pool_threads'] == 1 and d['cores'] >= 1, d
assert p['machine']['threads'] == 0, p['machine']
shared = min(d['count'] * d['pool_threads'], d['cores'])
scale = max(1.0, d['count'] * min(d['pool_threads'], d['cores']) / shared)
assert abs(d['bound_scale'] - scale) < 1e-12, (d, scale)
rows = {r['name']: r for r in p['instructions']}
# add: reads 2 x 4 KiB (the same operand twice), writes 4 KiB, at 10 GB/s.
add = rows['y']
assert abs(add['bound_seconds_per_run'] - 3 * 4096 / 10e9 * scale) < 1e-15, (add, scale)
for r in p['instructions']:
  assert r['wait_seconds_per_run'] >= 0 and r['seconds_per_run'] >= -1e-6, r
  if r['opcode'] != 'all-reduce':
    assert r['wait_seconds_per_run'] == 0, r
for name in ('start', 'done'):
  assert rows[name]['bound_seconds_per_run'] == 0, rows[name]
waits = sum(r['wait_seconds_per_run'] for r in p['instructions'])
own = sum(r['seconds_per_run'] for r in p['instructions'])
assert abs(p['wait_seconds_per_run'] - waits) < 1e-9, p
assert abs(p['seconds_in_instructions_per_run'] - (own + waits)) < 1e-9, p
print('devices ok')
