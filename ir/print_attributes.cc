// Attribute values (spec §6, §8): one printer per AttrKind, the omission
// rules (defaults, empty values, print options) and the universal set.
#include <type_traits>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "ir/computation.h"
#include "ir/printer_internal.h"

namespace hlo {
namespace print_internal {
namespace {

void AppendDims(std::string* out, absl::Span<const int64_t> v, char open, char close) {
  out->push_back(open);
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out->push_back(',');
    absl::StrAppend(out, v[i]);
  }
  out->push_back(close);
}

// `x`-joined per-dimension values of a window field.
template <typename F>
void AppendWindowField(std::string* out, const Window& w, absl::string_view heading, F value) {
  out->append(heading.data(), heading.size());
  out->push_back('=');
  for (size_t i = 0; i < w.dimensions.size(); ++i) {
    if (i) out->push_back('x');
    value(w.dimensions[i]);
  }
}

void AppendWindow(std::string* out, const Window& w) {
  bool stride = false, pad = false, lhs = false, rhs = false, rev = false;
  for (const WindowDimension& d : w.dimensions) {
    stride |= d.stride != 1;
    pad |= d.padding_low != 0 || d.padding_high != 0;
    lhs |= d.base_dilation != 1;
    rhs |= d.window_dilation != 1;
    rev |= d.window_reversal;
  }
  out->push_back('{');
  AppendWindowField(out, w, "size", [&](const WindowDimension& d) { absl::StrAppend(out, d.size); });
  if (stride)
    AppendWindowField(out, w, " stride",
                      [&](const WindowDimension& d) { absl::StrAppend(out, d.stride); });
  if (pad)
    AppendWindowField(out, w, " pad", [&](const WindowDimension& d) {
      absl::StrAppend(out, d.padding_low, "_", d.padding_high);
    });
  if (lhs)
    AppendWindowField(out, w, " lhs_dilate",
                      [&](const WindowDimension& d) { absl::StrAppend(out, d.base_dilation); });
  if (rhs)
    AppendWindowField(out, w, " rhs_dilate",
                      [&](const WindowDimension& d) { absl::StrAppend(out, d.window_dilation); });
  if (rev)
    AppendWindowField(out, w, " rhs_reversal",
                      [&](const WindowDimension& d) { out->push_back(d.window_reversal ? '1' : '0'); });
  out->push_back('}');
}

// One label group: position i of the group describes dimension i.
void AppendLabelGroup(std::string* out, int64_t rank, int64_t a, char a_label, int64_t b,
                      char b_label, const std::vector<int64_t>& spatial) {
  int64_t n = std::max<int64_t>(rank, static_cast<int64_t>(spatial.size()) + 2);
  n = std::max<int64_t>(n, std::max(a, b) + 1);
  for (int64_t s : spatial) n = std::max<int64_t>(n, s + 1);
  std::vector<std::string> labels(n, "?");
  if (a >= 0) labels[a] = std::string(1, a_label);
  if (b >= 0) labels[b] = std::string(1, b_label);
  for (size_t i = 0; i < spatial.size(); ++i)
    if (spatial[i] >= 0) labels[spatial[i]] = absl::StrCat(i);
  for (const std::string& l : labels) out->append(l);
}

void AppendConvDimLabels(std::string* out, const ConvolutionDimensionNumbers& d) {
  AppendLabelGroup(out, d.input_rank, d.input_batch_dimension, 'b', d.input_feature_dimension, 'f',
                   d.input_spatial_dimensions);
  out->push_back('_');
  AppendLabelGroup(out, d.kernel_rank, d.kernel_input_feature_dimension, 'i',
                   d.kernel_output_feature_dimension, 'o', d.kernel_spatial_dimensions);
  out->append("->");
  AppendLabelGroup(out, d.output_rank, d.output_batch_dimension, 'b', d.output_feature_dimension,
                   'f', d.output_spatial_dimensions);
}

void AppendPadding(std::string* out, const PaddingConfig& p) {
  bool interior = false;
  for (const PaddingDimension& d : p) interior |= d.interior != 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (i) out->push_back('x');
    absl::StrAppend(out, p[i].low, "_", p[i].high);
    if (interior) absl::StrAppend(out, "_", p[i].interior);
  }
}

void AppendSlice(std::string* out, const SliceRanges& s) {
  bool strided = false;
  for (const SliceRange& r : s) strided |= r.stride != 1;
  out->push_back('{');
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out->append(", ");
    absl::StrAppend(out, "[", s[i].start, ":", s[i].limit);
    if (strided) absl::StrAppend(out, ":", s[i].stride);
    out->push_back(']');
  }
  out->push_back('}');
}

