// Shape rules: data movement: broadcast, reshape, transpose, reverse, slices, concatenate, pad, iota, gather, scatter.
// Part of ir/shape_inference (see shape_inference_internal.h).
#include "ir/shape_inference_internal.h"

namespace hlo::shape_internal {
namespace {

// Element count, or -1 if unknown (unbounded dims).
int64_t CheckedCount(const Shape& s) {
  int64_t n = 1;
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (IsUnbounded(s, i)) return -1;
    n = SatMul(n, s.dim(i));
  }
  return n;
}

// Start-index operands of dynamic-slice / dynamic-update-slice beginning at `first`.
absl::Status CheckStartIndices(const Ctx& c, int64_t first, int64_t rank) {
  const int64_t n = c.n() - first;
  if (n == 1 && c.op(first).IsArray() && c.op(first).rank() == 1 && rank != 0 &&
      !(rank == 1 && c.op(first).rank() == 0)) {
    // Legacy form: one 1-D index vector.
    const Shape& idx = c.op(first);
    if (!IsInteger(idx.element_type()))
      return Invalid(c.name(), " start indices must be integers, got ", S(idx));
    if (idx.dim(0) != rank)
      return Invalid(c.name(), " start index vector ", S(idx), " must have ", rank, " elements");
    return absl::OkStatus();
  }
  if (n != rank)
    return Invalid(c.name(), " expects ", rank, " scalar start indices (one per operand dimension), got ", n);
  PrimitiveType t = PrimitiveType::kInvalid;
  for (int64_t i = first; i < c.n(); ++i) {
    HLO_RETURN_IF_ERROR(ExpectScalar(c, i, "start index"));
    if (!IsInteger(c.op(i).element_type()))
      return Invalid(c.name(), " start index (operand ", i, ") must be an integer, got ", S(c.op(i)));
    if (t == PrimitiveType::kInvalid) t = c.op(i).element_type();
    if (c.op(i).element_type() != t)
      return Invalid(c.name(), " start indices must all have the same type, got ", TN(t), " and ",
                     TN(c.op(i).element_type()));
  }
  return absl::OkStatus();
}

}  // namespace

// Data movement
// ---------------------------------------------------------------------------

absl::StatusOr<Shape> Broadcast(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& in = c.op(0);
  const Shape& w = c.inst.shape();
  if (!w.IsArray() || w.IsTuple()) return Invalid("broadcast must produce an array, written shape is ", S(w));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntListOr(c, "dimensions", {}));
  if (static_cast<int64_t>(dims.size()) != in.rank())
    return Invalid("broadcast dimensions ", L(dims), " must have one entry per operand dimension (operand ",
                   S(in), " has rank ", in.rank(), ")");
  HLO_RETURN_IF_ERROR(CheckDims(c, dims, w.rank(), "dimensions"));
  for (int64_t i = 0; i < in.rank(); ++i) {
    int64_t o = dims[i];
    if (!IsUnbounded(in, i) && !IsUnbounded(w, o) && in.dim(i) != w.dim(o))
      return Invalid("broadcast maps operand dimension ", i, " (size ", in.dim(i), ") to result dimension ",
                     o, " (size ", w.dim(o), "); sizes must be equal");
  }
  return WithType(w, in.element_type());
}

absl::StatusOr<Shape> Reshape(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& in = c.op(0);
  const Shape& w = c.inst.shape();
  if (!w.IsArray() || w.IsTuple()) return Invalid("reshape must produce an array, written shape is ", S(w));
  HLO_ASSIGN_OR_RETURN(int64_t inferred, IntOr(c, "inferred_dimension", -1));
  if (inferred != -1 && (inferred < 0 || inferred >= w.rank()))
    return Invalid("reshape's inferred_dimension ", inferred, " is out of range for rank ", w.rank());
  int64_t a = CheckedCount(in), b = CheckedCount(w);
  if (a >= 0 && b >= 0 && a != b)
    return Invalid("reshape changes the element count: operand ", S(in), " has ", a, " elements, result ",
                   S(w), " has ", b);
  return WithType(w, in.element_type());
}

