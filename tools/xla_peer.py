#!/usr/bin/env python3
"""Differential and speed comparison of hlo-run against XLA:CPU (jaxlib).

For every HLO module given (files, or directories searched for *.hlo; files
with `// -----` separators are split into their modules), this runs

  * hlo-run (the default -O pipeline, and with --no-opt), with deterministic
    random inputs that it saves with --save-inputs, and
  * XLA:CPU through jaxlib on exactly those inputs: XLA's own parser reads
    the text, XLA's converter turns it into StableHLO, the CPU client
    compiles and executes it (modules with N replicas x partitions run on N
    host devices),

compares every output leaf (integers and pred exactly; floats as XLA's
run_hlo_module does: an element mismatches only when it exceeds both the
absolute and the relative bound, 1e-3 each by default; NaN and infinity
positions must match) and times both runners (median of --runs executions
after --warmup, each side timing only execution; XLA's compile time is
reported separately).

Output: one row per module as a text table on stdout, and optionally as
markdown (--markdown) and JSON (--json). With --expect FILE the exit status
is 1 if any disagreement is not listed in FILE (see
testdata/xla_peer/expected.tsv), so a regression against XLA fails a test.

Set up the peer environment first with scripts/peer-setup.sh; run this file
with that environment's python (scripts/xla-peer.sh does both).
"""

import argparse
import fnmatch
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Status of one module on one side, from best to worst.
AGREE = "agree"
MISMATCH = "mismatch"          # both ran, values differ
OURS_FAILED = "ours-failed"    # XLA ran it, hlo-run did not
XLA_REFUSED = "xla-refused"    # hlo-run ran it, XLA did not (not our failure)
NEITHER = "neither-runs"       # both refuse (e.g. an intentionally bad module)
SKIPPED = "skipped"            # not compared (see the reason)

DISAGREEMENTS = (MISMATCH, OURS_FAILED)

# Ops whose values depend on the runner by design or that need a host on the
# other side; such modules are not executed by the peer (the reason is shown).
HOST_TRANSFER_OPS = re.compile(r"\b(infeed|outfeed|send|recv|send-done|recv-done)\(")
# `rng` draws from a generator the spec leaves to the implementation.
RNG_OP = re.compile(r"\brng\(")


# ---------------------------------------------------------------------------
# Module discovery


def split_modules(text):
  """Splits a file at `// -----` lines (hlo-opt --split-input-file)."""
  parts, current = [], []
  for line in text.splitlines(keepends=True):
    if line.strip() == "// -----":
      parts.append("".join(current))
      current = []
    else:
      current.append(line)
  parts.append("".join(current))
  return [p for p in parts if re.search(r"^\s*(HloModule|ENTRY)\b", p, re.M)]


def collect(paths, exclude):
  """(display name, text) of every module under `paths`."""
  files = []
  for p in paths:
    if os.path.isdir(p):
      for d, _, names in os.walk(p):
        for n in names:
          if n.endswith(".hlo"):
            files.append(os.path.join(d, n))
    elif os.path.exists(p):
      files.append(p)
    else:
      raise SystemExit("xla_peer: error: no such file or directory: %s" % p)
  out = []
  for f in sorted(set(files)):
    name = display_name(f)
    if any(fnmatch.fnmatch(name, e) for e in exclude):
      continue
    with open(f, encoding="utf-8", errors="replace") as fh:
      text = fh.read()
    modules = split_modules(text)
    for i, m in enumerate(modules):
      out.append((name if len(modules) == 1 else "%s#%d" % (name, i), m))
  return out


def display_name(path):
  """A path relative to the checkout, or shared/... for the corpus."""
  a = os.path.abspath(path)
  shared = os.path.abspath(os.path.join(ROOT, "..", "shared"))
  if a.startswith(shared + os.sep):
    return "shared/" + os.path.relpath(a, shared)
  if a.startswith(ROOT + os.sep):
    return os.path.relpath(a, ROOT)
  return path


def header_int(text, key):
  m = re.search(r"^\s*HloModule\b[^\n]*\b%s=(\d+)" % key, text, re.M)
  return int(m.group(1)) if m else None


def load_device_overrides(path):
  """Rows `glob<TAB>replicas<TAB>partitions<TAB>why` (# comments)."""
  rows = []
  if not path:
    return rows
  with open(path, encoding="utf-8") as fh:
    for line in fh:
      if not line.strip() or line.lstrip().startswith("#"):
        continue
      parts = line.rstrip("\n").split("\t")
      if len(parts) < 3 or not parts[1].isdigit() or not parts[2].isdigit():
        raise SystemExit("xla_peer: error: %s: expected glob<TAB>replicas<TAB>partitions<TAB>why:"
                         " %r" % (path, line))
      rows.append((parts[0], int(parts[1]), int(parts[2])))
  return rows


