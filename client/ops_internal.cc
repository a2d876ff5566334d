#include "client/ops_internal.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/shape_inference.h"

namespace hlo::client::internal {

XlaBuilder* BuilderOf(absl::Span<const XlaOp> ops) {
  for (const XlaOp& op : ops)
    if (op.builder() != nullptr) return op.builder();
  return nullptr;
}

XlaOp Fail(XlaBuilder* b, absl::string_view op_name, absl::string_view message) {
  if (b == nullptr) return XlaOp();
  return b->ReportError(absl::InvalidArgumentError(absl::StrCat(op_name, ": ", message)));
}

const Shape& ShapeOf(XlaOp op) { return op.instruction()->shape(); }

bool IsArrayShape(const Shape& s) { return s.IsArray() && !s.IsTuple(); }

XlaOp BroadcastTo(absl::string_view op_name, XlaOp op, absl::Span<const int64_t> out_dims) {
  XlaBuilder* b = op.builder();
  if (!op.valid()) return op;
  const Shape& s = ShapeOf(op);
  if (absl::Span<const int64_t>(s.dims()) == out_dims) return op;
  const Shape out = Shape::Array(s.element_type(), out_dims);
  if (s.rank() == 0) return b->AddInstruction(op_name, Opcode::kBroadcast, {op}, {{"dimensions", IntList({})}}, out);
  if (s.rank() != static_cast<int64_t>(out_dims.size()))
    return Fail(b, op_name,
                absl::StrCat("cannot broadcast ", ShapeToMessageString(s), " to rank ", out_dims.size()));
  std::vector<int64_t> kept, kept_sizes;
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (s.dim(i) == out_dims[i]) {
      kept.push_back(i);
      kept_sizes.push_back(s.dim(i));
    } else if (s.dim(i) != 1) {
      return Fail(b, op_name,
                  absl::StrCat("cannot broadcast ", ShapeToMessageString(s), " to [", absl::StrJoin(out_dims, ","),
                               "]: dimension ", i, " is neither equal nor 1"));
    }
  }
  XlaOp reshaped = op;
  if (static_cast<int64_t>(kept.size()) < s.rank())
    reshaped = b->AddInstruction(op_name, Opcode::kReshape, {op}, {}, Shape::Array(s.element_type(), kept_sizes));
  return b->AddInstruction(op_name, Opcode::kBroadcast, {reshaped}, {{"dimensions", IntList(kept)}}, out);
}

absl::StatusOr<Window> MakeWindow(absl::Span<const int64_t> sizes, absl::Span<const int64_t> strides,
                                  absl::Span<const std::pair<int64_t, int64_t>> padding,
                                  absl::Span<const int64_t> base_dilations,
                                  absl::Span<const int64_t> window_dilations) {
  const size_t n = sizes.size();
  auto check = [&](size_t got, absl::string_view what) -> absl::Status {
    if (got != 0 && got != n)
      return absl::InvalidArgumentError(
          absl::StrCat("the window has ", n, " dimensions but ", got, " ", what, " were given"));
    return absl::OkStatus();
  };
  for (const auto& [got, what] : {std::pair<size_t, absl::string_view>{strides.size(), "strides"},
                                  {padding.size(), "padding pairs"},
                                  {base_dilations.size(), "base dilations"},
                                  {window_dilations.size(), "window dilations"}}) {
    absl::Status st = check(got, what);
    if (!st.ok()) return st;
  }
  Window w;
  for (size_t i = 0; i < n; ++i) {
    WindowDimension d;
    d.size = sizes[i];
    if (!strides.empty()) d.stride = strides[i];
    if (!padding.empty()) {
      d.padding_low = padding[i].first;
      d.padding_high = padding[i].second;
    }
    if (!base_dilations.empty()) d.base_dilation = base_dilations[i];
    if (!window_dilations.empty()) d.window_dilation = window_dilations[i];
    w.dimensions.push_back(d);
  }
  return w;
}

Computation* Use(XlaBuilder* b, absl::string_view op_name, const XlaComputation& comp) {
  if (b == nullptr) return nullptr;
  absl::StatusOr<Computation*> c = b->UseComputation(comp);
  if (!c.ok()) {
    Fail(b, op_name, c.status().message());
    return nullptr;
  }
  return *c;
}

}  // namespace hlo::client::internal
