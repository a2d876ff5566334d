#!/usr/bin/python3
"""Times fused workloads (bench/hlo/*.hlo) in hlo-run against NumPy and
PyTorch, and against this machine's copy bandwidth, all in one run.

For every case and thread count it prints our median time per run
(`hlo-run --iterations`, the -O pipeline, so fusion on), the peers' median
times, the ratio to the fastest peer (> 1: we are faster), and the share of
copy bandwidth we reach for the bytes the case must move (read every input
once, write every output once), with copy bandwidth measured as NumPy's
copy of 64 MB into 64 MB in the same run (one thread).

Usage (from the repository root, after building):
    /usr/bin/python3 bench/fusion_compare.py [--hlo-run build/tools/hlo-run]
        [--threads 1,2] [--iterations 10] [--cases REGEX]
Needs python3-numpy and python3-torch (Debian).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MB64 = 64 << 20

# case -> (module, bytes it must move)
CASES = {
    "softmax_4096": ("softmax_4096.hlo", 2 * MB64),
    "layernorm_4096": ("layernorm_4096.hlo", 2 * MB64),
    "gelu_16m": ("gelu_16m.hlo", 2 * MB64),
    "adam_16m": ("adam_16m.hlo", 7 * MB64),
    "tanh_chain_16m": ("elementwise_chain_16m.hlo", 3 * MB64),
}


def median_time(fn, reps):
    fn()
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def ours(hlo_run, module, threads, iterations):
    r = subprocess.run([hlo_run, os.path.join(HERE, "hlo", module), "--random-inputs=7",
                        f"--threads={threads}", f"--iterations={iterations}", "--warmup=1",
                        "--output-dir=" + os.path.join("/tmp", f"fusion_compare_{os.getpid()}")],
                       capture_output=True, text=True)
    m = re.search(r"median ([0-9.e-]+) s per run", r.stderr)
    if r.returncode != 0 or not m:
        sys.exit(f"hlo-run failed on {module}: {r.stderr}")
    return float(m.group(1))


def peers(case, threads, reps):
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(threads)
    rng = np.random.default_rng(7)
    out = {}
    with torch.inference_mode():
        if case in ("softmax_4096", "layernorm_4096"):
            a = rng.uniform(-1, 1, (4096, 4096)).astype(np.float32)
            ta = torch.from_numpy(a)
            if case == "softmax_4096":
                def np_softmax():
                    e = np.exp(a - a.max(axis=1, keepdims=True))
                    return e / e.sum(axis=1, keepdims=True)
                out["numpy"] = median_time(np_softmax, reps)
                out["torch"] = median_time(lambda: torch.softmax(ta, dim=1), reps)
            else:
                g = rng.uniform(-1, 1, 4096).astype(np.float32)
                b = rng.uniform(-1, 1, 4096).astype(np.float32)
                def np_layernorm():
                    xc = a - a.mean(axis=1, keepdims=True)
                    var = (xc * xc).mean(axis=1, keepdims=True)
                    return xc / np.sqrt(var + 1e-5) * g + b
                out["numpy"] = median_time(np_layernorm, reps)
                tg, tb = torch.from_numpy(g), torch.from_numpy(b)
                out["torch"] = median_time(lambda: F.layer_norm(ta, (4096,), tg, tb, 1e-5), reps)
        else:
            n = 1 << 24
            x = rng.uniform(-1, 1, n).astype(np.float32)
            tx = torch.from_numpy(x)
            if case == "gelu_16m":
                out["numpy"] = median_time(
                    lambda: 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x * x * x))), reps)
                out["torch"] = median_time(lambda: F.gelu(tx, approximate="tanh"), reps)
            elif case == "tanh_chain_16m":
                y = rng.uniform(-1, 1, n).astype(np.float32)
                ty = torch.from_numpy(y)
                out["numpy"] = median_time(lambda: np.tanh(x * y + x), reps)
                out["torch"] = median_time(lambda: torch.tanh(tx * ty + tx), reps)
            elif case == "adam_16m":
                p, g, m, v = (rng.uniform(0, 1, n).astype(np.float32) for _ in range(4))
                def np_adam():
                    mn = 0.9 * m + 0.1 * g
                    vn = 0.999 * v + 0.001 * (g * g)
                    return p - 1e-3 * mn / (np.sqrt(vn) + 1e-8), mn, vn
                out["numpy"] = median_time(np_adam, reps)
                tp, tg, tm, tv = (torch.from_numpy(t.copy()) for t in (p, g, m, v))
                def torch_adam():  # in place, as torch.optim's single-tensor Adam does
                    tm.mul_(0.9).add_(tg, alpha=0.1)
                    tv.mul_(0.999).addcmul_(tg, tg, value=0.001)
                    tp.addcdiv_(tm, tv.sqrt().add_(1e-8), value=-1e-3)
                out["torch"] = median_time(torch_adam, reps)
    return out


def copy_seconds(reps):
    src = np.ones(MB64 // 4, np.float32)
    dst = np.empty_like(src)
    return median_time(lambda: np.copyto(dst, src), reps)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hlo-run", default=os.path.join(ROOT, "build", "tools", "hlo-run"))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--cases", default=".")
    args = ap.parse_args()
    if not os.path.exists(args.hlo_run):
        sys.exit(f"no hlo-run at {args.hlo_run} (build first or pass --hlo-run)")
    copy = copy_seconds(10)
    bw = 2 * MB64 / copy
    print(f"copy bandwidth (NumPy, 64 MB -> 64 MB, 1 thread): {bw / 1e9:.1f} GB/s")
    print(f"{'case':16} {'thr':>3} {'ours ms':>8} {'numpy ms':>9} {'torch ms':>9} {'x fastest':>9} {'of copy bw':>10}")
    for case, (module, nbytes) in CASES.items():
        if not re.search(args.cases, case):
            continue
        for t in (int(s) for s in args.threads.split(",")):
            us = ours(args.hlo_run, module, t, args.iterations)
            p = peers(case, t, args.iterations)
            fastest = min(p.values())
            share = (nbytes / bw) / us
            print(f"{case:16} {t:>3} {us * 1e3:8.1f} {p['numpy'] * 1e3:9.1f} {p['torch'] * 1e3:9.1f} "
                  f"{fastest / us:9.2f} {share:10.2f}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
