#include "backend_cpu/rng.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "backend_cpu/thread_pool.h"
#include "ir/printer.h"

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

// ---- rng-bit-generator, bit for bit as XLA's CPU compiler expands it ----
//
// XLA has no RngBitGenerator kernel on the CPU: RngBitGeneratorExpander
// rewrites the op into a call of HLO built by its PRNG library
// (ThreeFryBitGenerator / PhiloxBitGenerator), rng_default as Philox. The
// functions below reproduce the values that HLO computes; docs/semantics.md
// spells the rules out.

// Keys and counters enter the generators as 32-bit words, low half first.
uint32_t Lo32(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t Hi32(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
// The first word is the low half of a 64-bit result (both generators).
uint64_t Join32(uint32_t lo, uint32_t hi) { return lo | (static_cast<uint64_t>(hi) << 32); }

// Independent pieces of work per ParallelFor block (generator blocks or
// counters): enough to amortise a task, few enough to spread small outputs.
constexpr int64_t kMinUnitsPerTask = 2048;

// Stores the low bits of generated values into a row-major result. XLA
// makes narrow values by converting a 32-bit word to the narrower unsigned
// type, i.e. by keeping its low bits; signed types (which XLA's expansion
// does not produce) get the same bit pattern.
class BitsSink {
 public:
  explicit BitsSink(Literal* out)
      : out_(out),
        data_(out->data()),
        bytes_(out->element_bytes()),
        whole_bytes_(PrimitiveTypeBitWidth(out->shape().element_type()) == 8 * bytes_) {}

  void Store(int64_t i, uint64_t v) const {
    if (whole_bytes_) {
      std::memcpy(data_ + i * bytes_, &v, bytes_);  // little-endian: the low bytes
    } else {
      out_->SetInt(i, static_cast<int64_t>(v));  // sub-byte: wraps (and sign-extends)
    }
  }

 private:
  Literal* out_;
  uint8_t* data_;
  int bytes_;
  bool whole_bytes_;
};

// Philox: block b encrypts the 128-bit counter (lo, hi) + b under `key`. Its
// four words continue one word stream that fills the result in row-major
// order: one word per element up to 32 bits, two per 64-bit element (the
// first one low). Returns the number of blocks, by which XLA advances the
// counter.
uint64_t GeneratePhilox(const uint32_t key[2], uint64_t lo, uint64_t hi, bool wide, int64_t n,
                        const BitsSink& sink) {
  const int per_block = wide ? 2 : 4;
  const int64_t blocks = (n + per_block - 1) / per_block;
  ParallelFor(blocks, kMinUnitsPerTask, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const uint64_t c_lo = lo + static_cast<uint64_t>(b);
      const uint64_t c_hi = hi + (c_lo < lo ? 1 : 0);  // carry of the 128-bit add
      const uint32_t counter[4] = {Lo32(c_lo), Hi32(c_lo), Lo32(c_hi), Hi32(c_hi)};
      uint32_t w[4];
      Philox4x32(counter, key, w);
      const int64_t first = b * per_block;
      const int64_t count = std::min<int64_t>(per_block, n - first);
      for (int64_t j = 0; j < count; ++j)
        sink.Store(first + j, wide ? Join32(w[2 * j], w[2 * j + 1]) : w[j]);
    }
  });
  return static_cast<uint64_t>(blocks);
}

// For values of 32 bits or fewer XLA's ThreeFry halves the result shape
// along one dimension `split`: the first even-sized one, else the first of
// the largest (rank 0 counts as [1]). Counter number u runs over the halved
// shape in row-major order, and its two words go to positions 2k and 2k+1
// of the split dimension (the second is dropped past an odd end).
struct ThreeFryHalves {
  int64_t outer = 1;  // product of the dims before `split`
  int64_t size = 1;   // the split dim
  int64_t half = 1;   // ceil(size / 2)
  int64_t inner = 1;  // product of the dims after `split`
};

ThreeFryHalves HalveForThreeFry(absl::Span<const int64_t> dims) {
  ThreeFryHalves h;
  if (dims.empty()) return h;
  int64_t split = -1;
  for (size_t i = 0; i < dims.size() && split < 0; ++i)
    if (dims[i] % 2 == 0) split = static_cast<int64_t>(i);
  if (split < 0) {
    split = 0;
    for (size_t i = 1; i < dims.size(); ++i)
      if (dims[i] > dims[split]) split = static_cast<int64_t>(i);
  }
  for (int64_t i = 0; i < split; ++i) h.outer *= dims[i];
  for (size_t i = split + 1; i < dims.size(); ++i) h.inner *= dims[i];
  h.size = dims[split];
  h.half = (h.size + 1) / 2;
  return h;
}

