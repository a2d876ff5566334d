#!/usr/bin/env python3
"""XLA's own protos against XLA's own text (xla-peer label, docs/protos.md).

jax (the peer environment) lowers a handful of real programs and writes,
for each, XLA's HloModuleProto and XLA's text of the same module, both
before XLA's passes (the lowered module) and after them (the compiled,
scheduled module with fusions). Then for every pair:

  * the module fields HLO text has no form for (a partitioned module's
    spmd_output_sharding, spmd_parameters_shardings, device_assignment)
    are dropped with a warning naming each;
  * `hlo-opt --format=proto X.pb` must print the module our parser makes
    of XLA's text `X.hlo` (computations compared as a set: the order of
    independent computations is the writer's; header options that live in
    XLA's HloModuleConfig and not in the proto are dropped from the text:
    replica_count, num_partitions, allow_spmd_sharding_propagation_*);
  * `hlo-run --random-inputs` must print the same values for both.

And the other way round: `hlo-opt X.hlo --emit=proto` (our proto of XLA's
text) must be a module XLA loads (HloModule.from_serialized_hlo_module_proto)
and prints as it prints its own proto, modulo the order of independent
computations and, with it, the numbering of the stack-frame tables (XLA
renumbers them in the order it meets the instructions).

Exit 0 when every pair agrees, 1 otherwise (the differences are printed).
Run by testdata/xla_peer/run_peer_test.sh with the peer environment's
python.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

# Module options of XLA's HloModuleConfig: in its text, not in its proto.
CONFIG_OPTIONS = re.compile(
    r", (replica_count|num_partitions)=\d+"
    r"|, allow_spmd_sharding_propagation_to_(parameters|output)=\{[^}]*\}")


def programs():
    """name -> (jitted function, example arguments)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    f32 = jnp.float32

    def mlp_softmax(x, w1, w2):
        return jax.nn.softmax(jnp.tanh(x @ w1) @ w2)

    def while_loop(x):
        return lax.fori_loop(0, 5, lambda i, v: v * 1.5 + i, x)

    def conv(x, k):
        return lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def argmax_tuple_reduce(x):
        idx = lax.broadcasted_iota(jnp.int32, x.shape, 1)

        def red(a, b):
            take = a[0] >= b[0]
            return jnp.where(take, a[0], b[0]), jnp.where(take, a[1], b[1])
        return lax.reduce((x, idx), (-jnp.inf, 0), red, (1,))

    def cholesky_solve(a, b):  # LAPACK custom calls after XLA's passes
        spd = a @ a.T + 4 * jnp.eye(a.shape[0], dtype=a.dtype)
        return jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(spd), b)

    def scatter_sort(x, i):
        return jnp.sort(x.at[i].add(1.0))

    s = jax.ShapeDtypeStruct
    out = {
        "mlp_softmax": (jax.jit(mlp_softmax), (s((4, 8), f32), s((8, 16), f32), s((16, 4), f32))),
        "while_loop": (jax.jit(while_loop), (s((3,), f32),)),
        "conv": (jax.jit(conv), (s((1, 6, 6, 3), f32), s((3, 3, 3, 4), f32))),
        "argmax_tuple_reduce": (jax.jit(argmax_tuple_reduce), (s((4, 7), f32),)),
        "cholesky_solve": (jax.jit(cholesky_solve), (s((4, 4), f32), s((4, 2), f32))),
        "scatter_sort": (jax.jit(scatter_sort), (s((8,), f32), s((3,), jnp.int32))),
    }
    if len(jax.devices()) >= 2:
        mesh = Mesh(np.array(jax.devices()[:2]), ("x",))
        rows = NamedSharding(mesh, P("x", None))
        out["spmd_matmul"] = (
            jax.jit(lambda a, b: jnp.sin(a) @ b, in_shardings=(rows, NamedSharding(mesh, P())), out_shardings=rows),
            (s((4, 8), f32), s((8, 2), f32)))
        # A sum over the sharded axis: an all-reduce after XLA's partitioner.
        out["spmd_sum"] = (
            jax.jit(lambda a: jnp.sum(jnp.sin(a), axis=0), in_shardings=rows, out_shardings=NamedSharding(mesh, P())),
            (s((4, 8), f32),))
    return out


def write_modules(directory):
    """Writes NAME[_opt].pb and NAME[_opt].hlo; returns the base paths."""
    bases = []
    for name, (fn, args) in programs().items():
        lowered = fn.lower(*args)
        before = lowered.compiler_ir("hlo").as_hlo_module()
        after = lowered.compile().runtime_executable().hlo_modules()[0]
        for suffix, module in (("", before), ("_opt", after)):
            base = os.path.join(directory, name + suffix)
            with open(base + ".pb", "wb") as f:
                f.write(module.as_serialized_hlo_module_proto())
            with open(base + ".hlo", "w") as f:
                f.write(module.to_string())
            bases.append(base)
    return bases


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def canonical(text):
    """(header without config options, the rest as a sorted list of blocks)."""
    header, _, rest = text.partition("\n")
    blocks = [b.strip("\n") for b in rest.split("\n\n") if b.strip()]
    return CONFIG_OPTIONS.sub("", header), sorted(blocks)


STACK_FRAME_IDS = re.compile(r" stack_frame_id=\d+")
TABLES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")


def without_frame_numbers(text):
    """canonical() without the stack-frame tables and the ids into them."""
    header, blocks = canonical(STACK_FRAME_IDS.sub("", text))
    return header, [b for b in blocks if not b.startswith(TABLES)]


