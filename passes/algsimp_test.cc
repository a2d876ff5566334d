#include "passes/algsimp.h"

#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "ir/float_format.h"
#include "passes/algsimp_test_util.h"

namespace hlo {
namespace {

using passes_test::CountOpcode;
using passes_test::RunAndCompare;

struct Case {
  const char* name;
  std::string body;          // entry body; `ROOT r` is the instruction under test
  Opcode root;               // expected root opcode after the pass
  std::vector<Opcode> gone;  // opcodes that must be absent afterwards
  bool changes = true;
  std::string extra = "";    // extra computations (reducers), placed before the entry
  int seeds = 3;             // random input sets compared (0: the backend lacks the op)
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::string Mod(const Case& c) {
  return "HloModule m\n\n" + c.extra + "ENTRY e {\n" + c.body + "}\n";
}

const std::string kAddF32 =
    "add_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\n";
const std::string kMaxF32 =
    "max_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] maximum(a, b)\n}\n\n";
const std::string kAddS32 =
    "add_s32 {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT s = s32[] add(a, b)\n}\n\n";

using O = Opcode;

std::vector<Case> Cases() {
  const std::string pf = "  p = f32[4] parameter(0)\n";
  const std::string pi = "  p = s32[4] parameter(0)\n";
  const std::string pb = "  p = pred[4] parameter(0)\n";
  auto bc = [](const std::string& ty, const std::string& v) {
    return "  c = " + ty + "[] constant(" + v + ")\n  b = " + ty + "[4] broadcast(c), dimensions={}\n";
  };
  return {
      // R1 (+R2 afterwards): the constant moves right, then x + 0 vanishes.
      {"R01_canonicalize_then_add_zero_int", pi + bc("s32", "0") + "  ROOT r = s32[4] add(b, p)\n", O::kParameter, {O::kAdd}},
      {"R02_add_zero_int", pi + bc("s32", "0") + "  ROOT r = s32[4] add(p, b)\n", O::kParameter, {O::kAdd}},
      {"R03_add_neg_zero_f32", pf + bc("f32", "-0.0") + "  ROOT r = f32[4] add(p, b)\n", O::kParameter, {O::kAdd}},
      {"R03_no_add_pos_zero_f32", pf + bc("f32", "0") + "  ROOT r = f32[4] add(p, b)\n", O::kAdd, {}, false},
      {"R04_add_negate", pf + "  q = f32[4] parameter(1)\n  n = f32[4] negate(q)\n  ROOT r = f32[4] add(p, n)\n", O::kSubtract, {O::kAdd, O::kNegate}},
      {"R05_sub_zero_f32", pf + bc("f32", "0") + "  ROOT r = f32[4] subtract(p, b)\n", O::kParameter, {O::kSubtract}},
      {"R05_sub_zero_int", pi + bc("s32", "0") + "  ROOT r = s32[4] subtract(p, b)\n", O::kParameter, {O::kSubtract}},
      {"R06_zero_sub_int", pi + bc("s32", "0") + "  ROOT r = s32[4] subtract(b, p)\n", O::kNegate, {O::kSubtract}},
      {"R06_neg_zero_sub_f32", pf + bc("f32", "-0.0") + "  ROOT r = f32[4] subtract(b, p)\n", O::kNegate, {O::kSubtract}},
      {"R06_no_pos_zero_sub_f32", pf + bc("f32", "0") + "  ROOT r = f32[4] subtract(b, p)\n", O::kSubtract, {}, false},
      {"R07_sub_self_int", pi + "  ROOT r = s32[4] subtract(p, p)\n", O::kBroadcast, {O::kSubtract}},
      {"R07_no_sub_self_f32", pf + "  ROOT r = f32[4] subtract(p, p)\n", O::kSubtract, {}, false},
      {"R08_sub_negate", pf + "  q = f32[4] parameter(1)\n  n = f32[4] negate(q)\n  ROOT r = f32[4] subtract(p, n)\n", O::kAdd, {O::kSubtract, O::kNegate}},
      {"R09_mul_one_f32", pf + bc("f32", "1") + "  ROOT r = f32[4] multiply(p, b)\n", O::kParameter, {O::kMultiply}},
      {"R09_mul_one_int_lhs", pi + bc("s32", "1") + "  ROOT r = s32[4] multiply(b, p)\n", O::kParameter, {O::kMultiply}},
      {"R10_mul_zero_int", pi + bc("s32", "0") + "  ROOT r = s32[4] multiply(p, b)\n", O::kBroadcast, {O::kMultiply}},
      {"R10_no_mul_zero_f32", pf + bc("f32", "0") + "  ROOT r = f32[4] multiply(p, b)\n", O::kMultiply, {}, false},
      {"R11_mul_minus_one_int", pi + bc("s32", "-1") + "  ROOT r = s32[4] multiply(p, b)\n", O::kNegate, {O::kMultiply}},
      {"R12_mul_negates", pf + "  q = f32[4] parameter(1)\n  n = f32[4] negate(q)\n  m = f32[4] negate(p)\n  ROOT r = f32[4] multiply(m, n)\n", O::kMultiply, {O::kNegate}},
      {"R13_div_one_f32", pf + bc("f32", "1") + "  ROOT r = f32[4] divide(p, b)\n", O::kParameter, {O::kDivide}},
      {"R13_div_one_int", pi + bc("s32", "1") + "  ROOT r = s32[4] divide(p, b)\n", O::kParameter, {O::kDivide}},
      {"R77_div_pow2_f32", pf + bc("f32", "8") + "  ROOT r = f32[4] divide(p, b)\n", O::kMultiply, {O::kDivide}},
      {"R77_div_neg_pow2_f32", pf + bc("f32", "-0.25") + "  ROOT r = f32[4] divide(p, b)\n", O::kMultiply, {O::kDivide}},
      {"R77_div_pow2_bf16", "  p = bf16[4] parameter(0)\n" + bc("bf16", "64") + "  ROOT r = bf16[4] divide(p, b)\n", O::kMultiply, {O::kDivide}},
      {"R77_no_div_three_f32", pf + bc("f32", "3") + "  ROOT r = f32[4] divide(p, b)\n", O::kDivide, {}, false},
      {"R77_no_div_subnormal_reciprocal_f32", pf + bc("f32", "1.70141183e+38") + "  ROOT r = f32[4] divide(p, b)\n", O::kDivide, {}, false},
      {"R77_no_div_subnormal_reciprocal_f16", "  p = f16[4] parameter(0)\n" + bc("f16", "32768") + "  ROOT r = f16[4] divide(p, b)\n", O::kDivide, {}, false},
      {"R77_no_div_int", pi + bc("s32", "4") + "  ROOT r = s32[4] divide(p, b)\n", O::kDivide, {}, false},
      {"R14_max_self", pf + "  ROOT r = f32[4] maximum(p, p)\n", O::kParameter, {O::kMaximum}},
      {"R15_min_self", pi + "  ROOT r = s32[4] minimum(p, p)\n", O::kParameter, {O::kMinimum}},
      {"R16_max_neg_inf", pf + bc("f32", "-inf") + "  ROOT r = f32[4] maximum(p, b)\n", O::kParameter, {O::kMaximum}},
      {"R16_max_int_min", pi + bc("s32", "-2147483648") + "  ROOT r = s32[4] maximum(b, p)\n", O::kParameter, {O::kMaximum}},
      {"R17_min_inf", pf + bc("f32", "inf") + "  ROOT r = f32[4] minimum(p, b)\n", O::kParameter, {O::kMinimum}},
      {"R17_min_u8_max", "  p = u8[4] parameter(0)\n" + bc("u8", "255") + "  ROOT r = u8[4] minimum(p, b)\n", O::kParameter, {O::kMinimum}},
      {"R18_and_true", pb + bc("pred", "true") + "  ROOT r = pred[4] and(p, b)\n", O::kParameter, {O::kAnd}},
      {"R18_and_all_ones_int", pi + bc("s32", "-1") + "  ROOT r = s32[4] and(p, b)\n", O::kParameter, {O::kAnd}},
      {"R19_and_false", pb + bc("pred", "false") + "  ROOT r = pred[4] and(p, b)\n", O::kBroadcast, {O::kAnd}},
      {"R20_or_false", pb + bc("pred", "false") + "  ROOT r = pred[4] or(p, b)\n", O::kParameter, {O::kOr}},
      {"R21_or_true", pb + bc("pred", "true") + "  ROOT r = pred[4] or(b, p)\n", O::kBroadcast, {O::kOr}},
      {"R22_and_self", pi + "  ROOT r = s32[4] and(p, p)\n", O::kParameter, {O::kAnd}},
      {"R23_or_self", pb + "  ROOT r = pred[4] or(p, p)\n", O::kParameter, {O::kOr}},
      {"R24_xor_zero", pi + bc("s32", "0") + "  ROOT r = s32[4] xor(p, b)\n", O::kParameter, {O::kXor}},
      {"R25_xor_self", pb + "  ROOT r = pred[4] xor(p, p)\n", O::kBroadcast, {O::kXor}},
      {"R26_xor_true", pb + bc("pred", "true") + "  ROOT r = pred[4] xor(p, b)\n", O::kNot, {O::kXor}},
      {"R27_select_true", pf + "  q = f32[4] parameter(1)\n" + bc("pred", "true") + "  ROOT r = f32[4] select(b, p, q)\n", O::kParameter, {O::kSelect}},
      {"R27_select_false", pf + "  q = f32[4] parameter(1)\n" + bc("pred", "false") + "  ROOT r = f32[4] select(b, p, q)\n", O::kParameter, {O::kSelect}},
      {"R28_select_same", pf + "  s = pred[4] parameter(1)\n  ROOT r = f32[4] select(s, p, p)\n", O::kParameter, {O::kSelect}},
      {"R29_select_not", pf + "  q = f32[4] parameter(1)\n  s = pred[4] parameter(2)\n  n = pred[4] not(s)\n  ROOT r = f32[4] select(n, p, q)\n", O::kSelect, {O::kNot}},
      {"R30_compare_self_int_ge", pi + "  ROOT r = pred[4] compare(p, p), direction=GE\n", O::kBroadcast, {O::kCompare}},
      {"R30_compare_self_int_lt", pi + "  ROOT r = pred[4] compare(p, p), direction=LT\n", O::kBroadcast, {O::kCompare}},
      {"R30_no_compare_self_f32", pf + "  ROOT r = pred[4] compare(p, p), direction=EQ\n", O::kCompare, {}, false},
      {"R31_not_compare_int", pi + "  q = s32[4] parameter(1)\n  c = pred[4] compare(p, q), direction=LT\n  ROOT r = pred[4] not(c)\n", O::kCompare, {O::kNot}},
      {"R32_negate_negate", pi + "  n = s32[4] negate(p)\n  ROOT r = s32[4] negate(n)\n", O::kParameter, {O::kNegate}},
      {"R33_abs_abs", pf + "  a = f32[4] abs(p)\n  ROOT r = f32[4] abs(a)\n", O::kAbs, {}},
      {"R34_abs_negate", pi + "  n = s32[4] negate(p)\n  ROOT r = s32[4] abs(n)\n", O::kAbs, {O::kNegate}},
      {"R35_clamp_full_range_f32", pf + "  lo = f32[] constant(-inf)\n  hi = f32[] constant(inf)\n  ROOT r = f32[4] clamp(lo, p, hi)\n", O::kParameter, {O::kClamp}},
      {"R35_clamp_full_range_u8", "  p = u8[4] parameter(0)\n  lo = u8[] constant(0)\n  hi = u8[] constant(255)\n  ROOT r = u8[4] clamp(lo, p, hi)\n", O::kParameter, {O::kClamp}},
      {"R35_no_clamp_partial_range", pf + "  lo = f32[] constant(0)\n  hi = f32[] constant(inf)\n  ROOT r = f32[4] clamp(lo, p, hi)\n", O::kClamp, {}, false},
      {"R36_not_not", pb + "  n = pred[4] not(p)\n  ROOT r = pred[4] not(n)\n", O::kParameter, {O::kNot}},
      {"R37_convert_same", pf + "  ROOT r = f32[4] convert(p)\n", O::kParameter, {O::kConvert}},
      {"R38_convert_roundtrip_s16_s32", "  p = s16[4] parameter(0)\n  w = s32[4] convert(p)\n  ROOT r = s16[4] convert(w)\n", O::kParameter, {O::kConvert}},
      {"R38_convert_roundtrip_bf16_f32", "  p = bf16[4] parameter(0)\n  w = f32[4] convert(p)\n  ROOT r = bf16[4] convert(w)\n", O::kParameter, {O::kConvert}},
      {"R38_convert_roundtrip_u8_f16", "  p = u8[4] parameter(0)\n  w = f16[4] convert(p)\n  ROOT r = u8[4] convert(w)\n", O::kParameter, {O::kConvert}},
      {"R38_no_convert_narrowing", pf + "  w = f16[4] convert(p)\n  ROOT r = f32[4] convert(w)\n", O::kConvert, {}, false},
      {"R39_bitcast_convert_same", pi + "  ROOT r = s32[4] bitcast-convert(p)\n", O::kParameter, {O::kBitcastConvert}, true, "", 0},
      {"R40_pow_one", pf + bc("f32", "1") + "  ROOT r = f32[4] power(p, b)\n", O::kParameter, {O::kPower}},
      {"R41_pow_zero", pf + bc("f32", "0") + "  ROOT r = f32[4] power(p, b)\n", O::kBroadcast, {O::kPower}},
      {"R42_pow_two", pf + bc("f32", "2") + "  ROOT r = f32[4] power(p, b)\n", O::kMultiply, {O::kPower}},
      // R78 changes last bits against pow (its values: Algsimp.PowerOfThreeAsXla).
      {"R78_pow_three_f32", pf + bc("f32", "3") + "  ROOT r = f32[4] power(p, b)\n", O::kMultiply, {O::kPower}, true, "", 0},
      {"R78_pow_three_bf16", "  p = bf16[4] parameter(0)\n" + bc("bf16", "3") + "  ROOT r = bf16[4] power(p, b)\n", O::kConvert, {O::kPower}, true, "", 0},
      {"R79_pow_minus_one_f32", pf + bc("f32", "-1") + "  ROOT r = f32[4] power(p, b)\n", O::kDivide, {O::kPower}},
      {"R79_no_pow_minus_two", pf + bc("f32", "-2") + "  ROOT r = f32[4] power(p, b)\n", O::kPower, {}, false},
      {"R43_shift_zero", pi + bc("s32", "0") + "  ROOT r = s32[4] shift-right-arithmetic(p, b)\n", O::kParameter, {O::kShiftRightArithmetic}},
      {"R44_real_complex", pf + "  q = f32[4] parameter(1)\n  z = c64[4] complex(p, q)\n  ROOT r = f32[4] real(z)\n", O::kParameter, {O::kComplex}},
      {"R45_imag_complex", pf + "  q = f32[4] parameter(1)\n  z = c64[4] complex(p, q)\n  ROOT r = f32[4] imag(z)\n", O::kParameter, {O::kComplex}},
      {"R46_reshape_same", pf + "  ROOT r = f32[4] reshape(p)\n", O::kParameter, {O::kReshape}},
      {"R47_reshape_reshape", "  p = f32[2,6] parameter(0)\n  a = f32[3,4] reshape(p)\n  ROOT r = f32[12] reshape(a)\n", O::kReshape, {}},
      {"R47_reshape_reshape_back", "  p = f32[2,6] parameter(0)\n  a = f32[12] reshape(p)\n  ROOT r = f32[2,6] reshape(a)\n", O::kParameter, {O::kReshape}},
      {"R48_transpose_identity", "  p = f32[2,3] parameter(0)\n  ROOT r = f32[2,3] transpose(p), dimensions={0,1}\n", O::kParameter, {O::kTranspose}},
      {"R49_transpose_transpose_identity", "  p = f32[2,3] parameter(0)\n  t = f32[3,2] transpose(p), dimensions={1,0}\n  ROOT r = f32[2,3] transpose(t), dimensions={1,0}\n", O::kParameter, {O::kTranspose}},
      {"R49_transpose_transpose_compose", "  p = f32[2,3,4] parameter(0)\n  t = f32[3,4,2] transpose(p), dimensions={1,2,0}\n  ROOT r = f32[4,2,3] transpose(t), dimensions={1,2,0}\n", O::kTranspose, {}},
      {"R71_transpose_of_unit_dims_is_reshape", "  p = f32[1,3,1,4] parameter(0)\n  ROOT r = f32[3,1,4,1] transpose(p), dimensions={1,0,3,2}\n", O::kReshape, {O::kTranspose}},
      {"R71_no_real_transpose", "  p = f32[2,1,3] parameter(0)\n  ROOT r = f32[3,1,2] transpose(p), dimensions={2,1,0}\n", O::kTranspose, {}, false},
      {"R72_slice_of_concat", "  p = f32[3,2] parameter(0)\n  q = f32[5,2] parameter(1)\n  c = f32[8,2] concatenate(p, q), dimensions={0}\n  ROOT r = f32[2,1] slice(c), slice={[4:7:2], [1:2]}\n", O::kSlice, {O::kConcatenate}},
      {"R72_no_slice_across_operands", "  p = f32[3] parameter(0)\n  q = f32[5] parameter(1)\n  c = f32[8] concatenate(p, q), dimensions={0}\n  ROOT r = f32[3] slice(c), slice={[2:5]}\n", O::kSlice, {}, false},
      {"R73_and_not_self", pb + "  n = pred[4] not(p)\n  ROOT r = pred[4] and(n, p)\n", O::kBroadcast, {O::kAnd, O::kNot}},
      {"R73_or_not_self_int", pi + "  n = s32[4] not(p)\n  ROOT r = s32[4] or(p, n)\n", O::kBroadcast, {O::kOr, O::kNot}},
      {"R73_xor_not_self", "  p = u8[4] parameter(0)\n  n = u8[4] not(p)\n  ROOT r = u8[4] xor(p, n)\n", O::kBroadcast, {O::kXor, O::kNot}},
      {"R74_dynamic_slice_scalar_broadcast", "  s = f32[] parameter(0)\n  i = s32[] parameter(1)\n  b = f32[10] broadcast(s), dimensions={}\n  ROOT r = f32[3] dynamic-slice(b, i), dynamic_slice_sizes={3}\n", O::kBroadcast, {O::kDynamicSlice}},
      {"R75_floor_floor", pf + "  a = f32[4] floor(p)\n  ROOT r = f32[4] floor(a)\n", O::kFloor, {}},
      {"R75_sign_sign", pi + "  a = s32[4] sign(p)\n  ROOT r = s32[4] sign(a)\n", O::kSign, {}},
      {"R50_broadcast_same", pf + "  ROOT r = f32[4] broadcast(p), dimensions={0}\n", O::kParameter, {O::kBroadcast}},
      {"R51_broadcast_broadcast", "  p = f32[3] parameter(0)\n  a = f32[2,3] broadcast(p), dimensions={1}\n  ROOT r = f32[2,5,3] broadcast(a), dimensions={0,2}\n", O::kBroadcast, {}},
      {"R52_reshape_scalar_broadcast", "  p = f32[] parameter(0)\n  a = f32[2,6] broadcast(p), dimensions={}\n  ROOT r = f32[3,4] reshape(a)\n", O::kBroadcast, {O::kReshape}},
      {"R53_transpose_scalar_broadcast", "  p = f32[] parameter(0)\n  a = f32[2,6] broadcast(p), dimensions={}\n  ROOT r = f32[6,2] transpose(a), dimensions={1,0}\n", O::kBroadcast, {O::kTranspose}},
      {"R54_slice_full", "  p = f32[4,3] parameter(0)\n  ROOT r = f32[4,3] slice(p), slice={[0:4], [0:3]}\n", O::kParameter, {O::kSlice}},
      {"R55_slice_slice", "  p = f32[20] parameter(0)\n  a = f32[8] slice(p), slice={[3:19:2]}\n  ROOT r = f32[3] slice(a), slice={[1:8:3]}\n", O::kSlice, {}},
      {"R56_slice_scalar_broadcast", "  p = f32[] parameter(0)\n  a = f32[10] broadcast(p), dimensions={}\n  ROOT r = f32[3] slice(a), slice={[1:7:2]}\n", O::kBroadcast, {O::kSlice}},
      {"R57_pad_zero", pf + "  z = f32[] constant(0)\n  ROOT r = f32[4] pad(p, z), padding=0_0\n", O::kParameter, {O::kPad}},
      {"R58_concat_single", pf + "  ROOT r = f32[4] concatenate(p), dimensions={0}\n", O::kParameter, {O::kConcatenate}},
      {"R59_concat_drop_empty", pf + "  q = f32[0] parameter(1)\n  s = f32[3] parameter(2)\n  ROOT r = f32[7] concatenate(p, q, s), dimensions={0}\n", O::kConcatenate, {}},
      {"R60_reverse_trivial", "  p = f32[1,4] parameter(0)\n  ROOT r = f32[1,4] reverse(p), dimensions={0}\n", O::kParameter, {O::kReverse}},
      {"R61_reverse_reverse", "  p = f32[3,4] parameter(0)\n  a = f32[3,4] reverse(p), dimensions={0,1}\n  ROOT r = f32[3,4] reverse(a), dimensions={1,0}\n", O::kParameter, {O::kReverse}},
      {"R62_copy_copy", "  p = f32[3,4]{1,0} parameter(0)\n  a = f32[3,4]{0,1} copy(p)\n  ROOT r = f32[3,4]{1,0} copy(a)\n", O::kParameter, {O::kCopy}},
      {"R63_copy_same_layout", pf + "  ROOT r = f32[4] copy(p)\n", O::kParameter, {O::kCopy}},
      {"R64_gte_tuple", pf + "  q = s32[4] parameter(1)\n  t = (f32[4], s32[4]) tuple(p, q)\n  ROOT r = s32[4] get-tuple-element(t), index=1\n", O::kParameter, {O::kTuple}},
      {"R65_reduce_empty", "  p = f32[0,3] parameter(0)\n  z = f32[] constant(7)\n  ROOT r = f32[3] reduce(p, z), dimensions={0}, to_apply=add_f32\n", O::kBroadcast, {O::kReduce}, true, kAddF32},
      {"R66_reduce_trivial_max", "  p = f32[1,4] parameter(0)\n  z = f32[] constant(-inf)\n  ROOT r = f32[4] reduce(p, z), dimensions={0}, to_apply=max_f32\n", O::kReshape, {O::kReduce}, true, kMaxF32},
      {"R66_reduce_trivial_add_int", "  p = s32[4,1] parameter(0)\n  z = s32[] constant(0)\n  ROOT r = s32[4] reduce(p, z), dimensions={1}, to_apply=add_s32\n", O::kReshape, {O::kReduce}, true, kAddS32},
      {"R66_no_reduce_add_f32_pos_zero", "  p = f32[1,4] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[4] reduce(p, z), dimensions={0}, to_apply=add_f32\n", O::kReduce, {}, false, kAddF32},
      {"R67_dot_k1", "  p = f32[3,1] parameter(0)\n  q = f32[1,5] parameter(1)\n  ROOT r = f32[3,5] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n", O::kAdd, {O::kDot}},
      {"R67_dot_k1_batch", "  p = s32[2,1,3] parameter(0)\n  q = s32[2,4,1] parameter(1)\n  ROOT r = s32[2,3,4] dot(p, q), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={2}\n", O::kMultiply, {O::kDot}},
      {"R68_dynamic_slice_const", "  p = f32[10,4] parameter(0)\n  i = s32[] constant(8)\n  j = s32[] constant(-3)\n  ROOT r = f32[4,2] dynamic-slice(p, i, j), dynamic_slice_sizes={4,2}\n", O::kSlice, {O::kDynamicSlice}},
      {"R69_dus_full", pf + "  u = f32[4] parameter(1)\n  i = s32[] parameter(2)\n  ROOT r = f32[4] dynamic-update-slice(p, u, i)\n", O::kParameter, {O::kDynamicUpdateSlice}},
      {"R70_iota_size1", "  ROOT r = s32[3,1] iota(), iota_dimension=1\n", O::kBroadcast, {O::kIota}},
  };
}

class AlgsimpRule : public ::testing::TestWithParam<Case> {};

TEST_P(AlgsimpRule, RewritesAndKeepsResults) {
  const Case& c = GetParam();
  auto pass = CreateAlgebraicSimplifierPass();
  auto run = RunAndCompare(*pass, Mod(c), c.seeds);
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(run.changed, c.changes) << run.text;
  EXPECT_EQ(run.module->entry()->root()->opcode(), c.root) << run.text;
  for (Opcode op : c.gone) EXPECT_EQ(CountOpcode(*run.module, op), 0) << OpcodeName(op) << "\n" << run.text;
  // A second run finds nothing more to do (fixed point).
  auto again = pass->Run(*run.module);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again) << run.text;
}

INSTANTIATE_TEST_SUITE_P(Rules, AlgsimpRule, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// R78: pow(x, 3) becomes XLA's x * (x * x): f32 in f32, bf16 through f32
// rounded once (the bits jax 0.10.2's XLA:CPU gives for lax.pow(x, 3.0)).
TEST(Algsimp, PowerOfThreeAsXla) {
  auto pass = CreateAlgebraicSimplifierPass();
  for (const char* type : {"f32", "bf16"}) {
    const std::string hlo = absl::StrCat("HloModule m\nENTRY e {\n  p = ", type, "[6] parameter(0)\n  t = ", type,
                                         "[] constant(3)\n  b = ", type, "[6] broadcast(t), dimensions={}\n  ROOT r = ",
                                         type, "[6] power(p, b)\n}\n");
    auto module = ParseModule(hlo);
    ASSERT_TRUE(module.ok()) << module.status();
    auto changed = pass->Run(**module);
    ASSERT_TRUE(changed.ok() && *changed) << type;
    const std::vector<float> xs = {1.1f, -2.7f, 3.3f, 1e-12f, 0.0f, 7.77e12f};
    auto arg = ParseLiteral(absl::StrCat(type, "[6] {", absl::StrJoin(xs, ", "), "}"));
    ASSERT_TRUE(arg.ok()) << arg.status();
    std::vector<Literal> args;
    args.push_back(*std::move(arg));
    auto got = cpu::RunModule(**module, args);
    ASSERT_TRUE(got.ok()) << got.status();
    const Literal& y = got->results[0];
    for (int i = 0; i < 6; ++i) {
      const float x = static_cast<float>(args[0].GetDouble(i));  // the value the literal holds
      const float cube = x * (x * x);
      const double want = std::string(type) == "bf16" ? DecodeBF16(EncodeBF16(cube)) : cube;
      EXPECT_EQ(y.GetDouble(i), want) << type << " x=" << x;
    }
  }
}

// R3 / R5 / R6 hold for signed zeros too: check them on -0 and +0 inputs.
TEST(Algsimp, SignedZerosAreKept) {
  auto pass = CreateAlgebraicSimplifierPass();
  const std::string hlo = R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  nz = f32[] constant(-0.0)
  pz = f32[] constant(0)
  bn = f32[4] broadcast(nz), dimensions={}
  bp = f32[4] broadcast(pz), dimensions={}
  a = f32[4] add(p, bn)
  s = f32[4] subtract(a, bp)
  ROOT r = f32[4] subtract(bn, s)
})";
  auto run = RunAndCompare(*pass, hlo, 1, {{"f32[4] {-0.0, 0, -1, 2}"}});
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(CountOpcode(*run.module, Opcode::kAdd), 0);
  EXPECT_EQ(CountOpcode(*run.module, Opcode::kSubtract), 0);
  EXPECT_EQ(run.module->entry()->root()->opcode(), Opcode::kNegate);
}

// Integer wrap-around: x * -1 and 0 - x agree with negate on INT_MIN.
TEST(Algsimp, IntegerWrapAround) {
  auto pass = CreateAlgebraicSimplifierPass();
  const std::string hlo = R"(HloModule m
ENTRY e {
  p = s32[3] parameter(0)
  m1 = s32[] constant(-1)
  b = s32[3] broadcast(m1), dimensions={}
  ROOT r = s32[3] multiply(p, b)
})";
  auto run = RunAndCompare(*pass, hlo, 1, {{"s32[3] {-2147483648, 2147483647, 0}"}});
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(run.module->entry()->root()->opcode(), Opcode::kNegate);
}

