#include "gen/gen_builder.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hlo::gen {

uint64_t Rng::Next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int64_t Rng::Uniform(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
}

bool Rng::Chance(double p) { return static_cast<double>(Next() >> 11) * 0x1.0p-53 < p; }

namespace {
struct TypeInfo {
  const char* name;
  Kind kind;
  int bits;
};
const std::vector<TypeInfo>& Types() {
  static const auto* types = new std::vector<TypeInfo>{
      {"pred", Kind::kPred, 8},         {"s8", Kind::kSigned, 8},
      {"s16", Kind::kSigned, 16},       {"s32", Kind::kSigned, 32},
      {"s64", Kind::kSigned, 64},       {"u8", Kind::kUnsigned, 8},
      {"u16", Kind::kUnsigned, 16},     {"u32", Kind::kUnsigned, 32},
      {"u64", Kind::kUnsigned, 64},     {"f16", Kind::kFloat, 16},
      {"bf16", Kind::kFloat, 16},       {"f32", Kind::kFloat, 32},
      {"f64", Kind::kFloat, 64},        {"f8e4m3fn", Kind::kFloat, 8},
      {"f8e5m2", Kind::kFloat, 8},      {"c64", Kind::kComplex, 64},
      {"c128", Kind::kComplex, 128},
  };
  return *types;
}
const TypeInfo& Info(const std::string& type) {
  for (const TypeInfo& t : Types())
    if (type == t.name) return t;
  return Types()[0];
}
}  // namespace

Kind KindOf(const std::string& type) { return Info(type).kind; }
int BitWidth(const std::string& type) { return Info(type).bits; }
bool IsNarrowFloat(const std::string& type) {
  return type == "f16" || type == "bf16" || type.rfind("f8", 0) == 0;
}
const std::vector<std::string>& AllTypes() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string>;
    for (const TypeInfo& t : Types()) v->push_back(t.name);
    return v;
  }();
  return *names;
}

int64_t Value::elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

Value Array(const std::string& type, std::vector<int64_t> dims) {
  Value v;
  v.type = type;
  v.dims = std::move(dims);
  return v;
}

Value TupleOf(std::vector<Value> elements) {
  Value v;
  v.tuple = std::move(elements);
  return v;
}

