// Shapes, layouts (spec §4, §5) and literals (§7).
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "ir/float_format.h"
#include "ir/layout_index.h"
#include "parser/parser_impl.h"

namespace hlo {
namespace parser_internal {

std::optional<PrimitiveType> TypeFromName(absl::string_view name) {
  static const absl::flat_hash_map<absl::string_view, PrimitiveType>* kTypes = [] {
    auto* m = new absl::flat_hash_map<absl::string_view, PrimitiveType>();
    for (int i = 0; i < kNumPrimitiveTypes; ++i) {
      PrimitiveType t = static_cast<PrimitiveType>(i);
      (*m)[PrimitiveTypeName(t)] = t;
    }
    (*m)["opaque_type"] = PrimitiveType::OPAQUE_TYPE;
    return m;
  }();
  if (name.empty() || name.size() > 16) return std::nullopt;
  auto it = kTypes->find(name);
  if (it == kTypes->end()) return std::nullopt;
  return it->second;
}

bool Parser::AtShapeStart() const {
  if (kind() == TokKind::kLparen) return true;
  if (kind() != TokKind::kIdent) return false;
  if (tok().text == "b") return lexer_.PeekChar() == '(';
  return TypeFromName(tok().text).has_value() && lexer_.PeekChar() == '[';
}

absl::Status Parser::ParseShapeInto(Shape* shape) {
  DepthGuard guard(this);
  HLO_PARSE_RETURN_IF_ERROR(CheckDepth());
  if (kind() == TokKind::kLparen) {
    Next();
    std::vector<Shape> elems;
    if (!Accept(TokKind::kRparen)) {
      while (true) {
        Shape e;
        HLO_PARSE_RETURN_IF_ERROR(ParseShapeInto(&e));
        elems.push_back(std::move(e));
        if (Accept(TokKind::kComma)) continue;
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "',' or ')' in tuple shape"));
        break;
      }
    }
    *shape = Shape::Tuple(std::move(elems));
    return absl::OkStatus();
  }
  if (kind() != TokKind::kIdent) {
    if (kind() == TokKind::kError) return ErrorAtTok(lexer_.str());
    return ErrorAtTok(absl::StrCat("expected primitive type (a shape), but sees ", Describe(tok())));
  }
  if (tok().text == "b" && lexer_.PeekChar() == '(') {
    Next();
    Next();  // '('
    Shape elem;
    HLO_PARSE_RETURN_IF_ERROR(ParseShapeInto(&elem));
    if (kind() != TokKind::kRparen) return Unexpected("')' at the end of buffer shape b(...)");
    Next();
    if (!elem.IsArray()) return ErrorAtTok("buffer shape b(...) must wrap an array shape");
    *shape = Shape::Buffer(std::move(elem));
    return absl::OkStatus();
  }
  std::optional<PrimitiveType> type = TypeFromName(tok().text);
  if (!type) return ErrorAtTok(absl::StrCat("expected primitive type, but sees '", tok().text, "'"));
  if (*type != PrimitiveType::TOKEN && *type != PrimitiveType::OPAQUE_TYPE) {
    // Most shapes of a module are plain `f32[8,128]{1,0}`: read in one scan.
    Shape s = Shape::ArrayNoLayout(*type, {});
    bool has_layout = false;
    DimVector m2m;
    if (lexer_.ScanPlainArrayShape(&s.mutable_dims(), &m2m, &has_layout)) {
      s.mutable_dynamic_dims().assign(s.dims().size(), false);
      if (has_layout) s.mutable_layout().minor_to_major = std::move(m2m);
      if (options_.fill_missing_layouts) s.FillDefaultLayoutIfMissing();
      *shape = std::move(s);
      return absl::OkStatus();
    }
  }
  Next();
  if (kind() != TokKind::kLbracket) return Unexpected("'[' after the element type");
  Next();
  absl::InlinedVector<int64_t, 8> dims;
  absl::InlinedVector<bool, 8> dynamic;
  if (!Accept(TokKind::kRbracket)) {
    while (true) {
      if (kind() == TokKind::kInt) {
        if (tok().int_value < 0 || tok().int_is_big_unsigned)
          return ErrorAtTok(absl::StrCat("dimension size must be non-negative, but is ", tok().text));
        dims.push_back(tok().int_value);
        dynamic.push_back(false);
        Next();
      } else if (kind() == TokKind::kQuestion) {
        dims.push_back(Shape::kUnboundedSize);
        dynamic.push_back(true);
        Next();
      } else if (kind() == TokKind::kLeq) {
        Next();
        if (kind() != TokKind::kInt || tok().int_value < 0 || tok().int_is_big_unsigned)
          return Unexpected("a non-negative dimension bound after '<='");
        dims.push_back(tok().int_value);
        dynamic.push_back(true);
        Next();
      } else {
        return Unexpected("a dimension size (integer, '<=N' or '?')");
      }
      if (Accept(TokKind::kComma)) continue;
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbracket, "',' or ']' in dimensions"));
      break;
    }
  }
  Shape s = Shape::ArrayNoLayout(*type, absl::MakeConstSpan(dims.data(), dims.size()));
  for (size_t i = 0; i < dynamic.size(); ++i)
    if (dynamic[i]) s.set_dynamic_dim(static_cast<int64_t>(i), true);
  if ((*type == PrimitiveType::TOKEN || *type == PrimitiveType::OPAQUE_TYPE) && s.rank() != 0)
    return ErrorAtTok(absl::StrCat(PrimitiveTypeName(*type), " shapes have no dimensions"));
  // In a standalone literal (`f32[3] {1, 2, 3}`) a rank-1 value looks like
  // a layout; there a layout must touch the `]` as XLA prints it
  // (`f32[3]{0} {1, 2, 3}`).
  const bool adjacent = tok().begin != nullptr && tok().begin > lexer_.buffer().data() &&
                        tok().begin[-1] == ']';
  if (kind() == TokKind::kLbrace && s.IsArray() && (adjacent || !layout_must_touch_shape_)) {
    char c = lexer_.PeekChar();
    if (IsDigit(c) || c == ':' || (s.rank() == 0 && c == '}')) {
      HLO_PARSE_RETURN_IF_ERROR(ParseLayout(&s));
    }
  }
  if (options_.fill_missing_layouts) s.FillDefaultLayoutIfMissing();
  *shape = std::move(s);
  return absl::OkStatus();
}