def device_counts(text):
  """(replicas, partitions) to run a module with, the same for both runners:
  the module header's counts, else the --replicas/--partitions of a lit
  test's hlo-run RUN line, else enough replicas for every device id that
  the collectives name (XLA's runner would run such a module on one
  device, where the groups are out of range)."""
  replicas, partitions = header_int(text, "replica_count"), header_int(text, "num_partitions")
  # Only RUN lines where hlo-run is expected to succeed: a `not %hlo_run`
  # line may name a device count under which the module fails on purpose
  # (e.g. a deliberate deadlock that only --collective-timeout ends).
  for line in re.findall(r"^//\s*RUN:(?!\s*not\b).*%hlo_run.*$", text, re.M):
    r = re.search(r"--replicas[=\s](\d+)", line)
    p = re.search(r"--partitions[=\s](\d+)", line)
    if r and replicas is None:
      replicas = int(r.group(1))
    if p and partitions is None:
      partitions = int(p.group(1))
    if r or p:
      break
  if replicas is None and partitions is None:
    ids = [int(i) for g in re.findall(r"(?:replica_groups|source_target_pairs)=\{([\d{},\s]*)\}",
                                      text) for i in re.findall(r"\d+", g)]
    iota = re.findall(r"replica_groups=\[(\d+),(\d+)\]", text)
    need = max(ids + [int(a) * int(b) - 1 for a, b in iota] + [0]) + 1
    replicas = need
  return replicas or 1, partitions or 1


# ---------------------------------------------------------------------------
# hlo-run


def run_ours(hlo_run, module_path, work, tag, seed, threads, cpus, runs, warmup, no_opt,
             timeout, save_inputs, devices=(1, 1)):
  """Runs hlo-run; returns dict(status, message, outputs dir, median ms)."""
  out_dir = os.path.join(work, "ours-" + tag)
  cmd = ["taskset", "-c", cpus, hlo_run, module_path, "--random-inputs=%d" % seed,
         "--output-dir=" + out_dir, "--threads=%d" % threads,
         "--replicas=%d" % devices[0], "--partitions=%d" % devices[1]]
  if runs >= 1:  # the median note needs at least 2 runs
    cmd += ["--iterations=%d" % max(runs, 2), "--warmup=%d" % warmup]
  if no_opt:
    cmd.append("--no-opt")
  if save_inputs:
    cmd.append("--save-inputs=" + os.path.join(work, "inputs"))
  t0 = time.perf_counter()
  try:
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                       stdin=subprocess.DEVNULL)
  except subprocess.TimeoutExpired:
    return {"ok": False, "message": "hlo-run timed out after %d s" % timeout}
  wall = time.perf_counter() - t0
  err = p.stderr.decode("utf-8", "replace")
  if p.returncode != 0:
    lines = [l for l in err.splitlines() if "error" in l] or err.splitlines() or ["exit %d" % p.returncode]
    return {"ok": False, "message": lines[0].strip()[:300]}
  m = re.search(r"median ([0-9.e+-]+) s per run", err)
  return {"ok": True, "dir": out_dir, "ms": float(m.group(1)) * 1e3 if m else None,
          "wall": wall}


def timed_runs(runs, one_run_seconds, budget):
  """How many timed runs fit the per-module time budget (at least 2, for a
  median, at most `runs`)."""
  return max(2, min(runs, int(budget / max(one_run_seconds, 1e-6))))


# ---------------------------------------------------------------------------
# XLA side: a worker process that imports jax once and serves requests (one
# JSON line each) so that jax's start-up is paid once per configuration.


