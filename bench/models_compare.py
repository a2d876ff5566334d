#!/usr/bin/python3
"""Times whole models in hlo-run against what their work costs in NumPy and
PyTorch on the same machine, in the same run (issue 12's model targets).

Two kinds of rows:

  conv    a model whose time is in 2-D convolutions (NHWC/HWIO, as
          TensorFlow and JAX write them): ours is hlo-run's time for the
          whole module; the peer is the sum of PyTorch's f32 channels-last
          conv2d over the same shapes (stride, padding, dilation, groups),
          each timed alone. Also the convolutions' flops at the GEMM rate
          hlo-run measured (`--profile`'s machine line).
  weights a model whose time is reading its parameters (a decode step):
          ours is hlo-run's time for the whole module; the peer is NumPy
          summing arrays of the same bytes once (one pass over memory).

ratio = our time / peer time (< 1: we are faster). Times are the minimum
per run over --iterations (hlo-run) or --repeats (peers), after a warm-up.

Usage (from the repository root, after building):
    /usr/bin/python3 bench/models_compare.py [--threads 1,2] [--iterations 10]
        [--hlo-run build/tools/hlo-run] [--hlo-opt build/tools/hlo-opt]
        [--models REGEX] [--markdown]
Needs python3-numpy and python3-torch (Debian). Models are read from
../shared/corpus/models and bench/hlo/models; missing ones are listed as
skipped.
"""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "models")

# (label, file, kind)
MODELS = [
    ("resnet34_residual_block_tf_bf16", os.path.join(CORPUS, "resnet34_residual_block_tf_bf16.hlo"), "conv"),
    ("jax_mobilenet_bf16", os.path.join(HERE, "hlo", "models", "jax_mobilenet_bf16.hlo"), "conv"),
    ("jax_cnn_nhwc_f32", os.path.join(HERE, "hlo", "models", "jax_cnn_nhwc_f32.hlo"), "conv"),
    ("torchxla_llama_decoder_step_tp1", os.path.join(CORPUS, "torchxla_llama_decoder_step_tp1.hlo"), "weights"),
    ("torchxla_gpt2_2layer_decode_step", os.path.join(CORPUS, "torchxla_gpt2_2layer_decode_step.hlo"), "weights"),
]

BYTES = {"pred": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2, "s32": 4, "u32": 4,
         "f32": 4, "s64": 8, "u64": 8, "f64": 8, "c64": 8, "c128": 16}

DEF = re.compile(r"^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=\s*(\w+)\[([\d,]*)\]\S*\s+([\w\-]+)\((.*)$")


def dims_of(text):
    return [int(d) for d in text.split(",") if d]