absl::Status Parser::ParseLayout(Shape* shape) {
  SourceLoc layout_loc = TokLoc();
  Next();  // '{'
  Layout layout;
  layout.minor_to_major.reserve(static_cast<size_t>(shape->rank()));
  while (kind() == TokKind::kInt) {
    layout.minor_to_major.push_back(tok().int_value);
    Next();
    if (!Accept(TokKind::kComma)) break;
  }
  if (static_cast<int64_t>(layout.minor_to_major.size()) != shape->rank()) {
    return ErrorAt(layout_loc, absl::StrCat("Dimensions size is ", shape->rank(),
                                            ", but minor to major size is ",
                                            layout.minor_to_major.size(), "."));
  }
  {
    std::vector<bool> seen(static_cast<size_t>(shape->rank()), false);
    for (int64_t d : layout.minor_to_major) {
      if (d < 0 || d >= shape->rank() || seen[static_cast<size_t>(d)])
        return ErrorAt(layout_loc, "minor_to_major must be a permutation of the dimensions 0..rank-1");
      seen[static_cast<size_t>(d)] = true;
    }
  }
  if (Accept(TokKind::kColon)) {
    // Tail parts in fixed order: D T L # * E S SC P M.
    int last_part = -1;
    auto order_check = [&](int part, absl::string_view label) -> absl::Status {
      if (part <= last_part)
        return ErrorAtTok(absl::StrCat("layout part ", label,
                                       " is out of order or repeated (order: D T L # * E S SC P M)"));
      last_part = part;
      return absl::OkStatus();
    };
    auto paren_int = [&](int64_t* out, absl::string_view what) -> absl::Status {
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLparen, absl::StrCat("'(' after ", what)));
      HLO_PARSE_ASSIGN_OR_RETURN(*out, ParseInt(what));
      return Expect(TokKind::kRparen, absl::StrCat("')' after ", what));
    };
    auto paren_type = [&](PrimitiveType* out, absl::string_view what) -> absl::Status {
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLparen, absl::StrCat("'(' after ", what)));
      std::optional<PrimitiveType> t;
      if (kind() == TokKind::kIdent) t = TypeFromName(tok().text);
      if (!t) return Unexpected(absl::StrCat("a primitive type for ", what));
      if (!IsUnsignedInt(*t))
        return ErrorAtTok(absl::StrCat(what, " must be an unsigned integer type"));
      *out = *t;
      Next();
      return Expect(TokKind::kRparen, absl::StrCat("')' after ", what));
    };
    while (kind() != TokKind::kRbrace) {
      if (kind() == TokKind::kHash) {
        HLO_PARSE_RETURN_IF_ERROR(order_check(3, "#"));
        Next();
        HLO_PARSE_RETURN_IF_ERROR(paren_type(&layout.mutable_rare().index_primitive_type, "index type #(...)"));
        continue;
      }
      if (kind() == TokKind::kStar) {
        HLO_PARSE_RETURN_IF_ERROR(order_check(4, "*"));
        Next();
        HLO_PARSE_RETURN_IF_ERROR(paren_type(&layout.mutable_rare().pointer_primitive_type, "pointer type *(...)"));
        continue;
      }
      if (kind() != TokKind::kIdent) return Unexpected("a layout part (D T L # * E S SC P M) or '}'");
      absl::string_view part = tok().text;
      if (part == "D") {
        HLO_PARSE_RETURN_IF_ERROR(order_check(0, "D"));
        Next();
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' after D"));
        while (true) {
          if (kind() != TokKind::kIdent ||
              !(tok().text == "D" || tok().text == "C" || tok().text == "S" || tok().text == "H"))
            return Unexpected("a dim level type (D, C, S or H)");
          std::string dlt(tok().text);
          Next();
          if (kind() == TokKind::kPlus) {
            dlt += "+";
            Next();
          }
          if (kind() == TokKind::kTilde) {
            dlt += "~";
            Next();
          }
          layout.mutable_rare().dim_level_types.push_back(std::move(dlt));
          if (Accept(TokKind::kComma)) continue;
          HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "',' or ')' in D(...)"));
          break;
        }
      } else if (part == "T") {
        HLO_PARSE_RETURN_IF_ERROR(order_check(1, "T"));
        Next();
        if (kind() != TokKind::kLparen) return Unexpected("'(' after T");
        while (kind() == TokKind::kLparen) {
          Next();
          Tile tile;
          while (true) {
            if (kind() == TokKind::kStar) {
              tile.dims.push_back(Tile::kCombineDimension);
              Next();
            } else {
              if (kind() == TokKind::kInt &&
                  (tok().int_value <= 0 || tok().int_value > (int64_t{1} << 30)))
                return ErrorAtTok("tile dimensions must be between 1 and 2^30");
              HLO_PARSE_ASSIGN_OR_RETURN(int64_t d, ParseInt("tile dimension"));
              tile.dims.push_back(d);
            }
            if (Accept(TokKind::kComma)) continue;
            HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "',' or ')' in tile"));
            break;
          }
          layout.tiles.push_back(std::move(tile));
        }
      } else if (part == "L") {
        HLO_PARSE_RETURN_IF_ERROR(order_check(2, "L"));
        Next();
        HLO_PARSE_RETURN_IF_ERROR(paren_int(&layout.mutable_rare().tail_padding_alignment_in_elements, "L"));
      } else if (part == "E") {
        HLO_PARSE_RETURN_IF_ERROR(order_check(5, "E"));
        Next();
        HLO_PARSE_RETURN_IF_ERROR(paren_int(&layout.element_size_in_bits, "E"));
        if (layout.element_size_in_bits < 0) return ErrorAtTok("element size must be >= 0");
      } else if (part == "S") {
        HLO_PARSE_RETURN_IF_ERROR(order_check(6, "S"));
        Next();
        HLO_PARSE_RETURN_IF_ERROR(paren_int(&layout.memory_space, "S"));
      } else if (part == "SC") {
        HLO_PARSE_RETURN_IF_ERROR(order_check(7, "SC"));
        Next();
        if (kind() != TokKind::kLparen) return Unexpected("'(' after SC");
        while (kind() == TokKind::kLparen) {
          Next();
          SplitConfig sc;
          HLO_PARSE_ASSIGN_OR_RETURN(sc.dimension, ParseInt("split dimension"));
          HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kColon, "':' after the split dimension"));
          while (true) {
            HLO_PARSE_ASSIGN_OR_RETURN(int64_t v, ParseInt("split index"));
            sc.split_indices.push_back(v);
            if (Accept(TokKind::kComma)) continue;
            HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "',' or ')' in SC(...)"));
            break;
          }
          layout.mutable_rare().split_configs.push_back(std::move(sc));
        }
      } else if (part == "P") {
        HLO_PARSE_RETURN_IF_ERROR(order_check(8, "P"));
        SourceLoc ploc = TokLoc();
        Next();
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' after P"));
        Shape phys;
        HLO_PARSE_RETURN_IF_ERROR(ParseShapeInto(&phys));
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' after the physical shape"));
        bool sparse = false;
        for (const std::string& d : layout.mutable_rare().dim_level_types)
          if (d.empty() || d[0] != 'D') sparse = true;
        if (!sparse)
          return ErrorAt(ploc, "layout has a physical shape P(...), but is not for a sparse array");
        layout.mutable_rare().physical_shape.push_back(std::move(phys));
      } else if (part == "M") {
        HLO_PARSE_RETURN_IF_ERROR(order_check(9, "M"));
        Next();
        HLO_PARSE_RETURN_IF_ERROR(paren_int(&layout.mutable_rare().dynamic_shape_metadata_prefix_bytes, "M"));
      } else {
        return ErrorAtTok(absl::StrCat("unknown layout part '", part,
                                       "' (expected D, T, L, #, *, E, S, SC, P or M)"));
      }
    }
  }
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}' at the end of the layout"));
  for (const Tile& t : layout.tiles) {
    if (static_cast<int64_t>(t.dims.size()) > shape->rank() && shape->rank() > 0)
      return ErrorAt(layout_loc, "a tile has more dimensions than the shape");
  }
  shape->set_layout(std::move(layout));
  return absl::OkStatus();
}

