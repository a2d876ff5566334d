// `origin=` (XLA's original value: which instruction of the original
// program each leaf of an instruction's value came from) and XLA's
// OriginalValueProto. The IR keeps the attribute as text; these convert
// that text to the proto's elements and back (the proto holds no shape: the
// instruction's shape gives the tuple structure of the text).
//
//   origin={{"a"}}   origin={({"a"}, {"b" {1}})}   origin={({}, {"c"})}
//   origin={[synthetic_call]}
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/hlo.pb.h"

namespace hlo::proto {

// The attribute's text (with its outer braces) as the proto; false when the
// text is not of the form above (the caller then leaves the field unset).
bool OriginalValueToProto(absl::string_view text, xla::OriginalValueProto* out);

// The attribute's text for an instruction of shape `shape`; errors name an
// element whose shape index is not a leaf of the shape, or a leaf given
// twice.
absl::StatusOr<std::string> OriginalValueText(const xla::OriginalValueProto& p, const xla::ShapeProto& shape);

}  // namespace hlo::proto
