// batch-norm-training / -inference / -grad of the linalg family. The spec's
// formulas, evaluated in double precision per feature and rounded once to
// the element type (see docs/ops-linalg.md).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend_cpu/op_eval.h"
#include "backend_cpu/thread_pool.h"

namespace hlo::cpu {

absl::StatusOr<Literal> LinalgEvalBatchNorm(const Instruction& instr,
                                            absl::Span<const Literal* const> operands);

namespace {

// Values of a literal in row-major order as doubles.
std::vector<double> Doubles(const Literal& lit) {
  Literal tmp;
  const Literal& l = RowMajor(lit, &tmp);
  const int64_t n = l.shape().ElementCount();
  std::vector<double> v(n);
  switch (l.shape().element_type()) {
    case PrimitiveType::F32: {
      const float* p = reinterpret_cast<const float*>(l.data());
      for (int64_t i = 0; i < n; ++i) v[i] = p[i];
      break;
    }
    case PrimitiveType::F64:
      std::memcpy(v.data(), l.data(), n * sizeof(double));
      break;
    default:
      for (int64_t i = 0; i < n; ++i) v[i] = l.GetDouble(i);
  }
  return v;
}

Literal FromDoubles(const std::vector<double>& v, const Shape& shape) {
  Literal res = RowMajorLiteral(shape);
  const int64_t n = shape.ElementCount();
  switch (shape.element_type()) {
    case PrimitiveType::F32: {
      float* p = reinterpret_cast<float*>(res.data());
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(v[i]);
      break;
    }
    case PrimitiveType::F64:
      std::memcpy(res.data(), v.data(), n * sizeof(double));
      break;
    default:
      for (int64_t i = 0; i < n; ++i) res.SetDouble(i, v[i]);
  }
  return ToLayout(std::move(res), shape.layout());
}

}  // namespace

absl::StatusOr<Literal> LinalgEvalBatchNorm(const Instruction& instr,
                                            absl::Span<const Literal* const> operands) {
  const Opcode op = instr.opcode();
  const size_t want = op == Opcode::kBatchNormTraining ? 3 : 5;
  if (operands.size() != want) return OpError(instr, absl::StrCat("expects ", want, " operands"));
  const Shape& xs = operands[0]->shape();
  if (!xs.IsArray() || !IsFloat(xs.element_type()))
    return OpUnimplemented(instr, "non-floating-point operand");
  const int64_t fi = instr.AttrOr<int64_t>("feature_index", -1);
  if (fi < 0 || fi >= xs.rank()) return OpError(instr, "feature_index out of range");
  const double eps = instr.AttrOr<double>("epsilon", 0.0);
  const int64_t F = xs.dim(fi);
  for (size_t i = 1; i < operands.size(); ++i) {
    const Shape& s = operands[i]->shape();
    const bool is_grad_out = op == Opcode::kBatchNormGrad && i == 4;
    if (is_grad_out) {
      if (!s.Compatible(xs)) return OpError(instr, "grad_output shape must match operand");
    } else if (!s.IsArray() || s.rank() != 1 || s.dim(0) != F ||
               s.element_type() != xs.element_type()) {
      return OpError(instr, absl::StrCat("operand ", i, " must be a [", F, "] vector"));
    }
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < fi; ++d) outer *= xs.dim(d);
  for (int64_t d = fi + 1; d < xs.rank(); ++d) inner *= xs.dim(d);
  const double count = static_cast<double>(outer * inner);
  const std::vector<double> x = Doubles(*operands[0]);
  auto at = [&](int64_t o, int64_t c, int64_t i) { return (o * F + c) * inner + i; };
  const Shape& rs = instr.shape();

  if (op == Opcode::kBatchNormInference) {
    const std::vector<double> scale = Doubles(*operands[1]), offset = Doubles(*operands[2]),
                              mean = Doubles(*operands[3]), var = Doubles(*operands[4]);
    if (!rs.IsArray() || !rs.Compatible(xs)) return OpError(instr, "result shape must match operand");
    std::vector<double> y(x.size());
    ParallelFor(F, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        const double inv = 1.0 / std::sqrt(var[c] + eps);
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            const int64_t k = at(o, c, i);
            y[k] = (x[k] - mean[c]) * inv * scale[c] + offset[c];
          }
      }
    });
    return FromDoubles(y, rs);
  }

  if (!rs.IsTuple() || rs.tuple_size() != 3) return OpError(instr, "result must be a 3-tuple");
  if (!rs.tuple_shape(0).Compatible(xs) || rs.tuple_shape(1).rank() != 1 ||
      rs.tuple_shape(2).rank() != 1 || rs.tuple_shape(1).dim(0) != F || rs.tuple_shape(2).dim(0) != F)
    return OpError(instr, "result tuple shapes do not match");
  std::vector<double> out0(x.size()), out1(F), out2(F);

  if (op == Opcode::kBatchNormTraining) {
    const std::vector<double> scale = Doubles(*operands[1]), offset = Doubles(*operands[2]);
    ParallelFor(F, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        double sum = 0;
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) sum += x[at(o, c, i)];
        const double mean = sum / count;
        double sq = 0;
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            const double d = x[at(o, c, i)] - mean;
            sq += d * d;
          }
        const double var = sq / count;
        const double inv = 1.0 / std::sqrt(var + eps);
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            const int64_t k = at(o, c, i);
            out0[k] = (x[k] - mean) * inv * scale[c] + offset[c];
          }
        out1[c] = mean;
        out2[c] = var;
      }
    });
  } else {  // grad
    const std::vector<double> scale = Doubles(*operands[1]), mean = Doubles(*operands[2]),
                              var = Doubles(*operands[3]), dy = Doubles(*operands[4]);
    ParallelFor(F, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        double sum_dy = 0, sum_dy_xm = 0;
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            const int64_t k = at(o, c, i);
            sum_dy += dy[k];
            sum_dy_xm += dy[k] * (x[k] - mean[c]);
          }
        const double ve = var[c] + eps;
        const double rs_ve = 1.0 / std::sqrt(ve);
        const double cl = sum_dy_xm / ve / count;
        const double dl = sum_dy / count;
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            const int64_t k = at(o, c, i);
            out0[k] = scale[c] * rs_ve * (dy[k] - dl - cl * (x[k] - mean[c]));
          }
        out1[c] = sum_dy_xm * rs_ve;
        out2[c] = sum_dy;
      }
    });
  }
  Literal result(rs);
  auto& el = result.mutable_tuple_elements();
  el[0] = FromDoubles(out0, rs.tuple_shape(0));
  el[1] = FromDoubles(out1, rs.tuple_shape(1));
  el[2] = FromDoubles(out2, rs.tuple_shape(2));
  return result;
}

}  // namespace hlo::cpu
