"""Tests of the hlo Python module: parse/print/verify with located errors,
passes, and execution with NumPy arrays (run by ctest as python/pytest)."""
import os

import numpy as np
import pytest

import hlo

ADD = """
HloModule add
ENTRY %add (x: f32[2,3], y: f32[2,3]) -> f32[2,3] {
  %x = f32[2,3] parameter(0)
  %y = f32[2,3] parameter(1)
  ROOT %sum = f32[2,3] add(%x, %y)
}
"""

TESTDATA = os.environ.get("HLO_TESTDATA", os.path.join(os.path.dirname(__file__), "..", "..", "testdata"))


def test_parse_print_round_trip():
    m = hlo.parse(ADD)
    text = hlo.print_module(m)
    assert "ROOT %sum = f32[2,3]{1,0} add(%x, %y)" in text
    assert str(m) == text
    assert hlo.print_module(hlo.parse(text)) == text
    assert m.name == "add"
    assert m.entry_name == "add"
    assert m.num_parameters() == 2
    assert m.instruction_count() == 3


def test_parse_error_carries_location():
    bad = "HloModule m\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] constant(1\n}\n"
    with pytest.raises(hlo.HloError) as info:
        hlo.parse(bad, filename="bad.hlo")
    err = info.value
    assert isinstance(err, ValueError)
    assert err.file == "bad.hlo"
    assert (err.line, err.col) == (4, 1)  # the '}' where ')' was expected
    assert "expects ')'" in err.message
    assert "bad.hlo:4:1: error:" in str(err)


def test_verify_error_is_located():
    text = ADD.replace("  ROOT %sum", "  %bad = f32[3,2] add(%x, %y)\n  ROOT %sum")
    m = hlo.parse(text, verify=False)
    with pytest.raises(hlo.HloError) as info:
        hlo.verify(m)
    assert info.value.line == 6  # the %bad line
    assert "bad" in info.value.diagnostics
    with pytest.raises(hlo.HloError):
        hlo.parse(text)  # parse verifies by default


def test_parse_file(tmp_path):
    p = tmp_path / "add.hlo"
    p.write_text(ADD)
    m = hlo.parse_file(str(p))
    assert m.name == "add"
    with pytest.raises(ValueError):
        hlo.parse_file(str(tmp_path / "missing.hlo"))


def test_run_adds_numpy_arrays():
    m = hlo.parse(ADD)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.full((2, 3), 10, dtype=np.float32)
    out = hlo.run(m, x, y)
    assert isinstance(out, np.ndarray)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, x + y)


def test_run_converts_same_kind_and_checks_arguments():
    m = hlo.parse(ADD)
    x = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]  # float64 lists: same kind, converted
    np.testing.assert_array_equal(hlo.run(m, x, x), np.array(x, dtype=np.float32) * 2)
    with pytest.raises(TypeError):
        hlo.run(m, x)  # one argument missing
    with pytest.raises(ValueError):
        hlo.run(m, np.zeros((3, 2), np.float32), np.zeros((2, 3), np.float32))
    with pytest.raises(TypeError):
        hlo.run(m, np.zeros((2, 3), np.complex64), np.zeros((2, 3), np.float32))


def test_run_transposed_input_and_tuple_result():
    m = hlo.parse("""
HloModule pair
ENTRY %pair (a: s32[2,2]) -> (s32[2,2], pred[2,2]) {
  %a = s32[2,2] parameter(0)
  %t = s32[2,2] transpose(%a), dimensions={1,0}
  %c = pred[2,2] compare(%a, %t), direction=GT
  ROOT %r = (s32[2,2], pred[2,2]) tuple(%t, %c)
}
""")
    a = np.array([[1, 5], [3, 4]], dtype=np.int32)
    t, c = hlo.run(m, a.T.T[:, :], threads=1)
    np.testing.assert_array_equal(t, a.T)
    np.testing.assert_array_equal(c, a > a.T)
    assert c.dtype == np.bool_
    # A non-contiguous view is accepted (copied to row-major).
    t2, _ = hlo.run(m, a.T)
    np.testing.assert_array_equal(t2, a)


def test_arguments_are_read_in_place_and_never_changed():
    """Row-major arguments of the parameter's dtype are not copied in
    (Literal::View); a run never writes into them, even where it updates a
    dying value in place, and a result never aliases an argument."""
    m = hlo.parse("""
HloModule in_place
ENTRY %e (x: f32[4], u: f32[1]) -> (f32[4], f32[4]) {
  %x = f32[4] parameter(0)
  %u = f32[1] parameter(1)
  %i = s32[] constant(1)
  %d = f32[4] dynamic-update-slice(%x, %u, %i)
  %n = f32[4] negate(%x)
  ROOT %r = (f32[4], f32[4]) tuple(%d, %x)
}
""")
    x = np.array([1, 2, 3, 4], np.float32)
    u = np.array([9], np.float32)
    d, same = hlo.run(m, x, u)
    np.testing.assert_array_equal(d, [1, 9, 3, 4])
    np.testing.assert_array_equal(x, [1, 2, 3, 4])
    np.testing.assert_array_equal(same, x)
    same[0] = 5
    assert x[0] == 1


