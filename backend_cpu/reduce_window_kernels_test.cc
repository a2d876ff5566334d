// Tests of the reduce-window row kernels (reduce_window_kernels.cc). On
// random inputs (floats of many magnitudes so that the order of additions
// shows in the bits, NaNs, signed zeros, infinities, full-range integers)
// and for pooling windows in NHWC / NCHW / 3-D forms, padding, strides,
// window dilation, non-default layouts, long rows and random windows, the
// fast path must give exactly the bits of the generic path: the same
// reducer with a copy in it, which no fast path recognises, so it runs
// through ctx.call in the documented order. 1 and 2 threads must agree.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/reduce_scalar_ops.h"
#include "backend_cpu/ew_types.h"
#include "backend_cpu/thread_pool.h"
#include "gtest/gtest.h"
#include "ir/attribute.h"
#include "ir/float_format.h"
#include "parser/parser.h"

namespace hlo::cpu {
namespace {

struct Case {
  std::vector<int64_t> dims;
  std::vector<WindowDimension> window;
  std::vector<int64_t> in_layout, out_layout;  // minor_to_major; empty = default
};

WindowDimension W(int64_t size, int64_t stride = 1, int64_t lo = 0, int64_t hi = 0, int64_t rhs = 1,
                  int64_t lhs = 1) {
  return WindowDimension{size, stride, lo, hi, /*base_dilation=*/lhs, /*window_dilation=*/rhs};
}

// XLA's output size of one window dimension; <= 0 when the window does not fit.
int64_t OutSize(int64_t in, const WindowDimension& w) {
  const int64_t padded = (in == 0 ? 0 : (in - 1) * w.base_dilation + 1) + w.padding_low + w.padding_high;
  const int64_t span = (w.size - 1) * w.window_dilation + 1;
  return padded < span ? 0 : (padded - span) / w.stride + 1;
}

std::string ShapeText(const std::string& type, const std::vector<int64_t>& dims, const std::vector<int64_t>& layout) {
  std::string s = absl::StrCat(type, "[", absl::StrJoin(dims, ","), "]");
  if (!layout.empty()) absl::StrAppend(&s, "{", absl::StrJoin(layout, ","), "}");
  return s;
}

std::string WindowText(const std::vector<WindowDimension>& w) {
  std::vector<std::string> size, stride, pad, rhs, lhs;
  for (const WindowDimension& d : w) {
    size.push_back(absl::StrCat(d.size));
    stride.push_back(absl::StrCat(d.stride));
    pad.push_back(absl::StrCat(d.padding_low, "_", d.padding_high));
    rhs.push_back(absl::StrCat(d.window_dilation));
    lhs.push_back(absl::StrCat(d.base_dilation));
  }
  return absl::StrCat("size=", absl::StrJoin(size, "x"), " stride=", absl::StrJoin(stride, "x"),
                      " pad=", absl::StrJoin(pad, "x"), " rhs_dilate=", absl::StrJoin(rhs, "x"),
                      " lhs_dilate=", absl::StrJoin(lhs, "x"));
}

// The module; `generic` puts a copy into the reducer so that only the
// generic path can run it. `swapped` writes op(b, a).
std::string ModuleText(const Case& c, const std::string& type, const std::string& op, const std::string& init,
                   bool generic, bool swapped = false) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < c.dims.size(); ++d) out.push_back(OutSize(c.dims[d], c.window[d]));
  const std::string b = generic ? "c" : "b";
  const std::string args = swapped ? absl::StrCat(b, ", a") : absl::StrCat("a, ", b);
  return absl::StrCat("HloModule m\nred {\n  a = ", type, "[] parameter(0)\n  b = ", type, "[] parameter(1)\n",
                      generic ? absl::StrCat("  c = ", type, "[] copy(b)\n") : "", "  ROOT r = ", type, "[] ", op,
                      "(", args, ")\n}\nENTRY e {\n  p = ", ShapeText(type, c.dims, c.in_layout),
                      " parameter(0)\n  z = ", type, "[] constant(", init, ")\n  ROOT r = ",
                      ShapeText(type, out, c.out_layout), " reduce-window(p, z), window={", WindowText(c.window),
                      "}, to_apply=red\n}\n");
}

