// Where each element of an array lives in its physical buffer, given the
// shape's layout: minor_to_major order, then tiling (incl. repeated tiles and
// `*` combined dimensions) exactly as the tiled-layout document defines it.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/shape.h"

namespace hlo {

// Number of element slots in the physical buffer of an array shape (tiling
// pads partial tiles, so this can exceed ElementCount()). Dynamic dims count
// at their bound.
int64_t PhysicalElementCount(const Shape& shape);

// True for an array whose buffer is its elements in minor_to_major order
// and nothing else: a full minor_to_major, no tiles, element size, memory
// space or other layout extras.
bool HasPlainLayout(const Shape& shape);

// Physical slot of the element at the multi-dimensional logical `index`
// (one entry per dimension, in logical dimension order).
int64_t LinearIndex(const Shape& shape, absl::Span<const int64_t> index);

// Checks a layout against its shape: minor_to_major is a permutation of
// 0..rank-1, tiles are well formed (positive sizes or `*`, no more dims than
// the shape has), element_size_in_bits sensible. Message names the problem.
absl::Status ValidateLayout(const Shape& shape);

// Per logical dimension, the distance in elements between neighbours in the
// physical buffer of an untiled layout (minor_to_major order only; the
// caller checks there are no tiles).
std::vector<int64_t> UntiledStrides(const Shape& shape);

// For every logical element in row-major order, its physical slot.
// (Helper for copying between layouts in bulk.)
std::vector<int64_t> PhysicalIndexTable(const Shape& shape);

}  // namespace hlo
