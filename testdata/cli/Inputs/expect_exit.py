#!/usr/bin/env python3
"""expect_exit.py CODE CMD [ARGS...]: runs CMD, passes its stdout/stderr
through, and exits 0 only if CMD exited with exactly CODE (a crash or any
other status is a failure). lit's `not` accepts any non-zero status; the CLI
contract is "errors exit with 1"."""
import subprocess
import sys

if len(sys.argv) < 3:
  sys.exit('usage: expect_exit.py CODE CMD [ARGS...]')
want = int(sys.argv[1])
proc = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
sys.stdout.buffer.write(proc.stdout)
sys.stderr.buffer.write(proc.stderr)
sys.stdout.flush()
sys.stderr.flush()
if proc.returncode != want:
  sys.stderr.write('expect_exit.py: expected exit status %d, got %d\n' % (want, proc.returncode))
  sys.exit(1)