uint64_t Next(uint64_t* s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 17;
}

// A float of varied magnitude; now and then NaN, a signed zero or infinity.
double RandomFloat(uint64_t* s) {
  const uint64_t r = Next(s);
  switch (r % 97) {
    case 0: return std::nan("");
    case 1: return 0.0;
    case 2: return -0.0;
    case 3: return (r & 1024) ? INFINITY : -INFINITY;
    default: break;
  }
  const double m = static_cast<double>(static_cast<int64_t>(Next(s) % 20001) - 10000) / 1000.0;
  return std::ldexp(m, static_cast<int>(Next(s) % 17) - 8);
}

// Random values for the parameter of `module` (in its layout).
Literal RandomInput(const Module& module, uint64_t seed) {
  const Shape& shape = module.entry()->parameter(0)->shape();
  Literal lit(shape);
  uint64_t s = seed;
  const int64_t n = shape.ElementCount();
  const int b = lit.element_bytes();
  for (int64_t i = 0; i < n; ++i) {
    uint8_t* p = lit.data() + i * b;
    switch (shape.element_type()) {
      case PrimitiveType::F32: {
        const float v = static_cast<float>(RandomFloat(&s));
        std::memcpy(p, &v, 4);
        break;
      }
      case PrimitiveType::F64: {
        const double v = RandomFloat(&s) * (1.0 + 1e-9);  // low bits set, so f64 sums are inexact too
        std::memcpy(p, &v, 8);
        break;
      }
      case PrimitiveType::BF16: {
        const uint16_t v = ew::FloatToBF16(static_cast<float>(RandomFloat(&s)));
        std::memcpy(p, &v, 2);
        break;
      }
      case PrimitiveType::F16: {
        const uint16_t v = ew::FloatToHalf(static_cast<float>(RandomFloat(&s)));
        std::memcpy(p, &v, 2);
        break;
      }
      default: {  // integers: full range, so that sums wrap
        const uint64_t v = Next(&s) ^ (Next(&s) << 40);
        std::memcpy(p, &v, b);
        break;
      }
    }
  }
  return lit;
}

std::unique_ptr<Module> MustParse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  return m.ok() ? std::move(*m) : nullptr;
}

Literal MustRun(const Module& module, const Literal& arg) {
  std::vector<Literal> args;
  args.push_back(arg);
  absl::StatusOr<RunResult> r = RunModule(module, args);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? std::move(r->results[0]) : Literal();
}

// Empty when a and b have the same shape and bits, else where they first
// differ (printing whole literals would drown the message). With
// `any_nan`, two NaNs count as equal whatever their payloads: which
// payload an add of two NaNs keeps (x86: the first operand's; 0xffc00000
// for inf - inf) depends on the operand order the compiler picks, in
// either path, and XLA does not specify it.
std::string BitsDiffer(const Literal& a, const Literal& b, bool any_nan = false) {
  if (!(a.shape() == b.shape()) || a.size_bytes() != b.size_bytes()) return "shapes differ";
  const PrimitiveType t = a.shape().element_type();
  const int eb = a.element_bytes();
  for (size_t i = 0; i < a.size_bytes(); i += eb) {
    if (std::memcmp(a.data() + i, b.data() + i, eb) == 0) continue;
    uint64_t x = 0, y = 0;
    std::memcpy(&x, a.data() + i, eb);
    std::memcpy(&y, b.data() + i, eb);
    if (any_nan && IsFloat(t) && IsNanBits(t, x) && IsNanBits(t, y)) continue;
    return absl::StrCat("element ", i / eb, " (physical order) differs: bits 0x", absl::Hex(x), " vs 0x",
                        absl::Hex(y));
  }
  return "";
}