// The rules chain to a fixed point; dead code of the input stays.
TEST(Algsimp, ChainsAndKeepsInputDeadCode) {
  auto pass = CreateAlgebraicSimplifierPass();
  const std::string hlo = R"(HloModule m
ENTRY e {
  p = f32[2,3] parameter(0)
  unused = f32[2,3] exponential(p)
  t = f32[3,2] transpose(p), dimensions={1,0}
  t2 = f32[2,3] transpose(t), dimensions={1,0}
  one = f32[] constant(1)
  b = f32[2,3] broadcast(one), dimensions={}
  m = f32[2,3] multiply(b, t2)
  n = f32[2,3] negate(m)
  ROOT r = f32[2,3] negate(n)
})";
  auto run = RunAndCompare(*pass, hlo);
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(run.module->entry()->root()->opcode(), Opcode::kParameter);
  EXPECT_EQ(CountOpcode(*run.module, Opcode::kExp), 1);
  EXPECT_EQ(run.module->entry()->instruction_count(), 2);
}

// Instructions with control edges are left alone.
TEST(Algsimp, ControlDependenciesUntouched) {
  auto pass = CreateAlgebraicSimplifierPass();
  const std::string hlo = R"(HloModule m
ENTRY e {
  p = s32[4] parameter(0)
  n = s32[4] negate(p)
  ROOT r = s32[4] negate(n), control-predecessors={p}
})";
  auto run = RunAndCompare(*pass, hlo);
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(run.module->entry()->root()->opcode(), Opcode::kNegate);
}

