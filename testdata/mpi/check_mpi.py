#!/usr/bin/env python3
"""hlo-run under mpirun against the single-process run (docs/mpi.md).

Modes (one ctest test each, testdata/CMakeLists.txt):
  --lit FILE...     every positive `%hlo_run %s ARGS |` RUN line of the given
                    lit modules, run with --np processes (when they divide the
                    device count): stdout and every device's result
                    (--output-dir --all-devices) must equal the threaded run's
                    byte for byte.
  --module FILE ARGS  the same for one module with the given hlo-run flags.
  --faults DIR      a rank with a bad input, a killed rank, a deadlock under
                    --collective-timeout, a process count that does not
                    divide the devices and a memory limit this host's
                    processes exceed: every run must end non-zero within
                    its time limit with the expected message.
  --foreign-launcher MPIRUN  the launcher of another MPI installation (OpenMPI's
                    mpirun for a build with MPICH, or the reverse): every
                    process must stop with the error that says so, not run
                    alone as if it were the only one.
  --traffic         --profile's table of what crosses processes: an all-reduce
                    of 1000 f32 over 2 processes sends and receives its half
                    twice (2 messages of 2000 bytes and a header each way).
Exits 77 (skipped) when no mpirun is installed.
"""
import argparse
import filecmp
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
NOT_RUN = 'not run'  # compare(): the process count does not divide the devices


def mpirun_command(mpirun, np):
  """mpirun with the switches OpenMPI needs here (root, more ranks than cores)."""
  cmd = [mpirun]
  version = subprocess.run([mpirun, '--version'], capture_output=True, text=True).stdout
  if 'Open MPI' in version or 'OpenRTE' in version:
    cmd.append('--oversubscribe')
    if os.geteuid() == 0:
      cmd.append('--allow-run-as-root')
  return cmd + ['-np', str(np)]


def run(cmd, timeout, cwd=None):
  try:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)
  except subprocess.TimeoutExpired:
    sys.exit('FAIL: timed out after %d s: %s' % (timeout, ' '.join(map(shlex.quote, cmd))))


def device_count(module_text, args):
  """Replicas x partitions: the flags if given, else the module header."""
  def flag(name, header_key):
    for a in args:
      if a.startswith('--%s=' % name):
        return int(a.split('=', 1)[1])
    m = re.search(r'%s=(\d+)' % header_key, module_text.split('\n', 1)[0])
    return int(m.group(1)) if m else 1
  return flag('replicas', 'replica_count') * flag('partitions', 'num_partitions')


def dirs_equal(a, b):
  cmp = filecmp.dircmp(a, b)
  if cmp.left_only or cmp.right_only or cmp.funny_files:
    return False
  _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
  if mismatch or errors:
    return False
  return all(dirs_equal(os.path.join(a, d), os.path.join(b, d)) for d in cmp.common_dirs)


def compare(hlo_run, mpi, module, args, np, tmp, name):
  """Returns an error text, or None when the runs agree (or np does not fit)."""
  with open(module) as f:
    text = f.read()
  devices = device_count(text, args)
  if devices % np != 0 or devices < np:
    return NOT_RUN
  single_dir = os.path.join(tmp, name + '.single')
  multi_dir = os.path.join(tmp, name + '.np%d' % np)
  single = run([hlo_run, module] + args, 120)
  single_all = run([hlo_run, module] + args + ['--output-dir=' + single_dir, '--all-devices'],
                   120)
  multi = run(mpi + [hlo_run, module] + args, 120)
  multi_all = run(mpi + [hlo_run, module] + args +
                  ['--output-dir=' + multi_dir, '--all-devices'], 120)
  where = '%s %s (np %d)' % (name, ' '.join(args), np)
  for r in (single, single_all, multi, multi_all):
    if r.returncode != 0:
      return '%s: exit %d:\n%s' % (where, r.returncode, r.stderr[-3000:])
  if single.stdout != multi.stdout:
    return '%s: stdout differs:\n--- threaded\n%s\n--- mpirun\n%s' % (where, single.stdout[:2000],
                                                                      multi.stdout[:2000])
  if not dirs_equal(single_dir, multi_dir):
    return '%s: the devices\' results differ (%s vs %s)' % (where, single_dir, multi_dir)
  last = '%d' % (devices - 1)
  if not os.path.isdir(os.path.join(multi_dir, 'device-' + last)):
    return '%s: no result of device %s' % (where, last)
  first_note = 'process 0 of %d' % np
  if first_note not in multi.stderr:
    return '%s: no "%s" note on stderr:\n%s' % (where, first_note, multi.stderr)
  return None