// Fast path == generic path, bit for bit, for one case, type, op and init.
void ExpectFastEqualsGeneric(const Case& c, const std::string& type, const std::string& op, const std::string& init,
                             uint64_t seed, bool swapped = false) {
  const std::string fast_text = ModuleText(c, type, op, init, /*generic=*/false, swapped);
  std::unique_ptr<Module> fast = MustParse(fast_text);
  std::unique_ptr<Module> generic = MustParse(ModuleText(c, type, op, init, /*generic=*/true, swapped));
  ASSERT_TRUE(fast && generic);
  const Literal arg = RandomInput(*fast, seed);
  const Literal a = MustRun(*fast, arg);
  const Literal b = MustRun(*generic, arg);
  EXPECT_EQ(BitsDiffer(a, b, /*any_nan=*/op == "add"), "") << "fast vs generic path of\n" << fast_text;
}

struct TypeOps {
  std::string type;
  std::vector<std::pair<std::string, std::string>> op_inits;  // identity inits and others
};

const std::vector<TypeOps>& AllTypes() {
  static const auto* types = new std::vector<TypeOps>{
      {"f32", {{"maximum", "-inf"}, {"minimum", "inf"}, {"add", "0"}, {"add", "0.3"}, {"maximum", "0.5"}}},
      {"bf16", {{"maximum", "-inf"}, {"add", "0"}, {"add", "-1.25"}, {"minimum", "inf"}}},
      {"f16", {{"maximum", "-inf"}, {"add", "0"}, {"minimum", "2"}}},
      {"f64", {{"maximum", "-inf"}, {"add", "0"}, {"add", "1e-3"}}},
      {"s32", {{"maximum", "-2147483648"}, {"add", "0"}, {"minimum", "7"}}},
      {"s8", {{"add", "3"}, {"maximum", "-128"}}},
      {"u16", {{"add", "0"}, {"minimum", "65535"}}},
      {"s64", {{"add", "0"}, {"maximum", "-5"}}},
      {"u8", {{"maximum", "0"}, {"add", "1"}}},
  };
  return *types;
}

// Pooling shapes: rank-4 NHWC / NCHW, rank-5 (3-D windows), long rows,
// size-1 dimensions, global pooling, and layouts other than the default.
std::vector<Case> PoolingCases() {
  return {
      // NHWC, VALID 2x2/2 (odd H, W: the last row and column drop out).
      {{2, 9, 9, 5}, {W(1), W(2, 2), W(2, 2), W(1)}, {}, {}},
      // NHWC, SAME 3x3/2 (padding at both ends).
      {{2, 9, 8, 5}, {W(1), W(3, 2, 1, 1), W(3, 2, 1, 1), W(1)}, {}, {}},
      // NHWC avg-pool style 3x3/1 SAME, and window dilation.
      {{1, 7, 6, 4}, {W(1), W(3, 1, 1, 1), W(3, 1, 1, 1), W(1)}, {}, {}},
      {{1, 9, 9, 3}, {W(1), W(2, 1, 0, 0, 2), W(3, 2, 1, 1, 2), W(1)}, {}, {}},
      // NCHW: the windowed W is the row (strided taps, padded ends).
      {{2, 3, 9, 10}, {W(1), W(1), W(2, 2), W(2, 2)}, {}, {}},
      {{2, 3, 9, 10}, {W(1), W(1), W(3, 2, 1, 1), W(3, 2, 1, 1)}, {}, {}},
      {{1, 2, 5, 11}, {W(1), W(1), W(3, 1, 2, 0), W(4, 3, 1, 2)}, {}, {}},
      // NCHW data stored as {0,3,2,1} and {1,0,3,2}: same layout in and out
      // (computed in place), and different layouts (row-major copies).
      {{3, 6, 7, 4}, {W(1), W(2, 2), W(2, 2), W(1)}, {0, 3, 2, 1}, {0, 3, 2, 1}},
      {{3, 4, 7, 6}, {W(1), W(1), W(3, 2, 1, 1), W(2, 2)}, {0, 3, 2, 1}, {0, 3, 2, 1}},
      {{3, 4, 7, 6}, {W(1), W(1), W(3, 2, 1, 1), W(2, 2)}, {1, 0, 3, 2}, {1, 0, 3, 2}},
      {{3, 6, 7, 4}, {W(1), W(2, 2), W(2, 2), W(1)}, {0, 3, 2, 1}, {3, 2, 1, 0}},
      {{3, 6, 7, 4}, {W(1), W(3, 1, 1, 1), W(2, 2), W(1)}, {3, 2, 1, 0}, {2, 1, 0, 3}},
      // 3-D windows: NDHWC and NCDHW.
      {{2, 5, 6, 7, 3}, {W(1), W(2, 2), W(2, 2), W(2, 2), W(1)}, {}, {}},
      {{1, 2, 5, 6, 7}, {W(1), W(1), W(3, 2, 1, 1), W(3, 2, 1, 1), W(3, 2, 1, 1)}, {}, {}},
      // Rows longer than one block of accumulators (256 outputs).
      {{2, 3, 2, 300}, {W(1), W(2, 1), W(2, 2), W(1)}, {}, {}},
      {{700}, {W(3, 1, 1, 1)}, {}, {}},
      {{2, 1100}, {W(1), W(5, 2, 2, 3)}, {}, {}},
      // Size-1 dimensions: C = 1 in NHWC, a padded window over a size-1
      // dimension, everything of size 1.
      {{2, 8, 8, 1}, {W(1), W(2, 2), W(2, 2), W(1)}, {}, {}},
      {{4, 1, 5}, {W(2, 1), W(3, 1, 1, 1), W(1)}, {}, {}},
      {{1, 1}, {W(1), W(1)}, {}, {}},
      // Global pooling, a window of all ones, windows wider than the input
      // (padding only on some outputs), negative padding, a base dilation
      // (per-output kernel).
      {{2, 5, 5, 7}, {W(1), W(5), W(5), W(1)}, {}, {}},
      {{3, 4, 5}, {W(1), W(1), W(1)}, {}, {}},
      {{2, 3}, {W(1), W(5, 1, 3, 3)}, {}, {}},
      {{2, 9}, {W(1), W(2, 2, -1, 0)}, {}, {}},
      {{2, 4, 5}, {W(1), W(2, 1, 0, 0, 1, 2), W(2, 2)}, {}, {}},
  };
}

