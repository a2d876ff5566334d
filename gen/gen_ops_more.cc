// More groups: map, call, reduce-precision, complex, fft, select-and-scatter,
// cross-replica collectives.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gen/gen_ops.h"

namespace hlo::gen {
namespace {

// An existing or new array value of one of `types`, rank >= min_rank.
Value OfTypes(ModuleBuilder& b, Comp& c, const std::vector<std::string>& types, int min_rank = 0) {
  std::vector<const Value*> ok;
  for (const Value& v : c.values)
    for (const std::string& t : types)
      if (v.type == t && v.rank() >= min_rank) ok.push_back(&v);
  if (!ok.empty() && b.rng.Chance(0.7)) return *b.rng.Pick(ok);
  std::vector<int64_t> dims = RandomDims(b.rng);
  while (static_cast<int>(dims.size()) < min_rank) dims.push_back(b.rng.Uniform(1, 5));
  return b.Need(c, b.rng.Pick(types), dims);
}

std::vector<int64_t> AllDims(int rank) {
  std::vector<int64_t> d;
  for (int i = 0; i < rank; ++i) d.push_back(i);
  return d;
}

}  // namespace

bool GenMap(ModuleBuilder& b, Comp& c) {
  Value x = AnyValue(b, c);
  if (KindOf(x.type) == Kind::kPred || KindOf(x.type) == Kind::kComplex) return false;
  Value y = b.Need(c, x.type, x.dims);
  const std::string fn = b.Scalar(b.rng.Pick(std::vector<std::string>{"add", "maximum", "multiply"}), x.type);
  b.Emit(c, "map", Array(x.type, x.dims),
         absl::StrCat("map(%", x.name, ", %", y.name, "), dimensions={", absl::StrJoin(AllDims(x.rank()), ","),
                      "}, to_apply=%", fn),
         {&x, &y});
  return true;
}

bool GenCall(ModuleBuilder& b, Comp& c) {
  Value x = AnyValue(b, c);
  if (KindOf(x.type) == Kind::kPred) return false;
  Comp callee;
  callee.name = b.Fresh("callee");
  Value p = b.AddParam(callee, Array(x.type, x.dims));
  Value q = b.Emit(callee, "n", Array(x.type, x.dims), absl::StrCat("add(%", p.name, ", %", p.name, ")"), {&p});
  Value r = b.Emit(callee, "m", Array(x.type, x.dims), absl::StrCat("multiply(%", q.name, ", %", p.name, ")"), {&q, &p});
  b.AddComputation(callee, r);
  b.Emit(c, "call", Array(x.type, x.dims), absl::StrCat("call(%", x.name, "), to_apply=%", callee.name), {&x});
  return true;
}

bool GenReducePrecision(ModuleBuilder& b, Comp& c) {
  Value x = OfTypes(b, c, {"f32", "f64", "f16", "bf16"});
  const int64_t e = b.rng.Uniform(2, 8), m = b.rng.Uniform(1, 10);
  b.Emit(c, "rp", Array(x.type, x.dims),
         absl::StrCat("reduce-precision(%", x.name, "), exponent_bits=", e, ", mantissa_bits=", m), {&x});
  return true;
}

bool GenComplex(ModuleBuilder& b, Comp& c) {
  Value re = OfTypes(b, c, {"f32", "f64"});
  Value im = b.Need(c, re.type, re.dims);
  b.Emit(c, "cplx", Array(re.type == "f32" ? "c64" : "c128", re.dims),
         absl::StrCat("complex(%", re.name, ", %", im.name, ")"), {&re, &im});
  return true;
}

bool GenFft(ModuleBuilder& b, Comp& c) {
  const int64_t kind = b.rng.Uniform(0, 2);  // FFT, IFFT, RFFT
  if (kind < 2) {
    Value x = OfTypes(b, c, {"c64", "c128"}, 1);
    b.Emit(c, "fft", Array(x.type, x.dims),
           absl::StrCat("fft(%", x.name, "), fft_type=", kind == 0 ? "FFT" : "IFFT", ", fft_length={", x.dims.back(), "}"),
           {&x});
    return true;
  }
  Value x = OfTypes(b, c, {"f32", "f64"}, 1);
  std::vector<int64_t> dims = x.dims;
  const int64_t n = dims.back();
  dims.back() = n / 2 + 1;
  b.Emit(c, "rfft", Array(x.type == "f32" ? "c64" : "c128", dims),
         absl::StrCat("fft(%", x.name, "), fft_type=RFFT, fft_length={", n, "}"), {&x});
  return true;
}

bool GenSelectAndScatter(ModuleBuilder& b, Comp& c) {
  // Non-overlapping windows (size = stride) that tile the operand: each
  // source element lands on one operand element.
  std::vector<int64_t> win, dims, out;
  for (int64_t i = b.rng.Uniform(1, 2); i > 0; --i) {
    const int64_t w = b.rng.Uniform(1, 3), n = b.rng.Uniform(1, 3);
    win.push_back(w);
    dims.push_back(w * n);
    out.push_back(n);
  }
  const std::string type = b.rng.Pick(std::vector<std::string>{"f32", "s32", "f64"});
  Value x = b.Need(c, type, dims), src = b.Need(c, type, out);
  Value init = b.Constant(c, type, "0");
  std::vector<std::string> w;
  for (int64_t v : win) w.push_back(absl::StrCat(v));
  b.Emit(c, "sas", Array(type, dims),
         absl::StrCat("select-and-scatter(%", x.name, ", %", src.name, ", %", init.name, "), window={size=",
                      absl::StrJoin(w, "x"), " stride=", absl::StrJoin(w, "x"), "}, select=%",
                      b.Scalar(b.rng.Chance(0.5) ? "gt" : "lt", type), ", scatter=%", b.Scalar("add", type)),
         {&x, &src, &init});
  return true;
}

bool GenCollective(ModuleBuilder& b, Comp& c) {
  // Two replicas, the same arguments on each: the devices run on their own
  // threads and meet in every collective.
  b.replicas = 2;
  Value x = OfTypes(b, c, {"f32", "s32", "u8", "f64", "bf16"}, 1);
  const int64_t k = b.rng.Uniform(0, 2);
  if (k == 0) {
    b.Emit(c, "ar", Array(x.type, x.dims),
           absl::StrCat("all-reduce(%", x.name, "), replica_groups={{0,1}}, to_apply=%",
                        b.Scalar(b.rng.Chance(0.5) ? "add" : "maximum", x.type)),
           {&x});
  } else if (k == 1) {
    const int64_t d = b.rng.Uniform(0, x.rank() - 1);
    std::vector<int64_t> dims = x.dims;
    dims[d] *= 2;
    b.Emit(c, "ag", Array(x.type, dims),
           absl::StrCat("all-gather(%", x.name, "), replica_groups={{0,1}}, dimensions={", d, "}"), {&x});
  } else {
    b.Emit(c, "cp", Array(x.type, x.dims),
           absl::StrCat("collective-permute(%", x.name, "), source_target_pairs={{0,1},{1,0}}"), {&x});
  }
  return true;
}

}  // namespace hlo::gen