def lit_cases(path):
  """ARGS of each `// RUN: %hlo_run %s ARGS | FileCheck` line (no `not`)."""
  cases = []
  with open(path) as f:
    for line in f:
      m = re.match(r'\s*//\s*RUN:\s*%hlo_run %s (.*?)\s*\|\s*FileCheck', line)
      if m and '%' not in m.group(1):
        cases.append(shlex.split(m.group(1)))
  return cases


def check_faults(hlo_run, mpi_for, collective_dir, tmp):
  errors = []
  module = os.path.join(collective_dir, 'all_reduce.hlo')
  good = [hlo_run, module, '--replicas=4', "--input=f32[2] {1, -2}"]

  def wrapper(name, rank1_cmd):
    """A launcher script: rank 1 runs rank1_cmd, the others the good run."""
    path = os.path.join(tmp, name + '.sh')
    with open(path, 'w') as f:
      f.write('#!/bin/sh\nr=${OMPI_COMM_WORLD_RANK:-$PMI_RANK}\n'
              'if [ "$r" = 1 ]; then\n%s\nfi\nexec %s\n' %
              (rank1_cmd, ' '.join(map(shlex.quote, good))))
    os.chmod(path, 0o755)
    return path

  def expect(name, cmd, patterns, limit):
    r = run(cmd, limit)
    out = r.stdout + r.stderr
    if r.returncode == 0:
      errors.append('%s: exit 0, expected a failure:\n%s' % (name, out))
    for p in patterns:
      if not re.search(p, out):
        errors.append('%s: no match for /%s/ in:\n%s' % (name, p, out))

  # A bad input on rank 1: it names itself and its cause; rank 0, waiting in
  # the all-reduce, names rank 1, its host and the cause.
  bad = wrapper('bad_input', 'exec %s %s --replicas=4 --input=%s' % (
      shlex.quote(hlo_run), shlex.quote(module), shlex.quote(os.path.join(tmp, 'missing.npy'))))
  expect('bad input', mpi_for(2) + [bad],
         [r'error: process 1 of 2 \(host [^)]*\): input .*missing\.npy',
          r'error: process 0 of 2 \(host [^)]*\): .*aborted because process 1 \(host [^)]*\) '
          r'failed: input .*missing\.npy'], 60)
  # Rank 1 killed while rank 0 waits for it: the launcher ends the job.
  fifo = os.path.join(tmp, 'never_written')
  os.mkfifo(fifo)
  killed = wrapper('killed', '(sleep 2; kill -9 $$) &\nexec %s %s --replicas=4' % (
      shlex.quote(hlo_run), shlex.quote(fifo)))
  # OpenMPI: "exited on signal 9 (Killed)"; MPICH: "EXIT STRING: Killed (signal 9)".
  expect('killed rank', mpi_for(2) + [killed], [r'process 0 of 2', r'Killed'], 60)
  # A deadlock (rank 1 runs another collective) ends with the timeout
  # naming the collective and the devices that did not come.
  other = os.path.join(collective_dir, 'reduce_scatter.hlo')
  dead = wrapper('deadlock', 'exec %s %s --replicas=4 --random-inputs --collective-timeout=2' % (
      shlex.quote(hlo_run), shlex.quote(other)))
  with open(dead) as f:
    script = f.read().replace("--input='f32[2] {1, -2}'",
                              "--input='f32[2] {1, -2}' --collective-timeout=2")
  with open(dead, 'w') as f:
    f.write(script)
  expect('deadlock', mpi_for(2) + [dead],
         [r'collective %(all timed out waiting for devices 2, 3|rs timed out waiting for '
          r'devices 0, 1) after 2 s'], 60)
  # The memory check counts this host's processes, each with its own
  # parameters and its own devices.
  expect('memory', mpi_for(2) + good + ['--memory-limit=1'],
         [r'error: process 0 of 2 \(host [^)]*\): the module needs about .* on host [^:]*: 2 of '
          r'the 2 processes run there, each needing .* x 2 devices of the process\)'], 60)
  # 3 processes cannot split 4 devices.
  expect('split', mpi_for(3) + good,
         [r'the 4 devices \(4 replicas x 1 partitions\) cannot be split evenly over 3 MPI '
          r'processes'], 60)
  return errors


