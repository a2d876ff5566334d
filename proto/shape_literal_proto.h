// Shapes and literals to and from XLA's ShapeProto / LiteralProto
// (proto/hlo.proto). Literal data is in the layout's physical order, as
// XLA stores it; 16-bit and 8-bit-or-narrower types go into the `bytes`
// fields one element per byte (little endian for 16-bit).
#pragma once

#include "absl/status/statusor.h"
#include "ir/literal.h"
#include "ir/shape.h"
#include "proto/hlo.pb.h"

namespace hlo::proto {

// Fails on layout features ShapeProto here has no field for (sparse
// dimension level types, split configs, physical shapes).
absl::Status ShapeToProto(const Shape& shape, xla::ShapeProto* out);

// Checks the proto (known element type, sizes, layout a permutation, ...)
// by printing it as text and parsing that: every rule of the text parser
// applies. `what` names the shape in errors.
absl::StatusOr<Shape> ShapeFromProto(const xla::ShapeProto& proto, absl::string_view what);

// The same shape as HLO text (`f32[2,3]{1,0}`), unchecked: the caller's
// text goes through the parser anyway.
absl::StatusOr<std::string> ShapeProtoToText(const xla::ShapeProto& proto);

absl::Status LiteralToProto(const Literal& literal, xla::LiteralProto* out);

// Fails unless the proto holds exactly as many values as its shape has
// elements, in the field of its element type (checked before allocating).
absl::StatusOr<Literal> LiteralFromProto(const xla::LiteralProto& proto, absl::string_view what);

// XLA's enum value for an element type, and back (nullopt if unknown).
xla::PrimitiveType ToXlaType(PrimitiveType t);
std::optional<PrimitiveType> FromXlaType(int t);

}  // namespace hlo::proto
