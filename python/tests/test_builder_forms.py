"""The builder forms beyond the defaults: convolutions with dimension
numbers, conditional by branch index, tokens threaded through
send/recv/infeed/outfeed. Each built module is also checked by hlo-opt
(run by ctest as python/pytest, which sets HLO_OPT)."""
import os
import subprocess

import numpy as np
import pytest

import hlo
from hlo import ops


def assert_hlo_opt_verifies(m, tmp_path):
    """hlo-opt (parse + verify) accepts the printed module unchanged."""
    tool = os.environ.get("HLO_OPT")
    if not tool:
        pytest.skip("HLO_OPT not set (ctest sets it to the built hlo-opt)")
    path = tmp_path / "built.hlo"
    path.write_text(m.to_text())
    done = subprocess.run([tool, str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == m.to_text()


def conv_nhwc(x, k):
    """VALID, stride 1: x [n, h, w, c], k [kh, kw, c, o] -> [n, h', w', o]."""
    n, h, w, _ = x.shape
    kh, kw, _, o = k.shape
    out = np.zeros((n, h - kh + 1, w - kw + 1, o), np.float32)
    for i in range(h - kh + 1):
        for j in range(w - kw + 1):
            out[:, i, j, :] = np.einsum("nhwc,hwco->no", x[:, i:i + kh, j:j + kw, :], k)
    return out


NHWC = {"input_batch_dimension": 0, "input_feature_dimension": 3, "input_spatial_dimensions": [1, 2],
        "kernel_input_feature_dimension": 2, "kernel_output_feature_dimension": 3,
        "kernel_spatial_dimensions": [0, 1],
        "output_batch_dimension": 0, "output_feature_dimension": 3, "output_spatial_dimensions": [1, 2]}


def test_conv_with_dim_labels_and_explicit_dimension_numbers(tmp_path):
    b = hlo.Builder("conv_nhwc")
    x = b.parameter(0, "f32[2,5,6,3]")
    k = b.parameter(1, "f32[3,2,3,4]")
    by_labels = ops.conv(x, k, [1, 1], dimension_numbers="b01f_01io->b01f")
    by_dict = ops.conv(x, k, [1, 1], dimension_numbers=NHWC)
    same = ops.conv(x, k, [2, 2], "SAME", dimension_numbers="b01f_01io->b01f")
    # The output may be numbered differently from the input: NCHW out.
    nchw_out = ops.conv(x, k, [1, 1], dimension_numbers="b01f_01io->bf01")
    m = b.build((by_labels, by_dict, same, nchw_out))
    assert "dim_labels=b01f_01io->b01f" in m.to_text() and "dim_labels=b01f_01io->bf01" in m.to_text()
    assert_hlo_opt_verifies(m, tmp_path)
    xv = np.random.default_rng(1).standard_normal((2, 5, 6, 3)).astype(np.float32)
    kv = np.random.default_rng(2).standard_normal((3, 2, 3, 4)).astype(np.float32)
    got_labels, got_dict, got_same, got_nchw = hlo.run(m, xv, kv)
    want = conv_nhwc(xv, kv)
    np.testing.assert_allclose(got_labels, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(got_dict, got_labels)
    np.testing.assert_allclose(got_nchw, want.transpose(0, 3, 1, 2), rtol=1e-4, atol=1e-5)
    # SAME with stride 2 over 5x6 and a 3x2 window: rows padded 1_1,
    # columns not at all, so a VALID conv of the padded input, strided.
    padded = np.pad(xv, ((0, 0), (1, 1), (0, 0), (0, 0)))
    np.testing.assert_allclose(got_same, conv_nhwc(padded, kv)[:, ::2, ::2, :], rtol=1e-4, atol=1e-5)


def test_conv_dimension_number_errors():
    b = hlo.Builder("bad_conv")
    x = b.parameter(0, "f32[1,4,4,2]")
    k = b.parameter(1, "f32[2,2,2,3]")
    with pytest.raises(hlo.HloError, match="expects unique 'i'"):
        ops.conv(x, k, [1, 1], dimension_numbers="b01f_01ii->b01f")
    with pytest.raises(ValueError, match="ranks 3 and 3, the operands have ranks 4 and 4"):
        ops.conv(x, k, [1, 1], dimension_numbers="b0f_0io->b0f")
    with pytest.raises(ValueError, match="input_feature_dimension 4 is out of range for rank 4"):
        ops.conv(x, k, [1, 1], dimension_numbers=dict(NHWC, input_feature_dimension=4))
    with pytest.raises(ValueError, match="lacks \"kernel_spatial_dimensions\""):
        ops.conv(x, k, [1, 1], dimension_numbers={key: v for key, v in NHWC.items()
                                                  if key != "kernel_spatial_dimensions"})
    with pytest.raises(TypeError, match="dim labels text or a dict"):
        ops.conv(x, k, [1, 1], dimension_numbers=3)
    # Python-level errors leave the builder usable.
    assert b.first_error is None
    ops.conv(x, k, [1, 1], dimension_numbers=NHWC)
    b.build()


def test_conditional_by_branch_index(tmp_path):
    b = hlo.Builder("switch")
    x = b.parameter(0, "f32[3]")
    i = b.parameter(1, "s32[]")
    pair = ops.tuple([x, x])
    out = ops.conditional(i, [lambda v: v + 1.0,
                              lambda v: v * 2.0,
                              lambda t: ops.get_tuple_element(t, 0) - ops.get_tuple_element(t, 1) - 5.0],
                          [x, x, pair])
    const_index = ops.conditional(1, [lambda v: v + 1.0, lambda v: v * 2.0], [x, x])
    m = b.build((out, const_index))
    text = m.to_text()
    assert "branch_computations={%branch_0, %branch_1, %branch_2}" in text
    assert_hlo_opt_verifies(m, tmp_path)
    xv = np.array([1, 2, 3], np.float32)
    want = {0: xv + 1, 1: xv * 2, 2: np.full(3, -5, np.float32)}
    # An index out of range runs the last branch (HLO's conditional).
    for index, expect in ((0, want[0]), (1, want[1]), (2, want[2]), (7, want[2]), (-1, want[2])):
        got, fixed = hlo.run(m, xv, np.int32(index))
        np.testing.assert_array_equal(got, expect)
        np.testing.assert_array_equal(fixed, xv * 2)


def test_conditional_by_index_errors():
    b = hlo.Builder("bad_switch")
    x = b.parameter(0, "f32[3]")
    with pytest.raises(ValueError, match="2 branch computations for 1 branch operands"):
        ops.conditional(0, [lambda v: v, lambda v: v], [x])
    with pytest.raises(hlo.HloError, match="Conditional"):
        ops.conditional(0, [lambda v: v, lambda v: v[:2]], [x, x])  # branches of different result shapes


def test_tokens_thread_send_recv_infeed_outfeed(tmp_path):
    b = hlo.Builder("tokens")
    x = b.parameter(0, "f32[3]")
    start = ops.create_token(b)
    sent = ops.send_with_token(x, start, channel_id=1)
    received = ops.recv_with_token(sent, "f32[3]", channel_id=1)  # (data, token)
    fed = ops.infeed_with_token(ops.get_tuple_element(received, 1), (np.int32, [2]))
    out_token = ops.outfeed_with_token(ops.get_tuple_element(fed, 0) * 2, ops.get_tuple_element(fed, 1))
    joined = ops.after_all(b, [out_token, sent])
    tokenless = ops.send(x + 1.0, channel_id=2)
    back = ops.recv(b, "f32[3]", channel_id=2)
    assert received.hlo_shape == "(f32[3], token[])" and fed.hlo_shape == "(s32[2], token[])"
    assert joined.dtype == "token" and tokenless.dtype == "token"
    m = b.build((ops.get_tuple_element(received, 0), ops.get_tuple_element(fed, 0), back, joined))
    text = m.to_text()
    for line in ("send(%parameter.1, %after-all.", "recv(%send-done.", "infeed(%get-tuple-element.",
                 "outfeed(%multiply.", "after-all(%outfeed."):
        assert line in text, line
    assert_hlo_opt_verifies(m, tmp_path)
    xv = np.array([1, 2, 3], np.float32)
    got, data, got_back, token = hlo.run(m, xv, infeed=[np.array([7, 9], np.int32)])
    np.testing.assert_array_equal(got, xv)  # a device's send on a channel reaches its own recv
    np.testing.assert_array_equal(data, [7, 9])
    np.testing.assert_array_equal(got_back, xv + 1)
    assert token is None


def test_token_operands_must_be_tokens():
    for call in (lambda b, x: ops.infeed_with_token(x, "f32[2]"),
                 lambda b, x: ops.outfeed_with_token(x, x),
                 lambda b, x: ops.send_with_token(x, x, channel_id=1),
                 lambda b, x: ops.recv_with_token(x, "f32[3]", channel_id=1)):
        b = hlo.Builder("bad_tokens")
        x = b.parameter(0, "f32[3]")
        with pytest.raises(hlo.HloError, match="must be a token, got f32\\[3\\]"):
            call(b, x)
    b = hlo.Builder("bad_recv")
    with pytest.raises(hlo.HloError, match="the received shape must be an array"):
        ops.recv_with_token(ops.create_token(b), "(f32[3])", channel_id=1)


def test_set_dimension_size(tmp_path):
    b = hlo.Builder("dynamic")
    a = b.parameter(0, "f32[4]")
    n = b.parameter(1, "s32[]")
    d = ops.set_dimension_size(a, 2, 0)          # a Python int: an s32 constant
    e = ops.set_dimension_size(a, n, 0)          # an hlo.Op
    m = b.build((d, ops.get_dimension_size(e, 0)))
    text = m.to_text()
    assert "f32[<=4]" in text and "set-dimension-size(" in text
    assert_hlo_opt_verifies(m, tmp_path)
    av = np.array([1, 2, 3, 4], np.float32)
    got = hlo.run(m, av, np.int32(3))
    np.testing.assert_array_equal(np.asarray(got[0])[:4], av)  # the data is kept
    # get-dimension-size reads the runtime size set by set-dimension-size
    # (backend_cpu/dynamic_padding.h), as XLA does.
    assert int(got[1]) == 3
    with pytest.raises(hlo.HloError):
        ops.set_dimension_size(a, 2, 5)           # no dimension 5


def test_send_recv_between_replicas(tmp_path):
    """send/recv of one channel with source-target pairs: replicas swap."""
    b = hlo.Builder("swap")
    x = b.parameter(0, "f32[2,3]")
    mine = ops.dynamic_slice(x, [ops.convert(ops.replica_id(b), np.int32), 0], [1, 3]).reshape(3)
    ch = b.create_channel_handle()
    swap = [(0, 1), (1, 0)]
    sent = ops.send_with_token(mine, ops.create_token(b), ch, source_target_pairs=swap)
    got = ops.get_tuple_element(ops.recv_with_token(sent, "f32[3]", ch, source_target_pairs=swap), 0)
    # The tokenless forms on a second channel: 0 -> 1 only.
    ch2 = b.create_channel_handle()
    assert ch2 == ch + 1
    ops.send(mine * 10.0, ch2, source_target_pairs=[(0, 1)])
    shifted = ops.recv(b, "f32[3]", ch2, source_target_pairs=[(0, 1)])
    m = b.build((got, shifted))
    assert m.to_text().count('frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,0}}"}') == 4
    assert m.to_text().count('_xla_send_recv_source_target_pairs="{{0,1}}"') == 4
    assert_hlo_opt_verifies(m, tmp_path)
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    (got0, shifted0), (got1, shifted1) = hlo.run(m, xv, replicas=2)
    np.testing.assert_array_equal(got0, xv[1])
    np.testing.assert_array_equal(got1, xv[0])
    np.testing.assert_array_equal(shifted0, np.zeros(3))  # nobody sends to replica 0
    np.testing.assert_array_equal(shifted1, xv[0] * 10)


def test_send_recv_between_partitions():
    """With partitions the pairs are partition ids."""
    b = hlo.Builder("partitions")
    mine = ops.convert(ops.partition_id(b), np.float32) + 5.0
    ops.send(mine, 1, source_target_pairs=[(1, 0)])
    m = b.build(ops.recv(b, "f32[]", 1, source_target_pairs=[(1, 0)]))
    assert hlo.run(m, partitions=2) == [6.0, 0.0]


def test_send_recv_pair_errors():
    b = hlo.Builder("bad_pairs")
    with pytest.raises(hlo.HloError, match="Recv: source_target_pairs: target 1 appears more than once"):
        ops.recv(b, "f32[1]", 1, source_target_pairs=[(0, 1), (2, 1)])
    b = hlo.Builder("bad_pairs")
    with pytest.raises(hlo.HloError, match=r"Send: source_target_pairs ids must be >= 0, got \{0,-1\}"):
        ops.send(b.constant(np.float32(1)), 1, source_target_pairs=[(0, -1)])


def test_frontend_attributes():
    b = hlo.Builder("attrs")
    x = b.parameter(0, "f32[2]")
    b.frontend_attributes = {"stage": "one"}
    y = -x
    assert b.frontend_attributes == {"stage": "one"}
    b.frontend_attributes = {}
    m = b.build(y + 1.0)
    text = m.to_text()
    assert 'negate(%parameter.1), frontend_attributes={stage="one"}' in text
    assert text.count("frontend_attributes") == 1


def test_cross_replica_sum_and_optimization_barrier(tmp_path):
    b = hlo.Builder("crs_barrier")
    x = b.parameter(0, "f32[2]")
    mine = x + ops.convert(ops.replica_id(b), np.float32) * 10.0
    kept = ops.optimization_barrier([mine, -mine])  # a list becomes a tuple
    assert kept.hlo_shape == "(f32[2], f32[2])"
    total = ops.cross_replica_sum(ops.get_tuple_element(kept, 0))
    pairs = ops.cross_replica_sum(ops.get_tuple_element(kept, 1), replica_groups=[[0, 2], [1, 3]])
    m = b.build((total, pairs))
    assert "opt-barrier(%tuple." in m.to_text()
    assert_hlo_opt_verifies(m, tmp_path)
    xv = np.array([1, 2], np.float32)
    got = hlo.run(m, xv, replicas=4)
    mines = [xv + 10 * r for r in range(4)]
    for r, (t, p) in enumerate(got):
        np.testing.assert_array_equal(t, sum(mines))
        np.testing.assert_array_equal(p, -(mines[r % 2] + mines[r % 2 + 2]))
    b = hlo.Builder("crs_tuple")
    with pytest.raises(hlo.HloError, match=r"CrossReplicaSum: the operand must be an array, got \(f32\[2\]\)"):
        ops.cross_replica_sum(ops.tuple([b.parameter(0, "f32[2]")]))


def test_compare_by_direction_and_scalar_constants():
    b = hlo.Builder("compare")
    x = b.parameter(0, "s32[4]")
    directions = ["EQ", "NE", "GE", "GT", "LE", "LT"]
    got = [ops.compare(x, 2, d) for d in directions]
    consts = [b.zero(np.int32), b.one(np.float32), b.min_value(np.float32), b.max_value(np.int8)]
    m = b.build(tuple(got + consts))
    xv = np.array([1, 2, 3, 2], np.int32)
    out = hlo.run(m, xv)
    want = [xv == 2, xv != 2, xv >= 2, xv > 2, xv <= 2, xv < 2]
    for g, w in zip(out[:6], want):
        np.testing.assert_array_equal(g, w)
    zero, one, lowest, highest = out[6:]
    assert zero == 0 and zero.dtype == np.int32 and one == 1.0 and one.dtype == np.float32
    assert lowest == -np.inf and highest == 127 and highest.dtype == np.int8
    with pytest.raises(ValueError, match='direction must be one of EQ, NE, GE, GT, LE, LT, not "XX"'):
        ops.compare(x, 2, "XX")