class Worker:
  def __init__(self, python, devices, cpus, timeout):
    self.python, self.devices, self.cpus, self.timeout = python, devices, cpus, timeout
    self.proc = None

  def start(self):
    env = dict(os.environ)
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") +
                        " --xla_force_host_platform_device_count=%d" % self.devices).strip()
    env["JAX_PLATFORMS"] = "cpu"
    env["JAX_ENABLE_X64"] = "1"  # 64-bit inputs stay 64-bit
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    self.proc = subprocess.Popen(
        ["taskset", "-c", self.cpus, self.python, os.path.abspath(__file__), "--worker"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
        start_new_session=True)

  def stop(self):
    if self.proc and self.proc.poll() is None:
      try:
        os.killpg(self.proc.pid, signal.SIGKILL)
      except OSError:
        pass
      self.proc.wait()
    self.proc = None

  def request(self, req):
    if self.proc is None or self.proc.poll() is not None:
      self.start()
    try:
      self.proc.stdin.write((json.dumps(req) + "\n").encode())
      self.proc.stdin.flush()
    except OSError:
      self.stop()
      return {"status": "crash", "message": "the XLA worker died before the request"}
    import select
    ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
    if not ready:
      self.stop()
      return {"status": "timeout", "message": "XLA did not finish within %d s" % self.timeout}
    line = self.proc.stdout.readline()
    if not line:
      code = self.proc.poll()
      self.stop()
      return {"status": "crash", "message": "XLA's process died (exit %s)" % code}
    return json.loads(line)


def worker_main():
  """Serves requests on stdin; see run_xla for the fields."""
  import numpy as np  # noqa: F401  (imported before jax on purpose)
  import jax
  from jax._src import xla_bridge
  from jax._src.lib import xla_client as xc
  backend = xla_bridge.get_backend("cpu")
  # jaxlib's LAPACK custom-call targets (lapack_?potrf_ffi, ...) call through
  # function pointers that JAX fills in lazily when it first lowers a linalg
  # op; modules that name the targets directly need them filled first.
  try:
    from jaxlib import lapack
    lapack._lapack.initialize()
  except (ImportError, AttributeError):
    pass
  for line in sys.stdin:
    req = json.loads(line)
    try:
      resp = xla_execute(req, jax, backend, xc)
    except Exception as e:  # every failure is a row, never a crash of the worker
      resp = {"status": "refused", "stage": "run", "message": short(str(e))}
    sys.stdout.write(json.dumps(resp) + "\n")
    sys.stdout.flush()


def short(msg):
  msg = " ".join(msg.split())
  return msg[:400]


TUPLE_PARAMS = ("tuple-shaped parameters: jaxlib's PJRT client takes arrays only, so XLA "
                "cannot be fed them here")


def numpy_dtype(name):
  import numpy as np
  import ml_dtypes
  table = {
      "pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
      "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
      "f16": np.float16, "f32": np.float32, "f64": np.float64,
      "c64": np.complex64, "c128": np.complex128, "bf16": ml_dtypes.bfloat16,
      "s4": ml_dtypes.int4, "u4": ml_dtypes.uint4,
  }
  for opt, attr in (("s2", "int2"), ("u2", "uint2"), ("f8e5m2", "float8_e5m2"),
                    ("f8e4m3fn", "float8_e4m3fn"), ("f8e4m3b11fnuz", "float8_e4m3b11fnuz"),
                    ("f8e5m2fnuz", "float8_e5m2fnuz"), ("f8e4m3fnuz", "float8_e4m3fnuz"),
                    ("f8e4m3", "float8_e4m3"), ("f8e3m4", "float8_e3m4"),
                    ("f4e2m1fn", "float4_e2m1fn"), ("f8e8m0fnu", "float8_e8m0fnu")):
    if hasattr(ml_dtypes, attr):
      table[opt] = getattr(ml_dtypes, attr)
  if name not in table:
    raise ValueError("element type %s has no NumPy type here" % name)
  return table[name]


def xla_execute(req, jax, backend, xc):
  import numpy as np
  from jax.sharding import Mesh, NamedSharding, PartitionSpec
  with open(req["module"], encoding="utf-8") as fh:
    text = fh.read()
  stage = "parse"
  try:
    module = xc.hlo.hlo_module_from_text(text)
    stage = "convert"
    mlir = xc._xla.mlir.hlo_to_stablehlo(module.as_serialized_hlo_module_proto())
  except Exception as e:
    return {"status": "refused", "stage": stage, "message": short(str(e))}
  replicas, partitions = req["replicas"], req["partitions"]
  ndev = replicas * partitions
  devices = jax.devices()[:ndev]
  if len(devices) < ndev:
    return {"status": "refused", "stage": "compile",
            "message": "needs %d devices, the worker has %d" % (ndev, len(devices))}
  opts = xc.CompileOptions()
  opts.num_replicas = replicas
  opts.num_partitions = partitions
  # XLA:CPU runs several partitions only through its SPMD partitioner; on a
  # module that is already one device's program (no sharding annotations)
  # the partitioner changes nothing.
  opts.executable_build_options.use_spmd_partitioning = partitions > 1
  if ndev > 1:
    opts.device_assignment = xc.DeviceAssignment.create(
        np.arange(ndev).reshape(replicas, partitions))
  t0 = time.perf_counter()
  try:
    exe = backend.compile_and_load(mlir, xc._xla.DeviceList(tuple(devices)), opts)
  except Exception as e:
    return {"status": "refused", "stage": "compile", "message": short(str(e))}
  compile_ms = (time.perf_counter() - t0) * 1e3

  host_args = []
  if req["inputs"] is None:
    # hlo-run made no inputs (it refused the module): zeros of XLA's own
    # parameter shapes, enough to learn whether XLA runs it at all.
    shapes = xc.XlaComputation(module.as_serialized_hlo_module_proto()).program_shape()
    for s in shapes.parameter_shapes():
      if s.is_tuple():
        return {"status": "unfed", "message": TUPLE_PARAMS}
      host_args.append(np.zeros(s.dimensions(), dtype=s.numpy_dtype()))
  else:
    with open(os.path.join(req["inputs"], "inputs.json")) as fh:
      leaves = json.load(fh)["leaves"]
    if any(l["tuple_index"] for l in leaves):
      return {"status": "unfed", "message": TUPLE_PARAMS}
    for l in leaves:
      if l["file"] is None:
        return {"status": "refused", "stage": "run", "message": "token parameters are not fed"}
      a = np.load(os.path.join(req["inputs"], l["file"]))
      host_args.append(a.astype(numpy_dtype(l["element_type"])))
  sharding = NamedSharding(Mesh(np.array(devices), ("d",)), PartitionSpec()) if ndev > 1 else None

  def put():
    if sharding is None:
      return [jax.device_put(a, devices[0]) for a in host_args]
    return [jax.device_put(a, sharding) for a in host_args]

  def run(args):
    if sharding is None:
      outs = exe.execute(args)
      for o in outs:
        o.block_until_ready()
      return outs
    res = exe.execute_sharded(args)
    per_output = res.disassemble_into_single_device_arrays()
    for devs in per_output:
      for o in devs:
        o.block_until_ready()
    return [devs[0] for devs in per_output]  # device 0 (replica 0, partition 0)

  donates = bool(req.get("donates"))
  args = put()
  t0 = time.perf_counter()
  outs = run(args)
  first = time.perf_counter() - t0
  results = [np.asarray(o) for o in outs]
  times = []
  budget = req.get("budget", 1e9)
  # A run slower than the budget is timed once more (the first run served
  # as its warm-up); faster ones as often as the budget allows.
  runs = req["runs"] and (1 if first > budget else
                          max(2, min(req["runs"], int(budget / max(first, 1e-6)))))
  warmup = req["warmup"] if first < req.get("budget", 1e9) else 0
  for i in range(warmup + runs):
    if donates:
      args = put()
    t0 = time.perf_counter()
    run(args)
    if i >= warmup:
      times.append((time.perf_counter() - t0) * 1e3)
  os.makedirs(req["outputs"], exist_ok=True)
  builtin = {np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
                                    np.uint16, np.uint32, np.uint64, np.float16, np.float32,
                                    np.float64, np.complex64, np.complex128)}
  for i, r in enumerate(results):
    if r.dtype not in builtin:  # ml_dtypes types, widened as hlo-run widens them
      name = r.dtype.name
      r = r.astype(np.uint8 if name.startswith("uint") else
                   np.int8 if name.startswith("int") else np.float32)
    np.save(os.path.join(req["outputs"], "%d.npy" % i), np.asarray(r))
  return {"status": "ok", "compile_ms": compile_ms, "times_ms": times, "outputs": len(results)}


