// Elementwise groups: unary, binary, compare/select/clamp, convert,
// bitcast-convert, iota, over every element type the generator knows.
#include "absl/strings/str_cat.h"
#include "gen/gen_ops.h"

namespace hlo::gen {

std::vector<int64_t> RandomDims(Rng& rng, int max_rank) {
  if (rng.Chance(0.08)) {  // big: ParallelFor splits these
    if (rng.Chance(0.5)) return {rng.Uniform(2000, 5000)};
    return {rng.Uniform(40, 90), rng.Uniform(40, 90)};
  }
  std::vector<int64_t> dims(static_cast<size_t>(rng.Uniform(0, max_rank)));
  for (int64_t& d : dims) d = rng.Uniform(1, 5);
  return dims;
}

Value AnyValue(ModuleBuilder& b, Comp& c) {
  if (!c.values.empty() && b.rng.Chance(0.75)) return *b.PickValue(c);
  return b.Need(c, b.rng.Pick(AllTypes()), RandomDims(b.rng));
}

namespace {
std::string RealOf(const std::string& complex) { return complex == "c64" ? "f32" : "f64"; }
}  // namespace

bool GenUnary(ModuleBuilder& b, Comp& c) {
  Value x = AnyValue(b, c);
  Value out = Array(x.type, x.dims);
  std::vector<std::string> ops;
  switch (KindOf(x.type)) {
    case Kind::kPred: ops = {"not"}; break;
    case Kind::kSigned: ops = {"negate", "abs", "sign", "not", "popcnt", "count-leading-zeros"}; break;
    case Kind::kUnsigned: ops = {"not", "popcnt", "count-leading-zeros"}; break;
    case Kind::kFloat:
      ops = {"negate", "abs", "sign", "exponential", "exponential-minus-one", "log", "log-plus-one",
             "sqrt", "rsqrt", "cbrt", "tanh", "logistic", "sine", "cosine", "tan", "floor", "ceil",
             "round-nearest-afz", "round-nearest-even", "is-finite"};
      break;
    case Kind::kComplex: ops = {"negate", "exponential", "log", "sqrt", "tanh", "abs", "real", "imag"}; break;
  }
  const std::string op = b.rng.Pick(ops);
  if (op == "is-finite") out.type = "pred";
  if (KindOf(x.type) == Kind::kComplex && (op == "abs" || op == "real" || op == "imag")) out.type = RealOf(x.type);
  b.Emit(c, "u", out, absl::StrCat(op, "(%", x.name, ")"), {&x});
  return true;
}

bool GenBinary(ModuleBuilder& b, Comp& c) {
  Value x = AnyValue(b, c);
  Value y = b.Need(c, x.type, x.dims);
  std::vector<std::string> ops;
  switch (KindOf(x.type)) {
    case Kind::kPred: ops = {"and", "or", "xor", "maximum", "minimum"}; break;
    case Kind::kSigned:
    case Kind::kUnsigned:
      ops = {"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "and",
             "or", "xor", "shift-left", "shift-right-arithmetic", "shift-right-logical", "power"};
      break;
    case Kind::kFloat:
      ops = {"add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "remainder", "atan2"};
      break;
    case Kind::kComplex: ops = {"add", "subtract", "multiply", "divide"}; break;
  }
  const std::string op = b.rng.Pick(ops);
  b.Emit(c, "bin", Array(x.type, x.dims), absl::StrCat(op, "(%", x.name, ", %", y.name, ")"), {&x, &y});
  return true;
}

bool GenCompareSelect(ModuleBuilder& b, Comp& c) {
  Value x = AnyValue(b, c);
  Value y = b.Need(c, x.type, x.dims);
  const bool complex = KindOf(x.type) == Kind::kComplex;
  std::vector<std::string> dirs = complex ? std::vector<std::string>{"EQ", "NE"}
                                          : std::vector<std::string>{"EQ", "NE", "LT", "LE", "GT", "GE"};
  std::string extra;
  if (KindOf(x.type) == Kind::kFloat && b.rng.Chance(0.3)) extra = ", type=TOTALORDER";
  Value p = b.Emit(c, "cmp", Array("pred", x.dims),
                   absl::StrCat("compare(%", x.name, ", %", y.name, "), direction=", b.rng.Pick(dirs), extra),
                   {&x, &y});
  if (b.rng.Chance(0.5)) {
    Value z = b.Need(c, x.type, x.dims);
    b.Emit(c, "sel", Array(x.type, x.dims), absl::StrCat("select(%", p.name, ", %", x.name, ", %", z.name, ")"),
           {&p, &x, &z});
  } else if (!complex && KindOf(x.type) != Kind::kPred) {
    // clamp with scalar or full-shape bounds.
    Value lo = b.rng.Chance(0.5) ? b.Constant(c, x.type) : b.Need(c, x.type, x.dims);
    Value hi = b.rng.Chance(0.5) ? b.Constant(c, x.type) : b.Need(c, x.type, x.dims);
    if ((lo.rank() == 0) != (hi.rank() == 0) && x.rank() > 0) hi = lo;  // both scalars or both arrays
    b.Emit(c, "clamp", Array(x.type, x.dims), absl::StrCat("clamp(%", lo.name, ", %", x.name, ", %", hi.name, ")"),
           {&lo, &x, &hi});
  }
  return true;
}

bool GenConvert(ModuleBuilder& b, Comp& c) {
  Value x = AnyValue(b, c);
  std::string to = b.rng.Pick(AllTypes());
  // Complex converts only to complex (XLA has no complex -> real convert).
  if (KindOf(x.type) == Kind::kComplex && KindOf(to) != Kind::kComplex) to = x.type == "c64" ? "c128" : "c64";
  b.Emit(c, "cvt", Array(to, x.dims), absl::StrCat("convert(%", x.name, ")"), {&x});
  return true;
}

bool GenBitcastConvert(ModuleBuilder& b, Comp& c) {
  Value x = AnyValue(b, c);
  if (KindOf(x.type) == Kind::kPred || KindOf(x.type) == Kind::kComplex) return false;
  const int bits = BitWidth(x.type);
  std::vector<std::string> same, narrower, wider;
  for (const std::string& t : AllTypes()) {
    if (KindOf(t) == Kind::kPred || KindOf(t) == Kind::kComplex) continue;
    if (BitWidth(t) == bits) same.push_back(t);
    else if (BitWidth(t) < bits) narrower.push_back(t);
    else if (!x.dims.empty() && x.dims.back() == BitWidth(t) / bits) wider.push_back(t);
  }
  Value out = Array(x.type, x.dims);
  const int64_t k = b.rng.Uniform(0, 2);
  if (k == 1 && !narrower.empty()) {
    out.type = b.rng.Pick(narrower);
    out.dims.push_back(bits / BitWidth(out.type));
  } else if (k == 2 && !wider.empty()) {
    out.type = b.rng.Pick(wider);
    out.dims.pop_back();
  } else {
    out.type = b.rng.Pick(same);
  }
  b.Emit(c, "bcc", out, absl::StrCat("bitcast-convert(%", x.name, ")"), {&x});
  return true;
}

bool GenIota(ModuleBuilder& b, Comp& c) {
  std::vector<int64_t> dims = RandomDims(b.rng);
  if (dims.empty()) dims = {b.rng.Uniform(1, 6)};
  std::string type = b.rng.Pick(std::vector<std::string>{"s32", "u8", "f32", "s64", "bf16", "f16"});
  b.Emit(c, "iota", Array(type, dims),
         absl::StrCat("iota(), iota_dimension=", b.rng.Uniform(0, static_cast<int64_t>(dims.size()) - 1)), {});
  return true;
}

}  // namespace hlo::gen
