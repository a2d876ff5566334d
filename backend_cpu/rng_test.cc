// Tests of rng-bit-generator (rng.cc): the Random123 block functions on
// their published known-answer vectors, the op's output against values that
// XLA itself produced (where someone published them), and the layout rules
// of XLA's expansion against a re-computation written independently of
// rng.cc (multi-indices instead of strides, one block call per element).
#include "backend_cpu/rng.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/thread_pool.h"
#include "gtest/gtest.h"
#include "ir/printer.h"

namespace hlo::cpu {
namespace {

// ------------------------------------------------- Random123 known answers
//
// Random123 1.09, tests/kat_vectors (also quoted by JAX's testThreefry2x32,
// which points at Random123-Boost's test_threefry.cpp). Columns: counter
// words, key words, expected output words, word 0 first.

TEST(RngBlocks, Philox4x32x10KnownAnswers) {
  struct Case {
    uint32_t counter[4], key[2], want[4];
  };
  const Case cases[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Case& c : cases) {
    uint32_t out[4];
    Philox4x32(c.counter, c.key, out);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], c.want[i]) << "word " << i;
  }
}

TEST(RngBlocks, ThreeFry2x32x20KnownAnswers) {
  struct Case {
    uint32_t counter[2], key[2], want[2];
  };
  const Case cases[] = {
      {{0, 0}, {0, 0}, {0x6b200159, 0x99ba4efe}},
      {{0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}, {0x1cb996fc, 0xbb002be7}},
      {{0x243f6a88, 0x85a308d3}, {0x13198a2e, 0x03707344}, {0xc4923a9c, 0x483df7a0}},
  };
  for (const Case& c : cases) {
    uint32_t out[2];
    ThreeFry2x32(c.counter, c.key, out);
    EXPECT_EQ(out[0], c.want[0]);
    EXPECT_EQ(out[1], c.want[1]);
  }
}

// ------------------------------------------------------------ running the op

struct RbgResult {
  std::vector<uint64_t> state;
  Literal bits;
  // Element i of the bits in row-major order, as an integer (sign-extended
  // for signed types, zero-extended otherwise).
  int64_t at(int64_t i) const { return bits.GetInt(i); }
  uint64_t u(int64_t i) const { return static_cast<uint64_t>(at(i)); }
};

std::string StateText(const std::vector<uint64_t>& state) {
  return absl::StrCat("u64[", state.size(), "]{0} {", absl::StrJoin(state, ", "), "}");
}

// Runs `(state, bits_shape) rng-bit-generator(state)` through the executor.
// `bits_shape` is HLO shape text such as "u32[3,2]" (row-major unless it
// spells a layout).
absl::StatusOr<Literal> RunRbgRaw(const std::string& algorithm, const std::vector<uint64_t>& state,
                                  const std::string& bits_shape) {
  const std::string hlo = absl::StrCat(R"(HloModule m
ENTRY e {
  s = u64[)", state.size(), R"(] parameter(0)
  ROOT r = (u64[)", state.size(), "], ", bits_shape, ") rng-bit-generator(s), algorithm=",
                                       algorithm, "\n}\n");
  return RunHloText(hlo, {StateText(state)});
}

RbgResult RunRbg(const std::string& algorithm, const std::vector<uint64_t>& state,
                 const std::string& bits_shape) {
  absl::StatusOr<Literal> got = RunRbgRaw(algorithm, state, bits_shape);
  EXPECT_TRUE(got.ok()) << got.status();
  RbgResult r;
  if (!got.ok()) return r;
  const Literal& st = got->tuple_elements()[0];
  for (int64_t i = 0; i < st.shape().dim(0); ++i) r.state.push_back(st.GetRaw<uint64_t>(i));
  r.bits = got->tuple_elements()[1];
  return r;
}

// ------------------------------------------------------ XLA's own outputs

