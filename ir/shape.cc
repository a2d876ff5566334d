#include "ir/shape.h"

namespace hlo {

bool LayoutRareFields::IsDefault() const {
  return dim_level_types.empty() && tail_padding_alignment_in_elements == 1 &&
         index_primitive_type == PrimitiveType::kInvalid &&
         pointer_primitive_type == PrimitiveType::kInvalid && split_configs.empty() &&
         physical_shape.empty() && dynamic_shape_metadata_prefix_bytes == 0;
}

bool LayoutRareFields::operator==(const LayoutRareFields& o) const {
  return dim_level_types == o.dim_level_types &&
         tail_padding_alignment_in_elements == o.tail_padding_alignment_in_elements &&
         index_primitive_type == o.index_primitive_type &&
         pointer_primitive_type == o.pointer_primitive_type && split_configs == o.split_configs &&
         physical_shape == o.physical_shape &&
         dynamic_shape_metadata_prefix_bytes == o.dynamic_shape_metadata_prefix_bytes;
}

const LayoutRareFields& Layout::DefaultRareFields() {
  static const LayoutRareFields* const kDefault = new LayoutRareFields();
  return *kDefault;
}

bool Layout::HasNonDefaultTail() const {
  return !tiles.empty() || element_size_in_bits != 0 || memory_space != 0 || !rare().IsDefault();
}

bool Layout::operator==(const Layout& o) const {
  return minor_to_major == o.minor_to_major && tiles == o.tiles &&
         element_size_in_bits == o.element_size_in_bits && memory_space == o.memory_space &&
         (rare_ == o.rare_ || rare() == o.rare());
}

Shape Shape::ArrayNoLayout(PrimitiveType type, absl::Span<const int64_t> dims) {
  Shape s;
  s.element_type_ = type;
  s.dims_.assign(dims.begin(), dims.end());
  s.dynamic_.assign(dims.size(), false);
  return s;
}

Shape Shape::Array(PrimitiveType type, absl::Span<const int64_t> dims) {
  Shape s = ArrayNoLayout(type, dims);
  s.FillDefaultLayoutIfMissing();
  return s;
}

Shape Shape::Tuple(std::vector<Shape> elements) {
  Shape s;
  s.is_tuple_ = true;
  s.tuple_shapes_ = std::move(elements);
  return s;
}

Shape Shape::Buffer(Shape element) {
  Shape s;
  s.is_buffer_ = true;
  s.element_type_ = element.element_type();
  s.tuple_shapes_.push_back(std::move(element));
  return s;
}

Shape Shape::Token() {
  Shape s;
  s.element_type_ = PrimitiveType::TOKEN;
  return s;
}

Shape Shape::Opaque() {
  Shape s;
  s.element_type_ = PrimitiveType::OPAQUE_TYPE;
  return s;
}

bool Shape::IsStatic() const {
  if (is_tuple_ || is_buffer_) {
    for (const Shape& t : tuple_shapes_) if (!t.IsStatic()) return false;
    return true;
  }
  for (bool d : dynamic_) if (d) return false;
  return true;
}

void Shape::AddDim(int64_t size, bool dynamic) {
  dims_.push_back(size);
  dynamic_.push_back(dynamic);
}

int64_t Shape::ElementCount() const {
  if (is_tuple_ || !IsArray()) return 0;
  int64_t n = 1;
  for (int64_t d : dims_) n *= (d == kUnboundedSize ? 0 : d);
  return n;
}

DimVector Shape::DefaultMinorToMajor(int64_t rank) {
  DimVector m2m(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) m2m[i] = rank - 1 - i;
  return m2m;
}

void Shape::FillDefaultLayoutIfMissing() {
  if (is_tuple_ || is_buffer_) {
    for (Shape& t : tuple_shapes_) t.FillDefaultLayoutIfMissing();
    return;
  }
  if (!IsArray() || has_layout_) return;
  layout_.minor_to_major = DefaultMinorToMajor(rank());
  has_layout_ = true;
}

const Shape* Shape::SubShape(absl::Span<const int64_t> index) const {
  const Shape* s = this;
  for (int64_t i : index) {
    if (!s->IsTuple() || i < 0 || i >= s->tuple_size()) return nullptr;
    s = &s->tuple_shapes_[i];
  }
  return s;
}

bool Shape::Compatible(const Shape& o) const {
  if (is_tuple_ != o.is_tuple_ || is_buffer_ != o.is_buffer_) return false;
  if (is_tuple_ || is_buffer_) {
    if (tuple_shapes_.size() != o.tuple_shapes_.size()) return false;
    for (size_t i = 0; i < tuple_shapes_.size(); ++i)
      if (!tuple_shapes_[i].Compatible(o.tuple_shapes_[i])) return false;
    return true;
  }
  return element_type_ == o.element_type_ && dims_ == o.dims_ && dynamic_ == o.dynamic_;
}

bool Shape::operator==(const Shape& o) const {
  if (!Compatible(o)) return false;
  if (is_tuple_ || is_buffer_) {
    for (size_t i = 0; i < tuple_shapes_.size(); ++i)
      if (tuple_shapes_[i] != o.tuple_shapes_[i]) return false;
    return true;
  }
  if (has_layout_ != o.has_layout_) return false;
  return !has_layout_ || layout_ == o.layout_;
}

}  // namespace hlo
