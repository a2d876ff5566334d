#!/usr/bin/env python3
"""Writes real-model HLO modules from JAX programs into bench/hlo/models/.

Each model is a small but complete JAX program of the kind the toolchain's
users dump (a GPT-2 style decoder block, an MLP training step with its
gradient, a CNN inference, a bf16 transformer MLP, bf16 MobileNet blocks), lowered by jax.jit to
HLO text (`.lower(...).as_text("hlo")`, what XLA receives before its own
optimizations). Weights are parameters, so the files stay small and both
hlo-run and XLA are fed the same random values by tools/xla_peer.py.

Run with the peer environment (scripts/peer-setup.sh):
  .venv-peer/bin/python bench/gen_jax_models.py
The files are committed; rerun only to regenerate them (JAX's version is
written into each file's first line).
"""
import os
import sys

import jax
import jax.numpy as jnp

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hlo", "models")


def gpt2_block(x, ln1_g, ln1_b, w_qkv, b_qkv, w_o, b_o, ln2_g, ln2_b, w_fc, b_fc, w_proj, b_proj):
  """One pre-LN GPT-2 decoder block over a [T, D] sequence, causal attention."""
  T, D = x.shape
  H = 12

  def ln(v, g, b):
    m = v.mean(-1, keepdims=True)
    s = ((v - m) ** 2).mean(-1, keepdims=True)
    return (v - m) * jax.lax.rsqrt(s + 1e-5) * g + b

  h = ln(x, ln1_g, ln1_b)
  qkv = h @ w_qkv + b_qkv
  q, k, v = jnp.split(qkv, 3, axis=-1)
  q = q.reshape(T, H, D // H).transpose(1, 0, 2)
  k = k.reshape(T, H, D // H).transpose(1, 0, 2)
  v = v.reshape(T, H, D // H).transpose(1, 0, 2)
  scores = q @ k.transpose(0, 2, 1) / jnp.sqrt(D // H).astype(x.dtype)
  mask = jnp.tril(jnp.ones((T, T), bool))
  scores = jnp.where(mask, scores, jnp.finfo(x.dtype).min)
  att = jax.nn.softmax(scores, axis=-1) @ v
  att = att.transpose(1, 0, 2).reshape(T, D)
  x = x + att @ w_o + b_o
  h = ln(x, ln2_g, ln2_b)
  return x + jax.nn.gelu(h @ w_fc + b_fc, approximate=True) @ w_proj + b_proj


def gpt2_args(T=128, D=768, dtype=jnp.float32):
  s = jax.ShapeDtypeStruct
  return [s((T, D), dtype), s((D,), dtype), s((D,), dtype), s((D, 3 * D), dtype),
          s((3 * D,), dtype), s((D, D), dtype), s((D,), dtype), s((D,), dtype), s((D,), dtype),
          s((D, 4 * D), dtype), s((4 * D,), dtype), s((4 * D, D), dtype), s((D,), dtype)]


def mlp_loss(params, x, y):
  h = x
  for i, (w, b) in enumerate(params):
    h = h @ w + b
    if i + 1 < len(params):
      h = jax.nn.relu(h)
  logp = jax.nn.log_softmax(h)
  return -jnp.mean(jnp.sum(logp * y, axis=-1))


def mlp_train_step(w1, b1, w2, b2, w3, b3, x, y):
  """SGD step of a 784-512-256-10 MLP on a batch of 128 (loss and new weights)."""
  params = [(w1, b1), (w2, b2), (w3, b3)]
  loss, grads = jax.value_and_grad(mlp_loss)(params, x, y)
  new = [(w - 0.01 * gw, b - 0.01 * gb) for (w, b), (gw, gb) in zip(params, grads)]
  return (loss,) + tuple(t for pair in new for t in pair)


def mlp_args():
  s = jax.ShapeDtypeStruct
  f = jnp.float32
  return [s((784, 512), f), s((512,), f), s((512, 256), f), s((256,), f), s((256, 10), f),
          s((10,), f), s((128, 784), f), s((128, 10), f)]


def cnn(x, w1, w2, w3, wd):
  """A small NHWC CNN: three 3x3 conv + ReLU + 2x2 max-pool stages, then dense."""
  def conv(v, w):
    return jax.lax.conv_general_dilated(v, w, (1, 1), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))

  def pool(v):
    return jax.lax.reduce_window(v, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

  for w in (w1, w2, w3):
    x = pool(jax.nn.relu(conv(x, w)))
  return x.reshape(x.shape[0], -1) @ wd


def cnn_args():
  s = jax.ShapeDtypeStruct
  f = jnp.float32
  return [s((8, 64, 64, 3), f), s((3, 3, 3, 32), f), s((3, 3, 32, 64), f), s((3, 3, 64, 128), f),
          s((8 * 8 * 128, 10), f)]


# MobileNet-v1 blocks: (input channels, output channels, depthwise stride).
MOBILENET_BLOCKS = [(32, 64, 1), (64, 128, 2), (128, 128, 1), (128, 256, 2), (256, 256, 1)]


def mobilenet(x, *weights):
  """MobileNet-v1-style bf16 blocks, batch 1, 112x112x32: depthwise 3x3 + pointwise 1x1, ReLU6."""
  def conv(v, w, stride, groups, pad):
    return jax.lax.conv_general_dilated(v, w, (stride, stride), pad,
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                        feature_group_count=groups)

  def relu6(v):
    return jnp.clip(v, jnp.zeros((), v.dtype), jnp.full((), 6, v.dtype))

  for i, (cin, _, stride) in enumerate(MOBILENET_BLOCKS):
    x = relu6(conv(x, weights[2 * i], stride, cin, ((1, 1), (1, 1))))
    x = relu6(conv(x, weights[2 * i + 1], 1, 1, ((0, 0), (0, 0))))
  return x


def mobilenet_args():
  s = jax.ShapeDtypeStruct
  b = jnp.bfloat16
  args = [s((1, 112, 112, 32), b)]
  for cin, cout, _ in MOBILENET_BLOCKS:
    args += [s((3, 3, 1, cin), b), s((1, 1, cin, cout), b)]
  return args


# MobileNet-style training blocks: (input channels, output channels, depthwise stride).
TRAIN_BLOCKS = [(32, 64, 1), (64, 128, 2), (128, 128, 1), (128, 256, 2)]


def mobilenet_train_step(x, y, *params):
  """A MobileNet-style f32 training step, batch 8, 56x56x32: depthwise 3x3 + pointwise 1x1 with batch norm and ReLU6, softmax cross-entropy, SGD."""
  def conv(v, w, stride, groups):
    return jax.lax.conv_general_dilated(v, w, (stride, stride), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                        feature_group_count=groups)

  def bn(v, g, b):
    m = jnp.mean(v, axis=(0, 1, 2))
    var = jnp.var(v, axis=(0, 1, 2))
    return (v - m) * jax.lax.rsqrt(var + 1e-5) * g + b

  def loss(ps):
    v = x
    for i, (cin, _, stride) in enumerate(TRAIN_BLOCKS):
      dw, pw, g1, b1, g2, b2 = ps[6 * i:6 * i + 6]
      v = jax.nn.relu6(bn(conv(v, dw, stride, cin), g1, b1))
      v = jax.nn.relu6(bn(conv(v, pw, 1, 1), g2, b2))
    logits = jnp.mean(v, axis=(1, 2))
    return jnp.mean(jax.nn.logsumexp(logits, axis=-1) - jnp.sum(logits * y, axis=-1))

  value, grads = jax.value_and_grad(loss)(list(params))
  return value, [p - 0.01 * g for p, g in zip(params, grads)]


def mobilenet_train_args():
  s = jax.ShapeDtypeStruct
  f = jnp.float32
  args = [s((8, 56, 56, 32), f), s((8, 256), f)]
  for cin, cout, _ in TRAIN_BLOCKS:
    args += [s((3, 3, 1, cin), f), s((1, 1, cin, cout), f), s((cin,), f), s((cin,), f), s((cout,), f),
             s((cout,), f)]
  return args


MODELS = [
    ("jax_gpt2_block_f32", gpt2_block, gpt2_args()),
    ("jax_gpt2_block_bf16", gpt2_block, gpt2_args(dtype=jnp.bfloat16)),
    ("jax_mlp_sgd_step_f32", mlp_train_step, mlp_args()),
    ("jax_cnn_nhwc_f32", cnn, cnn_args()),
    ("jax_mobilenet_bf16", mobilenet, mobilenet_args()),
    ("jax_mobilenet_train_f32", mobilenet_train_step, mobilenet_train_args()),
]


def main():
  os.makedirs(OUT, exist_ok=True)
  only = set(sys.argv[1:])  # names to regenerate (default: all)
  for name, fn, args in MODELS:
    if only and name not in only:
      continue
    text = jax.jit(fn).lower(*args).as_text("hlo")
    path = os.path.join(OUT, name + ".hlo")
    with open(path, "w", encoding="utf-8") as fh:
      fh.write("// Generated by bench/gen_jax_models.py with jax %s: %s\n" % (
          jax.__version__, (fn.__doc__ or name).strip().splitlines()[0]))
      fh.write(text)
    print("wrote %s (%d bytes)" % (os.path.relpath(path), len(text)))


if __name__ == "__main__":
  main()