// ThreeFry, u32[3,2] from state {0, 0}. Source: the r-xla/anvil reference
// page of nvl_rng_bit_generator (reference/nvl_rng_bit_generator.md), whose
// example runs this op through XLA's CPU PJRT plugin and prints
//   1.7973e+09 2.5791e+09 / 1.3515e+09 3.2358e+09 / 1.6886e+09 4.2293e+09
// and the new state {0, 3}. The exact words are ThreeFry2x32 of counters
// 0, 1, 2 under key 0 (the same sequence opens Boost.Compute's
// threefry_engine test); row i holds both words of counter i because the
// split dimension of [3,2] is dim 1.
TEST(RngBitGeneratorXla, ThreeFryU32FromAnvilExample) {
  const RbgResult r = RunRbg("rng_three_fry", {0, 0}, "u32[3,2]");
  const uint64_t want[6] = {0x6b200159, 0x99ba4efe, 0x508efb2c,
                            0xc0de3f32, 0x64a626ec, 0xfc15e573};
  const double printed[6] = {1.7973e9, 2.5791e9, 1.3515e9, 3.2358e9, 1.6886e9, 4.2293e9};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(r.u(i), want[i]) << "element " << i;
    EXPECT_NEAR(static_cast<double>(r.u(i)), printed[i], 0.00005e9) << "element " << i;
  }
  EXPECT_EQ(r.state, (std::vector<uint64_t>{0, 3}));
}

// Philox (rng_default on the CPU), u32[5]. Source: JAX's
// tests/random_test.py, _RANDOM_VALUES_CASES entry
//   RandomValuesCase("uniform", "rbg", (5,), np.float32, {},
//     np.array([0.477161, 0.706508, 0.656261, 0.432547, 0.057772]))
// run on CPU by testRandomDistributionValues. There the seed is
// zlib.adler32(b"uniformrbg") = 395641916; the rbg key is the u32[4]
// {0, seed, 0, seed}, which JAX's lowering bitcasts to the u64[2] state
// {seed << 32, seed << 32} of an rng_default rng-bit-generator of u32[5];
// jax.random.uniform then takes ((bits >> 9) | 0x3f800000) as f32 minus 1,
// i.e. (bits >> 9) * 2^-23. The value depends on the counter's high half
// being the key word (a zero high half gives 0.771338, 0.018044, ...).
TEST(RngBitGeneratorXla, PhiloxU32FromJaxRbgUniform) {
  const uint64_t seed = 395641916;
  const std::vector<uint64_t> state = {seed << 32, seed << 32};
  const double jax_uniform[5] = {0.477161, 0.706508, 0.656261, 0.432547, 0.057772};
  for (const char* algorithm : {"rng_default", "rng_philox"}) {
    SCOPED_TRACE(algorithm);
    const RbgResult r = RunRbg(algorithm, state, "u32[5]");
    for (int i = 0; i < 5; ++i) {
      const double uniform = std::ldexp(static_cast<double>(r.u(i) >> 9), -23);
      EXPECT_NEAR(uniform, jax_uniform[i], 0.6e-6) << "element " << i;
    }
    // Two blocks of four words were used.
    EXPECT_EQ(r.state, (std::vector<uint64_t>{seed << 32, (seed << 32) + 2}));
  }
}

// ----------------------------------- re-computation of the expansion's rules

// Philox's word stream: words of block b (counter + b, 128-bit add) in
// order, counting blocks from `lo`/`hi`.
std::vector<uint32_t> PhiloxWords(uint64_t key, uint64_t lo, uint64_t hi, int64_t count) {
  std::vector<uint32_t> words;
  const uint32_t k[2] = {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)};
  for (uint64_t b = 0; static_cast<int64_t>(words.size()) < count; ++b) {
    const unsigned __int128 c = ((static_cast<unsigned __int128>(hi) << 64) | lo) + b;
    uint32_t ctr[4], out[4];
    for (int i = 0; i < 4; ++i) ctr[i] = static_cast<uint32_t>(c >> (32 * i));
    Philox4x32(ctr, k, out);
    words.insert(words.end(), out, out + 4);
  }
  return words;
}

