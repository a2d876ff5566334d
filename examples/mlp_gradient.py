#!/usr/bin/env python3
"""Build a small MLP's training step with the builder and check it against
NumPy.

    PYTHONPATH=build/python python3 examples/mlp_gradient.py [--batch 16 --hidden 32 --steps 5]

The step is forward (tanh hidden layer, linear output, mean squared error),
backward by hand, and plain SGD on all four parameters; the module returns
(loss, w1', b1', w2', b2'). It is built with hlo.Builder and NumPy-style
operators, run with hlo.run, and compared step by step with the same
arithmetic in NumPy (float64). Exits 1 if a step differs or the loss does
not go down.
"""
import argparse
import sys

import numpy as np

import hlo
from hlo import ops


def build_step(n, d, h, c, lr):
    b = hlo.Builder("mlp_sgd_step")
    x = b.parameter(0, np.float32, (n, d), name="x")
    y = b.parameter(1, np.float32, (n, c), name="y")
    w1 = b.parameter(2, np.float32, (d, h), name="w1")
    b1 = b.parameter(3, np.float32, (h,), name="b1")
    w2 = b.parameter(4, np.float32, (h, c), name="w2")
    b2 = b.parameter(5, np.float32, (c,), name="b2")

    # Forward. A rank-1 bias meets a rank-2 matrix: the seeds' broadcasting
    # wants its size-1 row spelled out (b1[None, :]) or broadcast_dimensions.
    hid = ops.tanh(x @ w1 + b1[None, :])
    out = ops.add(hid @ w2, b2, broadcast_dimensions=[1])
    err = out - y
    loss = (err * err).sum() / float(n * c)

    # Backward.
    d_out = err * (2.0 / (n * c))
    d_w2 = hid.T @ d_out
    d_b2 = d_out.sum(axis=0)
    d_hid = d_out @ w2.T
    d_pre = d_hid * (1.0 - hid * hid)
    d_w1 = x.T @ d_pre
    d_b1 = d_pre.sum(axis=0)

    return b.build((loss, w1 - lr * d_w1, b1 - lr * d_b1, w2 - lr * d_w2, b2 - lr * d_b2))


def numpy_step(x, y, w1, b1, w2, b2, lr):
    x, y, w1, b1, w2, b2 = (a.astype(np.float64) for a in (x, y, w1, b1, w2, b2))
    hid = np.tanh(x @ w1 + b1)
    err = hid @ w2 + b2 - y
    loss = (err ** 2).mean()
    d_out = 2 * err / err.size
    d_pre = (d_out @ w2.T) * (1 - hid ** 2)
    return loss, w1 - lr * x.T @ d_pre, b1 - lr * d_pre.sum(0), w2 - lr * hid.T @ d_out, b2 - lr * d_out.sum(0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--inputs", type=int, default=8)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--outputs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--print-hlo", action="store_true", help="print the built module")
    args = ap.parse_args()
    n, d, h, c = args.batch, args.inputs, args.hidden, args.outputs

    module = build_step(n, d, h, c, args.lr)
    if args.print_hlo:
        print(module)
    cost = hlo.cost(module)["total"]
    print(f"built {module.entry_name}: {module.instruction_count()} instructions, "
          f"{cost['flops']:.0f} flops, {cost['transcendentals']:.0f} transcendentals per step")

    rng = np.random.default_rng(args.seed)
    x = rng.standard_normal((n, d)).astype(np.float32)
    y = np.sin(x[:, :c] * 2).astype(np.float32)  # something learnable
    params = [rng.standard_normal((d, h)).astype(np.float32) / np.sqrt(d), np.zeros(h, np.float32),
              rng.standard_normal((h, c)).astype(np.float32) / np.sqrt(h), np.zeros(c, np.float32)]

    losses, worst = [], 0.0
    for step in range(args.steps):
        got = hlo.run(module, x, y, *params)
        want = numpy_step(x, y, *params, args.lr)
        for g, w in zip(got, want):
            worst = max(worst, float(np.max(np.abs(g - w) / (1e-3 + np.abs(w)))))
            if not np.allclose(g, w, rtol=1e-4, atol=1e-5):
                print(f"step {step}: the builder's step differs from NumPy's (max abs err "
                      f"{np.max(np.abs(g - w)):.3g})", file=sys.stderr)
                return 1
        losses.append(float(got[0]))
        print(f"step {step}: loss {got[0]:.6f} (NumPy {want[0]:.6f})")
        params = list(got[1:])
    print(f"max relative difference to NumPy: {worst:.2e}")
    if not losses[-1] < losses[0]:
        print("the loss did not go down", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