bool IsIdentityPerm(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// `[2,10]<=[20]`, `[3,10]<=[6,5]T(1,0)`.
void AppendIota(std::string* out, const IotaDeviceList& iota) {
  AppendDims(out, iota.dims, '[', ']');
  out->append("<=");
  AppendDims(out, iota.reshape_dims, '[', ']');
  if (!iota.transpose_perm.empty() && !IsIdentityPerm(iota.transpose_perm)) {
    out->push_back('T');
    AppendDims(out, iota.transpose_perm, '(', ')');
  }
}

void AppendIntListList(std::string* out, const std::vector<std::vector<int64_t>>& v) {
  out->push_back('{');
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out->push_back(',');
    AppendIntList(out, v[i]);
  }
  out->push_back('}');
}

void AppendReplicaGroups(std::string* out, const CollectiveDeviceList& g) {
  if (g.is_mesh) {
    g.mesh.AppendText(out);
  } else if (g.is_iota) {
    AppendIota(out, g.iota);
  } else {
    AppendIntListList(out, g.groups);
  }
}

void AppendStatistics(std::string* out, const Statistics& s) {
  absl::StrAppend(out, "{visualizing_index=", s.visualizing_index);
  for (const auto& [name, value] : s.stats) {
    out->push_back(',');
    out->append(name);
    out->push_back('=');
    AppendDouble(out, value);
  }
  out->push_back('}');
}

void AppendAliasing(std::string* out, const std::vector<OutputOperandAlias>& v) {
  out->push_back('{');
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out->append(", ");
    AppendIntList(out, v[i].output_index);
    absl::StrAppend(out, ": (", v[i].operand, ", ");
    AppendIntList(out, v[i].operand_index);
    out->push_back(')');
  }
  out->push_back('}');
}

void AppendResultAccuracy(std::string* out, const ResultAccuracy& r) {
  if (!r.mode.empty()) {
    absl::StrAppend(out, "{mode=", r.mode, "}");
    return;
  }
  out->append("{tolerance={atol=");
  AppendDouble(out, r.atol);
  out->append(",rtol=");
  AppendDouble(out, r.rtol);
  absl::StrAppend(out, ",ulps=", r.ulps, "}}");
}

void AppendComputationRef(std::string* out, const Computation* c, const PrintOptions& options) {
  if (options.print_percent) out->push_back('%');
  out->append(c ? c->name() : std::string("<null>"));
}

absl::string_view DefaultCompareType(PrimitiveType t) {
  if (IsFloatOrComplex(t)) return "FLOAT";
  if (IsSignedInt(t)) return "SIGNED";
  return "UNSIGNED";
}

// Appends the value of `v`; `kind` tells a quoted string from an enum.
struct ValuePrinter {
  std::string* out;
  AttrKind kind;
  const PrintOptions& options;

  template <typename T>
  void operator()(const Boxed<T>& boxed) const { (*this)(boxed.get()); }
  void operator()(bool b) const { out->append(b ? "true" : "false"); }
  void operator()(int64_t i) const { absl::StrAppend(out, i); }
  void operator()(double d) const { AppendDouble(out, d); }
  void operator()(const std::string& s) const {
    if (kind == AttrKind::kEnum) {
      out->append(s);
    } else {
      AppendQuoted(out, s);
    }
  }
  void operator()(const std::vector<int64_t>& v) const { AppendIntList(out, v); }
  void operator()(const std::vector<std::vector<int64_t>>& v) const { AppendIntListList(out, v); }
  void operator()(const std::vector<bool>& v) const {
    out->push_back('{');
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out->push_back(',');
      out->append(v[i] ? "true" : "false");
    }
    out->push_back('}');
  }
  void operator()(const std::vector<std::string>& v) const {
    out->push_back('{');
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out->push_back(',');
      out->append(v[i]);
    }
    out->push_back('}');
  }
  void operator()(const Window& w) const { AppendWindow(out, w); }
  void operator()(const ConvolutionDimensionNumbers& d) const { AppendConvDimLabels(out, d); }
  void operator()(const PaddingConfig& p) const { AppendPadding(out, p); }
  void operator()(const SliceRanges& s) const { AppendSlice(out, s); }
  void operator()(const Shape& s) const { AppendShape(out, s, /*print_layout=*/true); }
  void operator()(const std::vector<Shape>& v) const {
    out->push_back('{');
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out->append(", ");
      AppendShape(out, v[i], /*print_layout=*/true);
    }
    out->push_back('}');
  }
  void operator()(Computation* c) const { AppendComputationRef(out, c, options); }
  void operator()(const std::vector<Computation*>& v) const {
    out->push_back('{');
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out->append(", ");
      AppendComputationRef(out, v[i], options);
    }
    out->push_back('}');
  }
  void operator()(const StringOrDict& s) const { AppendStringOrDict(out, s); }
  void operator()(const LiteralPtr& l) const {
    if (l) AppendLiteralWithShape(out, *l);
  }
  void operator()(const CollectiveDeviceList& g) const { AppendReplicaGroups(out, g); }
  void operator()(const Sharding& s) const { AppendSharding(out, s, options.print_metadata); }
  void operator()(const OpMetadata& m) const {
    out->push_back('{');
    AppendMetadataBody(out, m);
    out->push_back('}');
  }
  void operator()(const FrontendAttributes& f) const { AppendFrontendAttributes(out, f); }
  void operator()(const Statistics& s) const { AppendStatistics(out, s); }
  void operator()(const std::vector<OutputOperandAlias>& v) const { AppendAliasing(out, v); }
  void operator()(const DomainSpec& d) const {
    out->append("{kind=");
    AppendQuoted(out, d.kind);
    out->append(", entry=");
    AppendSharding(out, d.entry, options.print_metadata);
    out->append(", exit=");
    AppendSharding(out, d.exit, options.print_metadata);
    out->push_back('}');
  }
  void operator()(const ResultAccuracy& r) const { AppendResultAccuracy(out, r); }
  void operator()(const RawText& r) const { out->append(r.text); }
};

