#include "backend_cpu/rng.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace hlo::cpu {

void Philox4x32(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  uint32_t c[4] = {counter[0], counter[1], counter[2], counter[3]};
  uint32_t k[2] = {key[0], key[1]};
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(kM0) * c[0];
    const uint64_t p1 = static_cast<uint64_t>(kM1) * c[2];
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0];
    const uint32_t n1 = static_cast<uint32_t>(p1);
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1];
    const uint32_t n3 = static_cast<uint32_t>(p0);
    c[0] = n0; c[1] = n1; c[2] = n2; c[3] = n3;
    k[0] += kW0;
    k[1] += kW1;
  }
  std::memcpy(out, c, sizeof(c));
}

void ThreeFry2x32(const uint32_t counter[2], const uint32_t key[2], uint32_t out[2]) {
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {key[0], key[1], key[0] ^ key[1] ^ 0x1BD11BDAu};
  uint32_t x0 = counter[0] + ks[0], x1 = counter[1] + ks[1];
  for (int block = 0; block < 5; ++block) {
    for (int r = 0; r < 4; ++r) {
      const int rot = kRotations[(block % 2) * 4 + r];
      x0 += x1;
      x1 = (x1 << rot) | (x1 >> (32 - rot));
      x1 ^= x0;
    }
    x0 += ks[(block + 1) % 3];
    x1 += ks[(block + 2) % 3] + static_cast<uint32_t>(block + 1);
  }
  out[0] = x0;
  out[1] = x1;
}

namespace {

// splitmix64: the stream behind `rng` (uniform/normal), seeded by the run.
uint64_t NextRandom(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double Uniform01(uint64_t* state) { return (NextRandom(state) >> 11) * 0x1.0p-53; }

}  // namespace

absl::StatusOr<Literal> EvalRng(const Instruction& instr, absl::Span<const Literal* const> ops,
                                OpContext& ctx) {
  const std::string dist = instr.AttrOr<std::string>("distribution", "");
  if (ops.size() != 2 || !ops[0]->shape().IsScalar() || !ops[1]->shape().IsScalar())
    return OpError(instr, "rng takes two scalar operands");
  const PrimitiveType t = instr.shape().element_type();
  Literal out(instr.shape());
  uint64_t local = 0;
  uint64_t* state = ctx.rng_state ? ctx.rng_state : &local;
  const int64_t n = out.physical_count();
  if (dist == "rng_uniform") {
    if (IsFloat(t)) {
      const double a = ops[0]->GetDouble(0), b = ops[1]->GetDouble(0);
      for (int64_t i = 0; i < n; ++i) {
        double v = a + (b - a) * Uniform01(state);
        out.SetDouble(i, v);
        if (out.GetDouble(i) >= b && b > a) out.SetDouble(i, a);  // keep [a, b) after rounding
      }
    } else if (IsInteger(t)) {
      const int64_t a = ops[0]->GetInt(0), b = ops[1]->GetInt(0);
      if (b <= a) return OpError(instr, "rng_uniform needs a < b for integers");
      const uint64_t range = static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
      for (int64_t i = 0; i < n; ++i)
        out.SetInt(i, static_cast<int64_t>(static_cast<uint64_t>(a) + NextRandom(state) % range));
    } else if (t == PrimitiveType::PRED) {
      for (int64_t i = 0; i < n; ++i) out.SetInt(i, NextRandom(state) & 1);
    } else {
      return OpUnimplemented(instr, absl::StrCat("rng_uniform of ", PrimitiveTypeName(t)));
    }
    return out;
  }
  if (dist == "rng_normal") {
    if (!IsFloat(t)) return OpError(instr, "rng_normal needs a floating-point result");
    const double mu = ops[0]->GetDouble(0), sigma = ops[1]->GetDouble(0);
    for (int64_t i = 0; i < n; ++i) {
      // Box-Muller; u1 in (0, 1].
      const double u1 = 1.0 - Uniform01(state), u2 = Uniform01(state);
      out.SetDouble(i, mu + sigma * std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * M_PI * u2));
    }
    return out;
  }
  return OpError(instr, absl::StrCat("unknown distribution '", dist, "'"));
}

