// Attribute values of instructions. An instruction holds a small list of
// (name, value) pairs; which names an opcode accepts, their kinds, whether
// they are required and their defaults come from attr_spec.h.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ir/mesh_axes.h"
#include "ir/shape.h"

namespace hlo {

class Computation;
class Literal;

// window={size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=1x1 rhs_dilate=2x2 rhs_reversal=1x0}
struct WindowDimension {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t base_dilation = 1;    // lhs_dilate
  int64_t window_dilation = 1;  // rhs_dilate
  bool window_reversal = false; // rhs_reversal
  bool operator==(const WindowDimension& o) const {
    return size == o.size && stride == o.stride && padding_low == o.padding_low &&
           padding_high == o.padding_high && base_dilation == o.base_dilation &&
           window_dilation == o.window_dilation && window_reversal == o.window_reversal;
  }
};
struct Window {
  std::vector<WindowDimension> dimensions;
  bool operator==(const Window& o) const { return dimensions == o.dimensions; }
};

// dim_labels=b01f_01io->b01f. Spatial vectors are indexed by spatial
// dimension number (the digit); values are operand/result dimension indices.
struct ConvolutionDimensionNumbers {
  int64_t input_batch_dimension = 0;
  int64_t input_feature_dimension = 0;
  std::vector<int64_t> input_spatial_dimensions;
  int64_t kernel_input_feature_dimension = 0;
  int64_t kernel_output_feature_dimension = 0;
  std::vector<int64_t> kernel_spatial_dimensions;
  int64_t output_batch_dimension = 0;
  int64_t output_feature_dimension = 0;
  std::vector<int64_t> output_spatial_dimensions;
  // Ranks of the three label groups (a group may contain '?' positions).
  int64_t input_rank = 0, kernel_rank = 0, output_rank = 0;
  bool operator==(const ConvolutionDimensionNumbers& o) const;
};

// padding=low_high[_interior] per dimension.
struct PaddingDimension {
  int64_t low = 0;
  int64_t high = 0;
  int64_t interior = 0;
  bool operator==(const PaddingDimension& o) const {
    return low == o.low && high == o.high && interior == o.interior;
  }
};
using PaddingConfig = std::vector<PaddingDimension>;

// slice={[start:limit:stride], ...}
struct SliceRange {
  int64_t start = 0;
  int64_t limit = 0;
  int64_t stride = 1;
  bool operator==(const SliceRange& o) const {
    return start == o.start && limit == o.limit && stride == o.stride;
  }
};
using SliceRanges = std::vector<SliceRange>;

// Iota device list: reshape iota(prod(reshape_dims)) to reshape_dims,
// transpose by transpose_perm, flatten into `dims` (e.g. [G,S]).
struct IotaDeviceList {
  std::vector<int64_t> dims;
  std::vector<int64_t> reshape_dims;
  std::vector<int64_t> transpose_perm;  // empty = identity
  bool operator==(const IotaDeviceList& o) const {
    return dims == o.dims && reshape_dims == o.reshape_dims && transpose_perm == o.transpose_perm;
  }
  // Empty when well formed, else what is wrong: dims not negative, reshape
  // dims positive (at most 2^24 devices), as many devices in `dims` as in
  // `reshape_dims`, transpose_perm a permutation of the reshape dims.
  std::string Problem() const;
  // Expands into explicit device ids in row-major order of `dims`.
  std::vector<int64_t> Expand() const;
};

// replica_groups={{0,1},{2,3}}, replica_groups=[2,10]<=[20] or
// replica_groups=mesh[x=2,y=10] {y}
struct CollectiveDeviceList {
  bool is_iota = false;
  bool is_mesh = false;
  std::vector<std::vector<int64_t>> groups;  // explicit form
  IotaDeviceList iota;                       // iota form ([G,S]<=[...])
  MeshAxesDeviceList mesh;                   // mesh-axes form
  bool operator==(const CollectiveDeviceList& o) const {
    return is_iota == o.is_iota && is_mesh == o.is_mesh && groups == o.groups && iota == o.iota &&
           mesh == o.mesh;
  }
  // The groups, expanding the iota and mesh-axes forms.
  std::vector<std::vector<int64_t>> ExpandedGroups() const;
};

// metadata={op_type="..." op_name="..." source_file="..." source_line=N ...}
struct OpMetadata {
  std::string op_type, op_name, source_file, deduplicated_name, scheduling_name;
  int64_t source_line = 0, source_end_line = 0, source_column = 0, source_end_column = 0;
  int64_t stack_frame_id = 0;
  std::vector<int64_t> profile_type;
  bool operator==(const OpMetadata& o) const;
};

// sharding={...}, recursive for tuple shardings.
struct Sharding {
  enum class Kind { kReplicated, kMaximal, kManual, kUnknown, kUnreduced, kTiled, kTuple, kNamed };
  Kind kind = Kind::kReplicated;
  int64_t device = -1;                          // maximal
  std::vector<int64_t> tile_assignment_dims;    // devices=[...]
  bool iota_devices = false;                    // devices given as <=[...]T(...)
  std::vector<int64_t> device_ids;              // explicit list
  IotaDeviceList iota;                          // iota list (dims = tile_assignment_dims)
  bool last_tile_dim_replicate = false;
  std::vector<std::string> last_tile_dims;      // last_tile_dims={manual, replicated}
  std::string shard_group_kind;                 // "" / "shard_as" / "shard_like"
  int64_t shard_group_id = -1;
  std::vector<OpMetadata> metadata;             // metadata={...} attached to the sharding
  std::vector<Sharding> tuple_elements;         // kTuple
  std::string named_text;                       // kNamed: Shardy "mesh[...]" text kept verbatim
  bool operator==(const Sharding& o) const;
};

// A string-valued attribute that may instead be a raw balanced {...} dict
// (backend_config, frontend attribute values). `text` holds the decoded
// string, or the dict verbatim including its braces.
struct StringOrDict {
  std::string text;
  bool is_dict = false;
  bool operator==(const StringOrDict& o) const { return text == o.text && is_dict == o.is_dict; }
};

// frontend_attributes={k="v",k2={...}}: sorted by key when printed.
using FrontendAttributes = std::map<std::string, StringOrDict>;

// statistics={visualizing_index=1,stat-1=33,...}
struct Statistics {
  int64_t visualizing_index = 0;
  std::vector<std::pair<std::string, double>> stats;
  bool operator==(const Statistics& o) const {
    return visualizing_index == o.visualizing_index && stats == o.stats;
  }
};

// output_to_operand_aliasing={{out_idx}: (operand, {operand_idx}), ...}
struct OutputOperandAlias {
  std::vector<int64_t> output_index;
  int64_t operand = 0;
  std::vector<int64_t> operand_index;
  bool operator==(const OutputOperandAlias& o) const {
    return output_index == o.output_index && operand == o.operand && operand_index == o.operand_index;
  }
};

// domain={kind="sharding", entry={...}, exit={...}}
struct DomainSpec {
  std::string kind;
  Sharding entry;
  Sharding exit;
  bool operator==(const DomainSpec& o) const {
    return kind == o.kind && entry == o.entry && exit == o.exit;
  }
};

// result_accuracy={mode=highest} or {tolerance={atol=..,rtol=..,ulps=..}}
struct ResultAccuracy {
  std::string mode;  // non-empty for the mode form
  double atol = 0, rtol = 0;
  int64_t ulps = 0;
  bool operator==(const ResultAccuracy& o) const {
    return mode == o.mode && atol == o.atol && rtol == o.rtol && ulps == o.ulps;
  }
};

// Balanced text kept verbatim (origin=, sparsity=, mode=): parsed for
// well-formedness, carried and printed back unchanged.
struct RawText {
  std::string text;
  bool operator==(const RawText& o) const { return text == o.text; }
};

// The literal of custom-call's `literal=` attribute (shared so that
// attribute lists stay copyable).
using LiteralPtr = std::shared_ptr<const Literal>;

// A large attribute payload held on the heap with value semantics. The
// variant below is as large as its largest alternative and every
// instruction carries a list of them, so the rare big structs (sharding,
// metadata, domain, dimension labels, shapes) are boxed: AttrValue stays at
// 64 bytes instead of over 600. A moved-from Boxed is empty and may only be
// assigned to or destroyed.
template <typename T>
class Boxed {
 public:
  Boxed() : p_(std::make_unique<T>()) {}
  Boxed(T value) : p_(std::make_unique<T>(std::move(value))) {}  // NOLINT: implicit on purpose
  Boxed(const Boxed& o) : p_(std::make_unique<T>(*o.p_)) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& o) {
    if (this != &o) p_ = std::make_unique<T>(*o.p_);
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  const T& get() const { return *p_; }
  T& get() { return *p_; }
  const T& operator*() const { return *p_; }
  const T* operator->() const { return p_.get(); }
  bool operator==(const Boxed& o) const { return *p_ == *o.p_; }
  bool operator!=(const Boxed& o) const { return !(*this == o); }

 private:
  std::unique_ptr<T> p_;
};

using AttrValue = std::variant<
    bool,                               // kBool
    int64_t,                            // kInt
    double,                             // kFloat
    std::string,                        // kString, kEnum
    std::vector<int64_t>,               // kIntList
    std::vector<std::vector<int64_t>>,  // kIntListList
    std::vector<bool>,                  // kBoolList
    std::vector<std::string>,           // kEnumList
    Window,                             // kWindow
    Boxed<ConvolutionDimensionNumbers>, // kConvDimLabels
    PaddingConfig,                      // kPaddingConfig
    SliceRanges,                        // kSliceRanges
    Boxed<Shape>,                       // kShape
    std::vector<Shape>,                 // kShapeList
    Computation*,                       // kComputation
    std::vector<Computation*>,          // kComputationList
    StringOrDict,                       // kStringOrDict
    LiteralPtr,                         // kLiteral
    Boxed<CollectiveDeviceList>,        // kReplicaGroups
    Boxed<Sharding>,                    // kSharding
    Boxed<OpMetadata>,                  // kMetadata
    FrontendAttributes,                 // kFrontendAttributes
    Statistics,                         // kStatistics
    std::vector<OutputOperandAlias>,    // kOutputOperandAliasing
    Boxed<DomainSpec>,                  // kDomain
    ResultAccuracy,                     // kResultAccuracy
    RawText                             // kRaw
    >;

// The stored alternative for an attribute of C++ type T (Boxed<T> for the
// boxed ones), and typed access that hides the boxing.
template <typename T>
struct AttrStorage {
  using type = T;
  static const T* Unwrap(const type* v) { return v; }
};
template <typename T>
struct AttrStorageBoxed {
  using type = Boxed<T>;
  static const T* Unwrap(const type* v) { return v ? &v->get() : nullptr; }
};
template <> struct AttrStorage<ConvolutionDimensionNumbers> : AttrStorageBoxed<ConvolutionDimensionNumbers> {};
template <> struct AttrStorage<Shape> : AttrStorageBoxed<Shape> {};
template <> struct AttrStorage<CollectiveDeviceList> : AttrStorageBoxed<CollectiveDeviceList> {};
template <> struct AttrStorage<Sharding> : AttrStorageBoxed<Sharding> {};
template <> struct AttrStorage<OpMetadata> : AttrStorageBoxed<OpMetadata> {};
template <> struct AttrStorage<DomainSpec> : AttrStorageBoxed<DomainSpec> {};

// nullptr unless `v` holds a T.
template <typename T>
const T* AttrGet(const AttrValue& v) {
  return AttrStorage<T>::Unwrap(std::get_if<typename AttrStorage<T>::type>(&v));
}
template <typename T>
bool AttrHolds(const AttrValue& v) {
  return std::holds_alternative<typename AttrStorage<T>::type>(v);
}

}  // namespace hlo
