#!/usr/bin/env python3
"""Runs modules optimized and unoptimized on the same random inputs
(hlo-run --reference_platform=interpreter) and fails on any mismatch.

usage: check_equivalence.py HLO_RUN (--files DIR... | --random N --seed S)

Every *.hlo below the given directories is tried. A module that cannot run
at all (no entry, a parse/verify error in an invalid case, an op the backend
does not implement, an empty infeed) is reported as "not runnable" with the
reason and does not fail the test; a run where the optimized and the
reference results differ, a crash, a pipeline failure, or a run that does
not finish within TIMEOUT seconds does. The summary
line is 'N passed, N failed' (with the not-runnable count as skipped).
"""
import os
import random
import subprocess
import sys
import tempfile

# Seconds per run; HLO_EQUIVALENCE_TIMEOUT overrides it (the test of the
# timeout rule uses 1).
TIMEOUT = int(os.environ.get('HLO_EQUIVALENCE_TIMEOUT', '120'))


def run_one(hlo_run, path, extra=()):
  cmd = [hlo_run, path, '--random-inputs=1', '--reference_platform=interpreter'] + list(extra)
  try:
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=TIMEOUT)
  except subprocess.TimeoutExpired:
    # A hang (or a pass that made the module very slow) is a failure, not
    # a module that cannot run.
    return 'fail', 'timed out after %ds' % TIMEOUT
  err = p.stderr.decode('utf-8', 'replace')
  if p.returncode == 0:
    return 'pass', ''
  if p.returncode < 0:
    return 'fail', 'crashed with signal %d\n%s' % (-p.returncode, err)
  if 'results of the optimized and the reference' in err or 'optimization pipeline failed' in err:
    return 'fail', err
  first = err.strip().splitlines()[0] if err.strip() else 'exit %d' % p.returncode
  return 'skip', first


# ---- random modules ----
TYPES = ['f32', 'f32', 'f32', 's32', 'f64']


def random_module(rng, index):
  """A random chain of elementwise, shape and reduction ops over one or two
  parameters; every value is used so dce keeps little."""
  t = rng.choice(TYPES)
  rank = rng.randint(1, 3)
  dims = [rng.randint(1, 5) for _ in range(rank)]
  shape = '%s[%s]' % (t, ','.join(map(str, dims)))
  lines = []
  names = []
  counter = [0]

  def new(expr, shp):
    counter[0] += 1
    n = 'v%d' % counter[0]
    lines.append('  %%%s = %s %s' % (n, shp, expr))
    names.append((n, shp))
    return n

  lines.append('  %%p0 = %s parameter(0)' % shape)
  lines.append('  %%p1 = %s parameter(1)' % shape)
  cur = ['p0', 'p1']
  zero = new('constant(0)', '%s[]' % t)
  one = new('constant(1)', '%s[]' % t)
  bzero = new('broadcast(%%%s), dimensions={}' % zero, shape)
  bone = new('broadcast(%%%s), dimensions={}' % one, shape)
  cur += [bzero, bone]
  binops = ['add', 'subtract', 'multiply', 'maximum', 'minimum']
  if t != 's32':
    binops += ['divide']
  unops = ['negate', 'abs'] + (['exponential', 'tanh', 'sqrt', 'log-plus-one'] if t != 's32' else [])
  for _ in range(rng.randint(4, 14)):
    k = rng.random()
    if k < 0.5:
      a, b = rng.choice(cur), rng.choice(cur)
      cur.append(new('%s(%%%s, %%%s)' % (rng.choice(binops), a, b), shape))
    elif k < 0.7:
      cur.append(new('%s(%%%s)' % (rng.choice(unops), rng.choice(cur)), shape))
    elif k < 0.8:
      c = new('compare(%%%s, %%%s), direction=%s' % (rng.choice(cur), rng.choice(cur),
                                                     rng.choice(['LT', 'GE', 'EQ'])),
              'pred[%s]' % ','.join(map(str, dims)))
      cur.append(new('select(%%%s, %%%s, %%%s)' % (c, rng.choice(cur), rng.choice(cur)), shape))
    elif k < 0.9:
      perm = list(range(rank))
      rng.shuffle(perm)
      tshape = '%s[%s]' % (t, ','.join(str(dims[p]) for p in perm))
      tr = new('transpose(%%%s), dimensions={%s}' % (rng.choice(cur), ','.join(map(str, perm))),
               tshape)
      inv = [perm.index(i) for i in range(rank)]
      cur.append(new('transpose(%%%s), dimensions={%s}' % (tr, ','.join(map(str, inv))), shape))
    else:
      flat = '%s[%d]' % (t, eval('*'.join(map(str, dims))))
      r = new('reshape(%%%s)' % rng.choice(cur), flat)
      cur.append(new('reshape(%%%s)' % r, shape))
  # Reduce the last value over dim 0 and return it with the full value.
  rdims = dims[1:]
  rshape = '%s[%s]' % (t, ','.join(map(str, rdims)))
  red = new('reduce(%%%s, %%%s), dimensions={0}, to_apply=%%add' % (cur[-1], zero), rshape)
  total = new('add(%%%s, %%%s)' % (cur[-1], cur[-2]), shape)
  lines.append('  ROOT %%r = (%s, %s) tuple(%%%s, %%%s)' % (shape, rshape, total, red))
  return '\n'.join([
      'HloModule random_%d' % index, '',
      '%%add (a: %s[], b: %s[]) -> %s[] {' % (t, t, t),
      '  %%a = %s[] parameter(0)' % t, '  %%b = %s[] parameter(1)' % t,
      '  ROOT %%s = %s[] add(%%a, %%b)' % t, '}', '',
      'ENTRY %%main (p0: %s, p1: %s) -> (%s, %s) {' % (shape, shape, shape, rshape),
  ] + lines + ['}', ''])


def main():
  args = sys.argv[1:]
  if len(args) < 2:
    sys.exit(__doc__)
  hlo_run = args[0]
  results = {'pass': 0, 'fail': 0, 'skip': 0}
  failures = []
  if args[1] == '--files':
    paths = []
    for d in args[2:]:
      if not os.path.isdir(d):
        print('note: %s is absent; skipped' % d)
        continue
      for root, _, files in os.walk(d):
        paths += [os.path.join(root, f) for f in sorted(files) if f.endswith('.hlo')]
    for path in sorted(paths):
      status, why = run_one(hlo_run, path)
      results[status] += 1
      print('%-4s %s%s' % (status.upper(), path, (': ' + why.splitlines()[0]) if why and status == 'skip' else ''))
      if status == 'fail':
        failures.append((path, why))
  elif args[1] == '--random':
    n, seed = int(args[2]), int(args[4])
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
      for i in range(n):
        path = os.path.join(tmp, 'random_%d.hlo' % i)
        with open(path, 'w') as f:
          f.write(random_module(rng, i))
        status, why = run_one(hlo_run, path)
        if status == 'skip':  # a generated module must always run
          status, why = 'fail', 'generated module did not run: ' + why + '\n' + open(path).read()
        results[status] += 1
        if status == 'fail':
          failures.append((path, why + '\n' + open(path).read()))
    print('%d random modules (seed %d)' % (n, seed))
  for path, why in failures:
    print('\nFAILED %s\n%s' % (path, why))
  print('%d passed, %d failed, %d skipped' % (results['pass'], results['fail'], results['skip']))
  sys.exit(1 if results['fail'] else 0)


if __name__ == '__main__':
  main()
