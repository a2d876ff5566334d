"""The builder in Python: NumPy-style operators with the seeds' broadcasting,
hlo.ops calls, traced computations, errors (run by ctest as python/pytest)."""
import numpy as np
import pytest

import hlo
from hlo import ops


def f32(*shape):
    return np.arange(np.prod(shape, dtype=int), dtype=np.float32).reshape(shape) - 2


def test_operators_match_numpy():
    b = hlo.Builder("arith")
    x = b.parameter(0, "f32[2,3]", name="x")
    y = b.parameter(1, np.float32, (2, 3), name="y")
    out = (x + y, x - 2.0, 3 * x, x / (abs(y) + 1), -x, x ** 2, 1.5 - x)
    m = b.build(out)
    hlo.verify(m)
    xs, ys = f32(2, 3), f32(2, 3)[::-1].copy()
    got = hlo.run(m, xs, ys)
    want = (xs + ys, xs - 2, 3 * xs, xs / (np.abs(ys) + 1), -xs, xs ** 2, 1.5 - xs)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_comparisons_and_bitwise():
    b = hlo.Builder("cmp")
    x = b.parameter(0, "s32[5]", name="x")
    m = b.build((x < 1, x >= 0, x == 2, x != 2, (x & 6) | 1, x ^ 3, ~x, x << 1, x >> 1))
    xs = np.array([-3, 0, 1, 2, 7], np.int32)
    got = hlo.run(m, xs)
    want = (xs < 1, xs >= 0, xs == 2, xs != 2, (xs & 6) | 1, xs ^ 3, ~xs, xs << 1, xs >> 1)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert got[0].dtype == np.bool_


def test_unsigned_shift_is_logical_and_python_ints_fit():
    b = hlo.Builder("u8")
    x = b.parameter(0, "u8[3]")
    m = b.build((x >> 1) + 200)
    np.testing.assert_array_equal(hlo.run(m, np.array([255, 4, 1], np.uint8)), np.array([127 + 200 - 256, 202, 200]))
    b = hlo.Builder("u8")
    x = b.parameter(0, "u8[3]")
    with pytest.raises(TypeError, match="does not fit in u8"):
        x + 300


def test_degenerate_and_scalar_broadcasting():
    # The seeds' rules: (2,1) with (1,3) is an outer operation; a scalar
    # broadcasts; a (3,) array needs broadcast_dimensions or an explicit
    # size-1 dimension (None indexing), unlike NumPy.
    b = hlo.Builder("bcast")
    col = b.parameter(0, "f32[2,1]")
    row = b.parameter(1, "f32[1,3]")
    vec = b.parameter(2, "f32[3]")
    m = b.build((col + row, col * row[0][None, :], ops.add(col * row, vec, broadcast_dimensions=[1]),
                 vec[None, :] - col))
    c, r, v = f32(2, 1), f32(1, 3), np.array([10, 20, 30], np.float32)
    got = hlo.run(m, c, r, v)
    for g, w in zip(got, (c + r, c * r, c * r + v, v - c)):
        np.testing.assert_array_equal(g, w)
    text = m.to_text()
    assert "broadcast(" in text and "reshape(" in text  # lowered explicitly


def test_rank_mismatch_is_the_builders_error():
    b = hlo.Builder("bad")
    x = b.parameter(0, "f32[2,3]")
    v = b.parameter(1, "f32[3]")
    with pytest.raises(hlo.HloError) as info:
        x + v
    assert "Add: operands of different ranks need broadcast_dimensions" in info.value.message
    assert "f32[2,3]" in info.value.message and "f32[3]" in info.value.message
    assert b.first_error is not None
    with pytest.raises(hlo.HloError, match="Add: operands of different ranks"):
        b.build()  # the first error is kept, as XLA's builder does


def test_shape_rule_error_names_the_call():
    b = hlo.Builder("bad")
    x = b.parameter(0, "f32[2,3]")
    with pytest.raises(hlo.HloError, match="Transpose:"):
        ops.transpose(x, [0, 0])
    b = hlo.Builder("bad2")
    x = b.parameter(0, "f32[2,3]")
    with pytest.raises(hlo.HloError, match="Dot"):
        x @ x


