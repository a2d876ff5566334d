#include "proto/shape_literal_proto.h"

#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "ir/printer.h"
#include "parser/parser.h"

namespace hlo::proto {
namespace {

// Our element types carry XLA's enum names (ir/element_type.h), so the
// mapping goes through the generated name tables.
struct TypeTables {
  xla::PrimitiveType to_xla[kNumPrimitiveTypes] = {};
  std::optional<PrimitiveType> from_xla[64];
  TypeTables() {
#define HLO_MAP_TYPE(e, name, bits, bytes, cat)                        \
  {                                                                    \
    xla::PrimitiveType x;                                              \
    if (xla::PrimitiveType_Parse(#e, &x)) {                            \
      to_xla[static_cast<int>(PrimitiveType::e)] = x;                  \
      if (x >= 0 && x < 64) from_xla[x] = PrimitiveType::e;            \
    }                                                                  \
  }
    HLO_ELEMENT_TYPE_LIST(HLO_MAP_TYPE)
#undef HLO_MAP_TYPE
  }
};

const TypeTables& Tables() {
  static const TypeTables* const t = new TypeTables();
  return *t;
}

absl::StatusOr<Shape> ShapeFromProtoUnchecked(const xla::ShapeProto& p) {
  if (p.element_type() == xla::TUPLE) {
    std::vector<Shape> elements;
    for (const xla::ShapeProto& e : p.tuple_shapes()) {
      absl::StatusOr<Shape> s = ShapeFromProtoUnchecked(e);
      if (!s.ok()) return s.status();
      elements.push_back(*std::move(s));
    }
    return Shape::Tuple(std::move(elements));
  }
  if (p.element_type() == xla::BUFFER) {
    if (p.tuple_shapes_size() != 1)
      return absl::InvalidArgumentError("a BUFFER shape needs exactly one element shape");
    absl::StatusOr<Shape> e = ShapeFromProtoUnchecked(p.tuple_shapes(0));
    if (!e.ok()) return e.status();
    return Shape::Buffer(*std::move(e));
  }
  std::optional<PrimitiveType> t = FromXlaType(p.element_type());
  if (!t) return absl::InvalidArgumentError(absl::StrCat("unknown element type ", p.element_type()));
  if (*t == PrimitiveType::TOKEN) return Shape::Token();
  if (*t == PrimitiveType::OPAQUE_TYPE) return Shape::Opaque();
  if (p.is_dynamic_dimension_size() != 0 && p.is_dynamic_dimension_size() != p.dimensions_size())
    return absl::InvalidArgumentError(absl::StrCat("is_dynamic_dimension has ", p.is_dynamic_dimension_size(),
                                                   " entries for ", p.dimensions_size(), " dimensions"));
  Shape s = Shape::ArrayNoLayout(*t, {});
  for (int i = 0; i < p.dimensions_size(); ++i)
    s.AddDim(p.dimensions(i), p.is_dynamic_dimension_size() > 0 && p.is_dynamic_dimension(i));
  if (p.has_layout()) {
    const xla::LayoutProto& lp = p.layout();
    Layout& l = s.mutable_layout();
    l.minor_to_major.assign(lp.minor_to_major().begin(), lp.minor_to_major().end());
    for (const xla::TileProto& t : lp.tiles()) l.tiles.push_back(Tile{{t.dimensions().begin(), t.dimensions().end()}});
    l.element_size_in_bits = lp.element_size_in_bits();
    l.memory_space = lp.memory_space();
    if (lp.tail_padding_alignment_in_elements() > 1)
      l.mutable_rare().tail_padding_alignment_in_elements = lp.tail_padding_alignment_in_elements();
    if (lp.dynamic_shape_metadata_prefix_bytes() != 0)
      l.mutable_rare().dynamic_shape_metadata_prefix_bytes = lp.dynamic_shape_metadata_prefix_bytes();
    for (auto [field, dst] : {std::pair{lp.index_primitive_type(), 0}, std::pair{lp.pointer_primitive_type(), 1}}) {
      if (field == xla::PRIMITIVE_TYPE_INVALID) continue;
      std::optional<PrimitiveType> it = FromXlaType(field);
      if (!it) return absl::InvalidArgumentError(absl::StrCat("unknown layout index/pointer type ", field));
      (dst == 0 ? l.mutable_rare().index_primitive_type : l.mutable_rare().pointer_primitive_type) = *it;
    }
  }
  return s;
}

// Product of the dimensions, or -1 when one is negative or it overflows.
int64_t ElementCountOrMinus1(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s.dims()) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return -1;
  }
  return n;
}

// Literal values travel without tiling (XLA's literals are untiled): the
// same minor-to-major order, tiles dropped.
Layout Untiled(const Layout& l) {
  Layout out = l;
  out.tiles.clear();
  return out;
}

template <typename Field>
void CopyOut(const Literal& lit, Field* field) {
  using T = typename Field::value_type;
  const int64_t n = lit.physical_count();
  field->Resize(static_cast<int>(n * (lit.element_bytes() / sizeof(T))), T());
  if (n > 0) std::memcpy(field->mutable_data(), lit.data(), lit.size_bytes());
}

void CopyOutBytes(const Literal& lit, std::string* field) {
  field->assign(reinterpret_cast<const char*>(lit.data()), lit.size_bytes());
}

}  // namespace