absl::StatusOr<Literal> EvalRngBitGenerator(const Instruction& instr,
                                            absl::Span<const Literal* const> ops, OpContext&) {
  const Shape& shape = instr.shape();
  if (!shape.IsTuple() || shape.tuple_shapes().size() != 2)
    return OpError(instr, "result must be (state, bits)");
  const Literal& state = *ops[0];
  if (!state.shape().IsArray() || state.shape().element_type() != PrimitiveType::U64 ||
      state.shape().rank() != 1 || state.shape().dim(0) < 1)
    return OpError(instr, "state must be u64[N]");
  const std::string algorithm = instr.AttrOr<std::string>("algorithm", "rng_default");
  const bool threefry = algorithm == "rng_three_fry";
  const int64_t state_n = state.shape().dim(0);
  std::vector<uint64_t> s(state_n);
  for (int64_t i = 0; i < state_n; ++i) s[i] = state.GetRaw<uint64_t>(state.Slot({i}));
  if (threefry && state_n != 2) return OpError(instr, "rng_three_fry needs a u64[2] state");
  if (!threefry && state_n != 2 && state_n != 3)
    return OpError(instr, "rng_philox needs a u64[2] or u64[3] state");

  const Shape& bits_shape = shape.tuple_shapes()[1];
  if (!bits_shape.IsArray()) return OpError(instr, "bits must be an array");
  Literal bits = RowMajorLiteral(bits_shape);
  const int width = bits.element_bytes();
  const int64_t n = bits.physical_count();
  // Produce a stream of 32-bit words in row-major element order; 64-bit
  // elements take two words (low first), narrower ones the low bits of one.
  const uint32_t key[2] = {static_cast<uint32_t>(s[0]), static_cast<uint32_t>(s[0] >> 32)};
  uint64_t counter_lo = s[1];
  uint64_t counter_hi = state_n > 2 ? s[2] : 0;
  uint32_t block[4];
  int have = 0;
  auto next_word = [&]() -> uint32_t {
    if (have == 0) {
      if (threefry) {
        const uint32_t c[2] = {static_cast<uint32_t>(counter_lo),
                               static_cast<uint32_t>(counter_lo >> 32)};
        ThreeFry2x32(c, key, block);
        have = 2;
      } else {
        const uint32_t c[4] = {static_cast<uint32_t>(counter_lo),
                               static_cast<uint32_t>(counter_lo >> 32),
                               static_cast<uint32_t>(counter_hi),
                               static_cast<uint32_t>(counter_hi >> 32)};
        Philox4x32(c, key, block);
        have = 4;
      }
      if (++counter_lo == 0) ++counter_hi;
      // Consume from block[0] upwards.
      for (int i = 0; i < have / 2; ++i) std::swap(block[i], block[have - 1 - i]);
    }
    return block[--have];
  };
  uint8_t* dst = bits.data();
  for (int64_t i = 0; i < n; ++i) {
    uint64_t v = next_word();
    if (width == 8) v |= static_cast<uint64_t>(next_word()) << 32;
    std::memcpy(dst + i * width, &v, width);  // little-endian: the low bytes
  }
  Literal new_state = state;
  new_state.SetRaw<uint64_t>(new_state.Slot({1}), counter_lo);
  if (state_n > 2) new_state.SetRaw<uint64_t>(new_state.Slot({2}), counter_hi);
  std::vector<Literal> elems;
  elems.push_back(ToLayout(std::move(new_state), shape.tuple_shapes()[0].layout()));
  elems.push_back(ToLayout(std::move(bits), bits_shape.layout()));
  return Literal::MakeTuple(std::move(elems));
}

absl::StatusOr<Literal> EvalRngGetAndUpdateState(const Instruction& instr,
                                                 absl::Span<const Literal* const>,
                                                 OpContext& ctx) {
  const Shape& shape = instr.shape();
  if (!shape.IsArray() || shape.element_type() != PrimitiveType::U64 || shape.rank() != 1 ||
      shape.dim(0) != 2)
    return OpError(instr, "result must be u64[2]");
  const int64_t delta = instr.AttrOr<int64_t>("delta", 0);
  uint64_t local = 0;
  uint64_t* state = ctx.rng_state ? ctx.rng_state : &local;
  Literal out(shape);
  out.SetRaw<uint64_t>(out.Slot({0}), *state);
  out.SetRaw<uint64_t>(out.Slot({1}), 0);
  *state += static_cast<uint64_t>(delta);
  return out;
}

}  // namespace hlo::cpu
