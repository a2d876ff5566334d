// Shape rules: dot, scaled/ragged dot, convolution, FFT, linear algebra, batch norm.
// Part of ir/shape_inference (see shape_inference_internal.h).
#include "ir/shape_inference_internal.h"

namespace hlo::shape_internal {
namespace {

// Dot, convolution, FFT, linear algebra
// ---------------------------------------------------------------------------

struct DotDims {
  std::vector<int64_t> lb, lc, rb, rc;
};

absl::StatusOr<DotDims> GetDotDims(const Ctx& c) {
  DotDims d;
  HLO_ASSIGN_OR_RETURN(d.lb, IntListOr(c, "lhs_batch_dims", {}));
  HLO_ASSIGN_OR_RETURN(d.lc, IntListOr(c, "lhs_contracting_dims", {}));
  HLO_ASSIGN_OR_RETURN(d.rb, IntListOr(c, "rhs_batch_dims", {}));
  HLO_ASSIGN_OR_RETURN(d.rc, IntListOr(c, "rhs_contracting_dims", {}));
  return d;
}

// The result element type of dot/convolution: XLA takes the written type as
// the preferred element type; it may not narrow an integer computation.
PrimitiveType PreferredType(const Ctx& c, const Shape& l, const Shape& r) {
  PrimitiveType from = HigherPrecision(l.element_type(), r.element_type());
  const Shape& w = c.inst.shape();
  if (w.IsArray() && !w.IsTuple()) {
    PrimitiveType p = w.element_type();
    if (p == from || IsFloatOrComplex(from) || PrimitiveTypeBitWidth(p) >= PrimitiveTypeBitWidth(from))
      return p;
  }
  return from;
}

absl::StatusOr<Shape> DotShape(const Ctx& c, const Shape& l, const Shape& r, const DotDims& d) {
  if (!l.IsArray() || l.IsTuple() || !r.IsArray() || r.IsTuple())
    return Invalid(c.name(), " operands must be arrays, got ", S(l), " and ", S(r));
  if (d.lb.size() != d.rb.size())
    return Invalid(c.name(), " must have as many lhs_batch_dims as rhs_batch_dims, got ", L(d.lb), " and ",
                   L(d.rb));
  if (d.lc.size() != d.rc.size())
    return Invalid(c.name(), " must have as many lhs_contracting_dims as rhs_contracting_dims, got ", L(d.lc),
                   " and ", L(d.rc));
  std::vector<int64_t> lall = d.lb, rall = d.rb;
  lall.insert(lall.end(), d.lc.begin(), d.lc.end());
  rall.insert(rall.end(), d.rc.begin(), d.rc.end());
  HLO_RETURN_IF_ERROR(CheckDims(c, lall, l.rank(), "lhs batch and contracting dimensions"));
  HLO_RETURN_IF_ERROR(CheckDims(c, rall, r.rank(), "rhs batch and contracting dimensions"));
  for (size_t i = 0; i < d.lc.size(); ++i) {
    int64_t a = l.dim(d.lc[i]), b = r.dim(d.rc[i]);
    if (a != b && a != Shape::kUnboundedSize && b != Shape::kUnboundedSize)
      return Invalid(c.name(), " contracting dimension sizes differ: lhs dimension ", d.lc[i], " has size ",
                     a, ", rhs dimension ", d.rc[i], " has size ", b);
  }
  for (size_t i = 0; i < d.lb.size(); ++i) {
    int64_t a = l.dim(d.lb[i]), b = r.dim(d.rb[i]);
    if (a != b && a != Shape::kUnboundedSize && b != Shape::kUnboundedSize)
      return Invalid(c.name(), " batch dimension sizes differ: lhs dimension ", d.lb[i], " has size ", a,
                     ", rhs dimension ", d.rb[i], " has size ", b);
  }
  std::vector<int64_t> dims;
  DynamicVector dyn;
  for (int64_t i : d.lb) {
    dims.push_back(l.dim(i));
    dyn.push_back(l.is_dynamic_dim(i));
  }
  for (int64_t i = 0; i < l.rank(); ++i)
    if (std::find(lall.begin(), lall.end(), i) == lall.end()) {
      dims.push_back(l.dim(i));
      dyn.push_back(l.is_dynamic_dim(i));
    }
  for (int64_t i = 0; i < r.rank(); ++i)
    if (std::find(rall.begin(), rall.end(), i) == rall.end()) {
      dims.push_back(r.dim(i));
      dyn.push_back(r.is_dynamic_dim(i));
    }
  return MakeArray(PreferredType(c, l, r), dims, dyn);
}

}  // namespace

absl::StatusOr<Shape> Dot(const Ctx& c) {
  if (c.n() < 2 || c.n() > 4)
    return Invalid("dot expects 2 operands (plus up to 2 sparsity metadata), got ", c.n());
  HLO_ASSIGN_OR_RETURN(DotDims d, GetDotDims(c));
  return DotShape(c, c.op(0), c.op(1), d);
}

absl::StatusOr<Shape> ScaledDot(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 4));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  HLO_ASSIGN_OR_RETURN(DotDims d, GetDotDims(c));
  for (int64_t i : {1, 3})
    if (c.op(i).rank() != c.op(i - 1).rank() && !c.op(i).IsScalar())
      return Invalid("scaled-dot scale (operand ", i, ") ", S(c.op(i)), " must have the rank of its operand ",
                     S(c.op(i - 1)));
  return DotShape(c, c.op(0), c.op(2), d);
}

