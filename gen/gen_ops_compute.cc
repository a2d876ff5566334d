// Computing groups: reduce (several reducers), reduce-window, dot,
// convolution, sort, while loops, conditionals, tuples.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gen/gen_ops.h"

namespace hlo::gen {
namespace {

// Reducers whose identity is known per kind of element type.
std::vector<std::string> ReducerKinds(const std::string& type) {
  switch (KindOf(type)) {
    case Kind::kPred: return {"and", "or"};
    case Kind::kSigned:
    case Kind::kUnsigned: return {"add", "multiply", "maximum", "minimum", "and", "or"};
    case Kind::kFloat: return {"add", "multiply", "maximum", "minimum"};
    case Kind::kComplex: return {"add", "multiply"};
  }
  return {"add"};
}

// The identity of `kind` in `type`: with any other init value a reduction's
// result would depend on how the implementation splits the work.
std::string Identity(const std::string& kind, const std::string& type) {
  const Kind k = KindOf(type);
  const int bits = BitWidth(type);
  if (k == Kind::kPred) return kind == "and" ? "true" : "false";
  if (kind == "add" || kind == "or") return k == Kind::kComplex ? "(0, 0)" : "0";
  if (kind == "multiply") return k == Kind::kComplex ? "(1, 0)" : "1";
  const bool is_max = kind == "maximum";
  if (k == Kind::kFloat) return is_max ? "-inf" : "inf";
  if (k == Kind::kSigned) {
    if (kind == "and") return "-1";
    const unsigned __int128 half = static_cast<unsigned __int128>(1) << (bits - 1);
    return is_max ? absl::StrCat("-", static_cast<uint64_t>(half)) : absl::StrCat(static_cast<uint64_t>(half - 1));
  }
  const uint64_t all = bits == 64 ? ~0ull : (1ull << bits) - 1;
  if (kind == "and") return absl::StrCat(all);
  return is_max ? "0" : absl::StrCat(all);
}

Value Ranked(ModuleBuilder& b, Comp& c, int min_rank, int max_rank = 4) {
  Value x = AnyValue(b, c);
  if (x.rank() >= min_rank && x.rank() <= max_rank) return x;
  std::vector<int64_t> dims = RandomDims(b.rng, max_rank);
  while (static_cast<int>(dims.size()) < min_rank) dims.push_back(b.rng.Uniform(1, 4));
  return b.Need(c, x.type, dims);
}

std::string Names(const std::vector<Value>& vs) {
  std::vector<std::string> n;
  for (const Value& v : vs) n.push_back(absl::StrCat("%", v.name));
  return absl::StrJoin(n, ", ");
}

// One same-shape step v' = f(v, w) inside a loop body or branch.
Value Step(ModuleBuilder& b, Comp& c, const Value& v, const Value& w) {
  std::vector<std::string> ops;
  switch (KindOf(v.type)) {
    case Kind::kPred: ops = {"xor", "and", "or"}; break;
    case Kind::kSigned:
    case Kind::kUnsigned: ops = {"add", "multiply", "maximum", "xor", "subtract"}; break;
    case Kind::kFloat: ops = {"add", "multiply", "maximum", "subtract", "minimum"}; break;
    case Kind::kComplex: ops = {"add", "multiply", "subtract"}; break;
  }
  return b.Emit(c, "s", Array(v.type, v.dims), absl::StrCat(b.rng.Pick(ops), "(%", v.name, ", %", w.name, ")"), {&v, &w});
}

}  // namespace

bool GenReduce(ModuleBuilder& b, Comp& c) {
  Value x = Ranked(b, c, 1);
  const std::string kind = b.rng.Pick(ReducerKinds(x.type));
  Value init = b.Constant(c, x.type, Identity(kind, x.type));
  std::vector<int64_t> rdims, keep;
  for (int i = 0; i < x.rank(); ++i) {
    if (b.rng.Chance(0.5)) rdims.push_back(i);
    else keep.push_back(x.dims[i]);
  }
  if (rdims.empty()) {
    rdims.push_back(x.rank() - 1);
    keep.pop_back();
  }
  b.Emit(c, "red", Array(x.type, keep),
         absl::StrCat("reduce(%", x.name, ", %", init.name, "), dimensions={", absl::StrJoin(rdims, ","),
                      "}, to_apply=%", b.Scalar(kind, x.type)),
         {&x, &init});
  return true;
}

bool GenReduceWindow(ModuleBuilder& b, Comp& c) {
  Value x = Ranked(b, c, 1, 3);
  const std::string kind = b.rng.Pick(ReducerKinds(x.type));
  Value init = b.Constant(c, x.type, Identity(kind, x.type));
  std::vector<std::string> size, stride, pad;
  std::vector<int64_t> out;
  for (int64_t d : x.dims) {
    const int64_t lo = b.rng.Uniform(0, 1), hi = b.rng.Uniform(0, 1);
    const int64_t w = b.rng.Uniform(1, std::min<int64_t>(3, d + lo + hi));
    const int64_t s = b.rng.Uniform(1, 2);
    size.push_back(absl::StrCat(w));
    stride.push_back(absl::StrCat(s));
    pad.push_back(absl::StrCat(lo, "_", hi));
    out.push_back((d + lo + hi - w) / s + 1);
  }
  b.Emit(c, "rw", Array(x.type, out),
         absl::StrCat("reduce-window(%", x.name, ", %", init.name, "), window={size=", absl::StrJoin(size, "x"),
                      " stride=", absl::StrJoin(stride, "x"), " pad=", absl::StrJoin(pad, "x"),
                      "}, to_apply=%", b.Scalar(kind, x.type)),
         {&x, &init});
  return true;
}

bool GenDot(ModuleBuilder& b, Comp& c) {
  const std::string type = b.rng.Pick(std::vector<std::string>{"f32", "f32", "f64", "s32", "f16", "bf16", "c64"});
  const bool big = b.rng.Chance(0.15);
  const int64_t batch = b.rng.Chance(0.3) ? b.rng.Uniform(1, 3) : 0;
  const int64_t m = big ? b.rng.Uniform(20, 70) : b.rng.Uniform(1, 5);
  const int64_t k = big ? b.rng.Uniform(20, 70) : b.rng.Uniform(1, 5);
  const int64_t n = big ? b.rng.Uniform(1, 70) : b.rng.Uniform(1, 5);
  const bool lhs_t = b.rng.Chance(0.3), rhs_t = b.rng.Chance(0.3);
  std::vector<int64_t> ld, rd, od;
  if (batch) ld = rd = od = {batch};
  const int64_t lc = static_cast<int64_t>(ld.size()) + (lhs_t ? 0 : 1);
  const int64_t rc = static_cast<int64_t>(rd.size()) + (rhs_t ? 1 : 0);
  if (lhs_t) ld.insert(ld.end(), {k, m}); else ld.insert(ld.end(), {m, k});
  if (rhs_t) rd.insert(rd.end(), {n, k}); else rd.insert(rd.end(), {k, n});
  od.insert(od.end(), {m, n});
  Value l = b.Need(c, type, ld), r = b.Need(c, type, rd);
  std::string attrs = absl::StrCat("lhs_contracting_dims={", lc, "}, rhs_contracting_dims={", rc, "}");
  if (batch) attrs = absl::StrCat("lhs_batch_dims={0}, rhs_batch_dims={0}, ", attrs);
  b.Emit(c, "dot", Array(type, od), absl::StrCat("dot(%", l.name, ", %", r.name, "), ", attrs), {&l, &r});
  return true;
}

bool GenConvolution(ModuleBuilder& b, Comp& c) {
  const std::string type = b.rng.Pick(std::vector<std::string>{"f32", "f32", "f64", "f16"});
  const int64_t batch = b.rng.Uniform(1, 2), groups = b.rng.Uniform(1, 2);
  const int64_t cin = groups * b.rng.Uniform(1, 3), cout = groups * b.rng.Uniform(1, 3);
  const int spatial = static_cast<int>(b.rng.Uniform(1, 2));
  std::vector<int64_t> in_sp, k_sp, out_sp;
  std::vector<std::string> size, stride, pad, lhs_dil, rhs_dil;
  bool dilated = false;
  for (int i = 0; i < spatial; ++i) {
    const int64_t h = b.rng.Uniform(2, 7), kk = b.rng.Uniform(1, 3);
    const int64_t s = b.rng.Uniform(1, 2), ld = b.rng.Chance(0.15) ? 2 : 1, rdil = b.rng.Chance(0.15) ? 2 : 1;
    const int64_t lo = b.rng.Uniform(0, 2), hi = b.rng.Uniform(0, 2);
    const int64_t span = (h - 1) * ld + 1 + lo + hi, kspan = (kk - 1) * rdil + 1;
    if (span < kspan) return false;
    dilated |= ld != 1 || rdil != 1;
    in_sp.push_back(h);
    k_sp.push_back(kk);
    out_sp.push_back((span - kspan) / s + 1);
    size.push_back(absl::StrCat(kk));
    stride.push_back(absl::StrCat(s));
    pad.push_back(absl::StrCat(lo, "_", hi));
    lhs_dil.push_back(absl::StrCat(ld));
    rhs_dil.push_back(absl::StrCat(rdil));
  }
  // Feature-last (b01f) or feature-first (bf01) activations.
  const bool nhwc = b.rng.Chance(0.5);
  const std::string sp = spatial == 1 ? "0" : "01";
  std::vector<int64_t> in_dims = {batch}, k_dims = k_sp, out_dims = {batch};
  if (nhwc) {
    in_dims.insert(in_dims.end(), in_sp.begin(), in_sp.end());
    in_dims.push_back(cin);
    out_dims.insert(out_dims.end(), out_sp.begin(), out_sp.end());
    out_dims.push_back(cout);
  } else {
    in_dims.push_back(cin);
    in_dims.insert(in_dims.end(), in_sp.begin(), in_sp.end());
    out_dims.push_back(cout);
    out_dims.insert(out_dims.end(), out_sp.begin(), out_sp.end());
  }
  k_dims.push_back(cin / groups);
  k_dims.push_back(cout);
  const std::string act = nhwc ? absl::StrCat("b", sp, "f") : absl::StrCat("bf", sp);
  Value in = b.Need(c, type, in_dims), kern = b.Need(c, type, k_dims);
  std::string window = absl::StrCat("size=", absl::StrJoin(size, "x"), " stride=", absl::StrJoin(stride, "x"),
                                    " pad=", absl::StrJoin(pad, "x"));
  if (dilated)
    absl::StrAppend(&window, " lhs_dilate=", absl::StrJoin(lhs_dil, "x"), " rhs_dilate=", absl::StrJoin(rhs_dil, "x"));
  std::string rhs = absl::StrCat("convolution(%", in.name, ", %", kern.name, "), window={", window, "}, dim_labels=",
                                 act, "_", sp, "io->", act);
  if (groups > 1) absl::StrAppend(&rhs, ", feature_group_count=", groups);
  b.Emit(c, "conv", Array(type, out_dims), rhs, {&in, &kern});
  return true;
}

bool GenSort(ModuleBuilder& b, Comp& c) {
  Value x = Ranked(b, c, 1, 3);
  if (KindOf(x.type) == Kind::kComplex) return false;
  const int64_t dim = b.rng.Uniform(0, x.rank() - 1);
  if (b.rng.Chance(0.5)) {
    b.Emit(c, "sort", Array(x.type, x.dims),
           absl::StrCat("sort(%", x.name, "), dimensions={", dim, "}, to_apply=%",
                        b.Scalar(b.rng.Chance(0.5) ? "lt" : "gt", x.type)),
           {&x});
    return true;
  }
  // Keys and values: stable, so equal keys keep their values' order.
  Value v = b.Need(c, b.rng.Pick(AllTypes()), x.dims);
  Value t = b.Emit(c, "sort", TupleOf({Array(x.type, x.dims), Array(v.type, x.dims)}),
                   absl::StrCat("sort(%", x.name, ", %", v.name, "), dimensions={", dim,
                                "}, is_stable=true, to_apply=%", b.Scalar("lt_pairs", x.type, v.type)),
                   {&x, &v});
  b.Emit(c, "gte", Array(v.type, x.dims), absl::StrCat("get-tuple-element(%", t.name, "), index=1"), {&t});
  return true;
}

bool GenWhile(ModuleBuilder& b, Comp& c) {
  Value x = AnyValue(b, c);
  if (x.elements() > 5000) return false;
  Value y = b.Need(c, x.type, x.dims);
  const Value state = TupleOf({Array("s32", {}), Array(x.type, x.dims), Array(x.type, x.dims)});
  const int64_t trips = b.rng.Uniform(0, 4);

  Comp cond;
  cond.name = b.Fresh("cond");
  Value cp = b.AddParam(cond, state);
  Value ci = b.Emit(cond, "i", Array("s32", {}), absl::StrCat("get-tuple-element(%", cp.name, "), index=0"), {&cp});
  Value cn = b.Constant(cond, "s32", absl::StrCat(trips));
  Value cr = b.Emit(cond, "lt", Array("pred", {}), absl::StrCat("compare(%", ci.name, ", %", cn.name, "), direction=LT"),
                    {&ci, &cn});
  b.AddComputation(cond, cr);

  // Body: counter + 1; v' = steps of (v, f(y)); y unchanged, so f(y) is
  // loop invariant (while-loop-invariant-code-motion's case).
  Comp body;
  body.name = b.Fresh("body");
  Value bp = b.AddParam(body, state);
  Value bi = b.Emit(body, "i", Array("s32", {}), absl::StrCat("get-tuple-element(%", bp.name, "), index=0"), {&bp});
  Value bv = b.Emit(body, "v", Array(x.type, x.dims), absl::StrCat("get-tuple-element(%", bp.name, "), index=1"), {&bp});
  Value by = b.Emit(body, "y", Array(x.type, x.dims), absl::StrCat("get-tuple-element(%", bp.name, "), index=2"), {&bp});
  Value one = b.Constant(body, "s32", "1");
  Value bi2 = b.Emit(body, "inc", Array("s32", {}), absl::StrCat("add(%", bi.name, ", %", one.name, ")"), {&bi, &one});
  Value inv = Step(b, body, by, by);
  Value cur = bv;
  for (int64_t n = b.rng.Uniform(1, 3); n > 0; --n) cur = Step(b, body, cur, b.rng.Chance(0.5) ? inv : by);
  Value br = b.Emit(body, "t", state, absl::StrCat("tuple(%", bi2.name, ", %", cur.name, ", %", by.name, ")"),
                    {&bi2, &cur, &by});
  b.AddComputation(body, br);

  Value zero = b.Constant(c, "s32", "0");
  Value init = b.Emit(c, "init", state, absl::StrCat("tuple(%", zero.name, ", %", x.name, ", %", y.name, ")"),
                      {&zero, &x, &y});
  Value w = b.Emit(c, "while", state,
                   absl::StrCat("while(%", init.name, "), condition=%", cond.name, ", body=%", body.name), {&init});
  b.Emit(c, "wv", Array(x.type, x.dims), absl::StrCat("get-tuple-element(%", w.name, "), index=1"), {&w});
  return true;
}

bool GenConditional(ModuleBuilder& b, Comp& c) {
  Value x = AnyValue(b, c);
  if (x.elements() > 5000) return false;
  const bool indexed = b.rng.Chance(0.5);
  const int64_t n = indexed ? b.rng.Uniform(1, 3) : 2;
  // The selector is data: a parameter when possible, so both ways run.
  Value sel = b.Need(c, indexed ? "s32" : "pred", {});
  std::vector<std::string> branches;
  for (int64_t i = 0; i < n; ++i) {
    Comp br;
    br.name = b.Fresh("branch");
    Value p = b.AddParam(br, Array(x.type, x.dims));
    Value r = p;
    for (int64_t k = b.rng.Uniform(0, 2); k > 0; --k) r = Step(b, br, r, p);
    if (r.name == p.name) r = b.Emit(br, "id", Array(x.type, x.dims), absl::StrCat("copy(%", p.name, ")"), {&p});
    b.AddComputation(br, r);
    branches.push_back(absl::StrCat("%", br.name));
  }
  std::vector<Value> ops(static_cast<size_t>(n), x);
  std::string rhs = absl::StrCat("conditional(%", sel.name, ", ", Names(ops), "), ");
  if (indexed) absl::StrAppend(&rhs, "branch_computations={", absl::StrJoin(branches, ", "), "}");
  else absl::StrAppend(&rhs, "true_computation=", branches[0], ", false_computation=", branches[1]);
  std::vector<const Value*> refs = {&sel};
  for (const Value& o : ops) refs.push_back(&o);
  b.Emit(c, "cond", Array(x.type, x.dims), rhs, refs);
  return true;
}

bool GenTuple(ModuleBuilder& b, Comp& c) {
  std::vector<Value> parts;
  for (int64_t n = b.rng.Uniform(1, 3); n > 0; --n) parts.push_back(AnyValue(b, c));
  std::vector<Value> shapes;
  for (const Value& p : parts) shapes.push_back(Array(p.type, p.dims));
  std::vector<const Value*> refs;
  for (const Value& p : parts) refs.push_back(&p);
  Value t = b.Emit(c, "tup", TupleOf(shapes), absl::StrCat("tuple(", Names(parts), ")"), refs);
  const int64_t i = b.rng.Uniform(0, static_cast<int64_t>(parts.size()) - 1);
  b.Emit(c, "gte", shapes[i], absl::StrCat("get-tuple-element(%", t.name, "), index=", i), {&t});
  return true;
}

const std::vector<OpGroup>& OpGroups() {
  static const auto* groups = new std::vector<OpGroup>{
      {"unary", GenUnary},
      {"binary", GenBinary},
      {"compare", GenCompareSelect},
      {"convert", GenConvert},
      {"bitcast-convert", GenBitcastConvert},
      {"iota", GenIota},
      {"broadcast", GenBroadcast},
      {"reshape", GenReshape},
      {"transpose", GenTranspose},
      {"slice", GenSlice},
      {"concatenate", GenConcatenate},
      {"pad", GenPad},
      {"reverse", GenReverse},
      {"layout", GenCopyLayout},
      {"dynamic-slice", GenDynamicSlice},
      {"dynamic-update-slice", GenDynamicUpdateSlice},
      {"gather", GenGather},
      {"scatter", GenScatter},
      {"reduce", GenReduce},
      {"reduce-window", GenReduceWindow},
      {"dot", GenDot},
      {"convolution", GenConvolution},
      {"sort", GenSort},
      {"while", GenWhile},
      {"conditional", GenConditional},
      {"tuple", GenTuple},
      {"map", GenMap},
      {"call", GenCall},
      {"reduce-precision", GenReducePrecision},
      {"complex", GenComplex},
      {"fft", GenFft},
      {"select-and-scatter", GenSelectAndScatter},
      {"collective", GenCollective},
  };
  return *groups;
}

}  // namespace hlo::gen
