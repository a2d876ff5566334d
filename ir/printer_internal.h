// Internal helpers shared by the printer's source files (printer.cc,
// print_shape.cc, print_literal.cc, print_attributes.cc). Everything appends
// to one std::string; nothing here allocates per element.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ir/attr_spec.h"
#include "ir/attribute.h"
#include "ir/instruction.h"
#include "ir/literal.h"
#include "ir/printer.h"
#include "ir/shape.h"

namespace hlo {
namespace print_internal {

// --- print_shape.cc ---
// `f32[2,3]{1,0}`, `(f32[], s32[4]{0})` with `/*index=5*/` before every fifth
// tuple element, `b(...)`, `token[]`, `opaque[]`.
void AppendShape(std::string* out, const Shape& shape, bool print_layout);
void AppendLayout(std::string* out, const Layout& layout);
// `{1,0}` (no spaces); used for int lists and ShapeIndex values.
void AppendIntList(std::string* out, absl::Span<const int64_t> values);

// --- print_literal.cc ---
// The value part as inside `constant(...)`. `print_large` false: arrays of
// more than 10 elements print as `{...}`.
void AppendLiteralValue(std::string* out, const Literal& literal, bool print_large);
// Shape (with layout) then value; tuples as `( elem, elem )`.
void AppendLiteralWithShape(std::string* out, const Literal& literal);
// Roughly the printed size of a literal's value (for reserving; generous
// rather than tight: untouched reserved pages cost nothing).
size_t EstimateLiteralBytes(const Literal& literal);
// Shortest round-trip form of a double (%.15g, else %.17g); used for float
// attributes (epsilon, statistics, tolerances).
void AppendDouble(std::string* out, double v);

// --- print_attributes.cc ---
// `"..."` with C escapes.
void AppendQuoted(std::string* out, absl::string_view s);
// Appends `, name=value` unless the value is omitted (default, empty, or
// disabled by options). `spec` may be null for attributes outside the tables
// (the kind is then inferred from the value).
void AppendAttribute(std::string* out, absl::string_view name, const AttrValue& value,
                     const AttrSpec* spec, const Instruction& inst, const PrintOptions& options);
void AppendSharding(std::string* out, const Sharding& sharding, bool print_metadata);
void AppendMetadataBody(std::string* out, const OpMetadata& metadata);
bool MetadataIsEmpty(const OpMetadata& m);
void AppendFrontendAttributes(std::string* out, const FrontendAttributes& attrs);
void AppendStringOrDict(std::string* out, const StringOrDict& v);

// Names of the universal attributes in canonical print order, split around
// control-predecessors (printed by the instruction printer between the two).
// parameter_replication comes first (right after the family attributes, as
// XLA prints it), then sharding, frontend_attributes | control-predecessors |
// statistics, origin, metadata, backend_config.
inline constexpr absl::string_view kUniversalBeforeControl[] = {
    "parameter_replication", "sharding", "frontend_attributes"};
inline constexpr absl::string_view kUniversalAfterControl[] = {
    "statistics", "origin", "metadata", "backend_config"};
const AttrSpec* FindUniversalSpec(absl::string_view name);

}  // namespace print_internal
}  // namespace hlo
