// Named (Shardy) shardings between the IR's text (Sharding::named_text) and
// XLA's NamedShardingProto (OpSharding field 14).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "proto/hlo.pb.h"

namespace hlo::proto {

// False when the text is not a named sharding this reader knows (the
// caller leaves the typed field unset; our field 1000 keeps the text).
bool NamedShardingToProto(const std::string& text, xla::NamedShardingProto* out);

// XLA's text of the sharding (axis names quoted, as XLA prints them);
// errors name what is wrong (an axis index out of the mesh, a bad mesh).
absl::StatusOr<std::string> NamedShardingText(const xla::NamedShardingProto& p);

}  // namespace hlo::proto
