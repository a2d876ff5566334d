#!/usr/bin/env python3
"""Run a dumped HLO module on .npy inputs and compare its results with
NumPy's.

    PYTHONPATH=build/python python3 examples/run_dump.py MODULE.hlo INPUTS [--expected DIR]

INPUTS is a directory of 0.npy, 1.npy, ... in parameter order (what
`hlo-run --save-inputs` writes) or a list of .npy files. --expected is a
directory of 0.npy, 1.npy, ... with the results NumPy (or any framework)
computed, one per leaf of the result tuple in order (what `hlo-run
--output-dir` writes). Prints one line per leaf and exits 1 when a leaf
differs by more than --rtol/--atol, 2 on bad usage.
"""
import argparse
import os
import sys

import numpy as np

import hlo


def npy_files(path):
    """0.npy, 1.npy, ... of a directory in numeric order, or the given files."""
    if len(path) == 1 and os.path.isdir(path[0]):
        names = [n for n in os.listdir(path[0]) if n.endswith(".npy") and n[:-4].isdigit()]
        return [os.path.join(path[0], n) for n in sorted(names, key=lambda n: int(n[:-4]))]
    return path


def leaves(result):
    """The result's arrays in flattened tuple order."""
    if isinstance(result, tuple):
        return [leaf for r in result for leaf in leaves(r)]
    return [result]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("module", help="HLO text file (an XLA dump, hlo-opt output, ...)")
    ap.add_argument("inputs", nargs="+", help="a directory of 0.npy, 1.npy, ... or .npy files")
    ap.add_argument("--expected", help="directory of the expected results 0.npy, 1.npy, ...")
    ap.add_argument("--passes", default=None, help="run these passes first: 'O' or a comma-separated list")
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--atol", type=float, default=1e-6)
    args = ap.parse_args()

    try:
        module = hlo.parse_file(args.module)
    except hlo.HloError as e:
        print(e.diagnostics, file=sys.stderr)
        return 1
    if args.passes:
        hlo.run_passes(module, "O" if args.passes == "O" else args.passes.split(","))
    files = npy_files(args.inputs)
    if len(files) != module.num_parameters():
        print(f"run_dump: {module.entry_name} takes {module.num_parameters()} parameters, "
              f"got {len(files)} .npy files", file=sys.stderr)
        return 2
    arrays = [np.load(f) for f in files]
    got = leaves(hlo.run(module, *arrays))

    if not args.expected:
        for i, g in enumerate(got):
            print(f"result {i}: {g.dtype}{list(g.shape)} min {g.min()} max {g.max()}")
        return 0
    want = npy_files([args.expected])
    if len(want) != len(got):
        print(f"run_dump: the module has {len(got)} result leaves, --expected has {len(want)}", file=sys.stderr)
        return 2
    failed = 0
    for i, (g, path) in enumerate(zip(got, want)):
        w = np.load(path)
        if g.shape != w.shape:
            print(f"result {i}: shape {g.shape} != expected {w.shape}  FAIL")
            failed += 1
            continue
        err = np.abs(g.astype(np.float64) - w.astype(np.float64))
        ok = np.allclose(g, w, rtol=args.rtol, atol=args.atol)
        rel = float((err / np.maximum(np.abs(w), np.finfo(np.float32).tiny)).max()) if err.size else 0.0
        print(f"result {i}: {g.dtype}{list(g.shape)} max abs err {err.max() if err.size else 0:.3g} "
              f"max rel err {rel:.3g}  {'ok' if ok else 'FAIL'}")
        failed += not ok
    print(f"{len(got) - failed} of {len(got)} results match")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
