// Shapes and layouts. Shapes are values: cheap to copy, compared
// structurally. A layout is part of an array shape; the parser fills the
// default (major-to-minor) layout when the text has none, as XLA does.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "ir/element_type.h"

namespace hlo {

class Shape;

// Dimension sizes, minor_to_major and dynamic flags: held inline up to rank
// 4 (no heap allocation for the shapes nearly every instruction has; a big
// module holds hundreds of thousands of them).
using DimVector = absl::InlinedVector<int64_t, 4>;
using DynamicVector = absl::InlinedVector<bool, 8>;

// Element-wise equality of two integer lists of any container type
// (DimVector, std::vector, spans).
inline bool SameInts(absl::Span<const int64_t> a, absl::Span<const int64_t> b) { return a == b; }
inline std::vector<int64_t> ToStdVector(absl::Span<const int64_t> v) { return {v.begin(), v.end()}; }

// A tile (T(8,128)); kCombineDimension marks a `*` entry.
struct Tile {
  static constexpr int64_t kCombineDimension = std::numeric_limits<int64_t>::min();
  std::vector<int64_t> dims;
  bool operator==(const Tile& o) const { return dims == o.dims; }
  bool operator!=(const Tile& o) const { return !(*this == o); }
};

// SC(dimension:split_index,...)
struct SplitConfig {
  int64_t dimension = 0;
  std::vector<int64_t> split_indices;
  bool operator==(const SplitConfig& o) const {
    return dimension == o.dimension && split_indices == o.split_indices;
  }
};

// The layout parts that almost no layout has (sparse arrays, TPU memory
// tricks). They live in a separate allocation, made only when one is set,
// so that the layout inside every shape stays small.
struct LayoutRareFields {
  // Sparse dim level types kept as written: "D", "C", "S", "H", each
  // optionally followed by '+' (non-unique) and/or '~' (unordered).
  std::vector<std::string> dim_level_types;
  int64_t tail_padding_alignment_in_elements = 1;              // L(n)
  PrimitiveType index_primitive_type = PrimitiveType::kInvalid;   // #(t)
  PrimitiveType pointer_primitive_type = PrimitiveType::kInvalid; // *(t)
  std::vector<SplitConfig> split_configs;                      // SC(...)
  std::vector<Shape> physical_shape;                           // P(shape): 0 or 1 entries
  int64_t dynamic_shape_metadata_prefix_bytes = 0;             // M(n)
  bool IsDefault() const;
  bool operator==(const LayoutRareFields& o) const;
};

struct Layout {
  DimVector minor_to_major;
  std::vector<Tile> tiles;
  int64_t element_size_in_bits = 0;                            // E(n); 0 = natural
  int64_t memory_space = 0;                                    // S(n)

  Layout() = default;
  Layout(const Layout& o) : minor_to_major(o.minor_to_major), tiles(o.tiles),
        element_size_in_bits(o.element_size_in_bits), memory_space(o.memory_space),
        rare_(o.rare_ ? std::make_unique<LayoutRareFields>(*o.rare_) : nullptr) {}
  Layout(Layout&&) noexcept = default;
  Layout& operator=(const Layout& o) {
    if (this != &o) *this = Layout(o);
    return *this;
  }
  Layout& operator=(Layout&&) noexcept = default;

  // Back to the empty default layout (in place: no temporary).
  void Clear() {
    minor_to_major.clear();
    tiles.clear();
    element_size_in_bits = 0;
    memory_space = 0;
    rare_.reset();
  }

  // The rare parts (defaults when none is set); mutable_rare() creates them.
  const LayoutRareFields& rare() const { return rare_ ? *rare_ : DefaultRareFields(); }
  LayoutRareFields& mutable_rare() {
    if (!rare_) rare_ = std::make_unique<LayoutRareFields>();
    return *rare_;
  }

  // True if any part after minor_to_major differs from its default.
  bool HasNonDefaultTail() const;
  bool operator==(const Layout& o) const;
  bool operator!=(const Layout& o) const { return !(*this == o); }

 private:
  static const LayoutRareFields& DefaultRareFields();
  std::unique_ptr<LayoutRareFields> rare_;
};

class Shape {
 public:
  // Value stored in dims() for an unbounded dynamic dimension (`?`).
  static constexpr int64_t kUnboundedSize = std::numeric_limits<int64_t>::min();