# ---------------------------------------------------------------------------
# Comparison


def widen(a):
  import numpy as np
  if a.dtype.kind == "f" or a.dtype.kind == "c":
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
  if a.dtype.kind not in "biu":  # ml_dtypes floats
    return a.astype(np.float64)
  return a


def compare_leaf(ours, xla, abs_bound, rel_bound):
  """None if the arrays agree, else a description of the first mismatch."""
  import numpy as np
  if ours.shape != xla.shape:
    return "shape %s (ours) vs %s (XLA)" % (list(ours.shape), list(xla.shape))
  if (ours.dtype.kind in "iu" and xla.dtype.kind in "iu" and ours.dtype != xla.dtype and
      ours.dtype.itemsize == xla.dtype.itemsize):
    # XLA's StableHLO path hands some signed results back as unsigned arrays
    # of the same width (e.g. rng-bit-generator's s16): compare the bits in
    # the module's type, which hlo-run's array carries.
    xla = xla.view(ours.dtype)
  a, b = widen(ours), widen(xla)
  if a.dtype.kind in "biu" and b.dtype.kind in "biu":
    bad = a.astype(np.int64 if a.dtype != np.uint64 else np.uint64) != b.astype(
        np.int64 if b.dtype != np.uint64 else np.uint64)
  else:
    if a.dtype.kind not in "fc" or b.dtype.kind not in "fc":
      a, b = a.astype(np.float64), b.astype(np.float64)
    parts = [(a.real, b.real), (a.imag, b.imag)] if np.iscomplexobj(a) or np.iscomplexobj(b) else [(a, b)]
    bad = np.zeros(a.shape, dtype=bool)
    with np.errstate(invalid="ignore", over="ignore"):
      for x, y in parts:
        x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
        nan_x, nan_y = np.isnan(x), np.isnan(y)
        inf_x, inf_y = np.isinf(x), np.isinf(y)
        diff = np.abs(x - y)
        close = (diff <= abs_bound) | (diff <= rel_bound * np.abs(y))
        finite = ~(nan_x | nan_y | inf_x | inf_y)
        bad |= (nan_x != nan_y)
        bad |= (inf_x | inf_y) & ~(nan_x | nan_y) & (x != y)
        bad |= finite & ~close
  if not bad.any():
    return None
  idx = tuple(int(i) for i in np.argwhere(bad)[0])
  return "index %s: ours %r, XLA %r (%d of %d elements differ)" % (
      list(idx), ours[idx].item() if ours.ndim else ours.item(),
      xla[idx].item() if xla.ndim else xla.item(), int(bad.sum()), bad.size)


