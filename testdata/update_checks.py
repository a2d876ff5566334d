#!/usr/bin/env python3
"""Writes the CHECK block of golden parse tests (testdata/parse/*.hlo).

  update_checks.py FILE...                  expected text = the module in FILE
  update_checks.py --hlo-opt=PATH FILE...   expected text = `hlo-opt FILE`

Each FILE is a lit test: header comments and RUN lines, the module, then a
generated block of `// CHECK-LABEL:` (module header and computation
headers) and `// CHECK-NEXT:` (instruction lines and `}`) lines, matched
with `FileCheck --match-full-lines`. Everything from the line
`// ---- generated CHECK lines ----` to the end of the file is replaced.

The default mode (expected = the input itself) is for tests whose input is
written in canonical form, which is how the parse tests are written. The
--hlo-opt mode blesses the tool's output: review every changed line in the
diff before committing it (a script that blesses whatever the tool prints
proves nothing).
"""
import argparse
import re
import subprocess
import sys

MARKER = '// ---- generated CHECK lines ----'


def escape(line):
  """Makes a literal line safe as a FileCheck pattern."""
  out = []
  i = 0
  while i < len(line):
    two = line[i:i + 2]
    if two == '{{':
      out.append('{{[{][{]}}')
      i += 2
    elif two == '[[':
      out.append('{{\\[\\[}}')
      i += 2
    else:
      out.append(line[i])
      i += 1
  return ''.join(out)


def module_lines(text):
  """The module text of a test file: non-comment lines before the marker."""
  body = text.split(MARKER)[0]
  lines = []
  for line in body.splitlines():
    stripped = line.strip()
    if not stripped or stripped.startswith('//'):
      continue
    lines.append(line.rstrip())
  return lines


def is_header(line):
  s = line.strip()
  return s.startswith('HloModule') or (s.endswith('{') and ' = ' not in s.split('(')[0]
                                        and not s.startswith('ROOT '))


def check_block(lines):
  out = [MARKER]
  for line in lines:
    s = line.strip()
    if is_header(line):
      out.append('// CHECK-LABEL: ' + escape(s))
    else:
      out.append('// CHECK-NEXT: ' + escape(line.rstrip()))
  return '\n'.join(out) + '\n'


def main():
  ap = argparse.ArgumentParser(description=__doc__,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument('--hlo-opt', help='take the expected text from this hlo-opt')
  ap.add_argument('files', nargs='+')
  args = ap.parse_args()
  for path in args.files:
    with open(path) as f:
      text = f.read()
    if args.hlo_opt:
      proc = subprocess.run([args.hlo_opt, path], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, universal_newlines=True)
      if proc.returncode != 0:
        sys.stderr.write('%s: hlo-opt failed:\n%s' % (path, proc.stderr))
        continue
      lines = [l.rstrip() for l in proc.stdout.splitlines() if l.strip()]
    else:
      lines = module_lines(text)
    head = text.split(MARKER)[0].rstrip('\n') + '\n\n'
    with open(path, 'w') as f:
      f.write(head + check_block(lines))


if __name__ == '__main__':
  main()
