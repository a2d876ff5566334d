#include "backend_cpu/precision_conform.h"

#include <utility>

#include "backend_cpu/elementwise_kernels.h"

namespace hlo::cpu {

bool SameElementTypes(const Shape& a, const Shape& b) {
  if (a.IsTuple() != b.IsTuple()) return false;
  if (!a.IsTuple()) return a.element_type() == b.element_type();
  if (a.tuple_shapes().size() != b.tuple_shapes().size()) return false;
  for (size_t i = 0; i < a.tuple_shapes().size(); ++i)
    if (!SameElementTypes(a.tuple_shapes()[i], b.tuple_shapes()[i])) return false;
  return true;
}

absl::StatusOr<Literal> ConformElementTypes(Literal lit, const Shape& shape) {
  if (lit.IsTuple()) {
    if (!shape.IsTuple() || shape.tuple_shapes().size() != lit.tuple_elements().size()) return lit;
    std::vector<Literal> elems;
    for (size_t i = 0; i < shape.tuple_shapes().size(); ++i) {
      absl::StatusOr<Literal> e =
          ConformElementTypes(std::move(lit.mutable_tuple_elements()[i]), shape.tuple_shapes()[i]);
      if (!e.ok()) return e.status();
      elems.push_back(*std::move(e));
    }
    return Literal::MakeTuple(std::move(elems));
  }
  const PrimitiveType from = lit.shape().element_type();
  // Only float precision may differ (the verifier's rule); anything else is
  // left for the consumer to report.
  if (!lit.shape().IsArray() || !shape.IsArray() || from == shape.element_type() ||
      !IsFloat(from) || !IsFloat(shape.element_type()))
    return lit;
  absl::StatusOr<ElementwiseKernel> convert =
      SelectElementwiseKernel(Opcode::kConvert, {from}, shape.element_type(), ElementwiseAttrs());
  if (!convert.ok()) return convert.status();
  // Same dims and layout, other element type: slot i converts to slot i.
  Shape out_shape = lit.shape();
  out_shape.set_element_type(shape.element_type());
  Literal out = Literal::Uninitialized(out_shape);
  const void* in = lit.data();
  RunElementwise(*convert, absl::MakeConstSpan(&in, 1), out.data(), lit.physical_count(),
                 ElementwiseAttrs().params());
  return out;
}

}  // namespace hlo::cpu
