// Physical placement of array elements: minor_to_major order plus XLA tiling
// (single tiles, repeated tiles, `*` combined dimensions, partial-tile
// padding, tail padding alignment).
//
// The rule (tiled-layout document): take the physical dims (major to minor,
// i.e. minor_to_major reversed) and the element's physical coordinates. For
// each tile in order, the tile covers the minor-most dims of the current
// shape (fewer tile dims than the shape: the major-most dims are left
// unchanged). Each `*` entry merges its dim into the next more minor one
// (bound d_i * d_{i-1}, coordinate e_i * d_{i-1} + e_{i-1}). The covered dims
// D with tile sizes T then become (ceil(D/T)..., T...) and the coordinates
// (floor(e/T)..., e mod T...); the untouched prefix stays in front. The next
// tile applies to that result. The linear index is the row-major index of
// the final coordinates in the final dims; the element count is the product
// of the final dims, rounded up to a multiple of L(n).
#include "ir/layout_index.h"

#include <algorithm>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hlo {
namespace {

using Scratch = absl::InlinedVector<int64_t, 16>;

int64_t DimBound(int64_t d) { return d == Shape::kUnboundedSize || d < 0 ? 0 : d; }

int64_t CeilDiv(int64_t a, int64_t b) { return b <= 0 ? a : (a + b - 1) / b; }

// One tile applied to a shape of `in_rank` dims.
struct Group {
  int64_t first = 0;   // first input dim of the run (stars first, then one real dim)
  int64_t last = 0;    // the non-star dim closing the run (inclusive)
  int64_t tile = 1;    // tile size for the combined dim (>= 1)
};

struct Step {
  int64_t pad = 0;     // implicit size-1 major dims added (tile longer than shape)
  int64_t in_rank = 0; // rank after padding
  int64_t prefix = 0;  // untouched major dims
  std::vector<Group> groups;
  std::vector<int64_t> in_dims;  // bounds of the input shape of this step
};

struct Plan {
  std::vector<int64_t> phys_dims;    // major -> minor
  std::vector<int64_t> phys_to_log;  // physical position -> logical dim
  std::vector<Step> steps;
  std::vector<int64_t> final_dims;
  int64_t count = 0;                 // incl. L(n) rounding
  bool separable = true;             // no `*`: each final coord depends on one input dim
};

Plan MakePlan(const Shape& shape) {
  Plan p;
  const int64_t rank = shape.rank();
  const Layout& layout = shape.layout();
  p.phys_dims.resize(rank);
  p.phys_to_log.resize(rank);
  const bool m2m_ok = static_cast<int64_t>(layout.minor_to_major.size()) == rank;
  for (int64_t j = 0; j < rank; ++j) {
    int64_t logical = m2m_ok ? layout.minor_to_major[rank - 1 - j] : j;
    if (logical < 0 || logical >= rank) logical = j;
    p.phys_to_log[j] = logical;
    p.phys_dims[j] = DimBound(shape.dim(logical));
  }
  std::vector<int64_t> cur = p.phys_dims;
  for (const Tile& tile : layout.tiles) {
    Step st;
    const int64_t k = static_cast<int64_t>(tile.dims.size());
    if (k > static_cast<int64_t>(cur.size())) {
      // A tile with more dims than the shape (XLA accepts e.g. f32[]{:T(128)}):
      // the missing major dims are implicit dims of size 1.
      st.pad = k - static_cast<int64_t>(cur.size());
      cur.insert(cur.begin(), st.pad, 1);
    }
    st.in_rank = static_cast<int64_t>(cur.size());
    st.in_dims = cur;
    st.prefix = st.in_rank - k;
    int64_t run_start = st.prefix;
    for (int64_t i = 0; i < k; ++i) {
      int64_t t = tile.dims[i];
      int64_t dim = st.prefix + i;
      if (t == Tile::kCombineDimension) {
        p.separable = false;
        if (i == k - 1) {
          // Trailing `*` (nothing more minor to merge into): the run is
          // merged and left untiled (one tile covering the merged dim).
          Group g{run_start, dim, 0};
          int64_t d = 1;
          for (int64_t x = run_start; x <= dim; ++x) d *= cur[x];
          g.tile = std::max<int64_t>(d, 1);
          st.groups.push_back(g);
        }
        continue;
      }
      Group g{run_start, dim, t > 0 ? t : 1};
      if (g.first != g.last) p.separable = false;
      st.groups.push_back(g);
      run_start = dim + 1;
    }
    std::vector<int64_t> next(cur.begin(), cur.begin() + st.prefix);
    std::vector<int64_t> inner;
    for (const Group& g : st.groups) {
      int64_t d = 1;
      for (int64_t x = g.first; x <= g.last; ++x) d *= cur[x];
      next.push_back(CeilDiv(d, g.tile));
      inner.push_back(g.tile);
    }
    next.insert(next.end(), inner.begin(), inner.end());
    cur = std::move(next);
    p.steps.push_back(std::move(st));
  }
  p.final_dims = cur;
  int64_t n = 1;
  for (int64_t d : cur) n *= d;
  int64_t align = layout.rare().tail_padding_alignment_in_elements;
  if (align > 1) n = CeilDiv(n, align) * align;
  p.count = n;
  return p;
}

// Maps physical coordinates (in `a`, size phys rank) to the linear index.
// `a` and `b` are scratch; no heap allocation for ranks that fit inline.
int64_t ApplyPlan(const Plan& p, Scratch& a, Scratch& b) {
  for (const Step& st : p.steps) {
    if (st.pad > 0) a.insert(a.begin(), static_cast<size_t>(st.pad), 0);
    const size_t ng = st.groups.size();
    const size_t base = static_cast<size_t>(st.prefix);
    b.resize(base + 2 * ng);  // resize never gives memory back
    for (size_t i = 0; i < base; ++i) b[i] = a[i];
    for (size_t gi = 0; gi < ng; ++gi) {
      const Group& g = st.groups[gi];
      int64_t c = 0;
      for (int64_t x = g.first; x <= g.last; ++x) c = c * st.in_dims[x] + a[x];
      b[base + gi] = c / g.tile;
      b[base + ng + gi] = c % g.tile;
    }
    std::swap(a, b);
  }
  int64_t idx = 0;
  for (size_t i = 0; i < p.final_dims.size(); ++i) idx = idx * p.final_dims[i] + a[i];
  return idx;
}

}  // namespace