// Rules apply inside called computations too.
TEST(Algsimp, SimplifiesCalledComputations) {
  auto pass = CreateAlgebraicSimplifierPass();
  const std::string hlo = R"(HloModule m
body {
  a = s32[] parameter(0)
  z = s32[] constant(0)
  ROOT s = s32[] add(a, z)
}
ENTRY e {
  p = s32[4] parameter(0)
  ROOT r = s32[4] map(p), dimensions={0}, to_apply=body
})";
  auto run = RunAndCompare(*pass, hlo);
  ASSERT_NE(run.module, nullptr);
  EXPECT_TRUE(run.changed);
  EXPECT_EQ(CountOpcode(*run.module, Opcode::kAdd), 0);
}


// Float rules on special values: NaN, infinities, signed zeros, extremes.
TEST(Algsimp, FloatRulesOnSpecialValues) {
  auto pass = CreateAlgebraicSimplifierPass();
  const std::string hlo = R"(HloModule m
ENTRY e {
  p = f32[6] parameter(0)
  one = f32[] constant(1)
  b1 = f32[6] broadcast(one), dimensions={}
  ninf = f32[] constant(-inf)
  bn = f32[6] broadcast(ninf), dimensions={}
  pinf = f32[] constant(inf)
  bp = f32[6] broadcast(pinf), dimensions={}
  z = f32[] constant(0)
  bz = f32[6] broadcast(z), dimensions={}
  m = f32[6] multiply(b1, p)
  d = f32[6] divide(m, b1)
  mx = f32[6] maximum(bn, d)
  mn = f32[6] minimum(mx, bp)
  pw = f32[6] power(mn, b1)
  s = f32[6] subtract(pw, bz)
  cl = f32[] constant(-inf)
  ch = f32[] constant(inf)
  c = f32[6] clamp(cl, s, ch)
  n = f32[6] negate(c)
  ROOT r = f32[6] negate(n)
})";
  auto run = RunAndCompare(*pass, hlo, 1,
                           {{"f32[6] {nan, inf, -inf, -0.0, 0, 3.4028235e+38}"},
                            // The smallest normals: runs flush subnormals (float_mode.h), the
                            // rewrites keep them, as in XLA (docs/semantics.md).
                            {"f32[6] {-nan, 1.17549435e-38, -1.17549435e-38, -3.4028235e+38, 1, -1}"}},
                           /*nan_sign_free=*/true);
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(run.module->entry()->root()->opcode(), Opcode::kParameter) << run.text;
  EXPECT_EQ(run.module->entry()->instruction_count(), 1) << run.text;
}