def test_mixing_builders_is_an_error():
    b1, b2 = hlo.Builder("one"), hlo.Builder("two")
    x = b1.parameter(0, "f32[2]")
    y = b2.parameter(0, "f32[2]")
    with pytest.raises(hlo.HloError, match="belongs to builder 'two'"):
        x + y


def test_constant_conversion_errors():
    b = hlo.Builder("c")
    x = b.parameter(0, "s32[2]")
    with pytest.raises(TypeError, match="cannot convert float64 to s32"):
        x * 2.5
    with pytest.raises(TypeError, match="truth value"):
        bool(x > 0)


def test_matmul_and_batch_matmul():
    b = hlo.Builder("mm")
    a = b.parameter(0, "f32[2,3,4]")
    c = b.parameter(1, "f32[2,4,5]")
    v = b.parameter(2, "f32[4]")
    m = b.build((a @ c, a[0] @ v, v @ c[1]))
    av, cv, vv = f32(2, 3, 4), f32(2, 4, 5), f32(4)
    got = hlo.run(m, av, cv, vv)
    for g, w in zip(got, (av @ cv, av[0] @ vv, vv @ cv[1])):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_indexing_like_numpy():
    b = hlo.Builder("idx")
    x = b.parameter(0, "f32[4,5,6]")
    keys = [(1,), (slice(1, 3), -1), (Ellipsis, 2), (slice(None, None, -2), None, slice(4, 0, -1)),
            (None, 0, slice(2, 5, 2), Ellipsis), (slice(3, 1),)]
    outs = tuple(x[k] for k in keys)
    m = b.build(outs)
    xs = f32(4, 5, 6)
    for g, k in zip(hlo.run(m, xs), keys):
        np.testing.assert_array_equal(g, xs[k])
    with pytest.raises(IndexError):
        x[4]
    with pytest.raises(IndexError):
        x[0, 0, 0, 0]


def test_methods_reshape_transpose_reductions_astype():
    b = hlo.Builder("meth")
    x = b.parameter(0, "f32[2,3,4]")
    assert x.shape == (2, 3, 4) and x.ndim == 3 and x.dtype == "f32"
    outs = (x.reshape(6, -1), x.transpose(2, 0, 1), x.T, x.sum(), x.sum(axis=(0, 2)), x.max(axis=-1),
            x.min(axis=0), x.prod(axis=1), x.astype(np.int32))
    m = b.build(outs)
    xs = f32(2, 3, 4)
    want = (xs.reshape(6, -1), xs.transpose(2, 0, 1), xs.T, xs.sum(), xs.sum(axis=(0, 2)), xs.max(axis=-1),
            xs.min(axis=0), xs.prod(axis=1), xs.astype(np.int32))
    for g, w in zip(hlo.run(m, xs), want):
        np.testing.assert_allclose(g, w, rtol=1e-6)
        assert g.dtype == w.dtype


def test_numpy_array_operands_become_constants():
    b = hlo.Builder("npconst")
    x = b.parameter(0, "f32[2,2]")
    w = np.array([[1, 2], [3, 4]], np.float64)
    m = b.build((x + w, w @ x, np.float32(2) * x))
    xs = f32(2, 2)
    for g, want in zip(hlo.run(m, xs), (xs + w, w @ xs, 2 * xs)):
        np.testing.assert_allclose(g, want)
        assert g.dtype == np.float32


def test_reduce_with_function_and_named_reducer():
    b = hlo.Builder("red")
    x = b.parameter(0, "f32[3,4]")
    i = b.parameter(1, "s32[3,4]")
    total = ops.reduce(x, 0.0, "add", [1])
    sq = ops.reduce(x, 0.0, lambda acc, v: acc + v * v, [0])
    # Variadic argmax over dimension 1: (value, index) pairs.
    def argmax(av, ai, bv, bi):
        take_a = av >= bv
        return ops.select(take_a, av, bv), ops.select(take_a, ai, bi)
    best = ops.reduce([x, i], [-np.inf, 0], argmax, [1])
    m = b.build((total, sq, ops.get_tuple_element(best, 1)))
    xs = np.array([[1, 5, 2, 0], [7, 1, 1, 9], [3, 3, 8, 2]], np.float32)
    idx = np.tile(np.arange(4, dtype=np.int32), (3, 1))
    got = hlo.run(m, xs, idx)
    np.testing.assert_allclose(got[0], xs.sum(1))
    np.testing.assert_allclose(got[1], (xs * xs).sum(0))
    np.testing.assert_array_equal(got[2], xs.argmax(1))
    assert "to_apply=%add" in m.to_text()


