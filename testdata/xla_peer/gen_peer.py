#!/usr/bin/env python3
"""Generated modules against XLA:CPU (the xla-peer/gen ctest).

Writes --count modules of hlo-gen, seeds --first-seed on, to a temporary
directory (gen/seed-N.hlo) and compares hlo-run with XLA:CPU on them with
tools/xla_peer.py (its -O and --no-opt runs, deterministic random inputs).
Every argument this script does not know is handed to xla_peer.py (the
runners, --python, --expect, --quiet, ...). Disagreements must be listed in
the --expect file (testdata/xla_peer/gen_expected.tsv: patterns
`*/gen/seed-N.hlo`) or the exit status is 1.

The longer soak is the same command with a larger --count and another
--first-seed (docs/reliability.md).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
XLA_PEER = os.path.join(HERE, "..", "..", "tools", "xla_peer.py")


def main():
  # No abbreviations: xla_peer.py's --keep must not be taken for --keep-modules.
  ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
  ap.add_argument("--hlo-gen", required=True, help="the hlo-gen binary")
  ap.add_argument("--first-seed", type=int, default=0)
  ap.add_argument("--count", type=int, default=250)
  ap.add_argument("--max-instructions", type=int, default=30)
  ap.add_argument("--keep-modules", help="write the modules here (kept) instead of a temporary "
                  "directory")
  args, rest = ap.parse_known_args()
  if args.count < 1:
    ap.error("--count must be at least 1")
  top = args.keep_modules or tempfile.mkdtemp(prefix="xla-peer-gen-")
  out = os.path.join(top, "gen")
  os.makedirs(out, exist_ok=True)
  try:
    for seed in range(args.first_seed, args.first_seed + args.count):
      path = os.path.join(out, "seed-%d.hlo" % seed)
      p = subprocess.run([args.hlo_gen, "--seed=%d" % seed,
                          "--max-instructions=%d" % args.max_instructions, "-o", path],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
      if p.returncode != 0:
        sys.stderr.write("gen_peer: hlo-gen --seed=%d failed: %s\n" %
                         (seed, p.stderr.decode("utf-8", "replace").strip()))
        return 1
    sys.stdout.write("gen_peer: %d modules of hlo-gen (seeds %d..%d, at most %d instructions)\n" %
                     (args.count, args.first_seed, args.first_seed + args.count - 1,
                      args.max_instructions))
    sys.stdout.flush()
    return subprocess.run([sys.executable, XLA_PEER] + rest + [out],
                          stdin=subprocess.DEVNULL).returncode
  finally:
    if not args.keep_modules:
      shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
  sys.exit(main())