std::string ShapeText(const Value& v, bool with_layout) {
  if (v.is_tuple()) {
    std::vector<std::string> parts;
    for (const Value& e : v.tuple) parts.push_back(ShapeText(e, with_layout));
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  std::string s = absl::StrCat(v.type, "[", absl::StrJoin(v.dims, ","), "]");
  if (with_layout && !v.minor_to_major.empty()) {
    absl::StrAppend(&s, "{", absl::StrJoin(v.minor_to_major, ","));
    if (!v.tiles.empty()) absl::StrAppend(&s, ":", v.tiles);
    absl::StrAppend(&s, "}");
  }
  return s;
}

std::string ModuleBuilder::Fresh(const std::string& base) { return absl::StrCat(base, ".", ++counter_); }

Value ModuleBuilder::Emit(Comp& c, const std::string& base, Value shape, const std::string& rhs,
                          const std::vector<const Value*>& operands) {
  shape.name = Fresh(base);
  c.lines.push_back(absl::StrCat("  %", shape.name, " = ", ShapeText(shape), " ", rhs));
  for (const Value* op : operands) c.uses[op->name]++;
  if (!shape.is_tuple()) c.values.push_back(shape);
  return shape;
}

Value ModuleBuilder::AddParam(Comp& c, Value shape) {
  const int64_t n = static_cast<int64_t>(c.params.size());
  Value v = Emit(c, "p", std::move(shape), absl::StrCat("parameter(", n, ")"), {});
  c.params.push_back(v);
  return v;
}

std::string ModuleBuilder::RandomConstantText(const std::string& type) {
  switch (KindOf(type)) {
    case Kind::kPred: return rng.Chance(0.5) ? "true" : "false";
    case Kind::kSigned: return absl::StrCat(rng.Uniform(-4, 7));
    case Kind::kUnsigned: return absl::StrCat(rng.Uniform(0, 9));
    case Kind::kFloat: return rng.Pick(std::vector<std::string>{"0", "1", "-1", "0.5", "2", "-0.25", "3"});
    case Kind::kComplex: return rng.Pick(std::vector<std::string>{"(1, 0)", "(0.5, -1)", "(0, 2)"});
  }
  return "0";
}

Value ModuleBuilder::Constant(Comp& c, const std::string& type, const std::string& text) {
  return Emit(c, "c", Array(type, {}),
              absl::StrCat("constant(", text.empty() ? RandomConstantText(type) : text, ")"), {});
}

Value ModuleBuilder::IndexScalar(Comp& c, int64_t limit) {
  return Constant(c, "s32", absl::StrCat(rng.Uniform(-1, limit + 1)));
}

Value ModuleBuilder::Need(Comp& c, const std::string& type, const std::vector<int64_t>& dims) {
  std::vector<const Value*> matches;
  for (const Value& v : c.values)
    if (v.type == type && v.dims == dims) matches.push_back(&v);
  if (!matches.empty() && rng.Chance(0.7)) return *rng.Pick(matches);
  if (static_cast<int>(c.params.size()) < max_params && rng.Chance(0.5)) {
    Value p = Array(type, dims);
    // Parameters carry the layout variety: any dimension order, and now
    // and then a tiled layout (element order inside tiles differs).
    if (p.rank() >= 2 && rng.Chance(0.3)) {
      for (int i = p.rank() - 1; i >= 0; --i) p.minor_to_major.push_back(i);
      rng.Shuffle(p.minor_to_major);
      if (rng.Chance(0.3)) p.tiles = rng.Pick(std::vector<std::string>{"T(2,2)", "T(4,8)", "T(2,128)", "T(8,128)"});
    }
    return AddParam(c, p);
  }
  Value s = Constant(c, type);
  return Emit(c, "bcast", Array(type, dims), absl::StrCat("broadcast(%", s.name, "), dimensions={}"), {&s});
}

const Value* ModuleBuilder::PickValue(Comp& c, const std::vector<Kind>& kinds) {
  std::vector<const Value*> ok;
  for (const Value& v : c.values) {
    if (kinds.empty()) {
      ok.push_back(&v);
      continue;
    }
    for (Kind k : kinds)
      if (KindOf(v.type) == k) ok.push_back(&v);
  }
  if (ok.empty()) return nullptr;
  // Prefer recent values: chains get deep instead of wide.
  if (rng.Chance(0.6)) return ok[ok.size() - 1 - static_cast<size_t>(rng.Uniform(0, std::min<int64_t>(3, ok.size() - 1)))];
  return rng.Pick(ok);
}

std::string ModuleBuilder::Scalar(const std::string& kind, const std::string& type,
                                  const std::string& second_type) {
  const std::string key = absl::StrCat(kind, "/", type, "/", second_type);
  auto it = scalar_cache_.find(key);
  if (it != scalar_cache_.end()) return it->second;
  Comp c;
  c.name = Fresh(kind);
  Value a = AddParam(c, Array(type, {}));
  Value b = AddParam(c, Array(type, {}));
  Value root;
  if (kind == "assign") {
    root = Emit(c, "r", Array(type, {}), absl::StrCat("copy(%", b.name, ")"), {&b});
  } else if (kind == "lt" || kind == "gt" || kind == "lt_pairs") {
    if (kind == "lt_pairs") {
      AddParam(c, Array(second_type, {}));
      AddParam(c, Array(second_type, {}));
    }
    // Floats compare in total order: with NaNs a plain LT is no strict
    // weak order, and sorts would be free to disagree.
    std::string extra = KindOf(type) == Kind::kFloat ? ", type=TOTALORDER" : "";
    root = Emit(c, "r", Array("pred", {}),
                absl::StrCat("compare(%", a.name, ", %", b.name, "), direction=",
                             kind == "gt" ? "GT" : "LT", extra),
                {&a, &b});
  } else {
    root = Emit(c, "r", Array(type, {}), absl::StrCat(kind, "(%", a.name, ", %", b.name, ")"), {&a, &b});
  }
  AddComputation(c, root);
  scalar_cache_[key] = c.name;
  return c.name;
}

void ModuleBuilder::AddComputation(const Comp& c, const Value& root, bool entry) {
  std::vector<std::string> sig;
  for (const Value& p : c.params) sig.push_back(absl::StrCat(p.name, ": ", ShapeText(p, false)));
  std::string text = absl::StrCat(entry ? "ENTRY " : "", "%", c.name, " (", absl::StrJoin(sig, ", "),
                                  ") -> ", ShapeText(root, false), " {\n");
  for (size_t i = 0; i < c.lines.size(); ++i) {
    const std::string& line = c.lines[i];
    const bool is_root = line.rfind(absl::StrCat("  %", root.name, " "), 0) == 0;
    absl::StrAppend(&text, is_root ? absl::StrCat("  ROOT", line.substr(1)) : line, "\n");
  }
  absl::StrAppend(&text, "}\n");
  computations_.push_back(std::move(text));
}

std::string ModuleBuilder::Text(const std::string& module_name) const {
  return absl::StrCat("HloModule ", module_name, replicas > 1 ? absl::StrCat(", replica_count=", replicas) : "",
                      "\n\n", absl::StrJoin(computations_, "\n"));
}

}  // namespace hlo::gen