def module_text(hlo_opt, path):
    """The module as hlo-opt prints it (one instruction per line)."""
    r = subprocess.run([hlo_opt, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"hlo-opt {path}: {r.stderr.strip()}")
    return r.stdout


def entry_lines(text):
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith("ENTRY"):
            inside = True
            continue
        if inside and line.startswith("}"):
            break
        if inside:
            out.append(line)
    return out


def parameter_bytes(text):
    total = 0
    for line in entry_lines(text):
        m = DEF.match(line)
        if m and m.group(4) == "parameter":
            n = 1
            for d in dims_of(m.group(3)):
                n *= d
            total += n * BYTES.get(m.group(2), 4)
    return total


def convolutions(text):
    """2-D NHWC x HWIO convolutions: dicts of shapes and window."""
    shapes = {}
    convs = []
    for line in text.splitlines():
        m = DEF.match(line)
        if not m:
            continue
        name, _, dims, op, rest = m.groups()
        shapes[name] = dims_of(dims)
        if op != "convolution":
            continue
        if "dim_labels=b01f_01io->b01f" not in rest:
            sys.exit(f"convolution %{name}: only b01f_01io->b01f is timed here")
        operands = [o.strip().lstrip("%") for o in rest.split(")")[0].split(",")]
        win = re.search(r"window=\{([^}]*)\}", rest).group(1)
        field = lambda key, default: [int(v) for v in re.search(key + r"=([\dx]+)", win).group(1).split("x")] \
            if re.search(key + r"=", win) else default
        pads = [[0, 0], [0, 0]]
        pm = re.search(r"pad=([\d_\-x]+)", win)
        if pm:
            pads = [[int(v) for v in p.split("_")] for p in pm.group(1).split("x")]
        g = re.search(r"feature_group_count=(\d+)", rest)
        convs.append({"name": name, "in": shapes[operands[0]], "ker": shapes[operands[1]], "out": dims_of(dims),
                      "stride": field("stride", [1, 1]), "dilation": field("rhs_dilate", [1, 1]),
                      "pad": pads, "groups": int(g.group(1)) if g else 1})
    return convs


def conv_flops(c):
    n, oh, ow, o = c["out"]
    kh, kw, ci, _ = c["ker"]
    return 2.0 * n * oh * ow * o * kh * kw * ci


def best_time(fn, repeats):
    fn()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def torch_convs(convs, threads, repeats):
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(threads)
    total = 0.0
    with torch.no_grad():
        for c in convs:
            n, h, w, ci = c["in"]
            kh, kw, cig, o = c["ker"]
            (plh, phh), (plw, phw) = c["pad"]
            # Asymmetric padding is applied once, outside the timing.
            x = torch.randn(n, ci, h + plh + phh, w + plw + phw).to(memory_format=torch.channels_last)
            wt = torch.randn(o, cig, kh, kw).to(memory_format=torch.channels_last)
            total += best_time(lambda: F.conv2d(x, wt, stride=c["stride"], dilation=c["dilation"],
                                                groups=c["groups"]), repeats)
    return total


def numpy_read(nbytes, repeats):
    a = np.ones(max(nbytes // 4, 1), dtype=np.float32)
    return best_time(lambda: a.sum(), repeats)


def ours(hlo_run, path, threads, iterations):
    r = subprocess.run([hlo_run, path, "--random-inputs=7", f"--iterations={iterations}", "--warmup=1",
                        f"--threads={threads}", "--profile=1"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"hlo-run {path}: {r.stderr.strip()}")
    t = float(re.search(r"min ([\d.e\-]+) s", r.stderr).group(1))
    gemm = re.search(r"([\d.]+) GFLOP/s f32 GEMM", r.stderr)
    return t, float(gemm.group(1)) * 1e9 if gemm else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hlo-run", default=os.path.join(ROOT, "build", "tools", "hlo-run"))
    ap.add_argument("--hlo-opt", default=os.path.join(ROOT, "build", "tools", "hlo-opt"))
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    ap.add_argument("--iterations", type=int, default=10, help="hlo-run runs per model")
    ap.add_argument("--repeats", type=int, default=10, help="peer runs per workload")
    ap.add_argument("--models", default=".", help="regular expression on the model labels")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = ap.parse_args()
    for tool in (args.hlo_run, args.hlo_opt):
        if not os.access(tool, os.X_OK):
            sys.exit(f"error: {tool} not found; build first (scripts/quickstart.sh)")
    threads = [int(t) for t in args.threads.split(",") if t]
    rows = []
    for label, path, kind in MODELS:
        if not re.search(args.models, label):
            continue
        if not os.path.exists(path):
            rows.append((label, "-", kind, "-", "-", "-", "-", f"skipped: {path} not found"))
            continue
        text = module_text(args.hlo_opt, path)
        convs = convolutions(text) if kind == "conv" else []
        nbytes = parameter_bytes(text)
        for t in threads:
            mine, gemm_rate = ours(args.hlo_run, path, t, args.iterations)
            if kind == "conv":
                peer = torch_convs(convs, t, args.repeats)
                flops = sum(conv_flops(c) for c in convs)
                note = f"{len(convs)} convolutions, {flops / 1e9:.2f} GFLOP"
                if gemm_rate:
                    note += f"; at the GEMM rate {flops / gemm_rate * 1e3:.1f} ms ({mine * gemm_rate / flops:.2f}x)"
                peer_label = "PyTorch f32 channels-last conv2d, same shapes"
            else:
                peer = numpy_read(nbytes, args.repeats)
                note = f"{nbytes / 1e6:.0f} MB of parameters"
                peer_label = "NumPy reads the parameters' bytes once (sum)"
            rows.append((label, str(t), kind, f"{mine * 1e3:.2f}", peer_label, f"{peer * 1e3:.2f}",
                         f"{mine / peer:.2f}", note))
    header = ("model", "threads", "kind", "ours ms", "peer", "peer ms", "ours/peer", "note")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        for r in [header] + rows:
            print("  ".join(r))
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
