// Shapes and layouts in the text form of spec §4-§5.
#include "absl/strings/str_cat.h"
#include "ir/printer_internal.h"

namespace hlo {
namespace print_internal {

void AppendIntList(std::string* out, absl::Span<const int64_t> values) {
  out->push_back('{');
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out->push_back(',');
    absl::StrAppend(out, values[i]);
  }
  out->push_back('}');
}

void AppendLayout(std::string* out, const Layout& layout) {
  out->push_back('{');
  for (size_t i = 0; i < layout.minor_to_major.size(); ++i) {
    if (i) out->push_back(',');
    absl::StrAppend(out, layout.minor_to_major[i]);
  }
  bool colon = false;
  auto tail = [&](absl::string_view part) {
    if (!colon) {
      out->push_back(':');
      colon = true;
    }
    out->append(part.data(), part.size());
  };
  if (!layout.rare().dim_level_types.empty()) {
    tail("D(");
    for (size_t i = 0; i < layout.rare().dim_level_types.size(); ++i) {
      if (i) out->push_back(',');
      out->append(layout.rare().dim_level_types[i]);
    }
    out->push_back(')');
  }
  if (!layout.tiles.empty()) {
    tail("T");
    for (const Tile& t : layout.tiles) {
      out->push_back('(');
      for (size_t i = 0; i < t.dims.size(); ++i) {
        if (i) out->push_back(',');
        if (t.dims[i] == Tile::kCombineDimension) {
          out->push_back('*');
        } else {
          absl::StrAppend(out, t.dims[i]);
        }
      }
      out->push_back(')');
    }
  }
  if (layout.rare().tail_padding_alignment_in_elements != 1) {
    tail("L(");
    absl::StrAppend(out, layout.rare().tail_padding_alignment_in_elements, ")");
  }
  if (layout.rare().index_primitive_type != PrimitiveType::kInvalid) {
    tail("#(");
    absl::StrAppend(out, PrimitiveTypeName(layout.rare().index_primitive_type), ")");
  }
  if (layout.rare().pointer_primitive_type != PrimitiveType::kInvalid) {
    tail("*(");
    absl::StrAppend(out, PrimitiveTypeName(layout.rare().pointer_primitive_type), ")");
  }
  if (layout.element_size_in_bits != 0) {
    tail("E(");
    absl::StrAppend(out, layout.element_size_in_bits, ")");
  }
  if (layout.memory_space != 0) {
    tail("S(");
    absl::StrAppend(out, layout.memory_space, ")");
  }
  if (!layout.rare().split_configs.empty()) {
    tail("SC");
    for (const SplitConfig& sc : layout.rare().split_configs) {
      absl::StrAppend(out, "(", sc.dimension, ":");
      for (size_t i = 0; i < sc.split_indices.size(); ++i) {
        if (i) out->push_back(',');
        absl::StrAppend(out, sc.split_indices[i]);
      }
      out->push_back(')');
    }
  }
  if (!layout.rare().physical_shape.empty()) {
    tail("P(");
    AppendShape(out, layout.rare().physical_shape.front(), /*print_layout=*/true);
    out->push_back(')');
  }
  if (layout.rare().dynamic_shape_metadata_prefix_bytes != 0) {
    tail("M(");
    absl::StrAppend(out, layout.rare().dynamic_shape_metadata_prefix_bytes, ")");
  }
  out->push_back('}');
}

void AppendShape(std::string* out, const Shape& shape, bool print_layout) {
  if (shape.IsBuffer()) {
    out->append("b(");
    if (shape.tuple_size() > 0) AppendShape(out, shape.tuple_shape(0), print_layout);
    out->push_back(')');
    return;
  }
  if (shape.IsTuple()) {
    out->push_back('(');
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      if (i) {
        out->append(", ");
        if (i % 5 == 0) absl::StrAppend(out, "/*index=", i, "*/");
      }
      AppendShape(out, shape.tuple_shape(i), print_layout);
    }
    out->push_back(')');
    return;
  }
  out->append(PrimitiveTypeName(shape.element_type()).data(),
              PrimitiveTypeName(shape.element_type()).size());
  out->push_back('[');
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (i) out->push_back(',');
    if (shape.is_dynamic_dim(i)) {
      if (shape.dim(i) == Shape::kUnboundedSize) {
        out->push_back('?');
        continue;
      }
      out->append("<=");
    }
    absl::StrAppend(out, shape.dim(i));
  }
  out->push_back(']');
  if (!print_layout || !shape.IsArray() || !shape.has_layout()) return;
  // Scalars print a layout only when it carries something beyond `{}`.
  if (shape.rank() == 0 && shape.layout().minor_to_major.empty() &&
      !shape.layout().HasNonDefaultTail())
    return;
  AppendLayout(out, shape.layout());
}

}  // namespace print_internal

std::string ShapeToString(const Shape& shape, bool print_layout) {
  std::string out;
  print_internal::AppendShape(&out, shape, print_layout);
  return out;
}

std::string LayoutToString(const Layout& layout) {
  std::string out;
  print_internal::AppendLayout(&out, layout);
  return out;
}

}  // namespace hlo
