#include "proto/named_sharding_proto.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/named_sharding.h"
#include "ir/printer.h"
#include "parser/parser.h"
#include "proto/sharding_proto.h"
#include "proto/typed_fields.h"

namespace hlo::proto {
namespace {

void AxesToProto(const std::vector<MeshAxisRef>& axes, google::protobuf::RepeatedPtrField<xla::AxisRefProto>* out) {
  for (const MeshAxisRef& r : axes) {
    xla::AxisRefProto* a = out->Add();
    a->set_mesh_axis_index(r.axis);
    if (r.is_sub_axis()) {
      a->mutable_sub_axis_info()->set_pre_size(r.pre_size);
      a->mutable_sub_axis_info()->set_size(r.size);
    }
  }
}

// Every axis of the mesh in order, whole (how XLA stores `, unreduced` and
// `, manual`).
std::vector<MeshAxisRef> AllAxes(const MeshAxesDeviceList& m) {
  std::vector<MeshAxisRef> out;
  for (size_t i = 0; i < m.axis_names.size(); ++i) out.push_back({static_cast<int64_t>(i), 0, 0});
  return out;
}

absl::StatusOr<std::vector<MeshAxisRef>> AxesFromProto(const google::protobuf::RepeatedPtrField<xla::AxisRefProto>& in,
                                                       const MeshAxesDeviceList& m, absl::string_view field) {
  std::vector<MeshAxisRef> out;
  for (const xla::AxisRefProto& a : in) {
    MeshAxisRef r{a.mesh_axis_index(), 0, 0};
    if (r.axis < 0 || r.axis >= static_cast<int64_t>(m.axis_sizes.size()))
      return absl::InvalidArgumentError(
          absl::StrCat("named sharding: ", field, ": mesh axis index ", r.axis, " is not an axis of the mesh"));
    if (a.has_sub_axis_info()) {
      r.pre_size = a.sub_axis_info().pre_size();
      r.size = a.sub_axis_info().size();
      const int64_t full = m.axis_sizes[r.axis];
      if (r.pre_size <= 0 || r.size <= 1 || r.size >= full || r.pre_size > full || full % (r.pre_size * r.size) != 0)
        return absl::InvalidArgumentError(absl::StrCat("named sharding: ", field, ": sub-axis (", r.pre_size, ")",
                                                       r.size, " does not divide axis ", m.axis_names[r.axis]));
    }
    out.push_back(r);
  }
  return out;
}

void AppendAxes(const MeshAxesDeviceList& m, const std::vector<MeshAxisRef>& axes, std::string* out) {
  for (size_t i = 0; i < axes.size(); ++i) {
    if (i) out->append(", ");
    m.AppendAxisText(axes[i], out);
  }
}

}  // namespace

bool NamedShardingToProto(const std::string& text, xla::NamedShardingProto* out) {
  absl::StatusOr<NamedShardingSpec> spec = ParseNamedSharding(text);
  if (!spec.ok()) return false;
  const MeshAxesDeviceList& m = spec->mesh;
  for (const std::string& name : m.axis_names)
    if (!IsUtf8(name)) return false;  // proto3 strings hold UTF-8 only
  MeshToProtoFields(m, out->mutable_mesh());
  using Whole = NamedShardingSpec::Whole;
  if (spec->whole == Whole::kUnreduced) AxesToProto(AllAxes(m), out->mutable_unreduced_axes());
  if (spec->whole == Whole::kManual) AxesToProto(AllAxes(m), out->mutable_manual_axes());
  for (const NamedShardingSpec::Dim& d : spec->dims) {
    auto* ds = out->add_dim_shardings();
    AxesToProto(d.axes, ds->mutable_axes());
    ds->set_is_closed(d.closed);
  }
  AxesToProto(spec->replicated, out->mutable_replicated_axes());
  AxesToProto(spec->unreduced, out->mutable_unreduced_axes());
  AxesToProto(spec->manual, out->mutable_manual_axes());
  for (const OpMetadata& md : spec->metadata) {
    if (!MetadataIsUtf8(md)) return false;
    MetadataToProto(md, out->add_metadata());
  }
  // What the reader would refuse (a sub-axis not dividing its axis) is not
  // written either.
  return NamedShardingText(*out).ok();
}

absl::StatusOr<std::string> NamedShardingText(const xla::NamedShardingProto& p) {
  absl::StatusOr<MeshAxesDeviceList> mesh = MeshFromProtoFields(p.mesh(), "named sharding");
  if (!mesh.ok()) return mesh.status();
  const MeshAxesDeviceList& m = *mesh;
  if (!m.axis_names.empty() || !m.device_ids.empty()) {
    if (std::string problem = m.Problem(); !problem.empty())
      return absl::InvalidArgumentError(absl::StrCat("named sharding: mesh: ", problem));
  }
  absl::StatusOr<std::vector<MeshAxisRef>> replicated = AxesFromProto(p.replicated_axes(), m, "replicated_axes");
  if (!replicated.ok()) return replicated.status();
  absl::StatusOr<std::vector<MeshAxisRef>> unreduced = AxesFromProto(p.unreduced_axes(), m, "unreduced_axes");
  if (!unreduced.ok()) return unreduced.status();
  absl::StatusOr<std::vector<MeshAxisRef>> manual = AxesFromProto(p.manual_axes(), m, "manual_axes");
  if (!manual.ok()) return manual.status();

  std::string out = "{";
  m.AppendMeshText(&out);
  if (!m.maximal) {
    const bool no_dims = p.dim_shardings_size() == 0;
    const std::vector<MeshAxisRef> all = AllAxes(m);
    if (no_dims && replicated->empty() && unreduced->empty() && manual->empty()) {
      out.append(", replicated");
    } else if (no_dims && replicated->empty() && manual->empty() && *unreduced == all) {
      out.append(", unreduced");
    } else if (no_dims && replicated->empty() && unreduced->empty() && *manual == all) {
      out.append(", manual");
    } else {
      out.append(", [");
      for (int i = 0; i < p.dim_shardings_size(); ++i) {
        absl::StatusOr<std::vector<MeshAxisRef>> axes =
            AxesFromProto(p.dim_shardings(i).axes(), m, absl::StrCat("dim_shardings[", i, "]"));
        if (!axes.ok()) return axes.status();
        absl::StrAppend(&out, i ? ", " : "", "{");
        AppendAxes(m, *axes, &out);
        if (!p.dim_shardings(i).is_closed()) out.append(axes->empty() ? "?" : ", ?");
        out.push_back('}');
      }
      out.push_back(']');
      for (const auto& [name, list] : {std::pair<const char*, const std::vector<MeshAxisRef>*>{"replicated", &*replicated},
                                       {"unreduced", &*unreduced},
                                       {"manual", &*manual}}) {
        if (list->empty()) continue;
        absl::StrAppend(&out, ", ", name, "={");
        AppendAxes(m, *list, &out);
        out.push_back('}');
      }
    }
  }
  if (p.metadata_size() > 0) {
    out.append(", metadata={");
    for (int i = 0; i < p.metadata_size(); ++i)
      absl::StrAppend(&out, i ? ", " : "",
                      AttrValueToString(Boxed<OpMetadata>(MetadataFromProto(p.metadata(i))), AttrKind::kMetadata));
    out.push_back('}');
  }
  out.push_back('}');
  return out;
}

}  // namespace hlo::proto