def test_results_are_arrays_over_the_result_buffers():
    """No copy on the way out: each result array views its literal's buffer
    (kept alive by the array's base); other layouts are relaid once."""
    m = hlo.parse("""
HloModule views
ENTRY %v (x: f32[2,3]) -> (f32[2,3], f32[2,3], s32[]) {
  %x = f32[2,3] parameter(0)
  %n = f32[2,3] negate(%x)
  %t = f32[2,3]{0,1} copy(%n)
  %c = s32[] constant(7)
  ROOT %r = (f32[2,3], f32[2,3]{0,1}, s32[]) tuple(%n, %t, %c)
}
""")
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    neg, col, seven = hlo.run(m, xv)
    for a in (neg, col):
        assert not a.flags.owndata and a.base is not None
        assert a.flags.c_contiguous and a.flags.writeable
        np.testing.assert_array_equal(a, -xv)
    assert seven == 7 and seven.dtype == np.int32
    del m
    neg[0, 0] = 42.0  # the buffer is the array's own to change
    np.testing.assert_array_equal(neg.ravel(), [42, -1, -2, -3, -4, -5])


def test_run_bf16_comes_back_as_float32_without_ml_dtypes():
    m = hlo.parse("""
HloModule half
ENTRY %half (x: f32[3]) -> bf16[3] {
  %x = f32[3] parameter(0)
  ROOT %c = bf16[3] convert(%x)
}
""")
    out = hlo.run(m, np.array([1.0, 2.5, -3.0], dtype=np.float32))
    try:
        import ml_dtypes  # noqa: F401
        assert out.dtype.name == "bfloat16"
    except ImportError:
        assert out.dtype == np.float32
    np.testing.assert_array_equal(out.astype(np.float32), [1.0, 2.5, -3.0])


def test_run_replicas_returns_one_result_per_device():
    m = hlo.parse("""
HloModule ids, replica_count=2
ENTRY %ids () -> u32[] {
  ROOT %r = u32[] replica-id()
}
""")
    out = hlo.run(m, replicas=2)
    assert [int(v) for v in out] == [0, 1]


def test_passes_registry_and_run_passes():
    names = dict(hlo.list_passes())
    assert "cse" in names and "dce" in names
    m = hlo.parse("""
HloModule dup
ENTRY %dup (x: f32[4]) -> f32[4] {
  %x = f32[4] parameter(0)
  %a = f32[4] negate(%x)
  %b = f32[4] negate(%x)
  %unused = f32[4] exponential(%x)
  ROOT %s = f32[4] add(%a, %b)
}
""")
    before = m.instruction_count()
    assert hlo.run_passes(m, ["cse", "dce"], verify_each=True) is True
    assert m.instruction_count() == before - 2
    hlo.verify(m)
    x = np.array([1, 2, 3, 4], dtype=np.float32)
    np.testing.assert_array_equal(hlo.run(m, x), -2 * x)
    with pytest.raises(hlo.HloError):
        hlo.run_passes(m, ["no-such-pass"])


def test_default_pipeline():
    m = hlo.parse(ADD)
    hlo.run_passes(m, "O")
    hlo.verify(m)
    with pytest.raises(ValueError):
        hlo.run_passes(m, "O3")


def test_builder_golden_file_runs():
    path = os.path.join(TESTDATA, "builder", "broadcasting", "broadcast_matrix_vector.hlo")
    m = hlo.parse_file(path)
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
    v = np.array([7, 8, 9], dtype=np.float32)
    np.testing.assert_array_equal(hlo.run(m, x, v), x + v)  # NumPy broadcasts the same way


def test_parameters_numpy_dtype_and_scalar_arguments():
    m = hlo.parse("""
HloModule s
ENTRY %e (a: f32[], b: bf16[2], t: (s32[], u8[3])) -> f32[] {
  %a = f32[] parameter(0)
  %b = bf16[2] parameter(1)
  %t = (s32[], u8[3]) parameter(2)
  ROOT %r = f32[] add(%a, %a)
}
""")
    params = m.parameters
    assert [p["name"] for p in params] == ["a", "b", "t"]
    assert params[0] == {"name": "a", "shape": "f32[]", "dtype": "f32", "dims": ()}
    assert params[1]["dims"] == (2,) and params[1]["dtype"] == "bf16"
    assert params[2]["dtype"] == "tuple" and params[2]["shape"] == "(s32[], u8[3])"
    assert hlo.numpy_dtype("f32") == np.float32 and hlo.numpy_dtype("pred") == np.bool_
    assert hlo.numpy_dtype("s4") == np.int8
    with pytest.raises(ValueError, match="not an element type"):
        hlo.numpy_dtype("f33")
    # A 0-d argument stays 0-d (np.save of a scalar loads back as one).
    scalar = hlo.parse("HloModule s\nENTRY %e (a: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n"
                       "  ROOT %r = f32[] add(%a, %a)\n}\n")
    assert hlo.run(scalar, np.float32(1.5)) == np.float32(3)
    assert hlo.run(scalar, 2.0).shape == ()