xla::PrimitiveType ToXlaType(PrimitiveType t) {
  if (static_cast<int>(t) >= kNumPrimitiveTypes) return xla::PRIMITIVE_TYPE_INVALID;
  return Tables().to_xla[static_cast<int>(t)];
}

std::optional<PrimitiveType> FromXlaType(int t) {
  if (t < 0 || t >= 64) return std::nullopt;
  return Tables().from_xla[t];
}

absl::Status ShapeToProto(const Shape& shape, xla::ShapeProto* out) {
  out->Clear();
  if (shape.IsTuple()) {
    out->set_element_type(xla::TUPLE);
    for (const Shape& e : shape.tuple_shapes())
      if (absl::Status st = ShapeToProto(e, out->add_tuple_shapes()); !st.ok()) return st;
    return absl::OkStatus();
  }
  if (shape.IsBuffer()) {
    out->set_element_type(xla::BUFFER);
    return ShapeToProto(shape.tuple_shape(0), out->add_tuple_shapes());
  }
  out->set_element_type(ToXlaType(shape.element_type()));
  bool any_dynamic = false;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    out->add_dimensions(shape.dim(i));
    any_dynamic |= shape.is_dynamic_dim(i);
  }
  if (any_dynamic)
    for (int64_t i = 0; i < shape.rank(); ++i) out->add_is_dynamic_dimension(shape.is_dynamic_dim(i));
  if (!shape.has_layout() || !shape.IsArray()) return absl::OkStatus();
  const Layout& l = shape.layout();
  const LayoutRareFields& rare = l.rare();
  if (!rare.dim_level_types.empty() || !rare.split_configs.empty() || !rare.physical_shape.empty())
    return absl::UnimplementedError(absl::StrCat("the layout of ", ShapeToString(shape),
                                                 " has sparse or split parts, which protos here do not hold"));
  xla::LayoutProto* lp = out->mutable_layout();
  for (int64_t d : l.minor_to_major) lp->add_minor_to_major(d);
  for (const Tile& t : l.tiles) {
    xla::TileProto* tp = lp->add_tiles();
    for (int64_t d : t.dims) tp->add_dimensions(d);
  }
  lp->set_element_size_in_bits(l.element_size_in_bits);
  lp->set_memory_space(l.memory_space);
  if (rare.tail_padding_alignment_in_elements != 1)
    lp->set_tail_padding_alignment_in_elements(rare.tail_padding_alignment_in_elements);
  lp->set_dynamic_shape_metadata_prefix_bytes(rare.dynamic_shape_metadata_prefix_bytes);
  if (rare.index_primitive_type != PrimitiveType::kInvalid)
    lp->set_index_primitive_type(ToXlaType(rare.index_primitive_type));
  if (rare.pointer_primitive_type != PrimitiveType::kInvalid)
    lp->set_pointer_primitive_type(ToXlaType(rare.pointer_primitive_type));
  return absl::OkStatus();
}

absl::StatusOr<std::string> ShapeProtoToText(const xla::ShapeProto& proto) {
  absl::StatusOr<Shape> s = ShapeFromProtoUnchecked(proto);
  if (!s.ok()) return s.status();
  return ShapeToString(*s, /*print_layout=*/true);
}

absl::StatusOr<Shape> ShapeFromProto(const xla::ShapeProto& proto, absl::string_view what) {
  absl::StatusOr<std::string> text = ShapeProtoToText(proto);
  if (!text.ok()) return absl::InvalidArgumentError(absl::StrCat(what, ": ", text.status().message()));
  absl::StatusOr<Shape> s = ParseShape(*text);
  if (!s.ok())
    return absl::InvalidArgumentError(absl::StrCat(what, ": invalid shape ", *text, ": ", s.status().message()));
  return s;
}

