#include "proto/sharding_proto.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "proto/named_sharding_proto.h"
#include "proto/typed_fields.h"

namespace hlo::proto {
namespace {

// Text names of the subgroup types (`last_tile_dims={manual, replicated}`)
// are the lower-case names of OpSharding's Type values.
bool SubgroupToProto(const std::string& name, xla::OpSharding::Type* t) {
  return xla::OpSharding::Type_Parse(absl::AsciiStrToUpper(name), t);
}

// Tuple shardings nest at most as deep as a shape can; a corrupt proto may
// nest them arbitrarily deep (the stack would overflow first).
constexpr int kMaxDepth = 64;

absl::StatusOr<Sharding> FromProto(const xla::OpSharding& p, int depth) {
  using K = Sharding::Kind;
  if (depth > kMaxDepth) return absl::InvalidArgumentError("sharding: tuple shardings nested too deeply");
  Sharding s;
  if (p.has_named_sharding()) {
    absl::StatusOr<std::string> text = NamedShardingText(p.named_sharding());
    if (!text.ok()) return text.status();
    s.kind = Sharding::Kind::kNamed;
    s.named_text = *std::move(text);
    return s;
  }
  switch (p.type()) {
    case xla::OpSharding::REPLICATED: s.kind = K::kReplicated; break;
    case xla::OpSharding::MANUAL: s.kind = K::kManual; break;
    case xla::OpSharding::UNKNOWN: s.kind = K::kUnknown; break;
    case xla::OpSharding::UNREDUCED: s.kind = K::kUnreduced; break;
    case xla::OpSharding::MAXIMAL:
      if (p.tile_assignment_devices_size() != 1)
        return absl::InvalidArgumentError(absl::StrCat("sharding: a maximal sharding names one device, this one ",
                                                       p.tile_assignment_devices_size()));
      s.kind = K::kMaximal;
      s.device = p.tile_assignment_devices(0);
      break;
    case xla::OpSharding::TUPLE:
      s.kind = K::kTuple;
      for (const xla::OpSharding& e : p.tuple_shardings()) {
        absl::StatusOr<Sharding> el = FromProto(e, depth + 1);
        if (!el.ok()) return el.status();
        s.tuple_elements.push_back(*std::move(el));
      }
      break;
    case xla::OpSharding::OTHER:
      s.kind = K::kTiled;
      s.tile_assignment_dims.assign(p.tile_assignment_dimensions().begin(), p.tile_assignment_dimensions().end());
      if (p.iota_reshape_dims_size() > 0) {
        s.iota_devices = true;
        s.iota.dims = s.tile_assignment_dims;
        s.iota.reshape_dims.assign(p.iota_reshape_dims().begin(), p.iota_reshape_dims().end());
        s.iota.transpose_perm.assign(p.iota_transpose_perm().begin(), p.iota_transpose_perm().end());
      } else {
        s.device_ids.assign(p.tile_assignment_devices().begin(), p.tile_assignment_devices().end());
      }
      s.last_tile_dim_replicate = p.replicate_on_last_tile_dim();
      for (int t : p.last_tile_dims()) {
        const std::string& name = xla::OpSharding::Type_Name(t);
        if (name.empty()) return absl::InvalidArgumentError(absl::StrCat("sharding: unknown subgroup type ", t));
        s.last_tile_dims.push_back(absl::AsciiStrToLower(name));
      }
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("sharding: unknown type ", static_cast<int>(p.type())));
  }
  if (p.is_shard_group()) {
    s.shard_group_kind = p.shard_group_type() == xla::OpSharding::LIKE ? "shard_like" : "shard_as";
    s.shard_group_id = p.shard_group_id();
  }
  for (const xla::OpMetadata& m : p.metadata()) s.metadata.push_back(MetadataFromProto(m));
  return s;
}

}  // namespace

bool MetadataIsUtf8(const OpMetadata& m) {
  for (const std::string* s : {&m.op_type, &m.op_name, &m.source_file, &m.deduplicated_name, &m.scheduling_name})
    if (!IsUtf8(*s)) return false;
  return true;
}

