#include "ir/literal.h"

#include <cstring>

namespace hlo {
namespace {

// True when the layout is a plain permutation (no tiles): element strides
// follow from minor_to_major alone.
bool IsUntiled(const Shape& shape) {
  return shape.layout().tiles.empty() &&
         static_cast<int64_t>(shape.layout().minor_to_major.size()) == shape.rank();
}

// Copies every element from `src` (strides `src_strides`) into the dense
// buffer `dst` laid out by `dst_shape`'s minor_to_major: an odometer over
// the destination order with a strided inner loop.
template <int kBytes>
void PermutedCopy(const uint8_t* src, uint8_t* dst, const Shape& dst_shape,
                  const std::vector<int64_t>& src_strides) {
  const DimVector& m2m = dst_shape.layout().minor_to_major;
  const int64_t rank = dst_shape.rank();
  if (rank == 0) {
    std::memcpy(dst, src, kBytes);
    return;
  }
  const int64_t inner_dim = m2m[0];
  const int64_t inner_n = dst_shape.dim(inner_dim);
  const int64_t inner_stride = src_strides[inner_dim] * kBytes;
  std::vector<int64_t> counter(rank, 0);  // indexed by position in m2m
  int64_t src_offset = 0;
  int64_t outer = 1;
  for (int64_t i = 1; i < rank; ++i) outer *= dst_shape.dim(m2m[i]);
  if (inner_n == 0) return;
  for (int64_t o = 0; o < outer; ++o) {
    const uint8_t* s = src + src_offset * kBytes;
    if (inner_stride == kBytes) {
      std::memcpy(dst, s, static_cast<size_t>(inner_n) * kBytes);
      dst += inner_n * kBytes;
    } else {
      for (int64_t k = 0; k < inner_n; ++k, dst += kBytes, s += inner_stride)
        std::memcpy(dst, s, kBytes);
    }
    for (int64_t i = 1; i < rank; ++i) {
      const int64_t d = m2m[i];
      src_offset += src_strides[d];
      if (++counter[i] < dst_shape.dim(d)) break;
      src_offset -= src_strides[d] * dst_shape.dim(d);
      counter[i] = 0;
    }
  }
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
  if (bytes != data_.size()) return false;
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
  return b == 0 ? 0 : static_cast<int64_t>(data_.size()) / b;
}

Literal Literal::Relayout(const Layout& layout) const {
  Shape target = shape_;
  target.set_layout(layout);
  Literal out(target);
  out.elided_ = elided_;
  if (IsUntiled(shape_) && IsUntiled(target)) {
    const std::vector<int64_t> strides = UntiledStrides(shape_);
    switch (element_bytes()) {
      case 1: PermutedCopy<1>(data_.data(), out.data_.data(), target, strides); return out;
      case 2: PermutedCopy<2>(data_.data(), out.data_.data(), target, strides); return out;
      case 4: PermutedCopy<4>(data_.data(), out.data_.data(), target, strides); return out;
      case 8: PermutedCopy<8>(data_.data(), out.data_.data(), target, strides); return out;
      case 16: PermutedCopy<16>(data_.data(), out.data_.data(), target, strides); return out;
      default: break;
    }
  }
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