// Attributes left out although present: empty/default values and values
// disabled by the print options. (Defaults given as AttrSpec::default_text
// are handled generically by comparing the printed text.)
bool Omitted(absl::string_view name, const AttrValue& value, const Instruction& inst,
             const PrintOptions& options) {
  if (auto* m = AttrGet<OpMetadata>(value)) return !options.print_metadata || MetadataIsEmpty(*m);
  if (name == "backend_config") {
    if (!options.print_backend_config) return true;
    if (auto* s = std::get_if<StringOrDict>(&value)) return !s->is_dict && s->text.empty();
    if (auto* s = std::get_if<std::string>(&value)) return s->empty();
    return false;
  }
  if (auto* w = std::get_if<Window>(&value)) return w->dimensions.empty();
  if (auto* f = std::get_if<FrontendAttributes>(&value)) return f->empty();
  if (auto* c = std::get_if<Computation*>(&value)) return *c == nullptr;
  if (auto* l = std::get_if<LiteralPtr>(&value)) return *l == nullptr;
  if (auto* r = std::get_if<ResultAccuracy>(&value)) return r->mode == "default";
  if (name == "operand_precision") {
    if (auto* v = std::get_if<std::vector<std::string>>(&value)) {
      for (const std::string& p : *v)
        if (p != "default") return false;
      return true;
    }
  }
  if (name == "type" && inst.opcode() == Opcode::kCompare && inst.operand_count() > 0) {
    if (auto* s = std::get_if<std::string>(&value))
      return *s == DefaultCompareType(inst.operand(0)->shape().element_type());
  }
  return false;
}

AttrKind KindOfValue(const AttrValue& value) {
  // Only the string alternative is ambiguous (kString vs kEnum); attributes
  // without a spec print strings quoted.
  if (std::holds_alternative<std::string>(value)) return AttrKind::kString;
  if (std::holds_alternative<std::vector<std::string>>(value)) return AttrKind::kEnumList;
  return AttrKind::kRaw;
}

}  // namespace

void AppendQuoted(std::string* out, absl::string_view s) {
  out->push_back('"');
  bool plain = true;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || c == '\'' || u < 0x20 || u >= 0x7f) {
      plain = false;
      break;
    }
  }
  if (plain) {
    out->append(s.data(), s.size());
  } else {
    out->append(absl::CEscape(s));
  }
  out->push_back('"');
}

void AppendStringOrDict(std::string* out, const StringOrDict& v) {
  if (v.is_dict) {
    out->append(v.text);
  } else {
    AppendQuoted(out, v.text);
  }
}

bool MetadataIsEmpty(const OpMetadata& m) { return m == OpMetadata(); }

void AppendMetadataBody(std::string* out, const OpMetadata& m) {
  bool first = true;
  auto sep = [&]() {
    if (!first) out->push_back(' ');
    first = false;
  };
  auto str = [&](absl::string_view name, const std::string& v) {
    if (v.empty()) return;
    sep();
    out->append(name.data(), name.size());
    out->push_back('=');
    AppendQuoted(out, v);
  };
  auto num = [&](absl::string_view name, int64_t v) {
    if (v == 0) return;
    sep();
    absl::StrAppend(out, name, "=", v);
  };
  str("op_type", m.op_type);
  str("op_name", m.op_name);
  str("source_file", m.source_file);
  num("source_line", m.source_line);
  num("source_end_line", m.source_end_line);
  num("source_column", m.source_column);
  num("source_end_column", m.source_end_column);
  if (!m.profile_type.empty()) {
    sep();
    out->append("profile_type=");
    AppendIntList(out, m.profile_type);
  }
  str("deduplicated_name", m.deduplicated_name);
  str("scheduling_name", m.scheduling_name);
  num("stack_frame_id", m.stack_frame_id);
}