def compare_dirs(ours_dir, xla_dir, n_xla, abs_bound, rel_bound):
  import numpy as np
  ours_files = sorted((f for f in os.listdir(ours_dir) if f.endswith(".npy")),
                      key=lambda f: int(f[:-4]))
  if len(ours_files) != n_xla:
    return "ours has %d output leaves, XLA %d" % (len(ours_files), n_xla)
  for i, f in enumerate(ours_files):
    ours = np.load(os.path.join(ours_dir, f))
    xla = np.load(os.path.join(xla_dir, "%d.npy" % i))
    problem = compare_leaf(ours, xla, abs_bound, rel_bound)
    if problem:
      return "leaf %d: %s" % (i, problem)
  return None


# ---------------------------------------------------------------------------
# Driver


def load_expectations(path):
  """Rows `pattern<TAB>status<TAB>reason` (# comments)."""
  rows = []
  if not path:
    return rows
  with open(path, encoding="utf-8") as fh:
    for line in fh:
      line = line.rstrip("\n")
      if not line.strip() or line.lstrip().startswith("#"):
        continue
      parts = line.split("\t")
      if len(parts) < 3:
        raise SystemExit("xla_peer: error: %s: expected pattern<TAB>status<TAB>reason: %r" %
                         (path, line))
      rows.append({"pattern": parts[0], "status": parts[1], "reason": parts[2], "used": False})
  return rows


def expected_for(rows, name, status):
  for r in rows:
    if fnmatch.fnmatch(name, r["pattern"]) and r["status"] == status:
      r["used"] = True
      return r
  return None


def materialize(hlo_opt, text, path):
  """Writes the module for both runners: elided {...} constants get the
  values hlo-run gives them (XLA would fill in different ones)."""
  if "{...}" not in text:
    with open(path, "w", encoding="utf-8") as fh:
      fh.write(text)
    return None
  p = subprocess.run([hlo_opt, "--no-verify", "--passes=materialize-elided-constants", "-", "-o",
                      path], input=text.encode(), stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE)
  if p.returncode != 0:
    with open(path, "w", encoding="utf-8") as fh:
      fh.write(text)
    return p.stderr.decode("utf-8", "replace").strip().splitlines()[0][:300]
  return None


SHAPE = re.compile(r"\b(pred|[su](?:2|4|8|16|32|64)|f(?:16|32|64)|bf16|c64|c128|f8\w*|f4\w*)"
                   r"\[([0-9,<=]*)\]")
ELEMENT_BYTES = {"pred": 1, "c64": 8, "c128": 16, "f16": 2, "bf16": 2, "f32": 4, "f64": 8}