absl::StatusOr<Shape> DynamicReshape(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& w = c.inst.shape();
  if (!w.IsArray() || w.IsTuple())
    return Invalid("dynamic-reshape must produce an array, written shape is ", S(w));
  if (c.n() != 1 + w.rank())
    return Invalid("dynamic-reshape expects 1 + ", w.rank(),
                   " operands (one size per result dimension), got ", c.n());
  for (int64_t i = 1; i < c.n(); ++i) {
    if (c.op(i).element_type() != PrimitiveType::S32)
      return Invalid("dynamic-reshape size operand ", i, " must be s32, got ", S(c.op(i)));
  }
  int64_t a = CheckedCount(c.op(0)), b = CheckedCount(w);
  if (a >= 0 && b >= 0 && a != b)
    return Invalid("dynamic-reshape changes the element count: operand ", S(c.op(0)), " has ", a,
                   " elements, result ", S(w), " has ", b);
  return WithType(w, c.op(0).element_type());
}

absl::StatusOr<Shape> Transpose(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& in = c.op(0);
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> perm, IntList(c, "dimensions"));
  if (static_cast<int64_t>(perm.size()) != in.rank())
    return Invalid("transpose dimensions ", L(perm), " must be a permutation of the operand's ", in.rank(),
                   " dimensions");
  HLO_RETURN_IF_ERROR(CheckDims(c, perm, in.rank(), "dimensions"));
  std::vector<int64_t> dims;
  DynamicVector dyn;
  for (int64_t p : perm) {
    dims.push_back(in.dim(p));
    dyn.push_back(in.is_dynamic_dim(p));
  }
  return MakeArray(in.element_type(), dims, dyn);
}

absl::StatusOr<Shape> Reverse(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntList(c, "dimensions"));
  HLO_RETURN_IF_ERROR(CheckDims(c, dims, c.op(0).rank(), "dimensions"));
  return c.op(0);
}

absl::StatusOr<Shape> Slice(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& in = c.op(0);
  if (!c.inst.HasAttr("slice")) return Invalid("slice is missing required attribute slice");
  const SliceRanges* r = c.inst.GetAttr<SliceRanges>("slice");
  if (r == nullptr) return Invalid("attribute slice of slice has the wrong kind");
  if (static_cast<int64_t>(r->size()) != in.rank())
    return Invalid("slice has ", r->size(), " ranges but the operand ", S(in), " has rank ", in.rank());
  std::vector<int64_t> dims;
  DynamicVector dyn;
  for (int64_t i = 0; i < in.rank(); ++i) {
    const SliceRange& sr = (*r)[i];
    if (sr.stride <= 0) return Invalid("slice stride in dimension ", i, " must be positive, got ", sr.stride);
    if (sr.start < 0) return Invalid("slice start in dimension ", i, " is negative: ", sr.start);
    if (sr.limit < sr.start)
      return Invalid("slice limit ", sr.limit, " is less than start ", sr.start, " in dimension ", i);
    if (!IsUnbounded(in, i) && sr.limit > in.dim(i))
      return Invalid("slice limit ", sr.limit, " exceeds the size ", in.dim(i), " of dimension ", i,
                     " of operand ", S(in));
    dims.push_back((sr.limit - sr.start + sr.stride - 1) / sr.stride);
    dyn.push_back(false);
  }
  return MakeArray(in.element_type(), dims, dyn);
}

absl::StatusOr<Shape> DynamicSlice(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& in = c.op(0);
  HLO_RETURN_IF_ERROR(CheckStartIndices(c, 1, in.rank()));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, IntList(c, "dynamic_slice_sizes"));
  if (static_cast<int64_t>(sizes.size()) != in.rank())
    return Invalid("dynamic_slice_sizes ", L(sizes), " must have one entry per operand dimension (rank ",
                   in.rank(), ")");
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (sizes[i] < 0) return Invalid("dynamic_slice_sizes[", i, "] is negative: ", sizes[i]);
    if (!IsUnbounded(in, i) && sizes[i] > in.dim(i))
      return Invalid("dynamic_slice_sizes[", i, "] = ", sizes[i], " exceeds the operand dimension size ",
                     in.dim(i));
  }
  return MakeArray(in.element_type(), sizes);
}