def xla_reads_ours(base, hlo_opt):
    """Problems of XLA loading our proto of XLA's text (empty: it agrees)."""
    import jax
    import jax.numpy as jnp
    module_type = type(jax.jit(lambda x: x).lower(jnp.zeros(1)).compiler_ir("hlo").as_hlo_module())
    rc, _, err = run([hlo_opt, base + ".hlo", "--emit=proto", "-o", base + ".ours.pb"])
    if rc:
        return ["hlo-opt --emit=proto failed: " + err.strip()]
    try:
        with open(base + ".ours.pb", "rb") as f:
            ours = module_type.from_serialized_hlo_module_proto(f.read()).to_string()
    except Exception as e:  # XLA's error, e.g. a failed RET_CHECK
        return ["XLA refuses our proto: " + str(e).splitlines()[0][:300]]
    with open(base + ".pb", "rb") as f:
        theirs = module_type.from_serialized_hlo_module_proto(f.read()).to_string()
    (ho, bo), (ht, bt) = without_frame_numbers(ours), without_frame_numbers(theirs)
    if ho != ht:
        return ["XLA prints our proto's header differently:\n  ours:   %s\n  theirs: %s" % (ho, ht)]
    if bo != bt:
        only_o = [b for b in bo if b not in bt]
        only_t = [b for b in bt if b not in bo]
        detail = first_difference(only_o[0], only_t[0]) if only_o and only_t else "  different computations"
        return ["XLA prints our proto differently:\n" + detail]
    return []


def first_difference(a, b):
    for x, y in zip(a.splitlines(), b.splitlines()):
        if x != y:
            return "  proto: %s\n  text:  %s" % (x, y)
    return "  (one is a prefix of the other)"


def compare(base, hlo_opt, hlo_run):
    """(problems, notes): the pair agrees when there are no problems."""
    problems, notes = [], []
    rc_p, from_proto, err_p = run([hlo_opt, "--format=proto", base + ".pb"])
    rc_t, from_text, err_t = run([hlo_opt, base + ".hlo"])
    if rc_p or rc_t:
        return ["hlo-opt failed: proto rc=%d %s text rc=%d %s" % (rc_p, err_p.strip(), rc_t, err_t.strip())], notes
    # What HLO text has no form for is dropped with a warning naming the
    # field: the partitioned modules' SPMD shardings and device assignment.
    dropped = re.findall(r"warning: .*?the module's (\w+)", err_p)
    if dropped:
        notes.append("dropped with a warning: " + ", ".join(dropped))
    if base.endswith("_opt") and "_spmd" in from_text.partition("\n")[2] and "spmd_output_sharding" not in dropped:
        problems.append("no warning for the partitioned module's spmd_output_sharding")
    (hp, bp), (ht, bt) = canonical(from_proto), canonical(from_text)
    if hp != ht:
        problems.append("header differs:\n  proto: %s\n  text:  %s" % (hp, ht))
    if bp != bt:
        only_p = [b for b in bp if b not in bt]
        only_t = [b for b in bt if b not in bp]
        detail = first_difference(only_p[0], only_t[0]) if only_p and only_t else "  different computations"
        problems.append("module differs (%d blocks only from the proto, %d only from the text):\n%s"
                        % (len(only_p), len(only_t), detail))
    with open(base + ".hlo") as f:
        m = re.search(r"num_partitions=(\d+)", f.readline())
    flags = ["--random-inputs"] + (["--partitions=" + m.group(1)] if m else [])
    rc_p, out_p, err_p = run([hlo_run] + flags + ["--format=proto", base + ".pb"])
    rc_t, out_t, err_t = run([hlo_run] + flags + [base + ".hlo"])
    # The same refusal from both (the lowered sharded module's Shardy custom
    # calls, which only XLA's partitioner removes) is agreement.
    same_refusal = rc_p and rc_t and err_p.replace(base + ".pb", "X") == err_t.replace(base + ".hlo", "X")
    if same_refusal:
        notes.append("hlo-run refuses both alike: %s" % err_t.strip().splitlines()[0][:160])
    elif rc_p or rc_t:
        problems.append("hlo-run failed: proto rc=%d %s text rc=%d %s" % (rc_p, err_p.strip()[-300:], rc_t,
                                                                          err_t.strip()[-300:]))
    elif out_p != out_t:
        problems.append("hlo-run values differ:\n" + first_difference(out_p, out_t))
    return problems, notes


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", help="(passed by run_peer_test.sh; this script already runs in it)")
    ap.add_argument("--hlo-opt", required=True)
    ap.add_argument("--hlo-run", required=True)
    ap.add_argument("--keep", help="write the modules into this directory and keep them")
    args = ap.parse_args()
    # Two host devices for the sharded program; set before jax starts.
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2").strip()
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.keep or tmp
        os.makedirs(directory, exist_ok=True)
        bases = write_modules(directory)
        failed = 0
        for base in bases:
            problems, notes = compare(base, args.hlo_opt, args.hlo_run)
            problems += xla_reads_ours(base, args.hlo_opt)
            print("%-28s %s" % (os.path.basename(base), "agree" if not problems else "DIFFER"))
            for p in notes + problems:
                print("  " + p.replace("\n", "\n  "))
            failed += bool(problems)
        print("%d of %d XLA-written modules agree" % (len(bases) - failed, len(bases)))
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
