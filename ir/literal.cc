#include "ir/literal.h"

namespace hlo {

Literal::Literal(const Shape& shape) : shape_(shape) {
  if (shape_.IsTuple()) {
    for (const Shape& s : shape_.tuple_shapes()) elements_.emplace_back(s);
    return;
  }
  if (!shape_.IsArray()) return;
  shape_.FillDefaultLayoutIfMissing();
  data_.assign(static_cast<size_t>(PhysicalElementCount(shape_)) * element_bytes(), 0);
}

int64_t Literal::physical_count() const {
  int b = element_bytes();
  return b == 0 ? 0 : static_cast<int64_t>(data_.size()) / b;
}

Literal Literal::Relayout(const Layout& layout) const {
  Shape target = shape_;
  target.set_layout(layout);
  Literal out(target);
  out.elided_ = elided_;
  std::vector<int64_t> from = PhysicalIndexTable(shape_);
  std::vector<int64_t> to = PhysicalIndexTable(target);
  int b = element_bytes();
  for (size_t i = 0; i < from.size(); ++i)
    std::memcpy(out.data_.data() + to[i] * b, data_.data() + from[i] * b, b);
  return out;
}

bool Literal::LogicallyEqual(const Literal& other) const {
  if (!shape_.Compatible(other.shape_)) return false;
  if (IsTuple()) {
    for (size_t i = 0; i < elements_.size(); ++i)
      if (!elements_[i].LogicallyEqual(other.elements_[i])) return false;
    return true;
  }
  if (!shape_.IsArray()) return true;
  std::vector<int64_t> a = PhysicalIndexTable(shape_);
  std::vector<int64_t> b = PhysicalIndexTable(other.shape_);
  int nb = element_bytes();
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(data_.data() + a[i] * nb, other.data_.data() + b[i] * nb, nb) != 0) return false;
  return true;
}

}  // namespace hlo