TEST(RngBitGeneratorRules, PhiloxStateU64x3ThirdWordIsCounterHigh) {
  const std::vector<uint64_t> state = {0x0123456789abcdefull, 7, 0xfedcba9876543210ull};
  const RbgResult r = RunRbg("rng_philox", state, "u32[2,3]");
  const std::vector<uint32_t> w = PhiloxWords(state[0], state[1], state[2], 6);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(r.u(i), w[i]) << "element " << i;
  EXPECT_EQ(r.state, (std::vector<uint64_t>{state[0], 9, state[2]}));
}

TEST(RngBitGeneratorRules, Philox64BitElementsTakeTwoWordsFirstLow) {
  const std::vector<uint64_t> state = {42, 1000};
  const RbgResult r = RunRbg("rng_philox", state, "u64[5]");
  const std::vector<uint32_t> w = PhiloxWords(state[0], state[1], state[0], 10);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(r.u(i), (static_cast<uint64_t>(w[2 * i + 1]) << 32) | w[2 * i]) << "element " << i;
  }
  // Two elements per block: 3 blocks.
  EXPECT_EQ(r.state, (std::vector<uint64_t>{42, 1003}));
  // Signed 64-bit results carry the same bits.
  const RbgResult s = RunRbg("rng_philox", state, "s64[5]");
  for (int i = 0; i < 5; ++i) EXPECT_EQ(s.u(i), r.u(i));
}

TEST(RngBitGeneratorRules, PhiloxCounterCarriesIntoHighHalf) {
  const uint64_t max = ~0ull;
  // u64[3]: the high word takes the carry, in the blocks and in the state.
  {
    const std::vector<uint64_t> state = {5, max, 10};
    const RbgResult r = RunRbg("rng_philox", state, "u32[8]");
    const std::vector<uint32_t> w = PhiloxWords(5, max, 10, 8);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(r.u(i), w[i]) << "element " << i;
    EXPECT_EQ(r.state, (std::vector<uint64_t>{5, 1, 11}));
  }
  // u64[2]: the second block runs with high half key + 1, but the returned
  // state keeps only the low counter word.
  {
    const std::vector<uint64_t> state = {5, max};
    const RbgResult r = RunRbg("rng_philox", state, "u32[8]");
    const std::vector<uint32_t> w = PhiloxWords(5, max, 5, 8);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(r.u(i), w[i]) << "element " << i;
    EXPECT_EQ(r.state, (std::vector<uint64_t>{5, 1}));
  }
}

TEST(RngBitGeneratorRules, PhiloxNarrowTypesKeepLowBitsOfOneWordEach) {
  const std::vector<uint64_t> state = {0x1111222233334444ull, 0x5555666677778888ull, 3};
  const RbgResult full = RunRbg("rng_philox", state, "u32[7]");
  for (const char* type : {"u16", "u8", "u4", "u2", "u1", "s32", "s16", "s8", "s4", "s2"}) {
    SCOPED_TRACE(type);
    const RbgResult r = RunRbg("rng_philox", state, absl::StrCat(type, "[7]"));
    const bool is_signed = type[0] == 's';
    const int width = std::stoi(type + 1);
    for (int i = 0; i < 7; ++i) {
      uint64_t want = full.u(i) & ((1ull << width) - 1);
      int64_t want_value = static_cast<int64_t>(want);
      if (is_signed && (want >> (width - 1)) != 0) want_value -= int64_t{1} << width;
      EXPECT_EQ(r.at(i), want_value) << "element " << i;
    }
    // Narrow types use one word per element, like u32: 2 blocks.
    EXPECT_EQ(r.state, full.state);
  }
}