def test_sort_map_while_conditional_call():
    b = hlo.Builder("ctl")
    x = b.parameter(0, "f32[5]")
    srt = ops.sort(x)
    desc = ops.sort([x], lambda l, r: l > r)
    sq = ops.map([x], lambda v: v * v + 1)
    # while i < 5: (i + 1, acc * 2)
    n = b.constant(np.int32(0))
    loop = ops.while_loop(lambda s: ops.get_tuple_element(s, 0) < 5,
                          lambda s: (ops.get_tuple_element(s, 0) + 1, ops.get_tuple_element(s, 1) * 2.0),
                          ops.tuple([n, x]))
    cond = ops.conditional(x[0] > 0, x, lambda v: v + 1.0, x, lambda v: v - 1.0)
    called = ops.call(lambda p, q: p * q, x, x)
    m = b.build((srt, desc, sq, ops.get_tuple_element(loop, 1), cond, called))
    xs = np.array([3, -1, 4, 1, -5], np.float32)
    got = hlo.run(m, xs)
    want = (np.sort(xs), np.sort(xs)[::-1], xs * xs + 1, xs * 32, xs + 1 if xs[0] > 0 else xs - 1, xs * xs)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w)


def test_sub_builder_computation_and_shape_ops():
    b = hlo.Builder("sub")
    mx = b.sub_builder("maximum")
    p, q = mx.parameter(0, "f32[]"), mx.parameter(1, "f32[]")
    ops.max(p, q)
    comp = mx.build()
    assert isinstance(comp, hlo.Computation) and comp.name == "maximum"
    x = b.parameter(0, "f32[4,4]")
    pooled = ops.reduce_window(x, -np.inf, comp, [2, 2], [2, 2])
    padded = ops.pad(x[0], 0.0, [(1, 2, 1)])
    cat = ops.concat([x[0], x[1]], 0)
    dyn = ops.dynamic_slice(x, [1, 2], [2, 2])
    upd = ops.dynamic_update_slice(x, np.zeros((1, 2), np.float32), [3, 0])
    bid = ops.broadcast_in_dim(x[0], [2, 4], [1])
    m = b.build((pooled, padded, cat, dyn, upd, bid, ops.broadcast(x[0, 0], [3])))
    xs = f32(4, 4)
    got = hlo.run(m, xs)
    want_pad = np.zeros(10, np.float32)
    want_pad[1:8:2] = xs[0]
    want_upd = xs.copy()
    want_upd[3, 0:2] = 0
    want = (xs.reshape(2, 2, 2, 2).max(axis=(1, 3)), want_pad, np.concatenate([xs[0], xs[1]]), xs[1:3, 2:4],
            want_upd, np.broadcast_to(xs[0], (2, 4)), np.full(3, xs[0, 0]))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_conv_matches_a_direct_sum():
    b = hlo.Builder("conv")
    img = b.parameter(0, "f32[1,1,5,5]")
    k = b.parameter(1, "f32[1,1,3,3]")
    m = b.build((ops.conv(img, k, [1, 1], "VALID"), ops.conv(img, k, [2, 2], "SAME")))
    iv, kv = f32(1, 1, 5, 5), f32(1, 1, 3, 3) / 10
    valid, same = hlo.run(m, iv, kv)
    want = np.array([[(iv[0, 0, i:i + 3, j:j + 3] * kv[0, 0]).sum() for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(valid[0, 0], want, rtol=1e-5)
    assert same.shape == (1, 1, 3, 3)
    np.testing.assert_allclose(same[0, 0, 1, 1], want[1, 1], rtol=1e-5)  # the centred window


def test_built_module_round_trips_and_runs_passes():
    b = hlo.Builder("rt")
    x = b.parameter(0, "f32[3]")
    y = (x + 0.0) * 1.0 + x
    m = b.build(y)
    text = m.to_text()
    assert hlo.parse(text).to_text() == text
    hlo.run_passes(m, "O")
    hlo.verify(m)
    np.testing.assert_allclose(hlo.run(m, np.ones(3, np.float32)), np.full(3, 2, np.float32))


def test_rng_and_iota():
    b = hlo.Builder("rng")
    u = ops.rng_uniform(b.constant(np.float32(0)), 1.0, [100])
    io = b.iota(np.int32, [2, 3], 1)
    m = b.build((u, io))
    us, ios = hlo.run(m)
    assert us.shape == (100,) and (us >= 0).all() and (us < 1).all()
    np.testing.assert_array_equal(ios, np.tile(np.arange(3, dtype=np.int32), (2, 1)))


def test_collectives_on_replicas():
    b = hlo.Builder("coll")
    rows = b.parameter(0, "f32[2,2]")
    rid = ops.replica_id(b)
    mine = ops.dynamic_slice(rows, [rid.astype(np.int32), 0], [1, 2]).reshape(2)
    m = b.build((ops.all_reduce(mine), ops.all_gather(mine, 0, 2), ops.reduce_scatter(mine, 0, 2, "max"),
                 ops.collective_permute(mine, [(0, 1), (1, 0)]), ops.all_to_all(mine[None, :], 1, 0, 2)))
    x = np.array([[1, 2.5], [3, 5.25]], np.float32)
    dev0, dev1 = hlo.run(m, x, replicas=2)
    for got, want in zip(dev0, (x.sum(0), x.reshape(4), [3], x[1], [[1], [3]])):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(dev1[2], [5.25])  # replica 1 keeps shard 1 of the max
    np.testing.assert_array_equal(dev1[3], x[0])
    assert "replica-id()" in m.to_text()


def test_linalg_topk_fft_and_sizes():
    b = hlo.Builder("linalg")
    a = b.parameter(0, "f32[3,3]")
    rhs = b.parameter(1, "f32[3,2]")
    low = ops.cholesky(a)
    y = ops.triangular_solve(low, rhs)                          # l y = rhs
    x = ops.triangular_solve(low, y, transpose_a="TRANSPOSE")   # l^T x = y: a x = rhs
    vals, idx = ops.get_tuple_element(ops.top_k(rhs.T, 1), 0), ops.get_tuple_element(ops.top_k(rhs.T, 1), 1)
    spec = ops.fft(rhs.T, "RFFT", [3])
    m = b.build((x, vals, idx, spec, ops.get_dimension_size(a, 1)))
    av = np.array([[4, 2, 0], [2, 5, 1], [0, 1, 3]], np.float32)
    rv = np.array([[1, 2], [3, 0], [2, 5]], np.float32)
    got = hlo.run(m, av, rv)
    np.testing.assert_allclose(got[0], np.linalg.solve(av, rv), rtol=1e-5)
    np.testing.assert_array_equal(got[1], rv.T.max(1, keepdims=True))
    np.testing.assert_array_equal(got[2], rv.T.argmax(1)[:, None])
    np.testing.assert_allclose(got[3], np.fft.rfft(rv.T, axis=-1), atol=1e-5)
    assert got[4] == 3
    with pytest.raises(ValueError, match="fft_type must be one of FFT, IFFT, RFFT, IRFFT"):
        ops.fft(rhs, "DCT", [2])


def test_batch_norm_infeed_outfeed_custom_call_and_bits():
    b = hlo.Builder("misc")
    x = b.parameter(0, "f32[4,2]")
    y, mean, var = (ops.get_tuple_element(ops.batch_norm_training(x, np.ones(2), np.zeros(2), 1e-3, 1), i)
                    for i in range(3))
    fed = ops.infeed(b, "f32[2]")
    ops.outfeed(fed * 2.0)
    ident = ops.custom_call(b, "Sharding", [fed], "f32[2]")
    state = b.constant(np.array([1, 2], np.uint64))
    bits = ops.get_tuple_element(ops.rng_bit_generator(state, (np.uint32, [3]), "rng_three_fry"), 1)
    m = b.build((y, mean, var, ident, bits))
    xv = np.array([[1, 0], [2, 0], [3, 4], [6, 8]], np.float32)
    with pytest.raises(hlo.HloError, match="infeed"):
        hlo.run(m, xv)  # nothing fed
    yv, mv, vv, iv, bv = hlo.run(m, xv, infeed=[np.array([7, 8], np.float32)])
    np.testing.assert_allclose(mv, xv.mean(0), rtol=1e-6)
    np.testing.assert_allclose(vv, xv.var(0), rtol=1e-6)
    np.testing.assert_allclose(yv, (xv - xv.mean(0)) / np.sqrt(xv.var(0) + 1e-3), rtol=1e-5)
    np.testing.assert_array_equal(iv, [7, 8])
    assert bv.dtype == np.uint32 and bv.shape == (3,)
    np.testing.assert_array_equal(bv, hlo.run(m, xv, infeed=[np.zeros(2, np.float32)])[4])  # a function of the state
    text = m.to_text()
    assert "batch-norm-training" in text and 'custom_call_target="Sharding"' in text
    assert "rng-bit-generator" in text and "outfeed(" in text



def test_gather_scatter_select_and_scatter():
    b = hlo.Builder("gs")
    x = b.parameter(0, "f32[3,3]")
    rows = ops.gather(x, np.array([[2], [0]]), offset_dims=[1], collapsed_slice_dims=[0], start_index_map=[0],
                      index_vector_dim=1, slice_sizes=[1, 3])
    added = ops.scatter(x, [[0], [2]], np.ones((2, 3)), "add", update_window_dims=[1], inserted_window_dims=[0],
                        scatter_dims_to_operand_dims=[0], index_vector_dim=1)
    v = b.parameter(1, "f32[6]")
    # The document's SelectAndScatter shape: the max of each window of 2
    # receives the source value.
    sas = ops.select_and_scatter(v, lambda a, c: a >= c, [2], [2], "VALID", np.array([10, 20, 30], np.float32),
                                 0.0, "add")
    m = b.build((rows, added, sas))
    xv = np.arange(9, dtype=np.float32).reshape(3, 3)
    vv = np.array([1, 9, 3, 7, 5, 6], np.float32)
    got = hlo.run(m, xv, vv)
    np.testing.assert_array_equal(got[0], xv[[2, 0]])
    want = xv.copy()
    want[[0, 2]] += 1
    np.testing.assert_array_equal(got[1], want)
    np.testing.assert_array_equal(got[2], [0, 10, 0, 20, 0, 30])
    with pytest.raises(TypeError):
        ops.gather(x, [[0]], [1], [0], [0], 1, [1, 3])  # the dimension numbers are keywords


def test_computed_indices_are_dynamic_slices():
    b = hlo.Builder("dyn")
    x = b.parameter(0, "f32[4,3]")
    i = b.parameter(1, "s32[]")
    j = b.parameter(2, "u32[]")
    m = b.build((x[i], x[i, j], x[:, j], x[-1, j]))
    xv = np.arange(12, dtype=np.float32).reshape(4, 3)
    got = hlo.run(m, xv, np.int32(2), np.uint32(1))
    for g, w in zip(got, (xv[2], xv[2, 1], xv[:, 1], xv[-1, 1])):
        np.testing.assert_array_equal(g, w)
    assert "dynamic-slice(" in m.to_text()
    # dynamic-slice clamps a start that would run past the end.
    np.testing.assert_array_equal(hlo.run(m, xv, np.int32(9), np.uint32(0))[0], xv[3])
    b = hlo.Builder("dyn_bad")
    x = b.parameter(0, "f32[4,3]")
    with pytest.raises(IndexError, match="must be ints or ':'"):
        x[b.parameter(1, "s32[]"), 1:2]
