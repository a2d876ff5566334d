"""hlo.cost and hlo.run(profile=True): the cost and profile tables as Python
data, in the schemas of hlo-opt --cost-json and hlo-run --profile-json."""
import numpy as np
import pytest

import hlo

LOOP = """
HloModule loop
%body (s: (s32[], f32[8])) -> (s32[], f32[8]) {
  %s = (s32[], f32[8]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  %v = f32[8] get-tuple-element(%s), index=1
  %e = f32[8] exponential(%v)
  ROOT %t = (s32[], f32[8]) tuple(%next, %e)
}
%cond (s: (s32[], f32[8])) -> pred[] {
  %s = (s32[], f32[8]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
ENTRY %main (x: f32[8]) -> f32[8] {
  %x = f32[8] parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[8]) tuple(%zero, %x)
  %w = (s32[], f32[8]) while(%init), condition=%cond, body=%body
  ROOT %r = f32[8] get-tuple-element(%w), index=1
}
"""


def test_cost_counts_loop_trips():
    cost = hlo.cost(hlo.parse(LOOP))
    assert cost["module"] == "loop"
    entry = cost["computations"][0]
    assert entry["is_entry"] and entry["name"] == "main"
    w = next(r for r in entry["instructions"] if r["name"] == "w")
    assert w["trip_count"] == 3 and w["trip_count_source"] == "induction"
    # 3 trips of 8 exponentials; the entry's total is the module's.
    assert w["transcendentals"] == 24
    assert cost["total"]["transcendentals"] == 24
    assert cost["total"] == {k: entry[k] for k in ("flops", "transcendentals", "bytes_accessed")}


def test_profile_rows_with_given_rates():
    m = hlo.parse(LOOP)
    x = np.linspace(-1, 0, 8, dtype=np.float32)
    result, prof = hlo.run(m, x, profile=True, machine_rates=(1e10, 1e11))
    np.testing.assert_allclose(result, np.exp(np.exp(np.exp(x))), rtol=1e-5)
    assert prof["runs"] == 1
    assert prof["machine"] == {"bytes_per_second": 1e10, "flops_per_second": 1e11, "threads": 0, "source": "given"}
    rows = {r["name"]: r for r in prof["instructions"]}
    assert rows["e"]["count_per_run"] == 3  # the body's exponential ran three times
    assert rows["e"]["transcendentals_per_run"] == 24
    assert rows["e"]["opcode"] == "exponential" and rows["e"]["shape"] == "f32[8]"
    assert all(r["seconds_per_run"] >= 0 for r in prof["instructions"])


def test_profile_argument_errors():
    m = hlo.parse(LOOP)
    x = np.zeros(8, np.float32)
    with pytest.raises(ValueError, match="only used with profile=True"):
        hlo.run(m, x, machine_rates=(1e10, 1e11))
    with pytest.raises(ValueError, match="both > 0"):
        hlo.run(m, x, profile=True, machine_rates=(0, 1e11))