bool HasPlainLayout(const Shape& shape) {
  return shape.IsArray() && !shape.layout().HasNonDefaultTail() &&
         static_cast<int64_t>(shape.layout().minor_to_major.size()) == shape.rank();
}

int64_t PhysicalElementCount(const Shape& shape) {
  if (!shape.IsArray()) return 0;
  const Layout& layout = shape.layout();
  if (layout.tiles.empty()) {
    int64_t n = 1;
    for (int64_t d : shape.dims()) n *= DimBound(d);
    int64_t align = layout.rare().tail_padding_alignment_in_elements;
    if (align > 1) n = CeilDiv(n, align) * align;
    return n;
  }
  return MakePlan(shape).count;
}

int64_t LinearIndex(const Shape& shape, absl::Span<const int64_t> index) {
  const int64_t rank = shape.rank();
  const Layout& layout = shape.layout();
  const bool m2m_ok = static_cast<int64_t>(layout.minor_to_major.size()) == rank;
  if (layout.tiles.empty()) {
    // Plain strides: walk from major to minor.
    int64_t idx = 0;
    for (int64_t j = rank - 1; j >= 0; --j) {
      int64_t d = m2m_ok ? layout.minor_to_major[j] : rank - 1 - j;
      idx = idx * DimBound(shape.dim(d)) + index[d];
    }
    return idx;
  }
  // Tiled: the plan depends only on dims + layout; kernels call this per
  // element, so keep the last plan of this thread.
  struct Cache {
    DimVector dims;
    DimVector m2m;
    std::vector<Tile> tiles;
    int64_t align = 1;
    Plan plan;
    Scratch a, b;
    bool valid = false;
  };
  thread_local Cache cache;
  if (!cache.valid || cache.dims != shape.dims() || cache.m2m != layout.minor_to_major ||
      cache.tiles != layout.tiles || cache.align != layout.rare().tail_padding_alignment_in_elements) {
    cache.dims = shape.dims();
    cache.m2m = layout.minor_to_major;
    cache.tiles = layout.tiles;
    cache.align = layout.rare().tail_padding_alignment_in_elements;
    cache.plan = MakePlan(shape);
    cache.valid = true;
  }
  const Plan& p = cache.plan;
  cache.a.resize(rank);
  for (int64_t j = 0; j < rank; ++j) cache.a[j] = index[p.phys_to_log[j]];
  return ApplyPlan(p, cache.a, cache.b);
}