def check_traffic(hlo_run, mpi_for, tmp):
  module = os.path.join(tmp, 'halves.hlo')
  with open(module, 'w') as f:
    f.write('HloModule halves, replica_count=2\n'
            'sum { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }\n'
            'ENTRY main { x = f32[1000] parameter(0)\n'
            '  ROOT ar = f32[1000] all-reduce(x), replica_groups={}, to_apply=sum }\n')
  r = run(mpi_for(2) + [hlo_run, module, '--random-inputs', '--iterations=2', '--profile',
                        '--output=' + os.path.join(tmp, 'halves.npy')], 120)
  out = r.stdout + r.stderr
  if r.returncode != 0:
    return ['traffic: exit %d:\n%s' % (r.returncode, out)]
  errors = []
  for p in [r'between processes: process 0 of 2 sent 0\.004\d* MB and received 0\.004\d* MB '
            r'per run', r'\n +0\.004\d* +0\.004\d* +2 +2  main/ar\n']:
    if not re.search(p, out):
      errors.append('traffic: no match for /%s/ in:\n%s' % (p, out))
  return errors


def check_foreign_launcher(hlo_run, launcher, tmp):
  module = os.path.join(tmp, 'foreign.hlo')
  with open(module, 'w') as f:
    f.write('HloModule foreign, replica_count=2\n'
            'ENTRY main { ROOT id = u32[] replica-id() }\n')
  r = run(mpirun_command(launcher, 2) + [hlo_run, module], 60)
  out = r.stdout + r.stderr
  pattern = (r'error: the launcher started 2 processes but the MPI library of this hlo-run '
             r'\([^)]+\) sees 1: the launcher belongs to another MPI installation')
  if r.returncode == 0 or not re.search(pattern, out):
    return ['foreign launcher %s: exit %d, expected /%s/ in:\n%s' %
            (launcher, r.returncode, pattern, out)]
  return []


def main():
  ap = argparse.ArgumentParser(description=__doc__,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument('--hlo-run', required=True)
  ap.add_argument('--mpirun', default=shutil.which('mpirun') or shutil.which('mpiexec'))
  ap.add_argument('--np', type=int, default=2)
  ap.add_argument('--lit', nargs='*', default=[])
  ap.add_argument('--module')
  ap.add_argument('--faults', metavar='COLLECTIVE_DIR')
  ap.add_argument('--traffic', action='store_true')
  ap.add_argument('--foreign-launcher', metavar='MPIRUN')
  ap.add_argument('args', nargs='*', help='hlo-run flags for --module')
  opts = ap.parse_args()
  if not opts.mpirun:
    print('SKIP: no mpirun or mpiexec on PATH (apt-get install openmpi-bin)')
    return SKIP
  if opts.module and not os.path.exists(opts.module):
    print('SKIP: %s is absent (the shared corpus is not beside the checkout)' % opts.module)
    return SKIP
  # OpenMPI's own allocations are not ours to report under LeakSanitizer.
  os.environ['ASAN_OPTIONS'] = os.environ.get('ASAN_OPTIONS', '') + ':detect_leaks=0'
  mpi_for = lambda np: mpirun_command(opts.mpirun, np)
  tmp = tempfile.mkdtemp(prefix='hlo-mpi-')
  errors = []
  compared = 0
  try:
    cases = []
    for path in opts.lit:
      for i, args in enumerate(lit_cases(path)):
        cases.append((path, args, '%s.%d' % (os.path.basename(path), i)))
    if opts.module:
      cases.append((opts.module, opts.args, os.path.basename(opts.module)))
    for module, args, name in cases:
      err = compare(opts.hlo_run, mpi_for(opts.np), module, args, opts.np, tmp, name)
      if err == NOT_RUN:
        continue
      if err:
        errors.append(err)
      else:
        compared += 1
    if opts.faults:
      errors += check_faults(opts.hlo_run, mpi_for, opts.faults, tmp)
    if opts.traffic:
      errors += check_traffic(opts.hlo_run, mpi_for, tmp)
    if opts.foreign_launcher:
      errors += check_foreign_launcher(opts.hlo_run, opts.foreign_launcher, tmp)
  finally:
    if not errors:
      shutil.rmtree(tmp, ignore_errors=True)
  for e in errors:
    print('FAIL: ' + e)
  if errors:
    return 1
  print('OK: %d runs compared bit for bit with %d processes%s%s%s' %
        (compared, opts.np, ', fault cases passed' if opts.faults else '',
         ', traffic table checked' if opts.traffic else '',
         ', a foreign launcher refused' if opts.foreign_launcher else ''))
  return 0


if __name__ == '__main__':
  sys.exit(main())
