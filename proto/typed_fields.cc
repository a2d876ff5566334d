#include "proto/typed_fields.h"

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ir/attr_spec.h"
#include "ir/computation.h"
#include "ir/printer.h"
#include "proto/option_fields.h"
#include "proto/sharding_proto.h"

namespace hlo::proto {
namespace {

template <typename Field>
void AddAll(const std::vector<int64_t>& v, Field* f) {
  for (int64_t x : v) f->Add(x);
}

void DotDims(const Instruction& inst, xla::DotDimensionNumbers* d) {
  if (auto* v = inst.GetAttr<std::vector<int64_t>>("lhs_contracting_dims")) AddAll(*v, d->mutable_lhs_contracting_dimensions());
  if (auto* v = inst.GetAttr<std::vector<int64_t>>("rhs_contracting_dims")) AddAll(*v, d->mutable_rhs_contracting_dimensions());
  if (auto* v = inst.GetAttr<std::vector<int64_t>>("lhs_batch_dims")) AddAll(*v, d->mutable_lhs_batch_dimensions());
  if (auto* v = inst.GetAttr<std::vector<int64_t>>("rhs_batch_dims")) AddAll(*v, d->mutable_rhs_batch_dimensions());
}

// Gather's and scatter's dimension numbers have the same names in the text
// and in the proto: an int list attribute fills the repeated field of its
// name, an int one the singular field.
void SetSameNamedField(const std::string& name, const AttrValue& value, google::protobuf::Message* msg) {
  const google::protobuf::FieldDescriptor* f = msg->GetDescriptor()->FindFieldByName(name);
  if (f == nullptr || f->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_INT64) return;
  const google::protobuf::Reflection* r = msg->GetReflection();
  if (const auto* ints = AttrGet<std::vector<int64_t>>(value); ints && f->is_repeated()) {
    for (int64_t x : *ints) r->AddInt64(msg, f, x);
  } else if (const auto* i = AttrGet<int64_t>(value); i && !f->is_repeated()) {
    r->SetInt64(msg, f, *i);
  }
}

}  // namespace

void MeshToProtoFields(const MeshAxesDeviceList& m, xla::MeshProto* p) {
  for (size_t k = 0; k < m.axis_names.size() && k < m.axis_sizes.size(); ++k) {
    auto* a = p->add_axes();
    a->set_name(m.axis_names[k]);
    a->set_size(m.axis_sizes[k]);
  }
  if (m.iota_reshape_dims.empty()) {
    for (int64_t d : m.device_ids) p->add_device_ids(d);
    return;
  }
  // XLA's field for `device_ids=([4,16]T(1,0))` (older XLA, without it,
  // would take the mesh for a plain iota).
  for (int64_t d : m.iota_reshape_dims) p->mutable_iota_transform()->add_reshape_dims(d);
  for (int64_t d : m.iota_transpose_perm) p->mutable_iota_transform()->add_transpose_perm(d);
}

absl::StatusOr<MeshAxesDeviceList> MeshFromProtoFields(const xla::MeshProto& p, absl::string_view what) {
  MeshAxesDeviceList m;
  m.quoted_names = true;  // as XLA prints them
  for (const auto& a : p.axes()) {
    m.axis_names.push_back(a.name());
    m.axis_sizes.push_back(a.size());
  }
  m.device_ids.assign(p.device_ids().begin(), p.device_ids().end());
  m.maximal = m.axis_names.empty() && m.device_ids.size() == 1;
  if (p.has_iota_transform()) {
    if (!m.device_ids.empty())
      return absl::InvalidArgumentError(absl::StrCat(what, ": a mesh with both device_ids and an iota_transform"));
    const auto& t = p.iota_transform();
    if (std::string problem = m.SetDeviceIota({t.reshape_dims().begin(), t.reshape_dims().end()},
                                              {t.transpose_perm().begin(), t.transpose_perm().end()});
        !problem.empty())
      return absl::InvalidArgumentError(absl::StrCat(what, ": mesh iota_transform: ", problem));
  }
  return m;
}

namespace {

// The mesh form of replica groups (`mesh['x'=2,'y'=4] {'y'}`): the mesh's
// axes and devices, and the grouping axes by index into them.
void MeshToProto(const MeshAxesDeviceList& m, xla::MeshAxesReplicaGroupListProto* p) {
  MeshToProtoFields(m, p->mutable_mesh());
  for (const MeshAxisRef& r : m.axes) {
    auto* a = p->add_axes();
    a->set_mesh_axis_index(r.axis);
    if (r.is_sub_axis()) {
      a->mutable_sub_axis_info()->set_pre_size(r.pre_size);
      a->mutable_sub_axis_info()->set_size(r.size);
    }
  }
}

absl::StatusOr<CollectiveDeviceList> MeshFromProto(const xla::MeshAxesReplicaGroupListProto& p) {
  CollectiveDeviceList g;
  g.is_mesh = true;
  absl::StatusOr<MeshAxesDeviceList> mesh = MeshFromProtoFields(p.mesh(), "replica groups");
  if (!mesh.ok()) return mesh.status();
  g.mesh = *std::move(mesh);
  MeshAxesDeviceList& m = g.mesh;
  for (const auto& a : p.axes()) {
    if (a.mesh_axis_index() < 0 || a.mesh_axis_index() >= static_cast<int64_t>(m.axis_names.size()))
      return absl::InvalidArgumentError(absl::StrCat("replica groups: mesh axis index ", a.mesh_axis_index(),
                                                     " is not an axis of the mesh"));
    m.axes.push_back({a.mesh_axis_index(), a.sub_axis_info().pre_size(), a.sub_axis_info().size()});
  }
  if (std::string problem = m.Problem(); !problem.empty())
    return absl::InvalidArgumentError(absl::StrCat("replica groups: ", problem));
  return g;
}

// --- text from typed fields ---

// The in-place collective-permute's slice sizes, flat in the proto: one list
// per input buffer (the input or each element of a tuple input), as long as
// the buffer's rank, as XLA splits them.
absl::StatusOr<std::string> PermuteSliceSizes(const google::protobuf::RepeatedField<int64_t>& flat,
                                              const xla::ShapeProto* input) {
  std::vector<int> ranks;
  if (input != nullptr && input->element_type() == xla::TUPLE) {
    for (const xla::ShapeProto& e : input->tuple_shapes()) ranks.push_back(e.dimensions_size());
  } else if (input != nullptr && input->dimensions_size() > 0) {
    ranks.assign(static_cast<size_t>(flat.size() / input->dimensions_size()), input->dimensions_size());
  }
  int64_t total = 0;
  for (int r : ranks) total += r;
  if (total != flat.size() || total == 0)
    return absl::InvalidArgumentError(absl::StrCat("collective-permute: dynamic_slice_sizes holds ", flat.size(),
                                                   " values, which do not split into one list per input buffer"));
  std::vector<std::string> lists;
  int k = 0;
  for (int r : ranks) {
    lists.push_back(absl::StrCat("{", absl::StrJoin(flat.begin() + k, flat.begin() + k + r, ","), "}"));
    k += r;
  }
  return absl::StrCat("{", absl::StrJoin(lists, ","), "}");
}

template <typename Field>
std::string IntList(const Field& f) {
  return absl::StrCat("{", absl::StrJoin(f, ","), "}");
}

std::string Quoted(absl::string_view s) { return absl::StrCat("\"", absl::CEscape(s), "\""); }

// XLA keeps epsilon as a float: the shortest decimal that reads back as the
// same float (0.001, not 0.00100000005) is what its text shows.
std::string ShortestFloat(float f) {
  for (int digits = 6; digits < 9; ++digits) {
    std::string s = absl::StrFormat("%.*g", digits, f);
    if (std::strtof(s.c_str(), nullptr) == f) return s;
  }
  return absl::StrFormat("%.9g", f);
}

// XLA's printer writes a backend config or frontend attribute value that is
// a balanced `{...}` (JSON, MLIR attributes) bare and anything else quoted;
// the same test as the lexer's (braces inside quoted strings do not count).
StringOrDict StringOrDictOf(const std::string& s) {
  if (s.size() < 2 || s.front() != '{' || s.back() != '}') return {s, false};
  int depth = 0;
  bool in_str = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_str) {
      if (c == '\\') ++i;
      else if (c == '"') in_str = false;
    } else if (c == '"') {
      in_str = true;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0 && i + 1 != s.size()) {
      return {s, false};
    }
  }
  return {s, depth == 0 && !in_str};
}