absl::StatusOr<Shape> Parser::ParseShapeTop() {
  Next();
  HLO_PARSE_ASSIGN_OR_RETURN(Shape s, ParseShape());
  if (kind() != TokKind::kEof) return Unexpected("end of input after the shape");
  return s;
}

// ---------------------------------------------------------------------------
// Literals

namespace {

// `v` as XLA's parser hands it to the final rounding into float type `t`:
// Eigen converts a double to f16 and bf16 through f32 (so 65519.999 becomes
// 65520 and then overflows f16), ml_dtypes converts to the f8/f4 types in
// one step. Only the range decision uses it: the stored value keeps the
// single rounding of docs/semantics.md, which is finite whenever this is.
double AsParsedByXla(PrimitiveType t, double v) {
  if ((t == PrimitiveType::F16 || t == PrimitiveType::BF16) && std::isfinite(v))
    return FloatToDoubleExact(DoubleToFloat(v));
  return v;
}

// "[lowest, max]" of a float type, formatted as XLA's range errors print it.
std::string FiniteRange(PrimitiveType t) {
  const double max = MaxFiniteValue(t);
  const double lowest = GetFloatFormat(t)->is_signed ? -max : MinPositiveValue(t);
  return absl::StrCat("[", lowest, ", ", max, "]");
}

}  // namespace

