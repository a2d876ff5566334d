#include "ir/literal.h"

#include <cstring>

#include "ir/strided_copy.h"

namespace hlo {
namespace {

// True when the layout is a plain permutation (no tiles): element strides
// follow from minor_to_major alone.
bool IsUntiled(const Shape& shape) {
  return shape.layout().tiles.empty() &&
         static_cast<int64_t>(shape.layout().minor_to_major.size()) == shape.rank();
}

}  // namespace

Literal::Literal(const Shape& shape) : shape_(shape) {
  if (shape_.IsTuple()) {
    for (const Shape& s : shape_.tuple_shapes()) elements_.emplace_back(s);
    return;
  }
  if (!shape_.IsArray()) return;
  shape_.FillDefaultLayoutIfMissing();
  data_.assign(static_cast<size_t>(PhysicalElementCount(shape_)) * element_bytes(), 0);
}

Literal Literal::View(const Shape& shape, const void* bytes) {
  Literal out;
  out.shape_ = shape;
  out.shape_.FillDefaultLayoutIfMissing();
  out.view_ = static_cast<const uint8_t*>(bytes);
  out.view_bytes_ = static_cast<size_t>(PhysicalElementCount(out.shape_)) * out.element_bytes();
  return out;
}

Literal::Literal(const Literal& other)
    : shape_(other.shape_), elided_(other.elided_), data_(other.data_), elements_(other.elements_) {
  if (other.view_ != nullptr) data_.assign(other.view_, other.view_ + other.view_bytes_);
}

Literal& Literal::operator=(const Literal& other) {
  if (this == &other) return *this;
  shape_ = other.shape_;
  elided_ = other.elided_;
  if (other.view_ != nullptr) {
    data_.assign(other.view_, other.view_ + other.view_bytes_);
  } else {
    data_ = other.data_;
  }
  view_ = nullptr;
  view_bytes_ = 0;
  elements_ = other.elements_;
  return *this;
}

void Literal::Materialize() {
  data_.assign(view_, view_ + view_bytes_);
  view_ = nullptr;
  view_bytes_ = 0;
}

Literal Literal::Uninitialized(const Shape& shape) {
  if (!shape.IsArray()) return Literal(shape);
  Literal out;
  out.shape_ = shape;
  out.shape_.FillDefaultLayoutIfMissing();
  out.data_.resize(static_cast<size_t>(PhysicalElementCount(out.shape_)) * out.element_bytes());
  return out;
}

bool Literal::ReuseStorageAs(const Shape& shape) {
  if (!shape_.IsArray() || !shape.IsArray()) return false;
  Shape target = shape;
  target.FillDefaultLayoutIfMissing();
  const size_t bytes = static_cast<size_t>(PhysicalElementCount(target)) *
                       PrimitiveTypeByteSize(target.element_type());
  if (view_ != nullptr || bytes != data_.size()) return false;
  shape_ = std::move(target);
  elided_ = false;
  return true;
}

Literal Literal::MakeTuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  shapes.reserve(elements.size());
  for (const Literal& e : elements) shapes.push_back(e.shape());
  Literal out;
  out.shape_ = Shape::Tuple(std::move(shapes));
  out.elements_ = std::move(elements);
  return out;
}

int64_t Literal::physical_count() const {
  int b = element_bytes();
  return b == 0 ? 0 : static_cast<int64_t>(size_bytes()) / b;
}

Literal Literal::Relayout(const Layout& layout) const {
  return Relayout(layout, [](int64_t n, int64_t min_block,
                             absl::FunctionRef<void(int64_t, int64_t)> fn) {
    if (n > 0) fn(0, n);
    (void)min_block;
  });
}

Literal Literal::Relayout(const Layout& layout, ParallelRunner run) const {
  Shape target = shape_;
  target.set_layout(layout);
  target.FillDefaultLayoutIfMissing();
  if (IsUntiled(shape_) && IsUntiled(target) && shape_.rank() <= kStridedCopyMaxRank) {
    // Every byte of the result is written: no zero fill. The index space
    // runs in the result's major-to-minor order, so its inner dim is the
    // result's contiguous one (a permutation is a blocked transpose).
    Literal out = Uninitialized(target);
    out.elided_ = elided_;
    const std::vector<int64_t> from = UntiledStrides(shape_), to = UntiledStrides(target);
    const DimVector& m2m = target.layout().minor_to_major;
    std::vector<int64_t> dims, dst_strides, src_strides;
    for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) {
      dims.push_back(shape_.dim(*it));
      dst_strides.push_back(to[*it]);
      src_strides.push_back(from[*it]);
    }
    // Tail padding (L(n) layouts) stays zero.
    const size_t used = static_cast<size_t>(shape_.ElementCount()) * element_bytes();
    if (out.data_.size() > used) std::memset(out.data_.data() + used, 0, out.data_.size() - used);
    StridedCopy(element_bytes(), dims, dst_strides, src_strides)
        .RunParallel(out.data_.data(), data(), run);
    return out;
  }
  Literal out(target);
  out.elided_ = elided_;
  std::vector<int64_t> from = PhysicalIndexTable(shape_);
  std::vector<int64_t> to = PhysicalIndexTable(target);
  int b = element_bytes();
  for (size_t i = 0; i < from.size(); ++i)
    std::memcpy(out.data_.data() + to[i] * b, data() + from[i] * b, b);
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
    if (std::memcmp(data() + a[i] * nb, other.data() + b[i] * nb, nb) != 0) return false;
  return true;
}

}  // namespace hlo
