#!/usr/bin/python3
"""Compares the CPU backend with NumPy, PyTorch and the bare libraries.

Runs bench/backend_bench (Google Benchmark, JSON output: our ops through
RunModule next to bare cblas_sgemm / fftwf_execute in the same binary), then
times the same work in NumPy and PyTorch in a child Python process, and prints
one table:

    case | ours | peer | peer time | ratio = peer_time / our_time | target

A ratio > 1 means we are faster. Times are medians over --repetitions
samples (wall clock).

The peers' child process runs with OPENBLAS_L2_SIZE removed from its
environment and OPENBLAS_CORETYPE set to the OpenBLAS kernel family our
backend runs (backend_bench reports it; on a CPU newer than OpenBLAS the
library alone would fall back to its SSE3 kernels, for NumPy too).
backend_bench runs with the environment as given. --keep-openblas-env
passes both variables to the peers as given.

Usage (from the repository root):
    /usr/bin/python3 bench/compare.py [--bench build-bench/bench/backend_bench]
        [--repetitions 3] [--min-time 0.5] [--cases REGEX] [--threads N] [--markdown]
        [--json-out FILE]
Needs numpy and torch (Debian: python3-numpy python3-torch);
python3-threadpoolctl is optional (reports which BLAS kernel NumPy runs).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (case, peer label, where the peer time comes from, target ratio or None
# for an informative row). Sources: "bench:<name>" is a backend_bench case,
# "py:<name>" a peer timed by peers().
ROWS = [
    ("dot_f32_1024", "bare cblas_sgemm, 2 OpenBLAS threads", "bench:dot_f32_1024/bare_sgemm_t2", 0.9),
    ("dot_f32_1024", "bare cblas_sgemm, 1 OpenBLAS thread", "bench:dot_f32_1024/bare_sgemm_t1", None),
    ("dot_f32_1024", "numpy a @ b", "py:matmul_1024", None),
    ("dot_f32_2048", "bare cblas_sgemm, 2 OpenBLAS threads", "bench:dot_f32_2048/bare_sgemm_t2", 0.9),
    ("dot_f32_2048", "bare cblas_sgemm, 1 OpenBLAS thread", "bench:dot_f32_2048/bare_sgemm_t1", None),
    ("dot_f32_2048", "numpy a @ b", "py:matmul_2048", None),
    ("fft_c64_2^20", "bare fftwf_execute (FFTW_ESTIMATE, as ours)", "bench:fft_c64_2^20/bare_fftw", 0.9),
    ("fft_c64_2^20", "bare fftwf_execute (FFTW_MEASURE)", "bench:fft_c64_2^20/bare_fftw_measure", None),
    ("fft_c64_2^20", "numpy np.fft.fft (complex128 out)", "py:fft", None),
    ("tanh_f32_16M", "numpy np.tanh", "py:tanh_np", 1.0),
    ("tanh_f32_16M", "torch.tanh", "py:tanh_torch", None),
    ("add_f32_16M", "numpy a + b", "py:add_np", 1.0),
    ("reduce_sum_f32_64M", "numpy a.sum()", "py:sum_np", 1.0),
    ("conv_nhwc", "torch conv2d channels_last", "py:conv_nhwc", 1.0),
    ("conv_nchw", "torch conv2d NCHW", "py:conv_nchw", 1.0),
    # transpose: against the copy of the same bytes (64 MB read, 64 MB
    # written) at the pool's width, so the ratio is the fraction of copy
    # bandwidth; and against the peers (1.5x faster than the faster one).
    ("transpose_f32_4096", "copy 64 MB -> 64 MB, memcpy split over our pool (fraction of copy bandwidth)",
     "bench:copy_64MB/memcpy_pool", 0.6),
    ("transpose_f32_4096", "copy 64 MB -> 64 MB, one glibc memcpy", "bench:copy_64MB/memcpy", None),
    ("transpose_f32_4096", "numpy np.ascontiguousarray(a.T)", "py:transpose_np", 1.5),
    ("transpose_f32_4096", "torch a.t().contiguous()", "py:transpose_torch", 1.5),
]

# Work per case, for a rate column.
FLOPS = {
    "dot_f32_1024": 2.0 * 1024**3,
    "dot_f32_2048": 2.0 * 2048**3,
    "conv_nhwc": 2.0 * 8 * 56 * 56 * 64 * 64 * 9,
    "conv_nchw": 2.0 * 8 * 56 * 56 * 64 * 64 * 9,
}


def time_fn(fn, min_time, reps):
    """Median over `reps` samples of the mean time of fn() (>= min_time each)."""
    fn()  # warm-up (allocations, plans, thread start-up)
    samples = []
    for _ in range(reps):
        n = 0
        t0 = time.perf_counter()
        while True:
            fn()
            n += 1
            t = time.perf_counter() - t0
            if t >= min_time:
                break
        samples.append(t / n)
    return statistics.median(samples)


def peers(min_time, reps, cases_re, threads=None):
    """Times the NumPy/PyTorch peers of the cases matching cases_re (a
    regular expression searched in the case names); returns
    {name: seconds} and notes."""
    import re

    def want(*cases):
        return any(re.search(cases_re, c) for c in cases)

    import numpy as np
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(threads or os.cpu_count() or 1)
    notes = {
        "numpy": np.__version__,
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE", "(unset)"),
        "OPENBLAS_L2_SIZE": os.environ.get("OPENBLAS_L2_SIZE", "(unset)"),
    }
    try:
        import threadpoolctl
        notes["threadpools"] = [
            {k: v for k, v in p.items() if k in ("internal_api", "architecture", "num_threads", "version")}
            for p in threadpoolctl.threadpool_info()
        ]
    except ImportError:
        notes["threadpools"] = "threadpoolctl not installed"

    rng = np.random.default_rng(17)
    out = {}
    for n in (1024, 2048):
        if not want(f"dot_f32_{n}"):
            continue
        a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        out[f"matmul_{n}"] = time_fn(lambda: a @ b, min_time, reps)
        del a, b
    if want("fft_c64_2^20"):
        x = (rng.uniform(-1, 1, 1 << 20) + 1j * rng.uniform(-1, 1, 1 << 20)).astype(np.complex64)
        out["fft"] = time_fn(lambda: np.fft.fft(x), min_time, reps)
        del x
    if want("tanh_f32_16M"):
        a = rng.uniform(-4, 4, 1 << 24).astype(np.float32)
        out["tanh_np"] = time_fn(lambda: np.tanh(a), min_time, reps)
        ta = torch.from_numpy(a)
        with torch.inference_mode():
            out["tanh_torch"] = time_fn(lambda: torch.tanh(ta), min_time, reps)
        del a, ta
    if want("add_f32_16M"):
        a = rng.uniform(-1, 1, 1 << 24).astype(np.float32)
        b = rng.uniform(-1, 1, 1 << 24).astype(np.float32)
        out["add_np"] = time_fn(lambda: a + b, min_time, reps)
        del a, b
    if want("reduce_sum_f32_64M"):
        a = rng.uniform(-1, 1, 1 << 26).astype(np.float32)
        out["sum_np"] = time_fn(lambda: a.sum(), min_time, reps)
        del a
    if want("transpose_f32_4096"):
        a = rng.uniform(-1, 1, (4096, 4096)).astype(np.float32)
        out["transpose_np"] = time_fn(lambda: np.ascontiguousarray(a.T), min_time, reps)
        ta = torch.from_numpy(a)
        with torch.inference_mode():
            out["transpose_torch"] = time_fn(lambda: ta.t().contiguous(), min_time, reps)
        del a, ta
    if not want("conv_nchw", "conv_nhwc"):
        return out, notes
    with torch.inference_mode():
        x = torch.from_numpy(rng.uniform(-1, 1, (8, 64, 56, 56)).astype(np.float32))
        w = torch.from_numpy(rng.uniform(-1, 1, (64, 64, 3, 3)).astype(np.float32))
        out["conv_nchw"] = time_fn(lambda: F.conv2d(x, w, padding=1), min_time, reps)
        xc = x.contiguous(memory_format=torch.channels_last)
        wc = w.contiguous(memory_format=torch.channels_last)
        y = F.conv2d(xc, wc, padding=1)
        notes["conv_channels_last_out"] = bool(y.is_contiguous(memory_format=torch.channels_last))
        out["conv_nhwc"] = time_fn(lambda: F.conv2d(xc, wc, padding=1), min_time, reps)
    return out, notes


def bench_filter(cases_re):
    """The backend_bench filter for cases_re: the matching cases and the
    in-binary peers their rows compare with (e.g. the copy of a transpose)."""
    import re
    if cases_re == ".":
        return cases_re
    extra = [re.escape(src.split(":", 1)[1]) for case, _, src, _ in ROWS
             if src.startswith("bench:") and re.search(cases_re, case)]
    return "|".join([f"({cases_re})"] + extra)


def run_bench(path, reps, min_time, cases_re, threads=None):
    cmd = [path, "--benchmark_format=json", f"--benchmark_min_time={min_time}",
           f"--benchmark_filter={bench_filter(cases_re)}"]
    if reps > 1:
        cmd += [f"--benchmark_repetitions={reps}", "--benchmark_report_aggregates_only=true"]
    env = dict(os.environ)
    if threads:
        env["HLO_CPU_THREADS"] = str(threads)
    res = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, env=env)
    data = json.loads(res.stdout)
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    times = {}
    for b in data["benchmarks"]:
        if b.get("error_occurred"):
            sys.exit(f"{b['name']}: {b.get('error_message')}")
        name = b.get("run_name", b["name"])
        if name.endswith("/real_time"):  # added by UseRealTime()
            name = name[: -len("/real_time")]
        agg = b.get("aggregate_name")
        if reps > 1 and agg != "median":
            continue
        times[name] = b["real_time"] * scale[b["time_unit"]]
    return times, data.get("context", {})


def fmt_ms(s):
    return f"{s * 1e3:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=os.path.join(ROOT, "build-bench", "bench", "backend_bench"))
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--min-time", type=float, default=0.5)
    ap.add_argument("--keep-openblas-env", action="store_true",
                    help="do not unset OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE for the peers")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--json-out", help="also write all measurements to this file")
    ap.add_argument("--cases", default=".",
                    help="regular expression: only the cases whose name it matches (e.g. conv)")
    ap.add_argument("--threads", type=int,
                    help="our pool width (HLO_CPU_THREADS) and PyTorch's thread count "
                         "(default: the machine's cores for both)")
    ap.add_argument("--peers-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.peers_only:
        out, notes = peers(args.min_time, args.repetitions, args.cases, args.threads)
        json.dump({"times": out, "notes": notes}, sys.stdout)
        return

    load_before = os.getloadavg()
    ours, context = run_bench(args.bench, args.repetitions, args.min_time, args.cases, args.threads)
    env = dict(os.environ)
    if not args.keep_openblas_env:
        env.pop("OPENBLAS_CORETYPE", None)
        env.pop("OPENBLAS_L2_SIZE", None)
        # NumPy on Debian runs the same OpenBLAS: give it the kernels our
        # backend picked (on a CPU newer than the library, OpenBLAS itself
        # falls back to its SSE3 kernels; backend_cpu/openblas_core.h).
        core = context.get("openblas_corename", "")
        if core and core != "Prescott":
            env["OPENBLAS_CORETYPE"] = core
    child = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--peers-only", f"--repetitions={args.repetitions}",
         f"--min-time={args.min_time}", f"--cases={args.cases}"]
        + ([f"--threads={args.threads}"] if args.threads else []),
        check=True, stdout=subprocess.PIPE, text=True, env=env)
    peer_data = json.loads(child.stdout)
    py = peer_data["times"]
    load_after = os.getloadavg()

    table = []
    for case, label, src, target in ROWS:
        our_t = ours.get(f"{case}/ours")
        kind, name = src.split(":", 1)
        peer_t = ours.get(name) if kind == "bench" else py.get(name)
        if our_t is None or peer_t is None:
            continue
        ratio = peer_t / our_t
        if target is None:
            verdict = "(info)"
        else:
            verdict = f">= {target:g}: " + ("met" if ratio >= target else "MISSED")
        rate = ""
        if case in FLOPS:
            rate = f"{FLOPS[case] / our_t * 1e-9:.1f} / {FLOPS[case] / peer_t * 1e-9:.1f}"
        table.append((case, fmt_ms(our_t), label, fmt_ms(peer_t), f"{ratio:.2f}", verdict, rate))

    head = ("case", "ours ms", "peer", "peer ms", "ratio", "target", "GFLOP/s ours / peer")
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" for _ in head) + "|")
        for r in table:
            print("| " + " | ".join(r) + " |")
    else:
        widths = [max(len(h), *(len(r[i]) for r in table)) for i, h in enumerate(head)]
        print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
        for r in table:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
    print()
    print(f"ratio = peer time / our time (> 1: we are faster); medians of {args.repetitions} "
          f"repetition(s), min time {args.min_time} s each")
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f}; cpus {os.cpu_count()}")
    print("backend_bench context:", {k: v for k, v in context.items()
                                     if k in ("num_cpus", "mhz_per_cpu", "hlo_cpu_threads", "openblas_corename",
                                              "openblas_default_threads", "OPENBLAS_CORETYPE")})
    print("peers context:", peer_data["notes"])
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"ours": ours, "peers": py, "context": context, "peer_notes": peer_data["notes"],
                       "load_before": load_before, "load_after": load_after, "table": table}, f, indent=1)


if __name__ == "__main__":
    main()