// Parses one scalar value for element type of `shape` into `slot`.
absl::Status Parser::ParseScalarInto(const Shape& shape, Literal* literal, int64_t slot) {
  const PrimitiveType t = shape.element_type();
  const std::string type_upper = UpperTypeName(t);
  if (kind() == TokKind::kError) return ErrorAtTok(lexer_.str());
  if (IsPred(t)) {
    uint8_t v;
    if (IsIdent("true")) {
      v = 1;
    } else if (IsIdent("false")) {
      v = 0;
    } else if (kind() == TokKind::kInt && (tok().int_value == 0 || tok().int_value == 1) &&
               !tok().int_is_big_unsigned) {
      v = static_cast<uint8_t>(tok().int_value);
    } else {
      return Unexpected("true, false, 0 or 1 for a pred literal");
    }
    literal->SetRaw<uint8_t>(slot, v);
    Next();
    return absl::OkStatus();
  }
  if (IsInteger(t)) {
    if (kind() != TokKind::kInt)
      return Unexpected(absl::StrCat("an integer for a ", PrimitiveTypeName(t), " literal"));
    const int bits = PrimitiveTypeBitWidth(t);
    const int64_t v = tok().int_value;
    const bool big = tok().int_is_big_unsigned;
    bool ok = true;
    std::string range;
    if (IsSignedInt(t)) {
      int64_t lo = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
      int64_t hi = bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
      ok = !big && v >= lo && v <= hi;
      range = absl::StrCat("[", lo, ", ", hi, "]");
    } else if (bits < 64) {
      int64_t hi = (int64_t{1} << bits) - 1;
      ok = !big && v >= 0 && v <= hi;
      range = absl::StrCat("[0, ", hi, "]");
    }
    if (!ok) {
      return ErrorAtTok(absl::StrCat("value ", tok().text,
                                     " is out of range for literal's primitive type ", type_upper,
                                     " namely ", range, "."));
    }
    literal->SetInt(slot, v);
    Next();
    return absl::OkStatus();
  }
  // `component` is "real"/"imaginary" for the parts of a complex value.
  auto read_real = [&](PrimitiveType ft, const char* component, double* out, uint64_t* payload,
                       bool* negative_nan) -> absl::Status {
    if (kind() != TokKind::kInt && kind() != TokKind::kDecimal)
      return Unexpected(absl::StrCat("a decimal or integer for a ", PrimitiveTypeName(t),
                                     " literal"));
    double v;
    if (kind() == TokKind::kInt) {
      v = tok().int_is_big_unsigned ? static_cast<double>(static_cast<uint64_t>(tok().int_value))
                                    : static_cast<double>(tok().int_value);
      // `-0` in a float literal is negative zero (as the printer writes it).
      if (v == 0 && !tok().text.empty() && tok().text[0] == '-') v = -0.0;
    } else {
      v = tok().dec_value;
    }
    *payload = kind() == TokKind::kDecimal ? tok().nan_payload : 0;
    *negative_nan = std::isnan(v) && !tok().text.empty() && tok().text[0] == '-';
    const FloatFormat& ff = *GetFloatFormat(ft);
    if (std::isfinite(v)) {
      // XLA's rule for a real literal: the value is converted to the type
      // first; it is an error exactly when that conversion is not finite
      // (overflow past the rounding boundary above the largest finite value,
      // and for f8e8m0fnu also zero and negative values). Types that
      // saturate (f4e2m1fn) therefore accept every finite value; inf and nan
      // are never range-checked. Complex parts get the same rule, where XLA
      // compares them with the component's maximum as written: XLA's own
      // printer writes c64 FLT_MAX as 3.40282347e+38, just above it, and the
      // printed form must parse back (docs/semantics.md "Literal range").
      if (!std::isfinite(DecodeFloat(ft, EncodeFloat(ft, AsParsedByXla(ft, v))))) {
        if (component != nullptr)
          return ErrorAtTok(absl::StrCat(component, " part ", tok().text,
                                         " is out of range for literal's primitive type ",
                                         type_upper, ", namely ", FiniteRange(ft), "."));
        return ErrorAtTok(absl::StrCat("value ", tok().text,
                                       " is out of range for literal's primitive type ",
                                       type_upper, " namely ", FiniteRange(ft), "."));
      }
    }
    if (*payload != 0) {
      if (ff.nan != NanEncoding::kIeee || (*payload >> ff.mantissa_bits) != 0) {
        return ErrorAtTok(absl::StrCat("tries to set NaN payload 0x", absl::Hex(*payload),
                                       " which does not fit the NaN encoding of ",
                                       UpperTypeName(ft)));
      }
    }
    *out = v;
    Next();
    return absl::OkStatus();
  };
  auto set_float = [&](int64_t s, double v, uint64_t payload, bool neg_nan) {
    if (std::isnan(v) && payload != 0) {
      const FloatFormat& ff = *GetFloatFormat(t);
      uint64_t exp_mask = ((uint64_t{1} << ff.exponent_bits) - 1) << ff.mantissa_bits;
      uint64_t bits = exp_mask | payload;
      if (neg_nan) bits |= ff.sign_mask();
      switch (ff.total_bits) {
        case 64: literal->SetRaw<uint64_t>(s, bits); break;
        case 32: literal->SetRaw<uint32_t>(s, static_cast<uint32_t>(bits)); break;
        case 16: literal->SetRaw<uint16_t>(s, static_cast<uint16_t>(bits)); break;
        default: literal->SetRaw<uint8_t>(s, static_cast<uint8_t>(bits)); break;
      }
      return;
    }
    if (std::isnan(v)) v = neg_nan ? -std::numeric_limits<double>::quiet_NaN()
                                   : std::numeric_limits<double>::quiet_NaN();
    literal->SetDouble(s, v);
  };
  if (IsFloat(t)) {
    double v;
    uint64_t payload;
    bool neg_nan;
    HLO_PARSE_RETURN_IF_ERROR(read_real(t, nullptr, &v, &payload, &neg_nan));
    set_float(slot, v, payload, neg_nan);
    return absl::OkStatus();
  }
  if (IsComplex(t)) {
    PrimitiveType ct = ComplexComponentType(t);
    double re = 0, im = 0;
    uint64_t payload;
    bool neg_nan;
    if (kind() == TokKind::kLparen) {
      Next();
      HLO_PARSE_RETURN_IF_ERROR(read_real(ct, "real", &re, &payload, &neg_nan));
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' between the real and imaginary parts"));
      HLO_PARSE_RETURN_IF_ERROR(read_real(ct, "imaginary", &im, &payload, &neg_nan));
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' after a complex value"));
    } else {
      HLO_PARSE_RETURN_IF_ERROR(read_real(ct, "real", &re, &payload, &neg_nan));
    }
    literal->SetComplex(slot, std::complex<double>(re, im));
    return absl::OkStatus();
  }
  return ErrorAtTok(absl::StrCat("literals of type ", PrimitiveTypeName(t), " are not supported"));
}