TEST(ReductionReduceWindowRows, PoolingFastEqualsGeneric) {
  uint64_t seed = 1;
  for (const Case& c : PoolingCases())
    for (const TypeOps& t : AllTypes())
      for (const auto& [op, init] : t.op_inits) ExpectFastEqualsGeneric(c, t.type, op, init, ++seed);
}

// maximum(b, a) takes the fast path too; it still folds op(acc, x).
TEST(ReductionReduceWindowRows, SwappedReducerFastEqualsGeneric) {
  const Case c{{2, 6, 6, 3}, {W(1), W(2, 2), W(2, 2), W(1)}, {}, {}};
  ExpectFastEqualsGeneric(c, "f32", "maximum", "-inf", 7, /*swapped=*/true);
  ExpectFastEqualsGeneric(c, "bf16", "add", "0", 8, /*swapped=*/true);
}

// Random windows over random shapes and layouts.
TEST(ReductionReduceWindowRows, RandomWindowsFastEqualsGeneric) {
  uint64_t s = 12345;
  const std::vector<std::string> types = {"f32", "bf16", "f64", "s32"};
  const std::vector<std::pair<std::string, std::string>> ops = {{"add", "0"}, {"maximum", "-inf"}, {"minimum", "1"}};
  int done = 0;
  while (done < 120) {
    Case c;
    const int rank = 1 + static_cast<int>(Next(&s) % 4);
    bool fits = true;
    for (int d = 0; d < rank; ++d) {
      c.dims.push_back(1 + static_cast<int64_t>(Next(&s) % 7));
      const bool windowed = Next(&s) % 3 != 0;
      WindowDimension w = windowed ? W(1 + Next(&s) % 3, 1 + Next(&s) % 3, Next(&s) % 3, Next(&s) % 3,
                                       1 + Next(&s) % 2, Next(&s) % 8 == 0 ? 2 : 1)
                                   : W(1);
      fits = fits && OutSize(c.dims.back(), w) > 0;
      c.window.push_back(w);
    }
    if (!fits) continue;
    std::vector<int64_t> perm(rank);
    for (int d = 0; d < rank; ++d) perm[d] = rank - 1 - d;
    for (int d = rank - 1; d > 0; --d) std::swap(perm[d], perm[Next(&s) % (d + 1)]);
    c.in_layout = perm;
    c.out_layout = Next(&s) % 3 == 0 ? std::vector<int64_t>() : perm;
    const std::string& type = types[done % types.size()];
    auto [op, init] = ops[(done / types.size()) % ops.size()];
    if (type == "s32" && init == "-inf") init = "-7";
    ExpectFastEqualsGeneric(c, type, op, init, ++s);
    ++done;
  }
}