void MetadataToProto(const OpMetadata& m, xla::OpMetadata* p) {
  p->set_op_type(m.op_type);
  p->set_op_name(m.op_name);
  p->set_source_file(m.source_file);
  p->set_source_line(static_cast<int32_t>(m.source_line));
  p->set_source_end_line(static_cast<int32_t>(m.source_end_line));
  p->set_source_column(static_cast<int32_t>(m.source_column));
  p->set_source_end_column(static_cast<int32_t>(m.source_end_column));
  p->set_deduplicated_name(m.deduplicated_name);
  p->set_scheduling_name(m.scheduling_name);
  p->set_stack_frame_id(static_cast<int32_t>(m.stack_frame_id));
}

OpMetadata MetadataFromProto(const xla::OpMetadata& p) {
  OpMetadata m;
  m.op_type = p.op_type();
  m.op_name = p.op_name();
  m.source_file = p.source_file();
  m.source_line = p.source_line();
  m.source_end_line = p.source_end_line();
  m.source_column = p.source_column();
  m.source_end_column = p.source_end_column();
  m.deduplicated_name = p.deduplicated_name();
  m.scheduling_name = p.scheduling_name();
  m.stack_frame_id = p.stack_frame_id();
  return m;
}

bool ShardingToProto(const Sharding& s, xla::OpSharding* out) {
  using K = Sharding::Kind;
  switch (s.kind) {
    case K::kReplicated: out->set_type(xla::OpSharding::REPLICATED); break;
    case K::kManual: out->set_type(xla::OpSharding::MANUAL); break;
    case K::kUnknown: out->set_type(xla::OpSharding::UNKNOWN); break;
    case K::kUnreduced: out->set_type(xla::OpSharding::UNREDUCED); break;
    case K::kMaximal:
      // XLA writes a maximal sharding as a one-device tile assignment.
      out->set_type(xla::OpSharding::MAXIMAL);
      out->add_tile_assignment_dimensions(1);
      out->add_tile_assignment_devices(s.device);
      break;
    case K::kTuple:
      out->set_type(xla::OpSharding::TUPLE);
      for (const Sharding& e : s.tuple_elements)
        if (!ShardingToProto(e, out->add_tuple_shardings())) return false;
      break;
    case K::kTiled:
      out->set_type(xla::OpSharding::OTHER);
      for (int64_t d : s.tile_assignment_dims) out->add_tile_assignment_dimensions(d);
      if (s.iota_devices) {
        for (int64_t d : s.iota.reshape_dims) out->add_iota_reshape_dims(d);
        // XLA requires a permutation as long as the reshape dims (identity
        // when the text has no `T(...)`).
        for (size_t k = 0; k < s.iota.reshape_dims.size(); ++k)
          out->add_iota_transpose_perm(static_cast<int32_t>(
              k < s.iota.transpose_perm.size() ? s.iota.transpose_perm[k] : static_cast<int64_t>(k)));
      } else {
        for (int64_t d : s.device_ids) out->add_tile_assignment_devices(d);
      }
      out->set_replicate_on_last_tile_dim(s.last_tile_dim_replicate);
      for (const std::string& t : s.last_tile_dims) {
        xla::OpSharding::Type type;
        if (!SubgroupToProto(t, &type)) return false;
        out->add_last_tile_dims(type);
      }
      break;
    case K::kNamed:
      // XLA keeps a named sharding alone in its field (type left at 0).
      return NamedShardingToProto(s.named_text, out->mutable_named_sharding());
  }
  if (!s.shard_group_kind.empty()) {
    out->set_is_shard_group(true);
    out->set_shard_group_id(s.shard_group_id);
    out->set_shard_group_type(s.shard_group_kind == "shard_like" ? xla::OpSharding::LIKE : xla::OpSharding::AS);
  }
  for (const OpMetadata& m : s.metadata) {
    if (!MetadataIsUtf8(m)) return false;
    MetadataToProto(m, out->add_metadata());
  }
  return true;
}

absl::StatusOr<Sharding> ShardingFromProto(const xla::OpSharding& p) { return FromProto(p, 0); }

}  // namespace hlo::proto
