#!/usr/bin/env python3
"""Table-driven test of bad inputs to hlo-run, hlo-opt and hlo-gen (the
table: bad_inputs_cases.txt beside this file).

usage: bad_inputs_test.py HLO_RUN HLO_OPT HLO_GEN

Each row runs one command in a scratch directory and requires: the exit
status (1 for errors, 2 for usage; hlo-opt reports usage errors with 1, as
documented in docs/cli.md), a message on stderr that names the bad input,
nothing on stdout, and no output file left behind (neither the one asked
for nor a partial --output-dir).
"""
import os
import shlex
import struct
import subprocess
import sys
import tempfile

MODULE2 = """HloModule add_mul
ENTRY %main (x: f32[2,2], y: f32[2,2]) -> (f32[2,2], f32[2,2]) {
  %x = f32[2,2] parameter(0)
  %y = f32[2,2] parameter(1)
  %s = f32[2,2] add(%x, %y)
  %p = f32[2,2] multiply(%x, %y)
  ROOT %t = (f32[2,2], f32[2,2]) tuple(%s, %p)
}
"""
MODULE_S32 = """HloModule neg
ENTRY %main (x: s32[2]) -> s32[2] {
  %x = s32[2] parameter(0)
  ROOT %n = s32[2] negate(%x)
}
"""


def npy(descr, shape, data, header_len=None):
  h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
  h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
  n = len(h) if header_len is None else header_len
  return b'\x93NUMPY\x01\x00' + struct.pack('<H', n) + h.encode() + data


FILES = {
    'm2.hlo': MODULE2.encode(),
    's32.hlo': MODULE_S32.encode(),
    'empty.hlo': b'',
    'i32.npy': npy('<i4', '(2, 2)', b'\0' * 16),
    'f32_3.npy': npy('<f4', '(3,)', b'\0' * 12),
    'f32_22.npy': npy('<f4', '(2, 2)', b'\0' * 16),
    'truncated.npy': npy('<f4', '(2, 2)', b'\0' * 10),
    'too_long.npy': npy('<f4', '(2, 2)', b'\0' * 40),
    'huge_shape.npy': npy('<f4', '(100000000000, 100000000000)', b''),
    'negative_shape.npy': npy('<f4', '(-2, 2)', b''),
    'lying_header_len.npy': npy('<f4', '(2, 2)', b'', header_len=60000)[:40],
    'bad_descr.npy': npy('zz', '(2, 2)', b'\0' * 16),
    'empty.npy': b'',
    'wrong_count.txt': b'f32[2,2] {1, 2, 3}\n',
    'nan_int.txt': b's32[2] {nan, 1}\n',
    'empty.txt': b'',
}
DIRS = ['a_dir', 'out_dir_with_dir/1.npy']

def load_cases(path):
  """The table: (name, command, exit status, stderr must contain, paths that must not exist)."""
  cases = []
  with open(path) as f:
    for line in f:
      if not line.strip() or line.startswith('#'):
        continue
      name, cmd, want_exit, text, absent = [c.strip() for c in line.split('|')]
      cases.append((name, shlex.split(cmd), int(want_exit), text, absent.split()))
  return cases


def main():
  if len(sys.argv) != 4:
    sys.exit(__doc__)
  tools = {'run': os.path.abspath(sys.argv[1]), 'opt': os.path.abspath(sys.argv[2]),
           'gen': os.path.abspath(sys.argv[3])}
  cases = load_cases(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'bad_inputs_cases.txt'))
  failures = []
  for name, cmd, want_exit, want_text, absent in cases:
    with tempfile.TemporaryDirectory() as tmp:
      for f, data in FILES.items():
        with open(os.path.join(tmp, f), 'wb') as out:
          out.write(data)
      for d in DIRS:
        os.makedirs(os.path.join(tmp, d))
      p = subprocess.run([tools[cmd[0]]] + cmd[1:], cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         timeout=60)
      err = p.stderr.decode('utf-8', 'replace')
      problems = []
      if p.returncode != want_exit:
        problems.append('exit status %d, want %d' % (p.returncode, want_exit))
      if want_text not in err:
        problems.append('stderr lacks %r' % want_text)
      if p.stdout:
        problems.append('stdout is not empty: %r' % p.stdout[:200])
      for a in absent:
        if os.path.exists(os.path.join(tmp, a)):
          problems.append('%s was left behind' % a)
      status = 'ok' if not problems else 'FAIL'
      print('%-4s %s' % (status, name))
      if problems:
        failures.append(name)
        print('     ' + '\n     '.join(problems))
        print('     command: %s\n     stderr: %s' % (' '.join(cmd), err.strip()[:400]))
  print('%d cases, %d failed' % (len(cases), len(failures)))
  sys.exit(1 if failures else 0)


if __name__ == '__main__':
  main()
