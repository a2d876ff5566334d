#include "client/broadcasting.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/shape_inference.h"

namespace hlo::client {
namespace {

std::vector<int64_t> Dims(const Shape& s) { return std::vector<int64_t>(s.dims().begin(), s.dims().end()); }

absl::Status Error(absl::string_view op_name, const Shape& lhs, const Shape& rhs, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(op_name, ": ", what, " (lhs ", ShapeToMessageString(lhs),
                                                 ", rhs ", ShapeToMessageString(rhs), ")"));
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> DegenerateBroadcastDims(absl::Span<const int64_t> a,
                                                             absl::Span<const int64_t> b) {
  std::vector<int64_t> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i] || b[i] == 1) {
      out[i] = a[i];
    } else if (a[i] == 1) {
      out[i] = b[i];
    } else {
      return absl::InvalidArgumentError(absl::StrCat("dimension ", i, " has incompatible sizes ", a[i], " and ",
                                                     b[i], " (neither is 1)"));
    }
  }
  return out;
}

absl::StatusOr<BinaryBroadcastPlan> PlanBinaryBroadcast(absl::string_view op_name, const Shape& lhs,
                                                        const Shape& rhs,
                                                        absl::Span<const int64_t> bdims) {
  if (!lhs.IsArray() || lhs.IsTuple() || !rhs.IsArray() || rhs.IsTuple())
    return Error(op_name, lhs, rhs, "operands must be arrays");
  for (const Shape* s : {&lhs, &rhs})
    for (int64_t i = 0; i < s->rank(); ++i)
      if (s->dim(i) < 0) return Error(op_name, lhs, rhs, "unbounded dimensions are not supported by the builder");
  BinaryBroadcastPlan plan;
  if (lhs.rank() == rhs.rank()) {
    for (size_t i = 0; i < bdims.size(); ++i)
      if (bdims.size() != static_cast<size_t>(lhs.rank()) || bdims[i] != static_cast<int64_t>(i))
        return Error(op_name, lhs, rhs,
                     absl::StrCat("broadcast_dimensions {", absl::StrJoin(bdims, ","),
                                  "} must be empty or the identity for operands of the same rank"));
    absl::StatusOr<std::vector<int64_t>> dims = DegenerateBroadcastDims(lhs.dims(), rhs.dims());
    if (!dims.ok()) return Error(op_name, lhs, rhs, absl::StrCat("incompatible shapes: ", dims.status().message()));
    plan.result_dims = *std::move(dims);
    return plan;
  }
  const bool lhs_lower = lhs.rank() < rhs.rank();
  const Shape& small = lhs_lower ? lhs : rhs;
  const Shape& large = lhs_lower ? rhs : lhs;
  if (bdims.empty()) {
    if (small.rank() != 0)
      return Error(op_name, lhs, rhs,
                   "operands of different ranks need broadcast_dimensions unless one is a scalar");
    plan.result_dims = Dims(large);
    return plan;
  }
  if (static_cast<int64_t>(bdims.size()) != small.rank())
    return Error(op_name, lhs, rhs,
                 absl::StrCat("broadcast_dimensions {", absl::StrJoin(bdims, ","), "} has ", bdims.size(),
                              " entries; the lower-rank operand has rank ", small.rank()));
  std::vector<int64_t> in_dim = Dims(large);
  for (int64_t i = 0; i < small.rank(); ++i) {
    const int64_t d = bdims[i];
    if (d < 0 || d >= large.rank())
      return Error(op_name, lhs, rhs,
                   absl::StrCat("broadcast dimension ", d, " is out of range for rank ", large.rank()));
    if (i > 0 && d <= bdims[i - 1])
      return Error(op_name, lhs, rhs,
                   absl::StrCat("broadcast_dimensions {", absl::StrJoin(bdims, ","), "} must be strictly increasing"));
    const int64_t s = small.dim(i), l = large.dim(d);
    if (s != l && s != 1 && l != 1)
      return Error(op_name, lhs, rhs,
                   absl::StrCat("broadcast dimension ", i, " -> ", d, " mismatch: ", s, " != ", l));
    in_dim[d] = s;
  }
  absl::StatusOr<std::vector<int64_t>> dims = DegenerateBroadcastDims(in_dim, large.dims());
  if (!dims.ok()) return Error(op_name, lhs, rhs, absl::StrCat("incompatible shapes: ", dims.status().message()));
  plan.result_dims = *std::move(dims);
  plan.lower = lhs_lower ? 0 : 1;
  plan.in_dim_dims = std::move(in_dim);
  return plan;
}

}  // namespace hlo::client