// ThreeFry, written from the description of XLA's expansion: for an output
// multi-index, the halved shape has dims[split] replaced by
// (ceil(dims[split] / 2), 1); the element reads word index[split] % 2 of
// the counter whose row-major position in the halved shape is that of
// index with index[split] / 2 (and 0 in the new unit dim).
int SplitDim(const std::vector<int64_t>& dims) {
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] % 2 == 0) return static_cast<int>(i);
  int best = 0;
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] > dims[best]) best = static_cast<int>(i);
  return best;
}

std::vector<uint64_t> ExpectedThreeFry32(uint64_t key, uint64_t counter,
                                         const std::vector<int64_t>& dims) {
  const uint32_t k[2] = {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)};
  auto words_of = [&](uint64_t c, uint32_t out[2]) {
    const uint32_t ctr[2] = {static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32)};
    ThreeFry2x32(ctr, k, out);
  };
  if (dims.empty()) {
    uint32_t out[2];
    words_of(counter, out);
    return {out[0]};
  }
  const int split = SplitDim(dims);
  std::vector<int64_t> half_dims;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (static_cast<int>(d) == split) {
      half_dims.push_back((dims[d] + 1) / 2);
      half_dims.push_back(1);
    } else {
      half_dims.push_back(dims[d]);
    }
  }
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<uint64_t> result;
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    // Row-major position of the halved index in the halved shape.
    std::vector<int64_t> half_index;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (static_cast<int>(d) == split) {
        half_index.push_back(index[d] / 2);
        half_index.push_back(0);
      } else {
        half_index.push_back(index[d]);
      }
    }
    int64_t position = 0;
    for (size_t d = 0; d < half_dims.size(); ++d)
      position = position * half_dims[d] + half_index[d];
    uint32_t out[2];
    words_of(counter + static_cast<uint64_t>(position), out);
    result.push_back(out[index[split] % 2]);
    // Next multi-index, last dimension fastest.
    for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  return result;
}

std::string ShapeText(const char* type, const std::vector<int64_t>& dims) {
  return absl::StrCat(type, "[", absl::StrJoin(dims, ","), "]");
}

TEST(RngBitGeneratorRules, ThreeFry32BitLayoutOverShapes) {
  const uint64_t key = 0x9e3779b97f4a7c15ull, counter = 0x0000000100000005ull;
  const std::vector<std::vector<int64_t>> shapes = {{},     {1},    {5},    {6},       {2, 3},
                                                    {3, 2}, {3, 5}, {3, 3}, {1, 1},    {4, 0},
                                                    {3, 4, 5}, {3, 5, 7}, {5, 1, 3}};
  for (const std::vector<int64_t>& dims : shapes) {
    SCOPED_TRACE(ShapeText("u32", dims));
    const RbgResult r = RunRbg("rng_three_fry", {key, counter}, ShapeText("u32", dims));
    const std::vector<uint64_t> want = ExpectedThreeFry32(key, counter, dims);
    ASSERT_EQ(r.bits.physical_count(), static_cast<int64_t>(want.size()));
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(r.u(i), want[i]) << "element " << i;
    // The counter advances by the size of the halved shape.
    int64_t used = 1;
    if (!dims.empty()) {
      const int split = SplitDim(dims);
      for (size_t d = 0; d < dims.size(); ++d)
        used *= static_cast<int>(d) == split ? (dims[d] + 1) / 2 : dims[d];
    }
    EXPECT_EQ(r.state, (std::vector<uint64_t>{key, counter + used}));
  }
}

