"""Runs the examples as a user would (python3 examples/X.py ...) so that
they keep working; one ctest per example (examples/<name>)."""
import csv
import glob
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.dirname(HERE)
TESTDATA = os.environ.get("HLO_TESTDATA", os.path.join(EXAMPLES, "..", "testdata"))


def run(script, *args):
    return subprocess.run([sys.executable, os.path.join(EXAMPLES, script), *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def mlp_softmax_reference(x, w1, b1, w2, b2):
    logits = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True), np.float32(logits.mean())


def test_run_dump(tmp_path):
    module = os.path.join(TESTDATA, "examples", "mlp_softmax.hlo")
    rng = np.random.default_rng(1)
    shapes = [(8, 16), (16, 32), (32,), (32, 4), (4,)]
    inputs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    (tmp_path / "in").mkdir()
    (tmp_path / "want").mkdir()
    for i, a in enumerate(inputs):
        np.save(tmp_path / "in" / f"{i}.npy", a)
    for i, a in enumerate(mlp_softmax_reference(*inputs)):
        np.save(tmp_path / "want" / f"{i}.npy", a)
    r = run("run_dump.py", module, tmp_path / "in", "--expected", tmp_path / "want")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 of 2 results match" in r.stdout
    assert "result 0: float32[8, 4]" in r.stdout
    # Optimized first, and from a list of files: the same results.
    files = [tmp_path / "in" / f"{i}.npy" for i in range(5)]
    r = run("run_dump.py", module, *files, "--expected", tmp_path / "want", "--passes", "O")
    assert r.returncode == 0, r.stdout + r.stderr
    # A wrong expectation is found and reported.
    np.save(tmp_path / "want" / "1.npy", np.float32(99))
    r = run("run_dump.py", module, tmp_path / "in", "--expected", tmp_path / "want")
    assert r.returncode == 1
    assert "result 1: float32[] " in r.stdout and "FAIL" in r.stdout and "1 of 2 results match" in r.stdout
    # Too few inputs: a usage error naming the counts.
    r = run("run_dump.py", module, files[0])
    assert r.returncode == 2 and "takes 5 parameters, got 1" in r.stderr


def test_sweep_passes(tmp_path):
    # The broadcasting goldens: small modules of array parameters.
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    for path in glob.glob(os.path.join(TESTDATA, "builder", "broadcasting", "broadcast_*.hlo")):
        shutil.copy(path, dumps)
    out = tmp_path / "sweep.csv"
    r = run("sweep_passes.py", dumps, "--pipeline", "cse,dce", "--pipeline", "O", "--run", "--repeat", "1",
            "--csv", out)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = list(csv.DictReader(open(out)))
    n = len(list(dumps.glob("*.hlo")))
    assert len(rows) == 2 * n
    for row in rows:
        # cse and dce only remove instructions; -O's fusion adds fused
        # computations (a fusion and its body count separately).
        if row["pipeline"] != "O":
            assert int(row["after"]) <= int(row["before"])
        assert row["agree"] == "True" and float(row["run_after_ms"]) > 0
    assert f"{n} files x 2 pipelines" in r.stdout
    # broadcast_scalar.hlo: -O folds the constant broadcast away.
    o = next(row for row in rows if row["file"] == "broadcast_scalar.hlo" and row["pipeline"] == "O")
    assert int(o["after"]) < int(o["before"])
    # A file that does not parse is a failed row; the others still count.
    (dumps / "broken.hlo").write_text("HloModule broken\nENTRY %e { ROOT %x = f32[] nope() }\n")
    r = run("sweep_passes.py", dumps, "--pipeline", "dce")
    assert r.returncode == 1
    assert "broken.hlo" in r.stdout and "parse:" in r.stdout and "1 failed" in r.stdout
    r = run("sweep_passes.py", dumps, "--pipeline", "no-such-pass")
    assert r.returncode == 2 and "unknown pass(es) no-such-pass" in r.stderr


def test_mlp_gradient():
    r = run("mlp_gradient.py", "--steps", "3", "--batch", "8", "--hidden", "16")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "step 2: loss" in r.stdout and "max relative difference to NumPy" in r.stdout
    losses = [float(line.split()[3]) for line in r.stdout.splitlines() if line.startswith("step")]
    assert len(losses) == 3 and losses[2] < losses[0]