std::string WindowText(const xla::Window& w) {
  std::vector<std::string> size, stride, pad, lhs, rhs, rev;
  for (const xla::WindowDimension& d : w.dimensions()) {
    size.push_back(absl::StrCat(d.size()));
    stride.push_back(absl::StrCat(d.stride() == 0 ? 1 : d.stride()));
    pad.push_back(absl::StrCat(d.padding_low(), "_", d.padding_high()));
    lhs.push_back(absl::StrCat(d.base_dilation() == 0 ? 1 : d.base_dilation()));
    rhs.push_back(absl::StrCat(d.window_dilation() == 0 ? 1 : d.window_dilation()));
    rev.push_back(d.window_reversal() ? "1" : "0");
  }
  return absl::StrCat("{size=", absl::StrJoin(size, "x"), " stride=", absl::StrJoin(stride, "x"),
                      " pad=", absl::StrJoin(pad, "x"), " lhs_dilate=", absl::StrJoin(lhs, "x"),
                      " rhs_dilate=", absl::StrJoin(rhs, "x"), " rhs_reversal=", absl::StrJoin(rev, "x"), "}");
}

// One label group (`b01f`): `named` gives the letter of fixed dimensions,
// `spatial` the dimension of each spatial digit.
absl::StatusOr<std::string> Labels(std::vector<std::pair<int64_t, char>> named,
                                   const google::protobuf::RepeatedField<int64_t>& spatial) {
  const int64_t rank = static_cast<int64_t>(named.size()) + spatial.size();
  std::string out(rank, '?');
  for (int i = 0; i < spatial.size(); ++i) {
    if (i > 9) return absl::InvalidArgumentError("more than 10 spatial dimensions in convolution dimension numbers");
    named.push_back({spatial[i], static_cast<char>('0' + i)});
  }
  for (auto [dim, c] : named) {
    if (dim < 0 || dim >= rank || out[dim] != '?')
      return absl::InvalidArgumentError(absl::StrCat("convolution dimension numbers: dimension ", dim,
                                                     " is out of range or used twice"));
    out[dim] = c;
  }
  return out;
}

