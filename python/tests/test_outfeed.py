"""hlo.run(..., outfeed=True): the values a module's outfeed instructions
sent, in order, per device, next to the result (docs/python.md)."""
import numpy as np
import pytest

import hlo
from hlo import ops


def test_outfeed_arrays_and_tuples_in_order():
    b = hlo.Builder("outfeeds")
    x = b.parameter(0, "f32[3]")
    n = b.parameter(1, "s32[]")
    first = ops.outfeed(x * 2.0)
    # A tuple outfeed after the first one (the token orders them).
    ops.outfeed_with_token(ops.tuple([n, x + 1.0]), first)
    m = b.build(x - 1.0)
    xv = np.array([1, 2, 3], np.float32)
    result, sent = hlo.run(m, xv, np.int32(7), outfeed=True)
    np.testing.assert_array_equal(result, xv - 1)
    assert len(sent) == 2
    np.testing.assert_array_equal(sent[0], xv * 2)
    assert sent[0].dtype == np.float32
    assert isinstance(sent[1], tuple) and len(sent[1]) == 2
    assert sent[1][0] == 7 and sent[1][0].dtype == np.int32
    np.testing.assert_array_equal(sent[1][1], xv + 1)
    # Without the keyword the result alone, as before.
    np.testing.assert_array_equal(hlo.run(m, xv, np.int32(7)), xv - 1)


def test_no_outfeed_gives_an_empty_list():
    m = hlo.parse("HloModule plain\nENTRY e { ROOT c = f32[] constant(4) }")
    result, sent = hlo.run(m, outfeed=True)
    assert result == 4 and sent == []


def test_outfeed_in_a_loop_sends_once_per_iteration():
    b = hlo.Builder("loop_outfeed")
    x = b.parameter(0, "f32[2]")

    def body(s):
        i, v = ops.get_tuple_element(s, 0), ops.get_tuple_element(s, 1)
        ops.outfeed(ops.tuple([i, v]))  # each iteration's state, before the update
        return i + 1, v * 2.0

    loop = ops.while_loop(lambda s: ops.get_tuple_element(s, 0) < 4, body,
                          ops.tuple([b.constant(np.int32(0)), x]))
    m = b.build(ops.get_tuple_element(loop, 1))
    xv = np.array([1.5, -2], np.float32)
    result, sent = hlo.run(m, xv, outfeed=True)
    np.testing.assert_array_equal(result, xv * 16)
    assert [int(i) for i, _ in sent] == [0, 1, 2, 3]
    for k, (_, v) in enumerate(sent):
        np.testing.assert_array_equal(v, xv * 2 ** k)
    # The same module run again starts with an empty outfeed.
    assert len(hlo.run(m, xv, outfeed=True)[1]) == 4


def test_outfeed_per_device_with_replicas():
    b = hlo.Builder("replica_outfeed")
    rid = ops.replica_id(b)
    ops.outfeed(rid * 10)
    ops.outfeed(ops.tuple([rid, rid + 1]))
    m = b.build(rid)
    results, sent = hlo.run(m, replicas=2, outfeed=True)
    assert [int(r) for r in results] == [0, 1]
    assert len(sent) == 2  # one list per device
    for device, values in enumerate(sent):
        assert len(values) == 2
        assert int(values[0]) == 10 * device
        assert tuple(int(v) for v in values[1]) == (device, device + 1)


def test_outfeed_with_profile_comes_last():
    m = hlo.parse("""HloModule p
ENTRY e {
  x = f32[2] parameter(0)
  t = token[] after-all()
  o = token[] outfeed(x, t), outfeed_shape=f32[2]{0}
  ROOT y = f32[2] negate(x)
}""")
    xv = np.array([3, 4], np.float32)
    result, profile, sent = hlo.run(m, xv, profile=True, outfeed=True, machine_rates=(1e10, 1e11))
    np.testing.assert_array_equal(result, -xv)
    assert profile["runs"] == 1
    assert len(sent) == 1
    np.testing.assert_array_equal(sent[0], xv)


def test_bad_device_counts():
    m = hlo.parse("HloModule plain\nENTRY e { ROOT c = f32[] constant(4) }")
    for kw in ({"replicas": 0}, {"partitions": 0}):
        with pytest.raises(ValueError, match="replicas and partitions must be >= 1"):
            hlo.run(m, **kw)