// Max-pool and avg-pool sized so that the work is cut into many blocks:
// 1 and 2 threads give identical bits (and the generic path's).
TEST(ReductionReduceWindowRows, ThreadCountDoesNotChangeBits) {
  const std::vector<Case> cases = {
      {{4, 32, 32, 48}, {W(1), W(2, 2), W(2, 2), W(1)}, {}, {}},
      {{4, 32, 32, 48}, {W(1), W(3, 1, 1, 1), W(3, 1, 1, 1), W(1)}, {}, {}},
      {{2, 16, 40, 40}, {W(1), W(1), W(3, 2, 1, 1), W(3, 2, 1, 1)}, {}, {}},
  };
  const int width = ThreadPoolWidth();
  uint64_t seed = 99;
  for (const Case& c : cases) {
    for (const auto& [type, op, init] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"f32", "maximum", "-inf"}, {"f32", "add", "0"}, {"bf16", "add", "0"}}) {
      std::unique_ptr<Module> fast = MustParse(ModuleText(c, type, op, init, false));
      ASSERT_TRUE(fast);
      const Literal arg = RandomInput(*fast, ++seed);
      SetThreadPoolWidth(1);
      const Literal one = MustRun(*fast, arg);
      SetThreadPoolWidth(2);
      const Literal two = MustRun(*fast, arg);
      SetThreadPoolWidth(width);
      EXPECT_EQ(BitsDiffer(one, two), "") << "1 vs 2 threads on\n" << ModuleText(c, type, op, init, false);
    }
  }
  ExpectFastEqualsGeneric(cases[1], "f32", "add", "0", 5);
}

// The select-only maximum / minimum of the fast paths equal the elementwise
// kernels' ew::FMax / ew::FMin bit for bit on every pair of special values:
// NaNs of both signs and different payloads, +-0, +-inf, subnormals, equal
// and unequal finite values.
template <class C, class U>
void ExpectSelectMaxMinEqualFMaxFMin(const std::vector<U>& bits) {
  for (U x : bits) {
    for (U y : bits) {
      const C a = ew::BitCast<C>(x), b = ew::BitCast<C>(y);
      EXPECT_EQ(ew::BitCast<U>(red::SelectMax(a, b)), ew::BitCast<U>(ew::FMax(a, b)))
          << std::hex << "max 0x" << x << " 0x" << y;
      EXPECT_EQ(ew::BitCast<U>(red::SelectMin(a, b)), ew::BitCast<U>(ew::FMin(a, b)))
          << std::hex << "min 0x" << x << " 0x" << y;
    }
  }
}

TEST(ReductionReduceWindowRows, SelectMaxMinEqualFMaxFMin) {
  ExpectSelectMaxMinEqualFMaxFMin<float, uint32_t>(
      {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7fc00001u, 0x7fa00000u,
       0x00000001u, 0x80000001u, 0x3f800000u, 0xbf800000u, 0x3f800001u, 0x7f7fffffu, 0xff7fffffu});
  ExpectSelectMaxMinEqualFMaxFMin<double, uint64_t>(
      {0x0ull, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
       0xfff8000000000000ull, 0x7ff8000000000001ull, 0x1ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
       0x3ff0000000000001ull});
}

}  // namespace
}  // namespace hlo::cpu