absl::StatusOr<Shape> RaggedDot(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 3));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  HLO_ASSIGN_OR_RETURN(DotDims d, GetDotDims(c));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> lr, IntList(c, "lhs_ragged_dims"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> rg, IntListOr(c, "rhs_group_dims", {}));
  const Shape& l = c.op(0);
  const Shape& r = c.op(1);
  const Shape& gs = c.op(2);
  if (lr.size() != 1) return Invalid("ragged-dot expects exactly one lhs_ragged_dims entry, got ", L(lr));
  if (rg.size() > 1) return Invalid("ragged-dot expects at most one rhs_group_dims entry, got ", L(rg));
  HLO_RETURN_IF_ERROR(CheckDims(c, lr, l.rank(), "lhs_ragged_dims"));
  HLO_RETURN_IF_ERROR(CheckDims(c, rg, r.rank(), "rhs_group_dims"));
  if (!IsInteger(gs.element_type())) return Invalid("ragged-dot group_sizes must be integers, got ", S(gs));
  const int64_t ragged = lr[0];
  const bool in_contracting = std::find(d.lc.begin(), d.lc.end(), ragged) != d.lc.end();
  const bool in_batch = std::find(d.lb.begin(), d.lb.end(), ragged) != d.lb.end();
  // Without the group dimension, rhs behaves like an ordinary dot operand.
  Shape r2 = r;
  DotDims d2 = d;
  if (!rg.empty()) {
    if (in_contracting || in_batch)
      return Invalid("ragged-dot with a ragged ", in_batch ? "batch" : "contracting",
                     " dimension must not have rhs_group_dims");
    const int64_t g = rg[0];
    if (std::find(d.rb.begin(), d.rb.end(), g) != d.rb.end() ||
        std::find(d.rc.begin(), d.rc.end(), g) != d.rc.end())
      return Invalid("ragged-dot rhs_group_dims must not be a batch or contracting dimension");
    std::vector<int64_t> dims;
    DynamicVector dyn;
    for (int64_t i = 0; i < r.rank(); ++i)
      if (i != g) {
        dims.push_back(r.dim(i));
        dyn.push_back(r.is_dynamic_dim(i));
      }
    r2 = MakeArray(r.element_type(), dims, dyn);
    auto fix = [g](std::vector<int64_t>& v) {
      for (int64_t& x : v)
        if (x > g) --x;
    };
    fix(d2.rb);
    fix(d2.rc);
  } else if (!in_contracting && !in_batch) {
    return Invalid("ragged-dot with a ragged non-contracting dimension needs rhs_group_dims");
  }
  HLO_ASSIGN_OR_RETURN(Shape out, DotShape(c, l, r2, d2));
  if (in_contracting) {
    // The result gains a leading group dimension.
    if (gs.rank() < 1) return Invalid("ragged-dot group_sizes must have rank >= 1, got ", S(gs));
    std::vector<int64_t> dims{gs.dims().back()};
    dims.insert(dims.end(), out.dims().begin(), out.dims().end());
    return MakeArray(out.element_type(), dims);
  }
  return out;
}

