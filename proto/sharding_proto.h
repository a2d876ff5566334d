// OpMetadata and OpSharding between the IR and XLA's proto messages. Both
// directions build the IR value (the reader then prints it with the text
// printer), so the syntax of shardings is written in one place only.
#pragma once

#include "absl/status/statusor.h"
#include "ir/attribute.h"
#include "proto/hlo.pb.h"

namespace hlo::proto {

// Whether every string of the metadata is UTF-8 (proto3 strings must be).
bool MetadataIsUtf8(const OpMetadata& m);
void MetadataToProto(const OpMetadata& m, xla::OpMetadata* p);
OpMetadata MetadataFromProto(const xla::OpMetadata& p);

// False (and `out` unspecified) when the sharding has no XLA form here: a
// named (Shardy) sharding, or metadata that is not UTF-8.
bool ShardingToProto(const Sharding& s, xla::OpSharding* out);
// Errors name what is wrong (a maximal sharding without one device, an
// unknown sharding type, nesting deeper than any shape).
absl::StatusOr<Sharding> ShardingFromProto(const xla::OpSharding& p);

}  // namespace hlo::proto