std::vector<int64_t> UntiledStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.rank(), 0);
  int64_t stride = 1;
  for (int64_t dim : shape.layout().minor_to_major) {
    strides[dim] = stride;
    stride *= shape.dim(dim);
  }
  return strides;
}

std::vector<int64_t> PhysicalIndexTable(const Shape& shape) {
  std::vector<int64_t> out;
  if (!shape.IsArray()) return out;
  const int64_t rank = shape.rank();
  std::vector<int64_t> dims(rank);
  int64_t total = 1;
  for (int64_t i = 0; i < rank; ++i) {
    dims[i] = DimBound(shape.dim(i));
    total *= dims[i];
  }
  if (total == 0) return out;
  out.reserve(static_cast<size_t>(total));
  if (rank == 0) {
    out.push_back(0);
    return out;
  }
  const Layout& layout = shape.layout();
  const bool m2m_ok = static_cast<int64_t>(layout.minor_to_major.size()) == rank;

  // Per-logical-dim contribution tables g[d][e] with index = sum_d g[d][e_d].
  // Valid for untiled layouts (strides) and tiled layouts without `*`.
  std::vector<std::vector<int64_t>> g(rank);
  Plan plan;
  bool separable = true;
  if (layout.tiles.empty()) {
    int64_t stride = 1;
    for (int64_t j = 0; j < rank; ++j) {
      int64_t d = m2m_ok ? layout.minor_to_major[j] : rank - 1 - j;
      g[d].resize(dims[d]);
      for (int64_t e = 0; e < dims[d]; ++e) g[d][e] = e * stride;
      stride *= dims[d];
    }
  } else {
    plan = MakePlan(shape);
    separable = plan.separable;
    if (separable) {
      Scratch a(rank, 0), b;
      for (int64_t j = 0; j < rank; ++j) {
        int64_t d = plan.phys_to_log[j];
        g[d].resize(dims[d]);
        for (int64_t e = 0; e < dims[d]; ++e) {
          a.assign(rank, 0);
          a[j] = e;
          g[d][e] = ApplyPlan(plan, a, b);
        }
      }
    }
  }

  if (separable) {
    // Odometer over logical row-major order with partial sums per level.
    std::vector<int64_t> e(rank, 0), partial(rank + 1, 0);
    const int64_t inner = rank - 1;
    const int64_t* gin = g[inner].data();
    const int64_t nin = dims[inner];
    while (true) {
      int64_t base = partial[inner];
      for (int64_t x = 0; x < nin; ++x) out.push_back(base + gin[x]);
      int64_t d = inner - 1;
      while (d >= 0) {
        if (++e[d] < dims[d]) break;
        e[d] = 0;
        --d;
      }
      if (d < 0) break;
      for (int64_t k = d; k < inner; ++k) partial[k + 1] = partial[k] + g[k][e[k]];
    }
    return out;
  }

  // General case (combined dimensions): per element, scratch reused.
  std::vector<int64_t> e(rank, 0);
  Scratch a(rank), b;
  b.reserve(plan.final_dims.size());
  for (int64_t n = 0; n < total; ++n) {
    a.resize(rank);
    for (int64_t j = 0; j < rank; ++j) a[j] = e[plan.phys_to_log[j]];
    out.push_back(ApplyPlan(plan, a, b));
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++e[d] < dims[d]) break;
      e[d] = 0;
    }
  }
  return out;
}