absl::StatusOr<Shape> DynamicUpdateSlice(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& in = c.op(0);
  const Shape& upd = c.op(1);
  if (!SameTypeIgnoringFp(in.element_type(), upd.element_type()))
    return Invalid("dynamic-update-slice update ", S(upd), " must have the element type of the operand ",
                   S(in));
  if (upd.rank() != in.rank())
    return Invalid("dynamic-update-slice update ", S(upd), " must have the rank of the operand ", S(in));
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (upd.dim(i) < 0 && !IsUnbounded(upd, i)) return Invalid("negative update dimension");
    if (!IsUnbounded(in, i) && !IsUnbounded(upd, i) && upd.dim(i) > in.dim(i))
      return Invalid("dynamic-update-slice update dimension ", i, " (size ", upd.dim(i),
                     ") exceeds the operand's size ", in.dim(i));
  }
  HLO_RETURN_IF_ERROR(CheckStartIndices(c, 2, in.rank()));
  return in;
}

absl::StatusOr<Shape> Concatenate(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCountAtLeast(c, 1));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntList(c, "dimensions"));
  if (dims.size() != 1) return Invalid("concatenate expects exactly one dimension, got ", L(dims));
  const Shape& first = c.op(0);
  const int64_t d = dims[0];
  HLO_RETURN_IF_ERROR(CheckDims(c, dims, first.rank(), "dimensions"));
  DimVector out = first.dims();
  DynamicVector dyn = first.dynamic_dims();
  PrimitiveType t = first.element_type();
  for (int64_t i = 1; i < c.n(); ++i) {
    const Shape& s = c.op(i);
    if (!SameTypeIgnoringFp(s.element_type(), first.element_type()))
      return Invalid("concatenate operands must have the same element type: operand 0 is ", S(first),
                     ", operand ", i, " is ", S(s));
    if (s.rank() != first.rank())
      return Invalid("concatenate operands must have the same rank: operand 0 is ", S(first), ", operand ", i,
                     " is ", S(s));
    for (int64_t j = 0; j < s.rank(); ++j) {
      if (j == d) continue;
      if (!IsUnbounded(s, j) && !IsUnbounded(first, j) && s.dim(j) != first.dim(j))
        return Invalid("concatenate operands must agree on every dimension but ", d, ": operand 0 is ",
                       S(first), ", operand ", i, " is ", S(s), " (dimension ", j, ")");
    }
    t = HigherPrecision(t, s.element_type());
    if (IsUnbounded(s, d) || IsUnbounded(first, d) || out[d] == Shape::kUnboundedSize) {
      out[d] = Shape::kUnboundedSize;
      dyn[d] = true;
    } else {
      out[d] = SatAdd(out[d], s.dim(d));
      dyn[d] = dyn[d] || s.is_dynamic_dim(d);
    }
  }
  return MakeArray(t, out, dyn);
}

absl::StatusOr<Shape> Pad(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& in = c.op(0);
  HLO_RETURN_IF_ERROR(ExpectScalar(c, 1, "padding value"));
  if (!SameTypeIgnoringFp(in.element_type(), c.op(1).element_type()))
    return Invalid("pad value ", S(c.op(1)), " must have the operand's element type ", TN(in.element_type()));
  if (!c.inst.HasAttr("padding")) return Invalid("pad is missing required attribute padding");
  const PaddingConfig* p = c.inst.GetAttr<PaddingConfig>("padding");
  if (p == nullptr) return Invalid("attribute padding of pad has the wrong kind");
  if (static_cast<int64_t>(p->size()) != in.rank())
    return Invalid("pad has ", p->size(), " padding entries but the operand ", S(in), " has rank ",
                   in.rank());
  std::vector<int64_t> dims;
  DynamicVector dyn = in.dynamic_dims();
  for (int64_t i = 0; i < in.rank(); ++i) {
    const PaddingDimension& pd = (*p)[i];
    if (pd.interior < 0)
      return Invalid("pad interior padding in dimension ", i, " is negative: ", pd.interior);
    if (IsUnbounded(in, i)) {
      dims.push_back(Shape::kUnboundedSize);
      continue;
    }
    int64_t d = in.dim(i);
    int64_t v = SatAdd(SatAdd(pd.low, pd.high), SatAdd(d, SatMul(std::max<int64_t>(d - 1, 0), pd.interior)));
    if (v < 0)
      return Invalid("pad makes dimension ", i, " negative: size ", d, " with padding ", pd.low, "_", pd.high,
                     "_", pd.interior);
    if (v >= kHuge) return Invalid("pad makes dimension ", i, " too large");
    dims.push_back(v);
  }
  return MakeArray(in.element_type(), dims, dyn);
}