// R77: dividing by a power of two and multiplying by its reciprocal give
// the same bits on special values too (the smallest normal halves into the
// subnormal range and flushes either way).
TEST(Algsimp, DivideByPowerOfTwoOnSpecialValues) {
  auto pass = CreateAlgebraicSimplifierPass();
  const std::string hlo = R"(HloModule m
ENTRY e {
  p = f32[8] parameter(0)
  c = f32[] constant(0.5)
  b = f32[8] broadcast(c), dimensions={}
  q = f32[8] divide(p, b)
  c2 = f32[] constant(4)
  b2 = f32[8] broadcast(c2), dimensions={}
  ROOT r = f32[8] divide(q, b2)
})";
  auto run = RunAndCompare(*pass, hlo, 1,
                           {{"f32[8] {nan, inf, -inf, -0.0, 0, 3.4028235e+38, 1.17549435e-38, -7}"}},
                           /*nan_sign_free=*/false);
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(CountOpcode(*run.module, Opcode::kDivide), 0) << run.text;
}

// R67 on floats keeps the dot's +0 for -0 products (0 * -1).
TEST(Algsimp, DotK1SignedZero) {
  auto pass = CreateAlgebraicSimplifierPass();
  const std::string hlo = R"(HloModule m
ENTRY e {
  p = f32[2,1] parameter(0)
  q = f32[1,2] parameter(1)
  ROOT r = f32[2,2] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  auto run = RunAndCompare(*pass, hlo, 1, {{"f32[2,1] {{0}, {-0.0}}", "f32[1,2] {{-1, 1}}"}});
  ASSERT_NE(run.module, nullptr);
  EXPECT_EQ(CountOpcode(*run.module, Opcode::kDot), 0);
  auto r = cpu::RunModule(*run.module, {*ParseLiteral("f32[2,1] {{0}, {-0.0}}"), *ParseLiteral("f32[1,2] {{-1, 1}}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(LiteralToString(r->results[0]), "f32[2,2]{1,0} { { 0, 0 }, { 0, 0 } }");
}


// A custom-call that pins its operand layout keeps an operand of that layout.
TEST(Algsimp, KeepsLayoutsPinnedByCustomCalls) {
  auto pass = CreateAlgebraicSimplifierPass();
  const std::string hlo = R"(HloModule m
ENTRY e {
  p = f32[2,6] parameter(0)
  a = f32[12]{0} reshape(p)
  b = f32[3,4]{0,1} reshape(a)
  ROOT c = f32[3,4] custom-call(b), custom_call_target="foo", operand_layout_constraints={f32[3,4]{0,1}}
})";
  auto parsed = ParseModule(hlo);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_TRUE(VerifyModule(**parsed).ok()) << VerifyModule(**parsed);
  auto changed = pass->Run(**parsed);
  ASSERT_TRUE(changed.ok());
  EXPECT_TRUE(VerifyModule(**parsed).ok()) << VerifyModule(**parsed) << PrintModule(**parsed);
  EXPECT_EQ(ToStdVector((*parsed)->entry()->root()->operand(0)->shape().layout().minor_to_major),
            (std::vector<int64_t>{0, 1}));
}

}  // namespace
}  // namespace hlo
