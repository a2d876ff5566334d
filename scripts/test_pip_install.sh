#!/usr/bin/env bash
# `pip install .` as a user runs it (docs/python.md): a copy of the tracked
# files of this checkout (no build trees), a new virtual environment, pip's
# isolated build through scikit-build-core (pyproject.toml), then `import
# hlo` from the environment and a module parsed, built and run against
# NumPy.
#
# Opt-in: it downloads the build backend and NumPy from PyPI and compiles
# the libraries from scratch (minutes), so it runs only with HLO_TEST_PIP=1.
# Otherwise it reports itself skipped (exit 77, ctest's python/pip_install
# counts that as skipped).
#
# Knobs: HLO_PIP_PYTHON (the interpreter of the environment, default
# /usr/bin/python3), CMAKE_BUILD_PARALLEL_LEVEL (the build's jobs; ninja's
# default when unset), HLO_PIP_KEEP=1 keeps the temporary directory.
set -euo pipefail

if [[ "${HLO_TEST_PIP:-0}" != 1 ]]; then
  echo "pip install test skipped: set HLO_TEST_PIP=1 to run it (needs PyPI and a full build)"
  exit 77
fi

src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${HLO_PIP_PYTHON:-/usr/bin/python3}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/hlo-pip.XXXXXX")"
if [[ "${HLO_PIP_KEEP:-0}" != 1 ]]; then trap 'rm -rf "$tmp"' EXIT; fi

# A clean checkout: the files git tracks, as they are in the work tree.
mkdir "$tmp/src"
git -C "$src" ls-files -z | (cd "$src" && tar --null -T - -cf -) | tar -xf - -C "$tmp/src"

"$python" -m venv "$tmp/venv"
start=$(date +%s)
# No PYTHONPATH from a build tree may shadow the installed module.
env -u PYTHONPATH "$tmp/venv/bin/pip" install --no-cache-dir "$tmp/src"
seconds=$(( $(date +%s) - start ))

cd "$tmp"
env -u PYTHONPATH "$tmp/venv/bin/python" - "$tmp/venv" <<'PY'
import os
import sys

import numpy as np

import hlo
from hlo import ops

venv = os.path.realpath(sys.argv[1])
assert os.path.realpath(hlo.__file__).startswith(venv), f"hlo imported from {hlo.__file__}, not {venv}"
m = hlo.parse("""HloModule axpy
ENTRY e {
  a = f32[] parameter(0)
  x = f32[4] parameter(1)
  y = f32[4] parameter(2)
  ba = f32[4] broadcast(a), dimensions={}
  ax = f32[4] multiply(ba, x)
  ROOT r = f32[4] add(ax, y)
}""")
hlo.run_passes(m, "O")
x, y = np.arange(4, dtype=np.float32), np.ones(4, np.float32)
np.testing.assert_array_equal(hlo.run(m, np.float32(2), x, y), 2 * x + y)
b = hlo.Builder("mlp")
w = b.parameter(0, "f32[4,3]")
v = b.parameter(1, "f32[2,4]")
built = b.build(ops.tanh(v @ w))
wv = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
vv = np.linspace(0, 1, 8, dtype=np.float32).reshape(2, 4)
np.testing.assert_allclose(hlo.run(built, wv, vv), np.tanh(vv @ wv), rtol=1e-5)
print(f"import hlo from {os.path.basename(hlo.__file__)} in the environment: parse, passes, run, builder ok "
      f"(numpy {np.__version__})")
PY
echo "pip install . took ${seconds} s (CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-unset})"