absl::Status Parser::ParseArrayLiteral(const Shape& shape, Literal* literal) {
  const int64_t rank = shape.rank();
  if (rank == 0) {
    if (kind() == TokKind::kLparen && !IsComplex(shape.element_type()))
      return ErrorAtTok("parentheses are only valid for complex literals");
    return ParseScalarInto(shape, literal, literal->Slot({}));
  }
  if (rank > options_.max_recursion_depth)
    return ErrorAtTok("maximum recursion depth exceeded (literal rank too large)");
  if (kind() != TokKind::kLbrace)
    return Unexpected(absl::StrCat("'{' to start a rank-", rank, " array literal"));
  // Elided constant {...}
  {
    char c = lexer_.PeekChar();
    if (c == '.') {
      Next();
      if (kind() != TokKind::kDots) return Unexpected("'...'");
      Next();
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}' after '...'"));
      literal->set_elided(true);
      literal->FillDeterministic();
      return absl::OkStatus();
    }
  }
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  std::vector<int64_t> count(static_cast<size_t>(rank), 0);
  const bool is_complex = IsComplex(shape.element_type());
  const bool is_dynamic = !shape.IsStatic();
  int64_t level = 0;  // number of open braces
  auto where = [&](int64_t d) {
    if (d == 0) return std::string("outermost array");
    std::string w;
    for (int64_t i = 0; i < d; ++i) absl::StrAppend(&w, "[", index[i], "]");
    return absl::StrCat(w, "th element");
  };
  auto TooMany = [&](int64_t d) {
    return absl::StrCat("expects ", shape.dim(d), " elements in the ", where(d),
                        ", but sees more");
  };
  while (true) {
    if (kind() == TokKind::kLbrace) {
      if (level == rank)
        return ErrorAtTok(absl::StrCat("expects nested array in rank ", rank,
                                       ", but sees larger (too many '{')"));
      if (level > 0) {
        // A dynamic dimension may hold fewer elements than its bound, never
        // more (the storage is sized by the bounds).
        if (count[level - 1] >= shape.dim(level - 1)) return ErrorAtTok(TooMany(level - 1));
        index[level - 1] = count[level - 1];
      }
      count[level] = 0;
      ++level;
      Next();
      continue;
    }
    if (kind() == TokKind::kRbrace) {
      if (level == 0) return Unexpected("a literal value");
      int64_t d = level - 1;
      if (!is_dynamic && count[d] != shape.dim(d)) {
        return ErrorAtTok(absl::StrCat("expects ", shape.dim(d), " elements in the ", where(d),
                                       ", but sees ", count[d]));
      }
      --level;
      Next();
      if (level == 0) return absl::OkStatus();
      ++count[level - 1];
      Accept(TokKind::kComma);
      continue;
    }
    if (kind() == TokKind::kComma) {
      Next();
      continue;
    }
    if (kind() == TokKind::kEof || kind() == TokKind::kRparen)
      return Unexpected("'}' to close the array literal");
    // A scalar value.
    if (level < rank)
      return ErrorAtTok(absl::StrCat("expects nested array in rank ", rank, ", but sees ", level));
    if (kind() == TokKind::kLparen && !is_complex)
      return ErrorAtTok("parentheses are only valid for complex literals");
    int64_t d = rank - 1;
    if (count[d] >= shape.dim(d)) return ErrorAtTok(TooMany(d));
    index[d] = count[d];
    HLO_PARSE_RETURN_IF_ERROR(ParseScalarInto(shape, literal, literal->Slot(index)));
    ++count[d];
  }
}