def largest_value_bytes(text):
  """Bytes of the largest array shape written in the module."""
  largest = 0
  for ty, dims in SHAPE.findall(text):
    n = 1
    for d in dims.replace("<=", "").split(","):
      if d:
        n *= int(d)
    bits = re.search(r"\d+", ty)
    size = ELEMENT_BYTES.get(ty, max(1, int(bits.group(0)) // 8) if bits and ty[0] in "su" else 1)
    largest = max(largest, n * size)
  return largest


def skip_reason(text, devices, max_devices, max_bytes):
  if HOST_TRANSFER_OPS.search(text):
    return "host transfers (infeed/outfeed/send/recv): the comparison feeds no host"
  need = largest_value_bytes(text) * max(devices, 1)
  if need > max_bytes:
    return "its largest value on %d device(s) needs %.1f GiB, over --max-bytes (%.1f GiB)" % (
        devices, need / 2**30, max_bytes / 2**30)
  if devices > max_devices:
    return "%d devices exceed --max-devices=%d" % (devices, max_devices)
  return None


def compare_module(args, name, text, work, workers):
  """One row: dict with status per mode, timings and messages."""
  replicas, partitions = device_counts(text)
  for glob, r, p in args.device_overrides:
    if fnmatch.fnmatch(name, glob):
      replicas, partitions = r, p
      break
  row = {"module": name, "devices": replicas * partitions}
  reason = skip_reason(text, row["devices"], args.max_devices, args.max_bytes)
  if reason:
    row.update(status=SKIPPED, message=reason)
    return row
  module_path = os.path.join(work, "module.hlo")
  note = materialize(args.hlo_opt, text, module_path)
  modes = [("opt", False)] + ([("no-opt", True)] if args.no_opt else [])
  row["modes"] = {}
  for t_i, threads in enumerate(args.threads):
    cpus = ",".join(str(c) for c in args.cpu_list[:threads])
    results = {}
    for tag, no_opt in modes:
      # A first run for the values; timed runs after it (their count fits
      # --time-budget: slow modules get fewer).
      results[tag] = run_ours(args.hlo_run, module_path, work, "%s-%d" % (tag, threads),
                              args.seed, threads, cpus, 0, 0, no_opt,
                              args.timeout, save_inputs=(t_i == 0 and tag == "opt"),
                              devices=(replicas, partitions))
      if args.runs > 0 and results[tag]["ok"]:
        wall = results[tag]["wall"]
        timed = run_ours(args.hlo_run, module_path, work, "time-%s-%d" % (tag, threads),
                         args.seed, threads, cpus, timed_runs(args.runs, wall, args.time_budget),
                         args.warmup if wall < args.time_budget else 0, no_opt, args.timeout,
                         save_inputs=False, devices=(replicas, partitions))
        if timed["ok"]:
          results[tag]["ms"] = timed["ms"]
    inputs = os.path.join(work, "inputs")
    if t_i == 0 and not results["opt"]["ok"] and any(r["ok"] for r in results.values()):
      # Inputs are saved by the -O run; the --no-opt run saves them instead.
      run_ours(args.hlo_run, module_path, work, "inputs", args.seed, threads, cpus, 0, 0, True,
               args.timeout, save_inputs=True, devices=(replicas, partitions))
    worker = workers.get(threads, max(row["devices"], 1))
    xla = worker.request({
        "module": module_path,
        "inputs": inputs if os.path.exists(os.path.join(inputs, "inputs.json")) else None,
        "outputs": os.path.join(work, "xla-%d" % threads), "runs": args.runs,
        "warmup": args.warmup, "budget": args.time_budget, "replicas": replicas,
        "partitions": partitions,
        "donates": "input_output_alias" in text})
    for tag, _ in modes:
      ours = results[tag]
      if xla["status"] == "unfed":
        status, msg = SKIPPED, xla["message"]
      elif xla["status"] == "ok" and ours["ok"]:
        problem = compare_dirs(ours["dir"], os.path.join(work, "xla-%d" % threads),
                               xla["outputs"], args.abs_error_bound, args.rel_error_bound)
        status, msg = (MISMATCH, problem) if problem else (AGREE, "")
      elif xla["status"] == "ok":
        status, msg = OURS_FAILED, ours["message"]
      elif ours["ok"]:
        status, msg = XLA_REFUSED, "XLA %s: %s" % (xla.get("stage", xla["status"]),
                                                   xla["message"])
      else:
        status, msg = NEITHER, "ours: %s" % ours["message"]
      m = row["modes"].setdefault(tag, {"status": status, "message": msg})
      if status in DISAGREEMENTS and m["status"] not in DISAGREEMENTS:
        m.update(status=status, message="%s (threads=%d)" % (msg, threads))
      if ours["ok"] and ours.get("ms") is not None:
        m["ours_ms_%d" % threads] = ours["ms"]
    if xla["status"] == "ok":
      times = sorted(xla["times_ms"])
      if times:
        row["xla_ms_%d" % threads] = times[len(times) // 2] if len(times) % 2 else (
            times[len(times) // 2 - 1] + times[len(times) // 2]) / 2
      row["compile_ms"] = xla["compile_ms"]
  if note:
    row["note"] = note
  worst = [m["status"] for m in row["modes"].values()]
  order = [MISMATCH, OURS_FAILED, XLA_REFUSED, NEITHER, SKIPPED, AGREE]
  row["status"] = min(worst, key=order.index)
  row["message"] = next(m["message"] for m in row["modes"].values() if m["status"] == row["status"])
  return row


class Workers:
  def __init__(self, args):
    self.args, self.pool = args, {}

  def get(self, threads, devices):
    devices = max(8, devices)
    key = (threads, devices)
    if key not in self.pool:
      cpus = ",".join(str(c) for c in self.args.cpu_list[:threads])
      self.pool[key] = Worker(self.args.python, devices, cpus, self.args.timeout)
    return self.pool[key]

  def stop(self):
    for w in self.pool.values():
      w.stop()


def fmt_ms(v):
  if v is None:
    return "-"
  return "%.3g" % v if v < 100 else "%.0f" % v


def ratio(xla_ms, ours_ms):
  if not xla_ms or not ours_ms:
    return "-"
  return "%.2f" % (xla_ms / ours_ms)


def table_rows(rows, args):
  head = ["module", "dev", "-O", "--no-opt" if args.no_opt else None]
  for t in args.threads:
    head += ["XLA ms (%dt)" % t, "ours ms (%dt)" % t, "XLA/ours (%dt)" % t]
  head += ["XLA compile ms", "detail"]
  head = [h for h in head if h is not None]
  out = [head]
  for r in rows:
    modes = r.get("modes", {})
    line = [r["module"], str(r["devices"]), modes.get("opt", {}).get("status", r["status"])]
    if args.no_opt:
      line.append(modes.get("no-opt", {}).get("status", r["status"]))
    for t in args.threads:
      ours = modes.get("opt", {}).get("ours_ms_%d" % t)
      line += [fmt_ms(r.get("xla_ms_%d" % t)), fmt_ms(ours), ratio(r.get("xla_ms_%d" % t), ours)]
    detail = r.get("message", "")
    if r.get("expected"):
      detail = "expected: %s" % r["expected"]
    line += [fmt_ms(r.get("compile_ms")), detail]
    out.append(line)
  return out


def print_text(rows, args, fh):
  table = table_rows(rows, args)
  widths = [min(max(len(r[i]) for r in table), 60) for i in range(len(table[0]) - 1)]
  for r in table:
    cells = [c.ljust(w) for c, w in zip(r[:-1], widths)] + [r[-1]]
    fh.write("  ".join(cells).rstrip() + "\n")


BEGIN_MARK = "<!-- xla_peer.py table: begin -->"
END_MARK = "<!-- xla_peer.py table: end -->"


def markdown_table(rows, args, summary):
  table = table_rows(rows, args)
  out = [summary, "", "| " + " | ".join(table[0]) + " |", "|" + "---|" * len(table[0])]
  for r in table[1:]:
    out.append("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
  return "\n".join(out) + "\n"


def write_markdown(path, body):
  """Replaces the text between the table markers of `path`, or writes the
  whole file when it has none (or does not exist)."""
  text = None
  if os.path.exists(path):
    with open(path, encoding="utf-8") as fh:
      old = fh.read()
    b, e = old.find(BEGIN_MARK), old.find(END_MARK)
    if 0 <= b < e:
      text = old[:b + len(BEGIN_MARK)] + "\n" + body + old[e:]
  if text is None:
    text = body
  with open(path + ".tmp", "w", encoding="utf-8") as fh:
    fh.write(text)
  os.replace(path + ".tmp", path)


def machine_line():
  model = "unknown CPU"
  try:
    with open("/proc/cpuinfo") as fh:
      for line in fh:
        if line.startswith("model name"):
          model = line.split(":", 1)[1].strip()
          break
  except OSError:
    pass
  return "%s, %d cores" % (model, os.cpu_count() or 0)


def main():
  if len(sys.argv) > 1 and sys.argv[1] == "--worker":
    worker_main()
    return 0
  ap = argparse.ArgumentParser(
      description=__doc__.split("\n\n")[0],
      epilog="Example: scripts/xla-peer.sh --suite --markdown docs/xla-comparison-table.md")
  ap.add_argument("paths", nargs="*", help="HLO files or directories")
  ap.add_argument("--suite", action="store_true",
                  help="the standard set: ../shared/corpus/{models,parser/valid,passtests}, "
                       "testdata/{parse,passes,run,cli,examples} and bench/hlo")
  ap.add_argument("--exclude", action="append", default=[],
                  help="glob of module names to leave out (repeatable)")
  ap.add_argument("--hlo-run", default=os.path.join(ROOT, "build", "tools", "hlo-run"))
  ap.add_argument("--hlo-opt", default=os.path.join(ROOT, "build", "tools", "hlo-opt"))
  ap.add_argument("--python", default=sys.executable,
                  help="python of the peer environment (default: this one)")
  ap.add_argument("--threads", default="1",
                  help="comma-separated thread counts (each side pinned to that many cores)")
  ap.add_argument("--runs", type=int, default=5, help="timed runs per side (median)")
  ap.add_argument("--warmup", type=int, default=1, help="untimed runs first")
  ap.add_argument("--time-budget", type=float, default=5.0,
                  help="seconds of timed runs per module and side; slower modules get fewer "
                       "runs (at least 2)")
  ap.add_argument("--seed", type=int, default=1, help="seed of the random inputs")
  ap.add_argument("--no-opt", action="store_true", help="also compare hlo-run --no-opt")
  ap.add_argument("--abs-error-bound", type=float, default=1e-3)
  ap.add_argument("--rel-error-bound", type=float, default=1e-3)
  ap.add_argument("--timeout", type=int, default=300, help="seconds per module and runner")
  ap.add_argument("--max-devices", type=int, default=16)
  ap.add_argument("--max-bytes", type=float, default=4 * 2**30,
                  help="skip modules whose largest value times the device count exceeds this")
  ap.add_argument("--expect", help="TSV of known disagreements (pattern, status, reason)")
  ap.add_argument("--devices", help="TSV of device counts for modules that imply them "
                  "(glob, replicas, partitions, why); default with --suite: "
                  "testdata/xla_peer/devices.tsv")
  ap.add_argument("--markdown", help="write the table as markdown to this file (between its "
                  "table markers, if it has them)")
  ap.add_argument("--models-markdown",
                  help="write the rows of models (paths with /models/) as markdown to this file")
  ap.add_argument("--json", help="write the rows as JSON to this file")
  ap.add_argument("--keep", help="keep each module's inputs and both runners' outputs under "
                  "this directory (one folder per module) to look into a disagreement")
  ap.add_argument("--quiet", action="store_true", help="print only disagreements and the summary")
  args = ap.parse_args()

  for tool in (args.hlo_run, args.hlo_opt):
    if not os.access(tool, os.X_OK):
      ap.error("%s is not built (build it first, or give --hlo-run/--hlo-opt)" % tool)
  if not shutil.which("taskset"):
    ap.error("taskset (util-linux) is needed to pin both runners to the same cores")
  try:
    args.threads = [int(t) for t in args.threads.split(",")]
  except ValueError:
    ap.error("--threads takes comma-separated whole numbers")
  args.cpu_list = sorted(os.sched_getaffinity(0))
  if any(t < 1 or t > len(args.cpu_list) for t in args.threads):
    ap.error("--threads: this process may use %d cores" % len(args.cpu_list))
  paths = list(args.paths)
  if args.suite:
    shared = os.path.join(ROOT, "..", "shared", "corpus")
    paths += [os.path.join(shared, d) for d in ("models", "parser/valid", "passtests")
              if os.path.isdir(os.path.join(shared, d))]
    paths += [os.path.join(ROOT, "testdata", d) for d in ("parse", "passes", "run", "cli",
                                                           "examples")]
    paths += [os.path.join(ROOT, "bench", "hlo")]
  if not paths:
    ap.error("no modules given (files, directories or --suite)")
  if args.devices is None and args.suite:
    args.devices = os.path.join(ROOT, "testdata", "xla_peer", "devices.tsv")
  args.device_overrides = load_device_overrides(args.devices)
  expectations = load_expectations(args.expect)
  modules = collect(paths, args.exclude)

  rows = []
  workers = Workers(args)
  start = time.time()
  try:
    for name, text in modules:
      if args.keep:
        work = os.path.join(args.keep, re.sub(r"[^A-Za-z0-9_.#-]+", "_", name))
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
      else:
        work = tempfile.mkdtemp(prefix="xla-peer-")
      try:
        t0 = time.time()
        row = compare_module(args, name, text, work, workers)
      finally:
        if not args.keep:
          shutil.rmtree(work, ignore_errors=True)
      row["seconds"] = time.time() - t0
      if row["status"] in DISAGREEMENTS:
        e = expected_for(expectations, name, row["status"])
        if e:
          row["expected"] = e["reason"]
      rows.append(row)
      if not args.quiet or (row["status"] in DISAGREEMENTS and not row.get("expected")):
        sys.stdout.write("%-60s %s %s\n" % (name, row["status"], row.get("message", "")[:200]))
        sys.stdout.flush()
  finally:
    workers.stop()

  counts = {}
  for r in rows:
    counts[r["status"]] = counts.get(r["status"], 0) + 1
  unexplained = [r for r in rows if r["status"] in DISAGREEMENTS and not r.get("expected")]
  summary = ("XLA peer comparison, %s, jax %s, %s; threads %s; %d modules in %.0f s: %s; "
             "%d unexplained disagreements" % (
                 time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), peer_version(args.python),
                 machine_line(), ",".join(map(str, args.threads)), len(rows), time.time() - start,
                 ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items())), len(unexplained)))
  sys.stdout.write("\n")
  print_text(rows, args, sys.stdout)
  sys.stdout.write("\n" + summary + "\n")
  if args.markdown:
    write_markdown(args.markdown, markdown_table(rows, args, summary))
  if args.models_markdown:
    models = [r for r in rows if "/models/" in r["module"]]
    write_markdown(args.models_markdown, markdown_table(models, args, summary))
  if args.json:
    with open(args.json, "w", encoding="utf-8") as fh:
      json.dump({"summary": summary, "rows": rows}, fh, indent=1)
  for u in unexplained:
    sys.stdout.write("UNEXPLAINED %s: %s %s\n" % (u["module"], u["status"], u.get("message", "")))
  stale = [e for e in expectations if not e["used"]]
  for e in stale:
    sys.stdout.write("note: expectation not needed this run: %s %s\n" % (e["pattern"], e["status"]))
  # The plain closing line ctest-style runners read.
  agreeing = sum(1 for r in rows if r["status"] not in DISAGREEMENTS or r.get("expected"))
  sys.stdout.write("xla-peer: %d passed, %d failed\n" % (agreeing, len(unexplained)))
  return 1 if unexplained else 0


def peer_version(python):
  try:
    out = subprocess.run([python, "-c", "import jax; print(jax.__version__)"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
    return out.stdout.decode().strip() or "?"
  except (OSError, subprocess.TimeoutExpired):
    return "?"


if __name__ == "__main__":
  sys.exit(main())
