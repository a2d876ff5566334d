// Data-movement groups: broadcast, reshape, transpose, slice, concatenate,
// pad, reverse, layout-changing copies, dynamic slices, gather, scatter.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gen/gen_ops.h"

namespace hlo::gen {
namespace {

// An array value of rank >= min_rank (a new one when none is picked).
Value Ranked(ModuleBuilder& b, Comp& c, int min_rank) {
  Value x = AnyValue(b, c);
  if (x.rank() >= min_rank) return x;
  std::vector<int64_t> dims = RandomDims(b.rng);
  while (static_cast<int>(dims.size()) < min_rank) dims.push_back(b.rng.Uniform(1, 4));
  return b.Need(c, x.type, dims);
}

std::vector<int64_t> Iota(int n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

}  // namespace

bool GenBroadcast(ModuleBuilder& b, Comp& c) {
  Value x = AnyValue(b, c);
  if (x.rank() > 2) return false;
  // Insert 0-2 new dims at random positions; operand dims keep their order.
  std::vector<int64_t> dims = x.dims;
  std::vector<bool> is_new(dims.size(), false);
  for (int64_t n = b.rng.Uniform(x.rank() == 0 ? 1 : 0, 2); n > 0; --n) {
    const size_t at = static_cast<size_t>(b.rng.Uniform(0, static_cast<int64_t>(dims.size())));
    dims.insert(dims.begin() + at, b.rng.Uniform(1, 4));
    is_new.insert(is_new.begin() + at, true);
  }
  std::vector<int64_t> mapping;
  for (size_t i = 0; i < dims.size(); ++i)
    if (!is_new[i]) mapping.push_back(static_cast<int64_t>(i));
  Value out = Array(x.type, dims);
  if (out.elements() > 20000) return false;
  b.Emit(c, "bc", out, absl::StrCat("broadcast(%", x.name, "), dimensions={", absl::StrJoin(mapping, ","), "}"), {&x});
  return true;
}

bool GenReshape(ModuleBuilder& b, Comp& c) {
  Value x = AnyValue(b, c);
  // Factor the element count into a new list of dims.
  int64_t n = x.elements();
  std::vector<int64_t> dims;
  for (int64_t f = 2; f <= n && dims.size() < 3;) {
    if (n % f == 0 && b.rng.Chance(0.5)) {
      dims.push_back(f);
      n /= f;
    } else {
      ++f;
    }
  }
  if (n > 1) dims.push_back(n);
  if (b.rng.Chance(0.3)) dims.insert(dims.begin() + b.rng.Uniform(0, dims.size()), 1);
  b.rng.Shuffle(dims);
  b.Emit(c, "rs", Array(x.type, dims), absl::StrCat("reshape(%", x.name, ")"), {&x});
  return true;
}

bool GenTranspose(ModuleBuilder& b, Comp& c) {
  Value x = Ranked(b, c, 2);
  std::vector<int64_t> perm = Iota(x.rank());
  b.rng.Shuffle(perm);
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(x.dims[p]);
  b.Emit(c, "tr", Array(x.type, dims), absl::StrCat("transpose(%", x.name, "), dimensions={", absl::StrJoin(perm, ","), "}"),
         {&x});
  return true;
}

bool GenSlice(ModuleBuilder& b, Comp& c) {
  Value x = Ranked(b, c, 1);
  std::vector<std::string> parts;
  std::vector<int64_t> dims;
  for (int64_t d : x.dims) {
    const int64_t start = b.rng.Uniform(0, d - 1), limit = b.rng.Uniform(start + 1, d);
    const int64_t stride = b.rng.Chance(0.3) ? b.rng.Uniform(2, 3) : 1;
    parts.push_back(stride == 1 ? absl::StrCat("[", start, ":", limit, "]")
                                : absl::StrCat("[", start, ":", limit, ":", stride, "]"));
    dims.push_back((limit - start + stride - 1) / stride);
  }
  b.Emit(c, "sl", Array(x.type, dims), absl::StrCat("slice(%", x.name, "), slice={", absl::StrJoin(parts, ", "), "}"),
         {&x});
  return true;
}

bool GenConcatenate(ModuleBuilder& b, Comp& c) {
  Value x = Ranked(b, c, 1);
  const int64_t dim = b.rng.Uniform(0, x.rank() - 1);
  std::vector<Value> parts = {x};
  Value out = Array(x.type, x.dims);
  for (int64_t n = b.rng.Uniform(1, 3); n > 0; --n) {
    std::vector<int64_t> dims = x.dims;
    dims[dim] = b.rng.Uniform(1, 4);
    parts.push_back(b.Need(c, x.type, dims));
    out.dims[dim] += dims[dim];
  }
  std::vector<std::string> names;
  std::vector<const Value*> ops;
  for (const Value& p : parts) {
    names.push_back(absl::StrCat("%", p.name));
    ops.push_back(&p);
  }
  b.Emit(c, "cc", out, absl::StrCat("concatenate(", absl::StrJoin(names, ", "), "), dimensions={", dim, "}"), ops);
  return true;
}

bool GenPad(ModuleBuilder& b, Comp& c) {
  Value x = Ranked(b, c, 1);
  if (x.elements() > 5000) return false;
  Value v = b.Constant(c, x.type);
  std::vector<std::string> parts;
  std::vector<int64_t> dims;
  for (int64_t d : x.dims) {
    const int64_t interior = b.rng.Chance(0.3) ? b.rng.Uniform(1, 2) : 0;
    const int64_t grown = d + (d - 1) * interior;
    // Negative edges cut; keep at least one element.
    int64_t lo = b.rng.Uniform(-1, 2), hi = b.rng.Uniform(-1, 2);
    if (grown + lo + hi < 1) lo = hi = 0;
    parts.push_back(interior ? absl::StrCat(lo, "_", hi, "_", interior) : absl::StrCat(lo, "_", hi));
    dims.push_back(grown + lo + hi);
  }
  b.Emit(c, "pad", Array(x.type, dims), absl::StrCat("pad(%", x.name, ", %", v.name, "), padding=", absl::StrJoin(parts, "x")),
         {&x, &v});
  return true;
}

bool GenReverse(ModuleBuilder& b, Comp& c) {
  Value x = Ranked(b, c, 1);
  std::vector<int64_t> rev;
  for (int i = 0; i < x.rank(); ++i)
    if (b.rng.Chance(0.6)) rev.push_back(i);
  b.Emit(c, "rev", Array(x.type, x.dims), absl::StrCat("reverse(%", x.name, "), dimensions={", absl::StrJoin(rev, ","), "}"),
         {&x});
  return true;
}

bool GenCopyLayout(ModuleBuilder& b, Comp& c) {
  Value x = Ranked(b, c, 2);
  Value out = Array(x.type, x.dims);
  out.minor_to_major = Iota(x.rank());
  b.rng.Shuffle(out.minor_to_major);
  if (x.rank() == 2 && b.rng.Chance(0.4)) out.tiles = b.rng.Pick(std::vector<std::string>{"T(2,2)", "T(4,8)", "T(8,128)"});
  b.Emit(c, "cp", out, absl::StrCat("copy(%", x.name, ")"), {&x});
  return true;
}

bool GenDynamicSlice(ModuleBuilder& b, Comp& c) {
  Value x = Ranked(b, c, 1);
  std::vector<std::string> ops = {absl::StrCat("%", x.name)};
  std::vector<int64_t> sizes;
  std::vector<Value> idx;
  for (int64_t d : x.dims) {
    sizes.push_back(b.rng.Uniform(1, d));
    idx.push_back(b.IndexScalar(c, d));
  }
  std::vector<const Value*> operands = {&x};
  for (const Value& i : idx) {
    ops.push_back(absl::StrCat("%", i.name));
    operands.push_back(&i);
  }
  b.Emit(c, "ds", Array(x.type, sizes),
         absl::StrCat("dynamic-slice(", absl::StrJoin(ops, ", "), "), dynamic_slice_sizes={", absl::StrJoin(sizes, ","), "}"),
         operands);
  return true;
}

bool GenDynamicUpdateSlice(ModuleBuilder& b, Comp& c) {
  Value x = Ranked(b, c, 1);
  std::vector<int64_t> sizes;
  for (int64_t d : x.dims) sizes.push_back(b.rng.Uniform(1, d));
  Value u = b.Need(c, x.type, sizes);
  std::vector<std::string> ops = {absl::StrCat("%", x.name), absl::StrCat("%", u.name)};
  std::vector<Value> idx;
  for (int64_t d : x.dims) idx.push_back(b.IndexScalar(c, d));
  std::vector<const Value*> operands = {&x, &u};
  for (const Value& i : idx) {
    ops.push_back(absl::StrCat("%", i.name));
    operands.push_back(&i);
  }
  b.Emit(c, "dus", Array(x.type, x.dims), absl::StrCat("dynamic-update-slice(", absl::StrJoin(ops, ", "), ")"), operands);
  return true;
}

namespace {
// Index operand: s32[K, 1] (or [K] with index_vector_dim=1 implied as the
// trailing dim) with values in and beyond range (the ops clamp or skip them).
Value GatherIndices(ModuleBuilder& b, Comp& c, int64_t k, int64_t limit) {
  std::vector<std::string> vals;
  for (int64_t i = 0; i < k; ++i) vals.push_back(absl::StrCat("{", b.rng.Uniform(-1, limit + 1), "}"));
  return b.Emit(c, "idx", Array("s32", {k, 1}), absl::StrCat("constant({", absl::StrJoin(vals, ", "), "})"), {});
}
}  // namespace

bool GenGather(ModuleBuilder& b, Comp& c) {
  Value x = Ranked(b, c, 2);
  if (x.rank() > 3) return false;
  // Rows of dim `d` picked by K indices; the other dims sliced fully or partly.
  const int64_t d = b.rng.Uniform(0, x.rank() - 1);
  const int64_t k = b.rng.Uniform(1, 5);
  Value idx = GatherIndices(b, c, k, x.dims[d]);
  std::vector<int64_t> slice_sizes, out_dims = {k}, offset_dims;
  for (int i = 0; i < x.rank(); ++i) {
    if (i == d) {
      slice_sizes.push_back(1);
      continue;
    }
    slice_sizes.push_back(b.rng.Uniform(1, x.dims[i]));
    offset_dims.push_back(static_cast<int64_t>(out_dims.size()));
    out_dims.push_back(slice_sizes.back());
  }
  b.Emit(c, "gather", Array(x.type, out_dims),
         absl::StrCat("gather(%", x.name, ", %", idx.name, "), offset_dims={", absl::StrJoin(offset_dims, ","),
                      "}, collapsed_slice_dims={", d, "}, start_index_map={", d,
                      "}, index_vector_dim=1, slice_sizes={", absl::StrJoin(slice_sizes, ","), "}",
                      b.rng.Chance(0.3) ? ", indices_are_sorted=true" : ""),
         {&x, &idx});
  return true;
}

bool GenScatter(ModuleBuilder& b, Comp& c) {
  Value x = Ranked(b, c, 2);
  if (x.rank() > 3 || KindOf(x.type) == Kind::kComplex) return false;
  const int64_t d = b.rng.Uniform(0, x.rank() - 1);
  const int64_t k = b.rng.Uniform(1, 5);
  Value idx = GatherIndices(b, c, k, x.dims[d]);
  std::vector<int64_t> upd_dims = {k}, window_dims;
  for (int i = 0; i < x.rank(); ++i) {
    if (i == d) continue;
    window_dims.push_back(static_cast<int64_t>(upd_dims.size()));
    upd_dims.push_back(b.rng.Uniform(1, x.dims[i]));
  }
  Value u = b.Need(c, x.type, upd_dims);
  std::vector<std::string> kinds = {"assign", "maximum", "minimum"};
  if (KindOf(x.type) != Kind::kPred) kinds.push_back("add");
  else kinds.push_back("or");
  const std::string kind = b.rng.Pick(kinds);
  // Duplicate indices with a non-assign combiner are order independent only
  // for max/min/or; add over floats and assign need unique indices.
  const bool unique = kind == "assign" || kind == "add";
  std::string reducer = b.Scalar(kind, x.type);
  if (unique) {
    std::vector<std::string> vals;
    std::vector<int64_t> all;
    for (int64_t i = 0; i < x.dims[d]; ++i) all.push_back(i);
    b.rng.Shuffle(all);
    const int64_t kk = std::min<int64_t>(k, x.dims[d]);
    for (int64_t i = 0; i < kk; ++i) vals.push_back(absl::StrCat("{", all[i], "}"));
    if (kk != k) return false;
    idx = b.Emit(c, "idx", Array("s32", {k, 1}), absl::StrCat("constant({", absl::StrJoin(vals, ", "), "})"), {});
  }
  b.Emit(c, "scatter", Array(x.type, x.dims),
         absl::StrCat("scatter(%", x.name, ", %", idx.name, ", %", u.name, "), update_window_dims={",
                      absl::StrJoin(window_dims, ","), "}, inserted_window_dims={", d,
                      "}, scatter_dims_to_operand_dims={", d, "}, index_vector_dim=1",
                      unique ? ", unique_indices=true" : "", ", to_apply=%", reducer),
         {&x, &idx, &u});
  return true;
}

}  // namespace hlo::gen