absl::StatusOr<Shape> Convolution(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& l = c.op(0);
  const Shape& r = c.op(1);
  if (!c.inst.HasAttr("dim_labels")) return Invalid("convolution is missing required attribute dim_labels");
  const auto* dn = c.inst.GetAttr<ConvolutionDimensionNumbers>("dim_labels");
  if (dn == nullptr) return Invalid("attribute dim_labels of convolution has the wrong kind");
  HLO_ASSIGN_OR_RETURN(Window w, GetWindow(c));
  HLO_ASSIGN_OR_RETURN(int64_t fgc, IntOr(c, "feature_group_count", 1));
  HLO_ASSIGN_OR_RETURN(int64_t bgc, IntOr(c, "batch_group_count", 1));
  if (fgc < 1) return Invalid("feature_group_count must be >= 1, got ", fgc);
  if (bgc < 1) return Invalid("batch_group_count must be >= 1, got ", bgc);
  if (fgc > 1 && bgc > 1)
    return Invalid("feature_group_count (", fgc, ") and batch_group_count (", bgc, ") cannot both be > 1");
  const int64_t ns = static_cast<int64_t>(dn->input_spatial_dimensions.size());
  if (static_cast<int64_t>(dn->kernel_spatial_dimensions.size()) != ns ||
      static_cast<int64_t>(dn->output_spatial_dimensions.size()) != ns)
    return Invalid("dim_labels must have the same number of spatial dimensions in input, kernel and output");
  if (static_cast<int64_t>(w.dimensions.size()) != ns)
    return Invalid("convolution window has ", w.dimensions.size(), " dimensions but dim_labels has ", ns,
                   " spatial dimensions");
  HLO_RETURN_IF_ERROR(CheckWindow(w));
  if (l.rank() != ns + 2)
    return Invalid("convolution lhs ", S(l), " must have rank ", ns + 2, " (2 + spatial)");
  if (r.rank() != ns + 2)
    return Invalid("convolution rhs ", S(r), " must have rank ", ns + 2, " (2 + spatial)");
  const int64_t out_rank = ns + 2;
  std::vector<int64_t> in_dims{dn->input_batch_dimension, dn->input_feature_dimension};
  in_dims.insert(in_dims.end(), dn->input_spatial_dimensions.begin(), dn->input_spatial_dimensions.end());
  std::vector<int64_t> k_dims{dn->kernel_input_feature_dimension, dn->kernel_output_feature_dimension};
  k_dims.insert(k_dims.end(), dn->kernel_spatial_dimensions.begin(), dn->kernel_spatial_dimensions.end());
  std::vector<int64_t> o_dims{dn->output_batch_dimension, dn->output_feature_dimension};
  o_dims.insert(o_dims.end(), dn->output_spatial_dimensions.begin(), dn->output_spatial_dimensions.end());
  HLO_RETURN_IF_ERROR(CheckDims(c, in_dims, l.rank(), "dim_labels input dimensions"));
  HLO_RETURN_IF_ERROR(CheckDims(c, k_dims, r.rank(), "dim_labels kernel dimensions"));
  HLO_RETURN_IF_ERROR(CheckDims(c, o_dims, out_rank, "dim_labels output dimensions"));
  const int64_t batch = l.dim(dn->input_batch_dimension);
  const int64_t in_feat = l.dim(dn->input_feature_dimension);
  const int64_t k_in = r.dim(dn->kernel_input_feature_dimension);
  const int64_t k_out = r.dim(dn->kernel_output_feature_dimension);
  if (batch != Shape::kUnboundedSize && batch % bgc != 0)
    return Invalid("convolution input batch size ", batch, " is not a multiple of batch_group_count ", bgc);
  if (in_feat != Shape::kUnboundedSize && (in_feat % fgc != 0 || in_feat / fgc != k_in))
    return Invalid("convolution input feature size ", in_feat, " divided by feature_group_count ", fgc,
                   " must equal the kernel input feature size ", k_in, " (lhs ", S(l), ", rhs ", S(r), ")");
  if (k_out % fgc != 0)
    return Invalid("convolution kernel output feature size ", k_out,
                   " is not a multiple of feature_group_count ", fgc);
  if (k_out % bgc != 0)
    return Invalid("convolution kernel output feature size ", k_out,
                   " is not a multiple of batch_group_count ", bgc);
  for (int64_t i = 0; i < ns; ++i) {
    int64_t ks = r.dim(dn->kernel_spatial_dimensions[i]);
    if (ks != w.dimensions[i].size && ks != Shape::kUnboundedSize)
      return Invalid("convolution window size ", w.dimensions[i].size, " in spatial dimension ", i,
                     " differs from the kernel's size ", ks, " (rhs ", S(r), ")");
  }
  std::vector<int64_t> dims(out_rank, 0);
  DynamicVector dyn(out_rank, false);
  dims[dn->output_batch_dimension] = batch == Shape::kUnboundedSize ? batch : batch / bgc;
  dyn[dn->output_batch_dimension] = l.is_dynamic_dim(dn->input_batch_dimension);
  dims[dn->output_feature_dimension] = k_out;
  for (int64_t i = 0; i < ns; ++i) {
    int64_t in = l.dim(dn->input_spatial_dimensions[i]);
    int64_t o = dn->output_spatial_dimensions[i];
    if (in == Shape::kUnboundedSize) {
      dims[o] = in;
      dyn[o] = true;
      continue;
    }
    HLO_ASSIGN_OR_RETURN(dims[o], WindowedSize(in, w.dimensions[i], i));
    dyn[o] = l.is_dynamic_dim(dn->input_spatial_dimensions[i]);
  }
  return MakeArray(PreferredType(c, l, r), dims, dyn);
}