absl::Status LiteralToProto(const Literal& lit, xla::LiteralProto* out) {
  out->Clear();
  if (absl::Status st = ShapeToProto(lit.shape(), out->mutable_shape()); !st.ok()) return st;
  if (lit.IsTuple()) {
    for (const Literal& e : lit.tuple_elements())
      if (absl::Status st = LiteralToProto(e, out->add_tuple_literals()); !st.ok()) return st;
    return absl::OkStatus();
  }
  // What LiteralFromProto refuses is not written either (the text format
  // holds such literals; a bounded dimension's size is not in the proto).
  if (lit.shape().IsArray() && !lit.shape().IsStatic())
    return absl::InvalidArgumentError("literals of dynamic shapes are not supported in the proto format");
  if (lit.shape().has_layout() && !lit.shape().layout().tiles.empty()) {
    const Literal untiled = lit.Relayout(Untiled(lit.shape().layout()));
    xla::ShapeProto shape = out->shape();
    absl::Status st = LiteralToProto(untiled, out);
    *out->mutable_shape() = std::move(shape);  // the shape as given, tiles included
    return st;
  }
  switch (lit.shape().element_type()) {
    case PrimitiveType::PRED:
      out->mutable_preds()->Reserve(static_cast<int>(lit.physical_count()));
      for (int64_t i = 0; i < lit.physical_count(); ++i) out->add_preds(lit.GetRaw<uint8_t>(i) != 0);
      break;
    case PrimitiveType::S1: CopyOutBytes(lit, out->mutable_s1s()); break;
    case PrimitiveType::S2: CopyOutBytes(lit, out->mutable_s2s()); break;
    case PrimitiveType::S4: CopyOutBytes(lit, out->mutable_s4s()); break;
    case PrimitiveType::S8: CopyOutBytes(lit, out->mutable_s8s()); break;
    case PrimitiveType::U1: CopyOutBytes(lit, out->mutable_u1s()); break;
    case PrimitiveType::U2: CopyOutBytes(lit, out->mutable_u2s()); break;
    case PrimitiveType::U4: CopyOutBytes(lit, out->mutable_u4s()); break;
    case PrimitiveType::U8: CopyOutBytes(lit, out->mutable_u8s()); break;
    case PrimitiveType::S16: CopyOutBytes(lit, out->mutable_s16s()); break;
    case PrimitiveType::U16: CopyOutBytes(lit, out->mutable_u16s()); break;
    case PrimitiveType::F16: CopyOutBytes(lit, out->mutable_f16s()); break;
    case PrimitiveType::BF16: CopyOutBytes(lit, out->mutable_bf16s()); break;
    case PrimitiveType::F8E5M2: CopyOutBytes(lit, out->mutable_f8e5m2s()); break;
    case PrimitiveType::F8E4M3: CopyOutBytes(lit, out->mutable_f8e4m3s()); break;
    case PrimitiveType::F8E4M3FN: CopyOutBytes(lit, out->mutable_f8e4m3fns()); break;
    case PrimitiveType::F8E4M3B11FNUZ: CopyOutBytes(lit, out->mutable_f8e4m3b11fnuzs()); break;
    case PrimitiveType::F8E3M4: CopyOutBytes(lit, out->mutable_f8e3m4s()); break;
    case PrimitiveType::F8E5M2FNUZ: CopyOutBytes(lit, out->mutable_f8e5m2fnuzs()); break;
    case PrimitiveType::F8E4M3FNUZ: CopyOutBytes(lit, out->mutable_f8e4m3fnuzs()); break;
    case PrimitiveType::F4E2M1FN: CopyOutBytes(lit, out->mutable_f4e2m1fns()); break;
    case PrimitiveType::F8E8M0FNU: CopyOutBytes(lit, out->mutable_f8e8m0fnus()); break;
    case PrimitiveType::S32: CopyOut(lit, out->mutable_s32s()); break;
    case PrimitiveType::S64: CopyOut(lit, out->mutable_s64s()); break;
    case PrimitiveType::U32: CopyOut(lit, out->mutable_u32s()); break;
    case PrimitiveType::U64: CopyOut(lit, out->mutable_u64s()); break;
    case PrimitiveType::F32: CopyOut(lit, out->mutable_f32s()); break;
    case PrimitiveType::F64: CopyOut(lit, out->mutable_f64s()); break;
    case PrimitiveType::C64: CopyOut(lit, out->mutable_c64s()); break;
    case PrimitiveType::C128: CopyOut(lit, out->mutable_c128s()); break;
    default:
      break;  // token, opaque: no values
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> LiteralFromProto(const xla::LiteralProto& proto, absl::string_view what) {
  absl::StatusOr<Shape> shape = ShapeFromProto(proto.shape(), what);
  if (!shape.ok()) return shape.status();
  if (shape->IsTuple()) {
    if (proto.tuple_literals_size() != shape->tuple_size())
      return absl::InvalidArgumentError(absl::StrCat(what, ": a tuple of ", shape->tuple_size(), " elements holds ",
                                                     proto.tuple_literals_size(), " literals"));
    std::vector<Literal> elements;
    for (int i = 0; i < proto.tuple_literals_size(); ++i) {
      absl::StatusOr<Literal> e = LiteralFromProto(proto.tuple_literals(i), absl::StrCat(what, " element ", i));
      if (!e.ok()) return e.status();
      if (!e->shape().Compatible(shape->tuple_shape(i)))
        return absl::InvalidArgumentError(absl::StrCat(what, " element ", i, ": its shape differs from the tuple's"));
      elements.push_back(*std::move(e));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  if (!shape->IsArray()) return Literal(*shape);
  if (!shape->IsStatic())
    return absl::InvalidArgumentError(absl::StrCat(what, ": literals of dynamic shapes are not supported"));
  if (shape->has_layout() && !shape->layout().tiles.empty()) shape->set_layout(Untiled(shape->layout()));
  const PrimitiveType t = shape->element_type();
  // Where the values are and how many the field holds.
  const void* src = nullptr;
  int64_t count = 0;
  std::string preds;
  auto bytes = [&](const std::string& f) { src = f.data(); count = static_cast<int64_t>(f.size()); };
  auto wide_bytes = [&](const std::string& f) {
    src = f.data();
    count = f.size() % 2 != 0 ? -1 : static_cast<int64_t>(f.size() / 2);
  };
  auto rep = [&](const auto& f, int per) { src = f.data(); count = f.size() / per; };
  switch (t) {
    case PrimitiveType::PRED:
      preds.reserve(proto.preds_size());
      for (bool b : proto.preds()) preds.push_back(b ? 1 : 0);
      bytes(preds);
      break;
    case PrimitiveType::S1: bytes(proto.s1s()); break;
    case PrimitiveType::S2: bytes(proto.s2s()); break;
    case PrimitiveType::S4: bytes(proto.s4s()); break;
    case PrimitiveType::S8: bytes(proto.s8s()); break;
    case PrimitiveType::U1: bytes(proto.u1s()); break;
    case PrimitiveType::U2: bytes(proto.u2s()); break;
    case PrimitiveType::U4: bytes(proto.u4s()); break;
    case PrimitiveType::U8: bytes(proto.u8s()); break;
    case PrimitiveType::S16: wide_bytes(proto.s16s()); break;
    case PrimitiveType::U16: wide_bytes(proto.u16s()); break;
    case PrimitiveType::F16: wide_bytes(proto.f16s()); break;
    case PrimitiveType::BF16: wide_bytes(proto.bf16s()); break;
    case PrimitiveType::F8E5M2: bytes(proto.f8e5m2s()); break;
    case PrimitiveType::F8E4M3: bytes(proto.f8e4m3s()); break;
    case PrimitiveType::F8E4M3FN: bytes(proto.f8e4m3fns()); break;
    case PrimitiveType::F8E4M3B11FNUZ: bytes(proto.f8e4m3b11fnuzs()); break;
    case PrimitiveType::F8E3M4: bytes(proto.f8e3m4s()); break;
    case PrimitiveType::F8E5M2FNUZ: bytes(proto.f8e5m2fnuzs()); break;
    case PrimitiveType::F8E4M3FNUZ: bytes(proto.f8e4m3fnuzs()); break;
    case PrimitiveType::F4E2M1FN: bytes(proto.f4e2m1fns()); break;
    case PrimitiveType::F8E8M0FNU: bytes(proto.f8e8m0fnus()); break;
    case PrimitiveType::S32: rep(proto.s32s(), 1); break;
    case PrimitiveType::S64: rep(proto.s64s(), 1); break;
    case PrimitiveType::U32: rep(proto.u32s(), 1); break;
    case PrimitiveType::U64: rep(proto.u64s(), 1); break;
    case PrimitiveType::F32: rep(proto.f32s(), 1); break;
    case PrimitiveType::F64: rep(proto.f64s(), 1); break;
    case PrimitiveType::C64: rep(proto.c64s(), 2); break;
    case PrimitiveType::C128: rep(proto.c128s(), 2); break;
    default:
      return absl::InvalidArgumentError(absl::StrCat(what, ": no literal values for ", ShapeToString(*shape)));
  }
  // Checked before Literal allocates: a corrupt shape cannot ask for more
  // memory than the values the proto actually carries.
  if (count < 0) return absl::InvalidArgumentError(absl::StrCat(what, ": an odd number of bytes of 16-bit values"));
  const int64_t expected = ElementCountOrMinus1(*shape);
  if (expected != count)
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", ShapeToString(*shape), " needs ",
                                                   expected < 0 ? "more" : absl::StrCat(expected), " values, the proto holds ",
                                                   count));
  Literal lit(*shape);
  if (lit.physical_count() != count)
    return absl::InvalidArgumentError(absl::StrCat(what, ": unsupported layout for a literal"));
  if (count > 0) std::memcpy(lit.data(), src, lit.size_bytes());
  return lit;
}

}  // namespace hlo::proto