  Shape() = default;  // an invalid shape
  static Shape Array(PrimitiveType type, absl::Span<const int64_t> dims);  // default layout
  static Shape ArrayNoLayout(PrimitiveType type, absl::Span<const int64_t> dims);
  static Shape Scalar(PrimitiveType type) { return Array(type, {}); }
  static Shape Tuple(std::vector<Shape> elements);
  static Shape Token();
  static Shape Opaque();

  PrimitiveType element_type() const { return element_type_; }
  void set_element_type(PrimitiveType t) { element_type_ = t; }

  bool IsArray() const { return IsArrayType(element_type_); }
  bool IsTuple() const { return is_tuple_; }
  bool IsToken() const { return element_type_ == PrimitiveType::TOKEN; }
  bool IsOpaque() const { return element_type_ == PrimitiveType::OPAQUE_TYPE; }
  bool IsValid() const { return is_tuple_ || element_type_ != PrimitiveType::kInvalid; }
  bool IsScalar() const { return IsArray() && dims_.empty(); }
  // Buffer shape wrapper `b(shape)` (newer XLA); the element shape is tuple_shapes()[0].
  bool IsBuffer() const { return is_buffer_; }
  static Shape Buffer(Shape element);

  // --- arrays ---
  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  const DimVector& dims() const { return dims_; }
  int64_t dim(int64_t i) const { return dims_[i]; }
  void set_dim(int64_t i, int64_t v) { dims_[i] = v; }
  // Dynamic dims: a bounded dim (`<=N`) has dims()[i] == N and is_dynamic_dim(i);
  // an unbounded one (`?`) has dims()[i] == kUnboundedSize and is_dynamic_dim(i).
  bool is_dynamic_dim(int64_t i) const { return dynamic_[i]; }
  void set_dynamic_dim(int64_t i, bool d) { dynamic_[i] = d; }
  const DynamicVector& dynamic_dims() const { return dynamic_; }
  // Direct access for builders (the parser); dims and dynamic flags must
  // end up the same length.
  DimVector& mutable_dims() { return dims_; }
  DynamicVector& mutable_dynamic_dims() { return dynamic_; }
  bool IsStatic() const;  // no dynamic dims anywhere (recursing into tuples)
  void AddDim(int64_t size, bool dynamic = false);
  // Product of dims (bounds for dynamic dims); 1 for scalars; 0 for tuples.
  int64_t ElementCount() const;

  bool has_layout() const { return has_layout_; }
  const Layout& layout() const { return layout_; }
  Layout& mutable_layout() { has_layout_ = true; return layout_; }
  void set_layout(Layout l) { layout_ = std::move(l); has_layout_ = true; }
  // Back to the default (invalid) shape, in place.
  void Clear() {
    element_type_ = PrimitiveType::kInvalid;
    is_tuple_ = is_buffer_ = has_layout_ = false;
    dims_.clear();
    dynamic_.clear();
    tuple_shapes_.clear();
    layout_.Clear();
  }
  void clear_layout() {
    layout_.Clear();
    has_layout_ = false;
  }
  // Sets minor_to_major = {rank-1, ..., 0} (recursing into tuples) where no layout is set.
  void FillDefaultLayoutIfMissing();
  static DimVector DefaultMinorToMajor(int64_t rank);

  // --- tuples ---
  const std::vector<Shape>& tuple_shapes() const { return tuple_shapes_; }
  std::vector<Shape>& mutable_tuple_shapes() { return tuple_shapes_; }
  const Shape& tuple_shape(int64_t i) const { return tuple_shapes_[i]; }
  int64_t tuple_size() const { return static_cast<int64_t>(tuple_shapes_.size()); }
  // Sub-shape at a ShapeIndex path, or nullptr if the path is invalid.
  const Shape* SubShape(absl::Span<const int64_t> index) const;

  // Same type and dims (incl. dynamic flags) recursively; layouts ignored.
  bool Compatible(const Shape& other) const;
  // Compatible and layouts equal too.
  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }

 private:
  PrimitiveType element_type_ = PrimitiveType::kInvalid;
  bool is_tuple_ = false;
  bool is_buffer_ = false;
  bool has_layout_ = false;
  DimVector dims_;
  DynamicVector dynamic_;
  std::vector<Shape> tuple_shapes_;
  Layout layout_;
};

// (param shapes) -> result, as in entry_computation_layout and signatures.
struct ProgramShape {
  std::vector<Shape> parameters;
  std::vector<std::string> parameter_names;  // may be empty
  Shape result;
};

}  // namespace hlo