absl::StatusOr<Shape> Fft(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& in = c.op(0);
  HLO_ASSIGN_OR_RETURN(std::string type, Enum(c, "fft_type"));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> len, IntList(c, "fft_length"));
  const int64_t fr = static_cast<int64_t>(len.size());
  if (fr < 1 || fr > 3) return Invalid("fft_length must have 1 to 3 entries, got ", L(len));
  if (in.rank() < fr) return Invalid("fft operand ", S(in), " has fewer dimensions than fft_length ", L(len));
  const PrimitiveType t = in.element_type();
  auto check_dims = [&](int64_t upto) -> absl::Status {
    for (int64_t i = 0; i < upto; ++i) {
      int64_t d = in.rank() - fr + i;
      if (!IsUnbounded(in, d) && in.dim(d) != len[i])
        return Invalid("fft ", type, " operand dimension ", d, " has size ", in.dim(d), " but fft_length[", i,
                       "] is ", len[i]);
    }
    return absl::OkStatus();
  };
  if (type == "FFT" || type == "IFFT") {
    if (!IsComplex(t)) return Invalid("fft ", type, " needs a complex operand, got ", S(in));
    return in;
  }
  DimVector dims = in.dims();
  if (type == "RFFT") {
    if (t != PrimitiveType::F32 && t != PrimitiveType::F64)
      return Invalid("fft RFFT needs an f32 or f64 operand, got ", S(in));
    HLO_RETURN_IF_ERROR(check_dims(fr));
    if (len.back() != 0) dims.back() = len.back() / 2 + 1;
    return MakeArray(t == PrimitiveType::F32 ? PrimitiveType::C64 : PrimitiveType::C128, dims,
                     in.dynamic_dims());
  }
  if (type == "IRFFT") {
    if (!IsComplex(t)) return Invalid("fft IRFFT needs a complex operand, got ", S(in));
    HLO_RETURN_IF_ERROR(check_dims(fr - 1));
    int64_t last = in.rank() - 1;
    int64_t want = len.back() / 2 + 1;
    if (!IsUnbounded(in, last) && (in.dim(last) != 0 || len.back() != 0) && in.dim(last) != want)
      return Invalid("fft IRFFT operand's last dimension must be fft_length.back()/2+1 = ", want, ", got ",
                     in.dim(last));
    dims.back() = len.back();
    return MakeArray(ComplexComponentType(t), dims, in.dynamic_dims());
  }
  return Invalid("unknown fft_type ", type);
}