TEST(RngBitGeneratorRules, ThreeFryNarrowTypesTruncateThe32BitLayout) {
  const std::vector<uint64_t> state = {77, 88};
  const RbgResult full = RunRbg("rng_three_fry", state, "u32[3,5]");
  for (const char* type : {"u16", "s16", "u8", "s8", "u4", "s32"}) {
    SCOPED_TRACE(type);
    const RbgResult r = RunRbg("rng_three_fry", state, absl::StrCat(type, "[3,5]"));
    const bool is_signed = type[0] == 's';
    const int width = std::stoi(type + 1);
    for (int i = 0; i < 15; ++i) {
      const uint64_t low = full.u(i) & ((1ull << width) - 1);
      int64_t want = static_cast<int64_t>(low);
      if (is_signed && (low >> (width - 1)) != 0) want -= int64_t{1} << width;
      EXPECT_EQ(r.at(i), want) << "element " << i;
    }
    EXPECT_EQ(r.state, full.state);
  }
}

TEST(RngBitGeneratorRules, ThreeFry64BitElementsUseOneCounterEach) {
  const uint64_t key = 3, counter = ~0ull - 2;  // the counter wraps after 3 elements
  const RbgResult r = RunRbg("rng_three_fry", {key, counter}, "u64[2,3]");
  const uint32_t k[2] = {3, 0};
  for (int i = 0; i < 6; ++i) {
    const uint64_t c = counter + static_cast<uint64_t>(i);
    const uint32_t ctr[2] = {static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32)};
    uint32_t out[2];
    ThreeFry2x32(ctr, k, out);
    EXPECT_EQ(r.u(i), (static_cast<uint64_t>(out[1]) << 32) | out[0]) << "element " << i;
  }
  EXPECT_EQ(r.state, (std::vector<uint64_t>{key, counter + 6}));
}

TEST(RngBitGeneratorRules, ResultLayoutDoesNotChangeTheValues) {
  for (const char* algorithm : {"rng_three_fry", "rng_philox"}) {
    SCOPED_TRACE(algorithm);
    absl::StatusOr<Literal> row_major = RunRbgRaw(algorithm, {1, 2}, "u32[3,4]{1,0}");
    absl::StatusOr<Literal> col_major = RunRbgRaw(algorithm, {1, 2}, "u32[3,4]{0,1}");
    ASSERT_TRUE(row_major.ok()) << row_major.status();
    ASSERT_TRUE(col_major.ok()) << col_major.status();
    EXPECT_TRUE(row_major->LogicallyEqual(*col_major))
        << LiteralToString(*row_major) << "\n" << LiteralToString(*col_major);
  }
}

TEST(RngBitGeneratorRules, SameBitsForEveryThreadCount) {
  const int old_width = ThreadPoolWidth();
  for (const char* algorithm : {"rng_three_fry", "rng_philox"}) {
    SCOPED_TRACE(algorithm);
    std::vector<Literal> results;
    for (int width : {1, 3}) {
      SetThreadPoolWidth(width);
      absl::StatusOr<Literal> got = RunRbgRaw(algorithm, {9, 10}, "u32[301,257]");
      ASSERT_TRUE(got.ok()) << got.status();
      results.push_back(*std::move(got));
    }
    EXPECT_TRUE(results[0].LogicallyEqual(results[1]));
  }
  SetThreadPoolWidth(old_width);
}

TEST(RngBitGeneratorRules, StateShapesXlaRejects) {
  struct Case {
    const char* algorithm;
    std::vector<uint64_t> state;
    const char* message;
  };
  const Case cases[] = {
      {"rng_three_fry", {1, 2, 3}, "rng_three_fry needs a u64[2] state, got u64[3]"},
      {"rng_three_fry", {1}, "rng_three_fry needs a u64[2] state, got u64[1]"},
      {"rng_philox", {1}, "rng_philox (Philox) needs a u64[2] or u64[3] state, got u64[1]"},
      {"rng_default", {1, 2, 3, 4},
       "rng_default (Philox) needs a u64[2] or u64[3] state, got u64[4]"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Literal> got = RunRbgRaw(c.algorithm, c.state, "u32[4]");
    ASSERT_FALSE(got.ok());
    EXPECT_NE(std::string(got.status().message()).find(c.message), std::string::npos)
        << got.status();
  }
}

}  // namespace
}  // namespace hlo::cpu
