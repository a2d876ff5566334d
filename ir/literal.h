// Literals: typed values of a shape, stored in the physical order of the
// shape's layout (layout_index.h), one unpacked element per
// PrimitiveTypeByteSize() bytes. Tuples hold element literals.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/buffer_allocator.h"
#include "ir/layout_index.h"
#include "ir/parallel_runner.h"
#include "ir/shape.h"

namespace hlo {

class Literal {
 public:
  Literal() = default;
  // Zero-filled storage for an array shape (a default layout is filled in if
  // missing); tuples get one zero literal per element.
  explicit Literal(const Shape& shape);
  // A read-only view of `bytes` as an array of `shape` (the physical
  // storage of its layout, PhysicalElementCount x element bytes): nothing is
  // copied (Python's NumPy arguments). The caller keeps the memory alive and
  // unchanged while the view, or a run reading it, lives. Copies of a view
  // own their bytes, and the first mutable access to a view (data(), Set*)
  // copies them in first, so nothing ever writes through a view.
  static Literal View(const Shape& shape, const void* bytes);
  Literal(const Literal& other);
  Literal& operator=(const Literal& other);
  Literal(Literal&&) noexcept = default;
  Literal& operator=(Literal&&) noexcept = default;
  ~Literal() = default;
  bool is_view() const { return view_ != nullptr; }
  // Storage whose contents are unspecified, for a result that the caller
  // overwrites completely (kernels): skips the zero-fill pass, and leaves
  // the first touch of fresh pages to the (parallel) writer.
  static Literal Uninitialized(const Shape& shape);

  const Shape& shape() const { return shape_; }
  bool IsTuple() const { return shape_.IsTuple(); }

  // `{...}` in the text: values were not given. The parser fills such a
  // literal deterministically (FillElided); the printer prints `{...}` back.
  bool elided() const { return elided_; }
  void set_elided(bool e) { elided_ = e; }

  // --- raw physical storage (arrays) ---
  uint8_t* data() {
    if (view_ != nullptr) Materialize();
    return data_.data();
  }
  const uint8_t* data() const { return view_ != nullptr ? view_ : data_.data(); }
  size_t size_bytes() const { return view_ != nullptr ? view_bytes_ : data_.size(); }
  int64_t physical_count() const;  // element slots in the buffer
  int element_bytes() const { return PrimitiveTypeByteSize(shape_.element_type()); }

  // Typed raw access by physical slot. T must be the storage type of the
  // element type: bool/uint8_t for pred, intN_t/uintN_t for integers
  // (int8_t/uint8_t for sub-byte ints), uint16_t bits for f16/bf16,
  // uint8_t bits for f8/f4, float/double, std::complex<float/double>.
  template <typename T>
  T GetRaw(int64_t slot) const {
    T v;
    std::memcpy(&v, data() + slot * sizeof(T), sizeof(T));
    return v;
  }
  template <typename T>
  void SetRaw(int64_t slot, T v) {
    std::memcpy(data() + slot * sizeof(T), &v, sizeof(T));
  }
  // Physical slot of a logical multi-index.
  int64_t Slot(absl::Span<const int64_t> index) const { return LinearIndex(shape_, index); }

  // Value conversions through the element type (implemented in
  // literal_values.cc): floats of every width (f16/bf16/f8/f4 decoded from
  // their bits), ints, pred (0/1); complex gives the real part for
  // GetDouble and both parts for GetComplex.
  double GetDouble(int64_t slot) const;
  int64_t GetInt(int64_t slot) const;   // integer/pred types (u64 bit-cast)
  std::complex<double> GetComplex(int64_t slot) const;
  // Rounds to nearest even for narrow floats; wraps for ints.
  void SetDouble(int64_t slot, double v);
  void SetInt(int64_t slot, int64_t v);
  void SetComplex(int64_t slot, std::complex<double> v);
  // Raw bits of one element, zero-extended (element_bytes() bytes; e.g. the
  // f16/bf16/f8 encodings, f32/f64 bit patterns incl. NaN payloads; see
  // ir/float_format.h for decoding; for c64/c128 the real part's bits).
  // SetFloatBits stores the low bytes.
  uint64_t GetFloatBits(int64_t slot) const;
  void SetFloatBits(int64_t slot, uint64_t bits);

  // Fills an elided literal with deterministic values (same bits for the
  // same shape every time; pred masked to 0/1, floats finite and small).
  void FillDeterministic(uint64_t seed = 0);

  // --- tuples ---
  // A tuple literal of `elements` (no zero-filled intermediate); the shape
  // is the tuple of the elements' shapes.
  static Literal MakeTuple(std::vector<Literal> elements);
  const std::vector<Literal>& tuple_elements() const { return elements_; }
  std::vector<Literal>& mutable_tuple_elements() { return elements_; }

  // Reuses this array literal's storage for `shape` (an array shape whose
  // storage has exactly as many bytes): the bytes stay, only their type and
  // shape change; false (and no change) if the sizes differ. For kernels
  // that write their result over an operand that dies (in place).
  bool ReuseStorageAs(const Shape& shape);

  // A copy of this array literal in another layout (same logical values).
  // Between untiled layouts it is one StridedCopy (a blocked transpose for
  // a permutation), run serially or over `run` (a thread pool's
  // ParallelFor); tiled layouts go element by element.
  Literal Relayout(const Layout& layout) const;
  Literal Relayout(const Layout& layout, ParallelRunner run) const;

  // Same shape (layouts ignored), same logical values bit for bit.
  bool LogicallyEqual(const Literal& other) const;

  // Back to the empty literal, releasing its storage.
  void Clear() {
    shape_.Clear();
    elided_ = false;
    std::vector<uint8_t, BufferAllocator<uint8_t>>().swap(data_);
    view_ = nullptr;
    view_bytes_ = 0;
    std::vector<Literal>().swap(elements_);
  }

 private:
  Shape shape_;
  bool elided_ = false;
  // A view's bytes become owned ones (data_).
  void Materialize();

  std::vector<uint8_t, BufferAllocator<uint8_t>> data_;
  // Set for a view (View()): the borrowed bytes, read instead of data_.
  const uint8_t* view_ = nullptr;
  size_t view_bytes_ = 0;
  std::vector<Literal> elements_;
};

}  // namespace hlo