absl::StatusOr<Shape> Cholesky(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 1));
  HLO_RETURN_IF_ERROR(ExpectArray(c, 0));
  const Shape& a = c.op(0);
  if (!IsFloatOrComplex(a.element_type()))
    return Invalid("cholesky needs a floating-point or complex operand, got ", S(a));
  if (a.rank() < 2) return Invalid("cholesky needs an operand of rank >= 2, got ", S(a));
  if (a.dim(a.rank() - 1) != a.dim(a.rank() - 2))
    return Invalid("cholesky needs square matrices in the two minor dimensions, got ", S(a));
  return a;
}

absl::StatusOr<Shape> TriangularSolve(const Ctx& c) {
  HLO_RETURN_IF_ERROR(ExpectCount(c, 2));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& a = c.op(0);
  const Shape& b = c.op(1);
  if (!IsFloatOrComplex(a.element_type()) || a.element_type() != b.element_type())
    return Invalid("triangular-solve needs floating-point or complex operands of one type, got ", S(a),
                   " and ", S(b));
  if (a.rank() < 2 || a.rank() != b.rank())
    return Invalid("triangular-solve operands must have the same rank >= 2, got ", S(a), " and ", S(b));
  const int64_t n = a.rank();
  if (a.dim(n - 1) != a.dim(n - 2)) return Invalid("triangular-solve a must be square matrices, got ", S(a));
  for (int64_t i = 0; i < n - 2; ++i)
    if (a.dim(i) != b.dim(i))
      return Invalid("triangular-solve batch dimensions differ: ", S(a), " and ", S(b));
  const bool left = c.inst.AttrOr<bool>("left_side", false);
  int64_t bd = left ? b.dim(n - 2) : b.dim(n - 1);
  if (bd != a.dim(n - 1))
    return Invalid("triangular-solve with left_side=", left ? "true" : "false", " needs b dimension ",
                   left ? n - 2 : n - 1, " (", bd, ") to equal a's size ", a.dim(n - 1));
  if (const auto* t = c.inst.GetAttr<std::string>("transpose_a"))
    if (*t != "NO_TRANSPOSE" && *t != "TRANSPOSE" && *t != "ADJOINT")
      return Invalid("triangular-solve transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT, got ", *t);
  return b;
}

absl::StatusOr<Shape> BatchNorm(const Ctx& c) {
  const Opcode op = c.inst.opcode();
  HLO_RETURN_IF_ERROR(ExpectCount(c, op == Opcode::kBatchNormTraining ? 3 : 5));
  HLO_RETURN_IF_ERROR(ExpectAllArrays(c));
  const Shape& x = c.op(0);
  HLO_ASSIGN_OR_RETURN(int64_t f, Int(c, "feature_index"));
  if (!c.inst.GetAttr<double>("epsilon")) return Invalid(c.name(), " is missing required attribute epsilon");
  if (f < 0 || f >= x.rank()) return Invalid(c.name(), " feature_index ", f, " is out of range for ", S(x));
  if (!IsFloat(x.element_type())) return Invalid(c.name(), " needs a floating-point operand, got ", S(x));
  const int64_t fs = x.dim(f);
  // Which operands are per-feature vectors, which have the operand's shape.
  for (int64_t i = 1; i < c.n(); ++i) {
    const Shape& s = c.op(i);
    const bool full = op == Opcode::kBatchNormGrad && i == 4;
    if (!SameTypeIgnoringFp(s.element_type(), x.element_type()))
      return Invalid(c.name(), " operand ", i, " ", S(s), " must have the element type of operand 0 ", S(x));
    if (full) {
      if (!SameDims(s, x))
        return Invalid(c.name(), " grad_output (operand 4) ", S(s), " must have the shape of the operand ",
                       S(x));
    } else if (s.rank() != 1 || (s.dim(0) != fs && !IsUnbounded(x, f))) {
      return Invalid(c.name(), " operand ", i, " must be a vector of the feature size ", fs, ", got ", S(s));
    }
  }
  if (op == Opcode::kBatchNormInference) return x;
  Shape v = MakeArray(x.element_type(), {fs});
  return Shape::Tuple({x, v, v});
}

}  // namespace hlo::shape_internal