absl::Status ValidateLayout(const Shape& shape) {
  if (shape.IsTuple() || shape.IsBuffer()) {
    for (const Shape& s : shape.tuple_shapes()) {
      absl::Status st = ValidateLayout(s);
      if (!st.ok()) return st;
    }
    return absl::OkStatus();
  }
  if (!shape.IsArray() || !shape.has_layout()) return absl::OkStatus();
  const Layout& layout = shape.layout();
  const int64_t rank = shape.rank();
  if (static_cast<int64_t>(layout.minor_to_major.size()) != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "layout minor_to_major field contains ", layout.minor_to_major.size(),
        " elements, but shape has ", rank, " dimensions: {",
        absl::StrJoin(layout.minor_to_major, ", "), "}"));
  }
  std::vector<bool> seen(rank, false);
  for (int64_t d : layout.minor_to_major) {
    if (d < 0 || d >= rank) {
      return absl::InvalidArgumentError(
          absl::StrCat("layout minor_to_major field has out-of-bounds value: {",
                       absl::StrJoin(layout.minor_to_major, ", "), "}"));
    }
    if (seen[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat("layout minor_to_major field has duplicate values: {",
                       absl::StrJoin(layout.minor_to_major, ", "), "}"));
    }
    seen[d] = true;
  }
  if (!layout.rare().dim_level_types.empty() &&
      static_cast<int64_t>(layout.rare().dim_level_types.size()) != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "layout dim_level_types field contains ", layout.rare().dim_level_types.size(),
        " elements, but shape has ", rank, " dimensions"));
  }
  bool sparse = false;
  for (const std::string& t : layout.rare().dim_level_types)
    if (t.empty() || t[0] != 'D') sparse = true;
  if (layout.rare().tail_padding_alignment_in_elements <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("layout tail_padding_alignment_in_elements field is <= 0: {",
                     layout.rare().tail_padding_alignment_in_elements, "}"));
  }
  if (sparse) {
    if (!layout.tiles.empty())
      return absl::InvalidArgumentError("layout has tiles, but the shape is a sparse array");
    for (PrimitiveType t : {layout.rare().index_primitive_type, layout.rare().pointer_primitive_type}) {
      if (t != PrimitiveType::kInvalid && !IsUnsignedInt(t))
        return absl::InvalidArgumentError(absl::StrCat(
            "index/pointer primitive type ", PrimitiveTypeName(t),
            " is not an unsigned integer type"));
    }
  } else {
    if (layout.rare().index_primitive_type != PrimitiveType::kInvalid)
      return absl::InvalidArgumentError(
          "layout has a index_primitive_type, but is not a sparse array");
    if (layout.rare().pointer_primitive_type != PrimitiveType::kInvalid)
      return absl::InvalidArgumentError(
          "layout has a pointer_primitive_type, but is not a sparse array");
    if (!layout.rare().physical_shape.empty())
      return absl::InvalidArgumentError("layout has a physical_shape, but is not a sparse array");
    // Tiles (XLA's rule): each non-empty, entries positive or `*`. A tile
    // may have more dims than the shape (f32[]{:T(128)}: the missing major
    // dims count as size 1) and may end in `*` (that run is merged and left
    // untiled); both occur in or are printed by XLA, so they are accepted.
    for (size_t ti = 0; ti < layout.tiles.size(); ++ti) {
      const Tile& tile = layout.tiles[ti];
      if (tile.dims.empty())
        return absl::InvalidArgumentError(absl::StrCat("layout has invalid tiles: tile ", ti, " is empty"));
      for (int64_t t : tile.dims) {
        if (t != Tile::kCombineDimension && t <= 0)
          return absl::InvalidArgumentError(
              absl::StrCat("layout has invalid tiles: tile size ", t, " in tile ", ti));
      }
    }
  }
  if (layout.element_size_in_bits < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "layout element_size_in_bits field is negative: ", layout.element_size_in_bits));
  }
  if (layout.element_size_in_bits > 0) {
    PrimitiveType et = shape.element_type();
    int64_t need = et == PrimitiveType::PRED ? 1 : PrimitiveTypeBitWidth(et);
    int64_t storage = 8 * static_cast<int64_t>(PrimitiveTypeByteSize(et));
    if (layout.element_size_in_bits < need || layout.element_size_in_bits > storage)
      return absl::InvalidArgumentError(absl::StrCat(
          "layout element_size_in_bits ", layout.element_size_in_bits, " does not fit element type ",
          PrimitiveTypeName(et), " (needs ", need, " to ", storage, " bits)"));
  }
  if (layout.memory_space < 0)
    return absl::InvalidArgumentError(
        absl::StrCat("layout memory_space is negative: ", layout.memory_space));
  if (layout.rare().dynamic_shape_metadata_prefix_bytes < 0)
    return absl::InvalidArgumentError(absl::StrCat(
        "layout dynamic_shape_metadata_prefix_bytes is negative: ",
        layout.rare().dynamic_shape_metadata_prefix_bytes));
  for (const SplitConfig& sc : layout.rare().split_configs) {
    if (sc.dimension < 0 || sc.dimension >= rank)
      return absl::InvalidArgumentError(
          absl::StrCat("layout split config dimension ", sc.dimension, " out of range"));
  }
  return absl::OkStatus();
}

}  // namespace hlo