void AppendFrontendAttributes(std::string* out, const FrontendAttributes& attrs) {
  out->push_back('{');
  bool first = true;
  for (const auto& [key, value] : attrs) {  // std::map: sorted by key
    if (!first) out->push_back(',');
    first = false;
    out->append(key);
    out->push_back('=');
    AppendStringOrDict(out, value);
  }
  out->push_back('}');
}

void AppendSharding(std::string* out, const Sharding& s, bool print_metadata) {
  using K = Sharding::Kind;
  if (s.kind == K::kTuple) {
    out->push_back('{');
    for (size_t i = 0; i < s.tuple_elements.size(); ++i) {
      if (i) out->append(", ");
      AppendSharding(out, s.tuple_elements[i], print_metadata);
    }
    out->push_back('}');
    return;
  }
  if (s.kind == K::kNamed) {
    if (!s.named_text.empty() && s.named_text.front() == '{') {
      out->append(s.named_text);
    } else {
      absl::StrAppend(out, "{", s.named_text, "}");
    }
    return;
  }
  out->push_back('{');
  switch (s.kind) {
    case K::kReplicated: out->append("replicated"); break;
    case K::kManual: out->append("manual"); break;
    case K::kUnknown: out->append("unknown"); break;
    case K::kUnreduced: out->append("unreduced"); break;
    case K::kMaximal: absl::StrAppend(out, "maximal device=", s.device); break;
    case K::kTiled:
      out->append("devices=");
      AppendDims(out, s.tile_assignment_dims, '[', ']');
      if (s.iota_devices) {
        out->append("<=");
        AppendDims(out, s.iota.reshape_dims, '[', ']');
        if (!s.iota.transpose_perm.empty() && !IsIdentityPerm(s.iota.transpose_perm)) {
          out->push_back('T');
          AppendDims(out, s.iota.transpose_perm, '(', ')');
        }
      } else {
        for (size_t i = 0; i < s.device_ids.size(); ++i) {
          if (i) out->push_back(',');
          absl::StrAppend(out, s.device_ids[i]);
        }
      }
      if (s.last_tile_dim_replicate) out->append(" last_tile_dim_replicate");
      if (!s.last_tile_dims.empty()) {
        out->append(" last_tile_dims={");
        for (size_t i = 0; i < s.last_tile_dims.size(); ++i) {
          if (i) out->append(", ");
          out->append(s.last_tile_dims[i]);
        }
        out->push_back('}');
      }
      break;
    case K::kTuple:
    case K::kNamed: break;  // handled above
  }
  if (!s.shard_group_kind.empty()) absl::StrAppend(out, " ", s.shard_group_kind, " ", s.shard_group_id);
  if (print_metadata && !s.metadata.empty()) {
    out->append(" metadata=");
    if (s.metadata.size() == 1) {
      out->push_back('{');
      AppendMetadataBody(out, s.metadata[0]);
      out->push_back('}');
    } else {
      out->push_back('{');
      for (size_t i = 0; i < s.metadata.size(); ++i) {
        if (i) out->append(", ");
        out->push_back('{');
        AppendMetadataBody(out, s.metadata[i]);
        out->push_back('}');
      }
      out->push_back('}');
    }
  }
  out->push_back('}');
}

const AttrSpec* FindUniversalSpec(absl::string_view name) {
  for (const AttrSpec& s : UniversalAttrSpecs())
    if (s.name == name) return &s;
  return nullptr;
}

void AppendAttribute(std::string* out, absl::string_view name, const AttrValue& value,
                     const AttrSpec* spec, const Instruction& inst, const PrintOptions& options) {
  if (Omitted(name, value, inst, options)) return;
  const size_t mark = out->size();
  out->append(", ");
  out->append(name.data(), name.size());
  out->push_back('=');
  const size_t value_start = out->size();
  std::visit(ValuePrinter{out, spec ? spec->kind : KindOfValue(value), options}, value);
  if (spec && !spec->default_text.empty() &&
      absl::string_view(*out).substr(value_start) == spec->default_text)
    out->resize(mark);
}

}  // namespace print_internal

std::string AttrValueToString(const AttrValue& value, AttrKind kind) {
  std::string out;
  std::visit(print_internal::ValuePrinter{&out, kind, PrintOptions()}, value);
  return out;
}

}  // namespace hlo