// ThreeFry: counter c + u (mod 2^64) under `key` gives two words. A 64-bit
// element i takes both words of counter c + i (the first one low); narrower
// elements are laid out as in ThreeFryHalves. Returns the number of
// counters used, by which XLA advances the state.
uint64_t GenerateThreeFry(const uint32_t key[2], uint64_t c, absl::Span<const int64_t> dims,
                          bool wide, const BitsSink& sink) {
  auto block = [&](uint64_t u, uint32_t x[2]) {
    const uint64_t ctr = c + u;
    const uint32_t words[2] = {Lo32(ctr), Hi32(ctr)};
    ThreeFry2x32(words, key, x);
  };
  if (wide) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    ParallelFor(n, kMinUnitsPerTask, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        uint32_t x[2];
        block(static_cast<uint64_t>(i), x);
        sink.Store(i, Join32(x[0], x[1]));
      }
    });
    return static_cast<uint64_t>(n);
  }
  const ThreeFryHalves h = HalveForThreeFry(dims);
  const int64_t counters = h.outer * h.half * h.inner;
  ParallelFor(counters, kMinUnitsPerTask, [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t o = u / (h.half * h.inner);
      const int64_t k = (u / h.inner) % h.half;
      const int64_t t = u % h.inner;
      uint32_t x[2];
      block(static_cast<uint64_t>(u), x);
      for (int64_t j = 0; j < 2 && 2 * k + j < h.size; ++j)
        sink.Store((o * h.size + 2 * k + j) * h.inner + t, x[j]);
    }
  });
  return static_cast<uint64_t>(counters);
}

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
      state.shape().rank() != 1)
    return OpError(instr,
                   absl::StrCat("state must be u64[N], got ", ShapeToString(state.shape(), false)));
  const std::string algorithm = instr.AttrOr<std::string>("algorithm", "rng_default");
  // XLA's CPU compiler expands rng_default as Philox.
  const bool threefry = algorithm == "rng_three_fry";
  const int64_t state_n = state.shape().dim(0);
  // The state sizes XLA's expansion can take: ThreeFry reads key and counter
  // and returns exactly two words; Philox keeps one or two counter words.
  if (threefry && state_n != 2)
    return OpError(instr,
                   absl::StrCat("rng_three_fry needs a u64[2] state, got u64[", state_n, "]"));
  if (!threefry && state_n != 2 && state_n != 3)
    return OpError(instr,
                   absl::StrCat(algorithm, " (Philox) needs a u64[2] or u64[3] state, got u64[",
                                state_n, "]"));
  std::vector<uint64_t> s(state_n);
  for (int64_t i = 0; i < state_n; ++i) s[i] = state.GetRaw<uint64_t>(state.Slot({i}));

  const Shape& bits_shape = shape.tuple_shapes()[1];
  if (!bits_shape.IsArray() || !IsInteger(bits_shape.element_type()))
    return OpError(instr, absl::StrCat("bits must be an integer array, got ",
                                       ShapeToString(bits_shape, false)));
  Literal bits = RowMajorUninitialized(bits_shape);
  const BitsSink sink(&bits);
  const bool wide = PrimitiveTypeBitWidth(bits_shape.element_type()) > 32;
  const int64_t n = bits.physical_count();
  const uint32_t key[2] = {Lo32(s[0]), Hi32(s[0])};

  Literal new_state = state;
  if (threefry) {
    const uint64_t used = GenerateThreeFry(key, s[1], bits_shape.dims(), wide, sink);
    new_state.SetRaw<uint64_t>(new_state.Slot({1}), s[1] + used);
  } else {
    // With a u64[2] state the counter's high half is the key word itself.
    const uint64_t lo = s[1], hi = state_n == 3 ? s[2] : s[0];
    const uint64_t used = GeneratePhilox(key, lo, hi, wide, n, sink);
    const uint64_t next_lo = lo + used;
    new_state.SetRaw<uint64_t>(new_state.Slot({1}), next_lo);
    if (state_n == 3) new_state.SetRaw<uint64_t>(new_state.Slot({2}), hi + (next_lo < lo ? 1 : 0));
  }
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
