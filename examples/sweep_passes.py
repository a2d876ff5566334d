#!/usr/bin/env python3
"""Sweep pass pipelines over a folder of HLO dumps and tabulate instruction
counts and times.

    PYTHONPATH=build/python python3 examples/sweep_passes.py DUMPS/ \\
        --pipeline cse,dce --pipeline O [--run] [--csv out.csv]

For every *.hlo file (sorted) and every pipeline: the instructions before
and after, the time the pipeline took and, with --run, the median time of
running the module before and after on seeded random inputs (and whether
the results agree). A file that does not parse, or a pipeline that fails on
it, is reported in its row and the sweep goes on. Exits 1 if anything
failed.
"""
import argparse
import csv
import glob
import os
import statistics
import sys
import time

import numpy as np

import hlo


def random_args(module, rng):
    """Seeded arguments for the entry's array parameters; None if one is not an array."""
    args = []
    for p in module.parameters:
        if p["dtype"] in ("tuple", "token"):
            return None
        dtype = hlo.numpy_dtype(p["dtype"])
        if dtype.kind == "b":
            args.append(rng.random(p["dims"]) < 0.5)
        elif dtype.kind in "iu":
            args.append(rng.integers(0, 4, p["dims"]).astype(dtype))
        else:
            args.append(rng.standard_normal(p["dims"]).astype(np.float32).astype(dtype))
    return args


def timed_run(module, args, repeat):
    """(result, median seconds) of `repeat` runs."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = hlo.run(module, *args)
        times.append(time.perf_counter() - start)
    return result, statistics.median(times)


def same(a, b):
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    wide = np.complex128 if np.iscomplexobj(a) else np.float64
    return a.shape == b.shape and np.allclose(a.astype(wide), b.astype(wide), rtol=1e-3, atol=1e-4, equal_nan=True)


def sweep_file(path, pipelines, run, repeat, seed):
    """One row per pipeline for `path`."""
    name = os.path.basename(path)
    try:
        original = hlo.parse_file(path)
    except hlo.HloError as e:
        return [{"file": name, "pipeline": "-", "error": f"parse: {e.message}"}]
    baseline, skipped = None, None
    if run:
        args = random_args(original, np.random.default_rng(seed))
        if args is None:
            skipped = "not run: a parameter is not an array"
        else:
            try:
                baseline = timed_run(original, args, repeat)
            except hlo.HloError as e:
                skipped = f"not run: {e.message}"
    rows = []
    for pipeline in pipelines:
        row = {"file": name, "pipeline": pipeline, "before": original.instruction_count()}
        module = hlo.parse(original.to_text())  # a fresh copy per pipeline
        try:
            start = time.perf_counter()
            changed = hlo.run_passes(module, "O" if pipeline == "O" else pipeline.split(","))
            row["pass_ms"] = 1e3 * (time.perf_counter() - start)
            hlo.verify(module)
        except hlo.HloError as e:
            row["error"] = f"passes: {e.message}"
            rows.append(row)
            continue
        row["after"] = module.instruction_count()
        row["changed"] = changed
        if skipped:
            row["error"] = skipped
        elif baseline is not None:
            result, seconds = timed_run(module, args, repeat)
            row["run_before_ms"] = 1e3 * baseline[1]
            row["run_after_ms"] = 1e3 * seconds
            row["agree"] = same(baseline[0], result)
            if not row["agree"]:
                row["error"] = "results differ after the pipeline"
        rows.append(row)
    return rows


def fmt(v, spec):
    """`v` formatted by `spec` ("8.2f"), or a dash as wide."""
    return format("-", ">" + spec.split(".")[0].rstrip("df")) if v is None else format(v, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", help="directory of *.hlo dumps")
    ap.add_argument("--pipeline", action="append",
                    help="'O' or comma-separated pass names (repeatable; default: cse,dce and O)")
    ap.add_argument("--run", action="store_true", help="also run each module before and after")
    ap.add_argument("--repeat", type=int, default=3, help="runs per timing (median)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--csv", help="also write the rows as CSV")
    args = ap.parse_args()
    pipelines = args.pipeline or ["cse,dce", "O"]
    files = sorted(glob.glob(os.path.join(args.folder, "*.hlo")))
    if not files:
        print(f"sweep_passes: no *.hlo files in {args.folder}", file=sys.stderr)
        return 2
    known = {name for name, _ in hlo.list_passes()}
    for p in pipelines:
        unknown = [n for n in p.split(",") if p != "O" and n not in known]
        if unknown:
            print(f"sweep_passes: unknown pass(es) {', '.join(unknown)}", file=sys.stderr)
            return 2

    rows = [r for f in files for r in sweep_file(f, pipelines, args.run, args.repeat, args.seed)]
    width = max(len(r["file"]) for r in rows)
    header = f"{'file':<{width}}  {'pipeline':<12} {'before':>6} {'after':>6} {'pass ms':>8}"
    if args.run:
        header += f" {'run ms':>8} {'after ms':>8}"
    print(header)
    for r in rows:
        line = (f"{r['file']:<{width}}  {r['pipeline']:<12} {fmt(r.get('before'), '6d')} "
                f"{fmt(r.get('after'), '6d')} {fmt(r.get('pass_ms'), '8.2f')}")
        if args.run:
            line += f" {fmt(r.get('run_before_ms'), '8.3f')} {fmt(r.get('run_after_ms'), '8.3f')}"
        if "error" in r:
            line += f"  {r['error']}"
        print(line)
    failed = sum(1 for r in rows if "error" in r and not r["error"].startswith("not run"))
    total_before = sum(r.get("before", 0) for r in rows)
    total_after = sum(r.get("after", r.get("before", 0)) for r in rows)
    print(f"{len(files)} files x {len(pipelines)} pipelines: {total_before} -> {total_after} instructions, "
          f"{failed} failed")
    if args.csv:
        keys = ["file", "pipeline", "before", "after", "changed", "pass_ms", "run_before_ms", "run_after_ms",
                "agree", "error"]
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            for r in rows:
                w.writerow({k: r.get(k, "") for k in keys})
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