absl::StatusOr<Shape> Iota(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 0));
  const Shape& w = c.inst.shape();
  if (!w.IsArray() || w.IsTuple()) return Invalid("iota must produce an array, written shape is ", S(w));
  if (w.rank() == 0) return Invalid("iota does not support scalars");
  if (!IsInteger(w.element_type()) && !IsFloatOrComplex(w.element_type()))
    return Invalid("iota needs an integer, floating-point or complex result, got ", S(w));
  HLO_ASSIGN_OR_RETURN(int64_t d, Int(c, "iota_dimension"));
  if (d < 0 || d >= w.rank()) return Invalid("iota_dimension ", d, " is out of range for rank ", w.rank());
  return w;
}


absl::StatusOr<Shape> Gather(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& in = c.op(0);
  const Shape& idx = c.op(1);
  if (!IsInteger(idx.element_type())) return Invalid("gather start indices must be integers, got ", S(idx));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> offset_dims, IntList(c, "offset_dims"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> collapsed, IntList(c, "collapsed_slice_dims"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> sim, IntList(c, "start_index_map"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> obd, IntListOr(c, "operand_batching_dims", {}));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> sibd, IntListOr(c, "start_indices_batching_dims", {}));
  HLO_ASSIGN_OR_RETURN(int64_t ivd, Int(c, "index_vector_dim"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, IntList(c, "slice_sizes"));
  if (ivd < 0 || ivd > idx.rank())
    return Invalid("gather index_vector_dim ", ivd, " is out of range [0, ", idx.rank(),
                   "] for start indices ", S(idx));
  DimVector eidx = idx.dims();
  if (ivd == idx.rank()) eidx.push_back(1);
  const int64_t erank = static_cast<int64_t>(eidx.size());
  const int64_t nbatch = erank - 1;
  const int64_t out_rank = static_cast<int64_t>(offset_dims.size()) + nbatch;
  HLO_RETURN_IF_ERROR(CheckSorted(c, offset_dims, "offset_dims"));
  HLO_RETURN_IF_ERROR(CheckDims(c, offset_dims, out_rank, "offset_dims"));
  HLO_RETURN_IF_ERROR(CheckSorted(c, collapsed, "collapsed_slice_dims"));
  HLO_RETURN_IF_ERROR(CheckDims(c, collapsed, in.rank(), "collapsed_slice_dims"));
  HLO_RETURN_IF_ERROR(CheckSorted(c, obd, "operand_batching_dims"));
  HLO_RETURN_IF_ERROR(CheckDims(c, obd, in.rank(), "operand_batching_dims"));
  HLO_RETURN_IF_ERROR(CheckDims(c, sibd, erank, "start_indices_batching_dims"));
  for (int64_t d : sibd)
    if (d == ivd)
      return Invalid("gather start_indices_batching_dims must not contain index_vector_dim ", ivd);
  if (obd.size() != sibd.size())
    return Invalid("gather operand_batching_dims ", L(obd), " and start_indices_batching_dims ", L(sibd),
                   " must have the same size");
  for (int64_t d : collapsed)
    if (std::find(obd.begin(), obd.end(), d) != obd.end())
      return Invalid("gather dimension ", d, " is both collapsed and a batching dimension");
  HLO_RETURN_IF_ERROR(CheckDims(c, sim, in.rank(), "start_index_map"));
  if (static_cast<int64_t>(sim.size()) != eidx[ivd])
    return Invalid("gather start_index_map ", L(sim), " must have one entry per index vector element (",
                   eidx[ivd], ")");
  for (int64_t d : sim)
    if (std::find(obd.begin(), obd.end(), d) != obd.end())
      return Invalid("gather start_index_map must not contain the batching dimension ", d);
  if (static_cast<int64_t>(sizes.size()) != in.rank())
    return Invalid("gather slice_sizes ", L(sizes), " must have one entry per operand dimension (", in.rank(),
                   ")");
  if (static_cast<int64_t>(offset_dims.size() + collapsed.size() + obd.size()) != in.rank())
    return Invalid("gather offset_dims (", offset_dims.size(), ") + collapsed_slice_dims (", collapsed.size(),
                   ") + operand_batching_dims (", obd.size(), ") must equal the operand rank ", in.rank());
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (sizes[i] < 0 || (!IsUnbounded(in, i) && sizes[i] > in.dim(i)))
      return Invalid("gather slice_sizes[", i, "] = ", sizes[i], " is out of range [0, ", in.dim(i), "]");
  }
  for (int64_t d : collapsed)
    if (sizes[d] > 1)
      return Invalid("gather collapsed dimension ", d, " must have slice size <= 1, got ", sizes[d]);
  for (int64_t d : obd)
    if (sizes[d] > 1)
      return Invalid("gather batching dimension ", d, " must have slice size <= 1, got ", sizes[d]);
  // Remaining (offset) slice sizes in order.
  std::vector<int64_t> window;
  for (int64_t i = 0; i < in.rank(); ++i)
    if (std::find(collapsed.begin(), collapsed.end(), i) == collapsed.end() &&
        std::find(obd.begin(), obd.end(), i) == obd.end())
      window.push_back(sizes[i]);
  std::vector<int64_t> batch;
  std::vector<bool> batch_dyn;
  for (int64_t i = 0; i < erank; ++i)
    if (i != ivd) {
      batch.push_back(eidx[i]);
      batch_dyn.push_back(i < idx.rank() && idx.is_dynamic_dim(i));
    }
  std::vector<int64_t> dims;
  DynamicVector dyn;
  size_t wi = 0, bi = 0;
  for (int64_t i = 0; i < out_rank; ++i) {
    if (std::find(offset_dims.begin(), offset_dims.end(), i) != offset_dims.end()) {
      if (wi >= window.size()) return Invalid("gather offset_dims do not match the slice sizes");
      dims.push_back(window[wi++]);
      dyn.push_back(false);
    } else {
      if (bi >= batch.size()) return Invalid("gather has more output batch dimensions than index dimensions");
      dims.push_back(batch[bi]);
      dyn.push_back(batch_dyn[bi++]);
    }
  }
  return MakeArray(in.element_type(), dims, dyn);
}

absl::StatusOr<Shape> Scatter(const Ctx& c) {
  if (c.n() < 3 || c.n() % 2 != 1)
    return Invalid("scatter expects N operands, 1 index array and N updates (an odd count >= 3), got ",
                   c.n());
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const int64_t n = c.n() / 2;
  const Shape& in = c.op(0);
  const Shape& idx = c.op(n);
  if (!IsInteger(idx.element_type())) return Invalid("scatter indices must be integers, got ", S(idx));
  for (int64_t i = 1; i < n; ++i)
    if (!SameDims(c.op(i), in))
      return Invalid("scatter operands must have the same dimensions: ", S(in), " and ", S(c.op(i)));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> uwd, IntList(c, "update_window_dims"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> iwd, IntList(c, "inserted_window_dims"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> sdod, IntList(c, "scatter_dims_to_operand_dims"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> ibd, IntListOr(c, "input_batching_dims", {}));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> sibd, IntListOr(c, "scatter_indices_batching_dims", {}));
  HLO_ASSIGN_OR_RETURN(int64_t ivd, Int(c, "index_vector_dim"));
  if (ivd < 0 || ivd > idx.rank())
    return Invalid("scatter index_vector_dim ", ivd, " is out of range [0, ", idx.rank(), "] for indices ",
                   S(idx));
  DimVector eidx = idx.dims();
  if (ivd == idx.rank()) eidx.push_back(1);
  const int64_t erank = static_cast<int64_t>(eidx.size());
  HLO_RETURN_IF_ERROR(CheckSorted(c, uwd, "update_window_dims"));
  HLO_RETURN_IF_ERROR(CheckSorted(c, iwd, "inserted_window_dims"));
  HLO_RETURN_IF_ERROR(CheckDims(c, iwd, in.rank(), "inserted_window_dims"));
  HLO_RETURN_IF_ERROR(CheckSorted(c, ibd, "input_batching_dims"));
  HLO_RETURN_IF_ERROR(CheckDims(c, ibd, in.rank(), "input_batching_dims"));
  HLO_RETURN_IF_ERROR(CheckDims(c, sibd, erank, "scatter_indices_batching_dims"));
  for (int64_t d : sibd)
    if (d == ivd) return Invalid("scatter_indices_batching_dims must not contain index_vector_dim ", ivd);
  if (ibd.size() != sibd.size())
    return Invalid("scatter input_batching_dims ", L(ibd), " and scatter_indices_batching_dims ", L(sibd),
                   " must have the same size");
  for (int64_t d : iwd)
    if (std::find(ibd.begin(), ibd.end(), d) != ibd.end())
      return Invalid("scatter dimension ", d, " is both inserted and a batching dimension");
  HLO_RETURN_IF_ERROR(CheckDims(c, sdod, in.rank(), "scatter_dims_to_operand_dims"));
  if (static_cast<int64_t>(sdod.size()) != eidx[ivd])
    return Invalid("scatter_dims_to_operand_dims ", L(sdod),
                   " must have one entry per index vector element (", eidx[ivd], ")");
  if (static_cast<int64_t>(uwd.size() + iwd.size() + ibd.size()) != in.rank())
    return Invalid("scatter update_window_dims (", uwd.size(), ") + inserted_window_dims (", iwd.size(),
                   ") + input_batching_dims (", ibd.size(), ") must equal the operand rank ", in.rank());
  const int64_t urank = static_cast<int64_t>(uwd.size()) + erank - 1;
  // Operand dims that correspond to update window dims, in order.
  std::vector<int64_t> window_operand_dims;
  for (int64_t i = 0; i < in.rank(); ++i)
    if (std::find(iwd.begin(), iwd.end(), i) == iwd.end() &&
        std::find(ibd.begin(), ibd.end(), i) == ibd.end())
      window_operand_dims.push_back(i);
  std::vector<int64_t> scatter_dims;
  for (int64_t i = 0; i < erank; ++i)
    if (i != ivd) scatter_dims.push_back(eidx[i]);
  for (int64_t u = 0; u < n; ++u) {
    const Shape& upd = c.op(n + 1 + u);
    if (!SameTypeIgnoringFp(upd.element_type(), c.op(u).element_type()))
      return Invalid("scatter update ", u, " ", S(upd), " must have the element type of operand ", u, " ",
                     S(c.op(u)));
    if (upd.rank() != urank)
      return Invalid("scatter update ", u, " ", S(upd), " must have rank ", urank,
                     " (update_window_dims + scatter dimensions)");
    HLO_RETURN_IF_ERROR(CheckDims(c, uwd, urank, "update_window_dims"));
    size_t wi = 0, si = 0;
    for (int64_t i = 0; i < urank; ++i) {
      if (std::find(uwd.begin(), uwd.end(), i) != uwd.end()) {
        if (wi >= window_operand_dims.size())
          return Invalid("scatter update_window_dims do not match the operand");
        int64_t od = window_operand_dims[wi++];
        if (!IsUnbounded(upd, i) && !IsUnbounded(in, od) && upd.dim(i) > in.dim(od))
          return Invalid("scatter update ", u, " window dimension ", i, " (size ", upd.dim(i),
                         ") exceeds operand dimension ", od, " (size ", in.dim(od), ")");
      } else {
        if (si >= scatter_dims.size()) return Invalid("scatter update has too many scatter dimensions");
        int64_t want = scatter_dims[si++];
        if (!IsUnbounded(upd, i) && want != Shape::kUnboundedSize && upd.dim(i) != want)
          return Invalid("scatter update ", u, " dimension ", i, " has size ", upd.dim(i),
                         " but the matching indices dimension has size ", want);
      }
    }
  }
  HLO_ASSIGN_OR_RETURN(const Computation* comp, Comp(c, "to_apply"));
  HLO_RETURN_IF_ERROR(CheckReducer(c, comp, "to_apply", Types(c, 0, n), Types(c, n + 1, 2 * n + 1)));
  return TupleOrSingle(OperandShapes(c, 0, n));
}

}  // namespace hlo::shape_internal
