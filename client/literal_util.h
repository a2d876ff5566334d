// Array literals from C++ values, for constants and test arguments.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "absl/types/span.h"
#include "ir/literal.h"

namespace hlo::client {

// The element type of a C++ value type (float, double, int8/16/32/64,
// uint8/16/32/64, bool).
template <typename T>
constexpr PrimitiveType NativeToPrimitiveType() {
  if constexpr (std::is_same_v<T, bool>) return PrimitiveType::PRED;
  else if constexpr (std::is_same_v<T, float>) return PrimitiveType::F32;
  else if constexpr (std::is_same_v<T, double>) return PrimitiveType::F64;
  else if constexpr (std::is_same_v<T, int8_t>) return PrimitiveType::S8;
  else if constexpr (std::is_same_v<T, int16_t>) return PrimitiveType::S16;
  else if constexpr (std::is_same_v<T, int32_t>) return PrimitiveType::S32;
  else if constexpr (std::is_same_v<T, int64_t>) return PrimitiveType::S64;
  else if constexpr (std::is_same_v<T, uint8_t>) return PrimitiveType::U8;
  else if constexpr (std::is_same_v<T, uint16_t>) return PrimitiveType::U16;
  else if constexpr (std::is_same_v<T, uint32_t>) return PrimitiveType::U32;
  else if constexpr (std::is_same_v<T, uint64_t>) return PrimitiveType::U64;
  else static_assert(sizeof(T) == 0, "no element type for this C++ type");
}

// Stores `v` at physical slot `slot` through the literal's element type.
template <typename T>
void SetLiteralValue(Literal& lit, int64_t slot, T v) {
  if constexpr (std::is_floating_point_v<T>) {
    lit.SetDouble(slot, static_cast<double>(v));
  } else {
    lit.SetInt(slot, static_cast<int64_t>(v));
  }
}

// A scalar of type `t` holding `v` (rounded/wrapped to the type).
Literal LiteralR0OfType(PrimitiveType t, double v);

template <typename T>
Literal LiteralR0(T v) {
  Literal lit(Shape::Scalar(NativeToPrimitiveType<T>()));
  SetLiteralValue(lit, 0, v);
  return lit;
}

template <typename T>
Literal LiteralR1(absl::Span<const T> values) {
  Literal lit(Shape::Array(NativeToPrimitiveType<T>(), {static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) SetLiteralValue(lit, lit.Slot({static_cast<int64_t>(i)}), values[i]);
  return lit;
}

template <typename T>
Literal LiteralR1(std::initializer_list<T> values) {
  return LiteralR1<T>(absl::Span<const T>(values.begin(), values.size()));
}

template <typename T>
Literal LiteralR2(std::initializer_list<std::initializer_list<T>> values) {
  const int64_t rows = static_cast<int64_t>(values.size());
  const int64_t cols = rows == 0 ? 0 : static_cast<int64_t>(values.begin()->size());
  Literal lit(Shape::Array(NativeToPrimitiveType<T>(), {rows, cols}));
  int64_t i = 0;
  for (const auto& row : values) {
    int64_t j = 0;
    for (const T& v : row) {
      if (j < cols) SetLiteralValue(lit, lit.Slot({i, j}), v);  // ragged rows: extra values dropped
      ++j;
    }
    ++i;
  }
  return lit;
}

template <typename T>
Literal LiteralR3(std::initializer_list<std::initializer_list<std::initializer_list<T>>> values) {
  const int64_t d0 = static_cast<int64_t>(values.size());
  const int64_t d1 = d0 == 0 ? 0 : static_cast<int64_t>(values.begin()->size());
  const int64_t d2 = d1 == 0 ? 0 : static_cast<int64_t>(values.begin()->begin()->size());
  Literal lit(Shape::Array(NativeToPrimitiveType<T>(), {d0, d1, d2}));
  int64_t i = 0;
  for (const auto& plane : values) {
    int64_t j = 0;
    for (const auto& row : plane) {
      int64_t k = 0;
      for (const T& v : row) {
        if (j < d1 && k < d2) SetLiteralValue(lit, lit.Slot({i, j, k}), v);
        ++k;
      }
      ++j;
    }
    ++i;
  }
  return lit;
}

}  // namespace hlo::client