absl::Status Parser::ParseLiteralValue(const Shape& shape, Literal* literal) {
  DepthGuard guard(this);
  HLO_PARSE_RETURN_IF_ERROR(CheckDepth());
  if (shape.IsTuple()) {
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' to start a tuple literal"));
    std::vector<Literal>& elems = literal->mutable_tuple_elements();
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      if (i > 0) HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' between tuple elements"));
      HLO_PARSE_RETURN_IF_ERROR(ParseLiteralValue(shape.tuple_shape(i), &elems[i]));
    }
    return Expect(TokKind::kRparen, "')' to end the tuple literal");
  }
  if (shape.IsToken() || shape.IsOpaque()) {
    return ErrorAtTok(absl::StrCat("constants of type ", PrimitiveTypeName(shape.element_type()),
                                   " are not supported"));
  }
  if (shape.IsBuffer()) return ErrorAtTok("constants of buffer shape are not supported");
  return ParseArrayLiteral(shape, literal);
}

absl::Status Parser::CheckLiteralSize(const Shape& shape, SourceLoc loc) {
  // At most 1 GiB of element storage per literal.
  constexpr int64_t kMaxBytes = int64_t{1} << 30;
  int64_t total = 0;
  std::vector<const Shape*> stack = {&shape};
  while (!stack.empty()) {
    const Shape* s = stack.back();
    stack.pop_back();
    if (s->IsTuple()) {
      for (const Shape& e : s->tuple_shapes()) stack.push_back(&e);
      continue;
    }
    if (!s->IsArray()) continue;
    int64_t n = 1;
    for (int64_t i = 0; i < s->rank(); ++i) {
      int64_t d = s->dim(i);
      if (d < 0) return ErrorAt(loc, "literals cannot have unbounded dynamic dimensions");
      if (d != 0 && n > kMaxBytes / d) {
        n = kMaxBytes + 1;
        break;
      }
      n *= d;
    }
    // Tiled layouts pad up to whole tiles; allow for that generously.
    int64_t bytes = n > kMaxBytes ? n : n * PrimitiveTypeByteSize(s->element_type());
    if (!s->layout().tiles.empty() && bytes <= kMaxBytes) {
      if (PhysicalElementCount(*s) > kMaxBytes) bytes = kMaxBytes + 1;
    }
    total += bytes;
    if (total > kMaxBytes)
      return ErrorAt(loc, absl::StrCat("literal of shape ", ShapeText(shape),
                                       " is too large to materialize (limit 1 GiB)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> Parser::ParseLiteralWithShape() {
  DepthGuard guard(this);
  HLO_PARSE_RETURN_IF_ERROR(CheckDepth());
  if (kind() == TokKind::kLparen) {
    // Either `(shape, shape) (values)` or `(shape value, shape value)`.
    Lexer::State st = lexer_.Save();
    SourceLoc loc = TokLoc();
    absl::StatusOr<Shape> as_shape = ParseShape();
    if (as_shape.ok() && kind() != TokKind::kEof && kind() != TokKind::kComma &&
        kind() != TokKind::kRparen) {
      HLO_PARSE_RETURN_IF_ERROR(CheckLiteralSize(*as_shape, loc));
      Literal lit(*as_shape);
      HLO_PARSE_RETURN_IF_ERROR(ParseLiteralValue(*as_shape, &lit));
      return lit;
    }
    lexer_.Restore(st);
    Next();  // '('
    std::vector<Literal> elems;
    std::vector<Shape> shapes;
    if (!Accept(TokKind::kRparen)) {
      while (true) {
        HLO_PARSE_ASSIGN_OR_RETURN(Literal e, ParseLiteralWithShape());
        shapes.push_back(e.shape());
        elems.push_back(std::move(e));
        if (Accept(TokKind::kComma)) continue;
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "',' or ')' in tuple literal"));
        break;
      }
    }
    Literal lit(Shape::Tuple(std::move(shapes)));
    lit.mutable_tuple_elements() = std::move(elems);
    return lit;
  }
  SourceLoc loc = TokLoc();
  HLO_PARSE_ASSIGN_OR_RETURN(Shape shape, ParseShape());
  HLO_PARSE_RETURN_IF_ERROR(CheckLiteralSize(shape, loc));
  Literal lit(shape);
  HLO_PARSE_RETURN_IF_ERROR(ParseLiteralValue(shape, &lit));
  return lit;
}

absl::StatusOr<Literal> Parser::ParseLiteralTop() {
  layout_must_touch_shape_ = true;
  Next();
  HLO_PARSE_ASSIGN_OR_RETURN(Literal lit, ParseLiteralWithShape());
  if (kind() != TokKind::kEof) return Unexpected("end of input after the literal");
  return lit;
}

}  // namespace parser_internal
}  // namespace hlo