absl::StatusOr<std::string> ConvLabels(const xla::ConvolutionDimensionNumbers& d) {
  absl::StatusOr<std::string> in =
      Labels({{d.input_batch_dimension(), 'b'}, {d.input_feature_dimension(), 'f'}}, d.input_spatial_dimensions());
  if (!in.ok()) return in;
  absl::StatusOr<std::string> k = Labels(
      {{d.kernel_input_feature_dimension(), 'i'}, {d.kernel_output_feature_dimension(), 'o'}}, d.kernel_spatial_dimensions());
  if (!k.ok()) return k;
  absl::StatusOr<std::string> out =
      Labels({{d.output_batch_dimension(), 'b'}, {d.output_feature_dimension(), 'f'}}, d.output_spatial_dimensions());
  if (!out.ok()) return out;
  return absl::StrCat(*in, "_", *k, "->", *out);
}

// The reverse of SetSameNamedField: every field as `name={...}` or
// `name=N` (empty lists too: the text form requires most of them).
template <typename Add>
void AddSameNamedFields(const google::protobuf::Message& msg, Add add) {
  const google::protobuf::Descriptor* d = msg.GetDescriptor();
  const google::protobuf::Reflection* r = msg.GetReflection();
  for (int k = 0; k < d->field_count(); ++k) {
    const google::protobuf::FieldDescriptor* f = d->field(k);
    if (f->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_INT64) continue;
    if (f->is_repeated()) {
      add(f->name(), IntList(r->GetRepeatedField<int64_t>(msg, f)));
    } else {
      add(f->name(), absl::StrCat(r->GetInt64(msg, f)));
    }
  }
}

}  // namespace

bool IsUtf8(absl::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    uint32_t cp = len == 1 ? c : c & (0x7f >> len);
    for (int k = 1; k < len; ++k) {
      const unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 0x2) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are invalid.
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return false;
    i += len;
  }
  return true;
}

std::vector<const Computation*> CalledInXlaOrder(const Instruction& inst) {
  std::vector<Computation*> called = inst.called_computations();
  std::vector<const Computation*> out(called.begin(), called.end());
  if (inst.opcode() == Opcode::kWhile) {
    const Computation* cond = inst.AttrOr<Computation*>("condition", nullptr);
    const Computation* body = inst.AttrOr<Computation*>("body", nullptr);
    if (cond != nullptr && body != nullptr) out = {body, cond};
  }
  return out;
}

void AttrsToTypedFields(const Instruction& inst, xla::HloInstructionProto* p) {
  bool dot_done = false;
  for (const auto& [name, value] : inst.attrs()) {
    if (OptionAttrToProto(inst, name, value, p)) continue;
    const auto* ints = AttrGet<std::vector<int64_t>>(value);
    const auto* i = AttrGet<int64_t>(value);
    const auto* b = AttrGet<bool>(value);
    const auto* s = AttrGet<std::string>(value);
    if (name == "dimensions" && ints) AddAll(*ints, p->mutable_dimensions());
    else if (name == "iota_dimension" && i) p->add_dimensions(*i);
    else if (name == "index" && i && inst.opcode() == Opcode::kGetTupleElement) p->set_tuple_index(*i);
    else if (name == "slice") {
      if (const auto* r = AttrGet<SliceRanges>(value))
        for (const SliceRange& sr : *r) {
          auto* d = p->add_slice_dimensions();
          d->set_start(sr.start);
          d->set_limit(sr.limit);
          d->set_stride(sr.stride);
        }
    } else if (name == "exponent_bits" && i) p->set_exponent_bits(static_cast<int32_t>(*i));
    else if (name == "mantissa_bits" && i) p->set_mantissa_bits(static_cast<int32_t>(*i));
    else if (name == "dynamic_slice_sizes" && ints) AddAll(*ints, p->mutable_dynamic_slice_sizes());
    else if (name == "padding") {
      if (const auto* pc = AttrGet<PaddingConfig>(value))
        for (const PaddingDimension& d : *pc) {
          auto* pd = p->mutable_padding_config()->add_dimensions();
          pd->set_edge_padding_low(d.low);
          pd->set_edge_padding_high(d.high);
          pd->set_interior_padding(d.interior);
        }
    } else if (name == "epsilon") {
      if (const auto* f = AttrGet<double>(value)) p->set_epsilon(static_cast<float>(*f));
    } else if (name == "feature_index" && i) p->set_feature_index(*i);
    else if (name == "channel_id" && i) p->set_channel_id(*i);
    else if (name == "custom_call_target" && s && IsUtf8(*s)) p->set_custom_call_target(*s);
    else if (name == "inferred_dimension" && i && *i >= 0) p->add_dimensions(*i);  // XLA's reshape keeps it there
    else if (!dot_done && (name == "lhs_contracting_dims" || name == "rhs_contracting_dims" ||
                           name == "lhs_batch_dims" || name == "rhs_batch_dims")) {
      DotDims(inst, inst.opcode() == Opcode::kRaggedDot
                        ? p->mutable_ragged_dot_dimension_numbers()->mutable_dot_dimension_numbers()
                        : p->mutable_dot_dimension_numbers());
      dot_done = true;
    } else if (name == "lhs_ragged_dims" && ints) {
      AddAll(*ints, p->mutable_ragged_dot_dimension_numbers()->mutable_lhs_ragged_dimensions());
    } else if (name == "rhs_group_dims" && ints) {
      AddAll(*ints, p->mutable_ragged_dot_dimension_numbers()->mutable_rhs_group_dimensions());
    } else if (name == "fft_type" && s) {
      xla::FftType t;
      if (xla::FftType_Parse(*s, &t)) p->set_fft_type(t);
    } else if (name == "fft_length" && ints) AddAll(*ints, p->mutable_fft_length());
    else if (name == "direction" && s) p->set_comparison_direction(*s);
    else if (name == "type" && s && inst.opcode() == Opcode::kCompare) p->set_comparison_type(*s);
    else if (inst.opcode() == Opcode::kGather && name == "slice_sizes" && ints) AddAll(*ints, p->mutable_gather_slice_sizes());
    else if (inst.opcode() == Opcode::kGather && (ints || i)) SetSameNamedField(name, value, p->mutable_gather_dimension_numbers());
    else if (inst.opcode() == Opcode::kScatter && (ints || i)) {
      SetSameNamedField(name, value, p->mutable_scatter_dimension_numbers());
    } else if (name == "indices_are_sorted" && b) p->set_indices_are_sorted(*b);
    else if (name == "unique_indices" && b) p->set_unique_indices(*b);
    else if (name == "window") {
      if (const auto* w = AttrGet<Window>(value))
        for (const WindowDimension& d : w->dimensions) {
          auto* wd = p->mutable_window()->add_dimensions();
          wd->set_size(d.size);
          wd->set_stride(d.stride);
          wd->set_padding_low(d.padding_low);
          wd->set_padding_high(d.padding_high);
          wd->set_base_dilation(d.base_dilation);
          wd->set_window_dilation(d.window_dilation);
          wd->set_window_reversal(d.window_reversal);
        }
    } else if (name == "dim_labels") {
      if (const auto* c = AttrGet<ConvolutionDimensionNumbers>(value)) {
        auto* d = p->mutable_convolution_dimension_numbers();
        d->set_input_batch_dimension(c->input_batch_dimension);
        d->set_input_feature_dimension(c->input_feature_dimension);
        AddAll(c->input_spatial_dimensions, d->mutable_input_spatial_dimensions());
        d->set_kernel_input_feature_dimension(c->kernel_input_feature_dimension);
        d->set_kernel_output_feature_dimension(c->kernel_output_feature_dimension);
        AddAll(c->kernel_spatial_dimensions, d->mutable_kernel_spatial_dimensions());
        d->set_output_batch_dimension(c->output_batch_dimension);
        d->set_output_feature_dimension(c->output_feature_dimension);
        AddAll(c->output_spatial_dimensions, d->mutable_output_spatial_dimensions());
      }
    } else if (name == "feature_group_count" && i) p->set_feature_group_count(*i);
    else if (name == "batch_group_count" && i) p->set_batch_group_count(*i);
    else if (name == "kind" && s && inst.opcode() == Opcode::kFusion) p->set_fusion_kind(*s);
    else if (name == "backend_config") {
      if (const auto* v = AttrGet<StringOrDict>(value)) p->set_backend_config(v->text);
    } else if (name == "frontend_attributes") {
      if (const auto* fa = AttrGet<FrontendAttributes>(value))
        for (const auto& [k, v] : *fa)
          if (IsUtf8(k) && IsUtf8(v.text)) (*p->mutable_frontend_attributes()->mutable_map())[k] = v.text;
    } else if (name == "metadata") {
      if (const auto* m = AttrGet<OpMetadata>(value); m && MetadataIsUtf8(*m)) MetadataToProto(*m, p->mutable_metadata());
    } else if (name == "is_stable" && b) p->set_is_stable(*b);
    else if (name == "largest" && b) p->set_largest(*b);
    else if (name == "k" && i) p->set_k(*i);
    else if (name == "is_composite" && b) p->set_is_composite(*b);
    else if (name == "custom_call_has_side_effect" && b) p->set_custom_call_has_side_effect(*b);
    else if (name == "use_global_device_ids" && b) p->set_use_global_device_ids(*b);
    else if (name == "replica_groups") {
      if (const auto* g = AttrGet<CollectiveDeviceList>(value)) {
        if (g->is_iota) {
          // Older XLA reads field 87's list, newer XLA field 92 (87 then
          // holds a field it does not know, and 92 comes later on the wire:
          // the oneof ends up with 92).
          auto* l = p->mutable_collective_device_list()->mutable_iota_replica_group_list();
          l->set_num_replica_groups(g->iota.dims.size() > 0 ? g->iota.dims[0] : 0);
          l->set_num_devices_per_group(g->iota.dims.size() > 1 ? g->iota.dims[1] : 0);
          AddAll(g->iota.reshape_dims, l->mutable_iota_reshape_dims());
          for (int64_t t : g->iota.transpose_perm) l->add_iota_transpose_perm(static_cast<int32_t>(t));
          *p->mutable_iota_collective_device_list() = *l;
        } else if (g->is_mesh) {
          MeshToProto(g->mesh, p->mutable_mesh_axes_replica_group_list());
        } else {
          for (const std::vector<int64_t>& group : g->groups) AddAll(group, p->add_replica_groups()->mutable_replica_ids());
        }
      }
    }
  }
}

std::string FrontendAttributesText(const xla::FrontendAttributes& p) {
  FrontendAttributes attrs;
  for (const auto& [k, v] : p.map()) attrs[k] = StringOrDictOf(v);
  return AttrValueToString(attrs, AttrKind::kFrontendAttributes);
}

absl::StatusOr<std::string> TypedFieldsToText(const xla::HloInstructionProto& p, Opcode op, const TypedContext& ctx) {
  std::string out;
  auto accepts = [&](absl::string_view name) { return FindAttrSpec(op, name) != nullptr; };
  auto add = [&](absl::string_view name, absl::string_view value) {
    if (accepts(name)) absl::StrAppend(&out, ", ", name, "=", value);
  };
  if (accepts("iota_dimension")) {
    if (p.dimensions_size() != 1) return absl::InvalidArgumentError("iota needs exactly one entry in `dimensions`");
    add("iota_dimension", absl::StrCat(p.dimensions(0)));
  } else if (p.dimensions_size() > 0 || (FindAttrSpec(op, "dimensions") && FindAttrSpec(op, "dimensions")->required)) {
    add("dimensions", IntList(p.dimensions()));
  }
  if (op == Opcode::kGetTupleElement) add("index", absl::StrCat(p.tuple_index()));
  if (p.slice_dimensions_size() > 0) {
    std::vector<std::string> r;
    for (const auto& d : p.slice_dimensions()) r.push_back(absl::StrCat("[", d.start(), ":", d.limit(), ":", d.stride(), "]"));
    add("slice", absl::StrCat("{", absl::StrJoin(r, ", "), "}"));
  }
  if (accepts("exponent_bits")) {
    add("exponent_bits", absl::StrCat(p.exponent_bits()));
    add("mantissa_bits", absl::StrCat(p.mantissa_bits()));
  }
  if (op == Opcode::kCollectivePermute || op == Opcode::kCollectivePermuteStart) {
    if (p.dynamic_slice_sizes_size() > 0) {
      absl::StatusOr<std::string> sizes = PermuteSliceSizes(p.dynamic_slice_sizes(), ctx.first_operand_shape);
      if (!sizes.ok()) return sizes.status();
      add("slice_sizes", *sizes);
    }
  } else if (p.dynamic_slice_sizes_size() > 0) {
    add("dynamic_slice_sizes", IntList(p.dynamic_slice_sizes()));
  }
  if (p.has_padding_config()) {
    std::vector<std::string> dims;
    for (const auto& d : p.padding_config().dimensions())
      dims.push_back(absl::StrCat(d.edge_padding_low(), "_", d.edge_padding_high(), "_", d.interior_padding()));
    add("padding", absl::StrJoin(dims, "x"));
  }
  if (accepts("epsilon")) {
    add("epsilon", ShortestFloat(p.epsilon()));
    add("feature_index", absl::StrCat(p.feature_index()));
  }
  if (p.channel_id() > 0) add("channel_id", absl::StrCat(p.channel_id()));
  if (!p.custom_call_target().empty() || op == Opcode::kCustomCall)
    add("custom_call_target", Quoted(p.custom_call_target()));
  if (op == Opcode::kReshape && p.dimensions_size() == 1) add("inferred_dimension", absl::StrCat(p.dimensions(0)));
  const bool ragged = p.has_ragged_dot_dimension_numbers();
  if (p.has_dot_dimension_numbers() || ragged) {
    const xla::DotDimensionNumbers& d =
        ragged ? p.ragged_dot_dimension_numbers().dot_dimension_numbers() : p.dot_dimension_numbers();
    if (d.lhs_batch_dimensions_size() > 0) add("lhs_batch_dims", IntList(d.lhs_batch_dimensions()));
    add("lhs_contracting_dims", IntList(d.lhs_contracting_dimensions()));
    if (d.rhs_batch_dimensions_size() > 0) add("rhs_batch_dims", IntList(d.rhs_batch_dimensions()));
    add("rhs_contracting_dims", IntList(d.rhs_contracting_dimensions()));
  }
  if (ragged) {
    add("lhs_ragged_dims", IntList(p.ragged_dot_dimension_numbers().lhs_ragged_dimensions()));
    add("rhs_group_dims", IntList(p.ragged_dot_dimension_numbers().rhs_group_dimensions()));
  }
  if (accepts("fft_type")) {
    add("fft_type", xla::FftType_Name(p.fft_type()));
    add("fft_length", IntList(p.fft_length()));
  }
  if (!p.comparison_direction().empty()) add("direction", p.comparison_direction());
  if (!p.comparison_type().empty()) add("type", p.comparison_type());
  if (op == Opcode::kGather) {
    AddSameNamedFields(p.gather_dimension_numbers(), add);
    add("slice_sizes", IntList(p.gather_slice_sizes()));
  }
  if (op == Opcode::kScatter) AddSameNamedFields(p.scatter_dimension_numbers(), add);
  if (p.indices_are_sorted()) add("indices_are_sorted", "true");
  if (p.unique_indices()) add("unique_indices", "true");
  if (p.window().dimensions_size() > 0) add("window", WindowText(p.window()));
  if (p.has_convolution_dimension_numbers()) {
    absl::StatusOr<std::string> labels = ConvLabels(p.convolution_dimension_numbers());
    if (!labels.ok()) return labels.status();
    add("dim_labels", *labels);
  }
  if (p.feature_group_count() > 1) add("feature_group_count", absl::StrCat(p.feature_group_count()));
  if (p.batch_group_count() > 1) add("batch_group_count", absl::StrCat(p.batch_group_count()));
  if (op == Opcode::kFusion) add("kind", p.fusion_kind().empty() ? "kLoop" : p.fusion_kind());
  if (p.is_stable()) add("is_stable", "true");
  if (accepts("k")) add("k", absl::StrCat(p.k()));
  if (p.largest()) add("largest", "true");
  if (p.is_composite()) add("is_composite", "true");
  if (p.custom_call_has_side_effect()) add("custom_call_has_side_effect", "true");
  if (p.use_global_device_ids()) add("use_global_device_ids", "true");
  if (p.has_mesh_axes_replica_group_list()) {
    absl::StatusOr<CollectiveDeviceList> mesh = MeshFromProto(p.mesh_axes_replica_group_list());
    if (!mesh.ok()) return mesh.status();
    add("replica_groups", AttrValueToString(Boxed<CollectiveDeviceList>(*std::move(mesh)), AttrKind::kReplicaGroups));
  } else if (p.has_iota_collective_device_list() ||
             (p.has_collective_device_list() && p.collective_device_list().has_iota_replica_group_list())) {
    const auto& l = p.has_iota_collective_device_list() ? p.iota_collective_device_list()
                                                        : p.collective_device_list().iota_replica_group_list();
    // No reshape dims: the plain iota over all devices.
    const std::string reshape = l.iota_reshape_dims_size() > 0
                                    ? absl::StrJoin(l.iota_reshape_dims(), ",")
                                    : absl::StrCat(l.num_replica_groups() * l.num_devices_per_group());
    std::string text = absl::StrCat("[", l.num_replica_groups(), ",", l.num_devices_per_group(), "]<=[", reshape, "]");
    if (l.iota_transpose_perm_size() > 0) absl::StrAppend(&text, "T(", absl::StrJoin(l.iota_transpose_perm(), ","), ")");
    add("replica_groups", text);
  } else {
    const auto& groups = p.has_collective_device_list() ? p.collective_device_list().replica_groups() : p.replica_groups();
    if (groups.size() > 0 || accepts("replica_groups")) {
      std::vector<std::string> g;
      for (const xla::ReplicaGroup& r : groups) g.push_back(IntList(r.replica_ids()));
      add("replica_groups", absl::StrCat("{", absl::StrJoin(g, ","), "}"));
    }
  }
  if (absl::Status st = OptionFieldsToText(p, op, add); !st.ok()) return st;
  // Called computations, named by id.
  std::vector<std::string> called;
  for (int64_t id : p.called_computation_ids()) {
    auto it = ctx.computation_names->find(id);
    if (it == ctx.computation_names->end())
      return absl::InvalidArgumentError(absl::StrCat("called computation id ", id, " does not exist"));
    called.push_back(absl::StrCat("%", it->second));
  }
  auto need = [&](size_t n) -> absl::Status {
    if (called.size() == n) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(OpcodeName(op), " calls ", n, " computation", n == 1 ? "" : "s",
                                                   ", the proto names ", called.size()));
  };
  if (op == Opcode::kWhile) {
    if (absl::Status st = need(2); !st.ok()) return st;
    add("condition", called[1]);
    add("body", called[0]);
  } else if (op == Opcode::kConditional) {
    if (ctx.first_operand_type == xla::PRED) {
      if (absl::Status st = need(2); !st.ok()) return st;
      add("true_computation", called[0]);
      add("false_computation", called[1]);
    } else {
      add("branch_computations", absl::StrCat("{", absl::StrJoin(called, ", "), "}"));
    }
  } else if (op == Opcode::kSelectAndScatter) {
    if (absl::Status st = need(2); !st.ok()) return st;
    add("select", called[0]);
    add("scatter", called[1]);
  } else if (op == Opcode::kCustomCall && !called.empty()) {
    add("called_computations", absl::StrCat("{", absl::StrJoin(called, ", "), "}"));  // as XLA prints it
  } else if (called.size() == 1 && accepts("calls")) {
    add("calls", called[0]);
  } else if (called.size() == 1 && accepts("to_apply")) {
    add("to_apply", called[0]);
  } else if (!called.empty()) {
    if (!accepts("called_computations"))
      return absl::InvalidArgumentError(absl::StrCat(OpcodeName(op), " cannot call ", called.size(),
                                                     " computation", called.size() == 1 ? "" : "s"));
    add("called_computations", absl::StrCat("{", absl::StrJoin(called, ", "), "}"));
  }
  if (p.frontend_attributes().map_size() > 0)
    add("frontend_attributes", FrontendAttributesText(p.frontend_attributes()));
  if (p.has_metadata()) add("metadata", AttrValueToString(Boxed<OpMetadata>(MetadataFromProto(p.metadata())), AttrKind::kMetadata));
  if (!p.backend_config().empty())
    add("backend_config", AttrValueToString(StringOrDictOf(p.backend_config()), AttrKind::kStringOrDict));
  return out;
}

}  // namespace hlo::proto
