// Internal interface of the shape rules (ir/shape_inference*.cc): the
// context of one instruction, the checks every family shares, and the
// entry point of each op family, so that the rules live in one file per
// family (as backend_cpu's ops_* files do) and InferShape dispatches to
// them. Not for use outside ir/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/computation.h"
#include "ir/instruction.h"
#include "ir/module.h"
#include "ir/shape_inference.h"

namespace hlo::shape_internal {

template <typename... A>
absl::Status Invalid(const A&... a) {
  return absl::InvalidArgumentError(absl::StrCat(a...));
}

#define HLO_RETURN_IF_ERROR(expr) \
  do {                            \
    absl::Status _st = (expr);    \
    if (!_st.ok()) return _st;    \
  } while (0)

#define HLO_CONCAT_INNER(a, b) a##b
#define HLO_CONCAT(a, b) HLO_CONCAT_INNER(a, b)
#define HLO_ASSIGN_OR_RETURN(lhs, expr) HLO_ASSIGN_OR_RETURN_IMPL(HLO_CONCAT(_so_, __LINE__), lhs, expr)
#define HLO_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()

inline std::string S(const Shape& s) { return ShapeToMessageString(s); }

inline std::string L(const std::vector<int64_t>& v) { return absl::StrCat("{", absl::StrJoin(v, ","), "}"); }

inline absl::string_view TN(PrimitiveType t) { return PrimitiveTypeName(t); }

inline bool IsUnbounded(const Shape& s, int64_t i) { return s.dim(i) == Shape::kUnboundedSize; }

// Overflow-safe arithmetic for sizes: saturates far outside any real size.
inline constexpr int64_t kHuge = int64_t{1} << 62;

struct Ctx {
  const Instruction& inst;
  int64_t n() const { return inst.operand_count(); }
  const Shape& op(int64_t i) const { return inst.operand(i)->shape(); }
  absl::string_view name() const { return OpcodeName(inst.opcode()); }
};

int64_t SatMul(int64_t a, int64_t b);

int64_t SatAdd(int64_t a, int64_t b);

// An array shape with a default layout.
Shape MakeArray(PrimitiveType t, absl::Span<const int64_t> dims, absl::Span<const bool> dynamic = {});

// Same dims/dynamic flags, new element type, default layout.
Shape WithType(const Shape& s, PrimitiveType t);

// Recursively replaces every layout by the default one, in place.
void NormalizeLayouts(Shape* s);

bool SameTypeIgnoringFp(PrimitiveType a, PrimitiveType b);

PrimitiveType HigherPrecision(PrimitiveType a, PrimitiveType b);

// Dimensions equal (an unbounded dimension matches anything); dynamic flags ignored.
bool SameDims(const Shape& a, const Shape& b);

absl::Status ExpectCount(const Ctx& c, int64_t n);

absl::Status ExpectCountAtLeast(const Ctx& c, int64_t n);

absl::Status ExpectArray(const Ctx& c, int64_t i);

absl::Status ExpectAllArrays(const Ctx& c);

absl::Status ExpectScalar(const Ctx& c, int64_t i, absl::string_view what);

absl::StatusOr<std::vector<int64_t>> IntList(const Ctx& c, absl::string_view name);

absl::StatusOr<std::vector<int64_t>> IntListOr(const Ctx& c, absl::string_view name,
                                               std::vector<int64_t> def);

absl::StatusOr<int64_t> Int(const Ctx& c, absl::string_view name);

absl::StatusOr<int64_t> IntOr(const Ctx& c, absl::string_view name, int64_t def);

absl::StatusOr<std::string> Enum(const Ctx& c, absl::string_view name);

absl::StatusOr<Window> GetWindow(const Ctx& c);

absl::StatusOr<const Computation*> Comp(const Ctx& c, absl::string_view name);

const Shape& Root(const Computation* comp);

// Parameter i of a computation, or nullptr when missing.
const Instruction* Param(const Computation* comp, int64_t i);

// Checks that dims are in [0, rank) and, if requested, unique.
absl::Status CheckDims(const Ctx& c, const std::vector<int64_t>& dims, int64_t rank, absl::string_view attr,
                       bool unique = true);

absl::Status CheckSorted(const Ctx& c, const std::vector<int64_t>& dims, absl::string_view attr);

// The one shape, or a tuple of several.
Shape TupleOrSingle(std::vector<Shape> shapes);

// XLA's reducer rule: 2N scalar parameters (N accumulators then N inputs),
// result N scalars (a tuple when N > 1); accumulator types match the init
// values, input parameter types match the inputs' element types (floating
// point precision ignored).
absl::Status CheckReducer(const Ctx& c, const Computation* comp, absl::string_view attr,
                          const std::vector<PrimitiveType>& init_types,
                          const std::vector<PrimitiveType>& input_types);

// Parameters of `comp` must match `args` (count and shapes).
absl::Status CheckParamsMatch(const Ctx& c, const Computation* comp, absl::string_view attr,
                              const std::vector<Shape>& args, bool ignore_fp = false);

std::vector<Shape> OperandShapes(const Ctx& c, int64_t from = 0, int64_t to = -1);

// --- The op families: one entry per rule the dispatcher (or another
// family) calls; each file keeps its own helpers private. ---

// shape_inference_elementwise.cc: element-wise ops (unary, binary, select, clamp) and type conversions
absl::StatusOr<Shape> Unary(const Ctx& c);
absl::StatusOr<Shape> Binary(const Ctx& c);
absl::StatusOr<Shape> Select(const Ctx& c);
absl::StatusOr<Shape> Clamp(const Ctx& c);
absl::StatusOr<Shape> Convert(const Ctx& c);
absl::StatusOr<Shape> BitcastConvert(const Ctx& c);
absl::StatusOr<Shape> StochasticConvert(const Ctx& c);

// shape_inference_data_movement.cc: data movement: broadcast, reshape, transpose, reverse, slices, concatenate, pad, iota, gather, scatter
absl::StatusOr<Shape> Broadcast(const Ctx& c);
absl::StatusOr<Shape> Reshape(const Ctx& c);
absl::StatusOr<Shape> DynamicReshape(const Ctx& c);
absl::StatusOr<Shape> Transpose(const Ctx& c);
absl::StatusOr<Shape> Reverse(const Ctx& c);
absl::StatusOr<Shape> Slice(const Ctx& c);
absl::StatusOr<Shape> DynamicSlice(const Ctx& c);
absl::StatusOr<Shape> DynamicUpdateSlice(const Ctx& c);
absl::StatusOr<Shape> Concatenate(const Ctx& c);
absl::StatusOr<Shape> Pad(const Ctx& c);
absl::StatusOr<Shape> Iota(const Ctx& c);
absl::StatusOr<Shape> Gather(const Ctx& c);
absl::StatusOr<Shape> Scatter(const Ctx& c);

// shape_inference_reduction.cc: windows, reductions, select-and-scatter, map, sort, top-k, scan
absl::Status CheckWindow(const Window& w);
absl::StatusOr<int64_t> WindowedSize(int64_t in, const WindowDimension& d, int64_t i);
std::vector<PrimitiveType> Types(const Ctx& c, int64_t from, int64_t to);
absl::StatusOr<Shape> Reduce(const Ctx& c);
absl::StatusOr<Shape> ReduceWindow(const Ctx& c);
absl::StatusOr<Shape> SelectAndScatter(const Ctx& c);
absl::StatusOr<Shape> Map(const Ctx& c);
absl::StatusOr<Shape> Sort(const Ctx& c);
absl::StatusOr<Shape> TopK(const Ctx& c);
absl::StatusOr<Shape> Scan(const Ctx& c);

// shape_inference_dot_conv.cc: dot, scaled/ragged dot, convolution, FFT, linear algebra, batch norm
absl::StatusOr<Shape> Dot(const Ctx& c);
absl::StatusOr<Shape> ScaledDot(const Ctx& c);
absl::StatusOr<Shape> RaggedDot(const Ctx& c);
absl::StatusOr<Shape> Convolution(const Ctx& c);
absl::StatusOr<Shape> Fft(const Ctx& c);
absl::StatusOr<Shape> Cholesky(const Ctx& c);
absl::StatusOr<Shape> TriangularSolve(const Ctx& c);
absl::StatusOr<Shape> BatchNorm(const Ctx& c);

// shape_inference_control.cc: tuples, calls, fusion, while, conditional, async and copy-start ops
absl::StatusOr<Shape> GetTupleElement(const Ctx& c);
absl::StatusOr<Shape> Call(const Ctx& c);
absl::StatusOr<Shape> Fusion(const Ctx& c);
absl::StatusOr<Shape> While(const Ctx& c);
absl::StatusOr<Shape> Conditional(const Ctx& c);
absl::StatusOr<Shape> AsyncStart(const Ctx& c);
absl::StatusOr<Shape> AsyncUpdateDone(const Ctx& c);

// shape_inference_collective.cc: collectives (replica groups, all-reduce/gather/to-all, permutes), send/recv, infeed/outfeed, tokens
absl::StatusOr<Shape> AllGather(const Ctx& c);
absl::StatusOr<Shape> ReduceScatter(const Ctx& c);
absl::StatusOr<Shape> AllReduce(const Ctx& c);
absl::StatusOr<Shape> AllToAll(const Ctx& c);
absl::StatusOr<Shape> CollectivePermute(const Ctx& c);
absl::StatusOr<Shape> RaggedAllToAll(const Ctx& c);
absl::StatusOr<Shape> DoneOf(const Ctx& c, int64_t index);
absl::Status ExpectToken(const Ctx& c, int64_t i);
Shape U32();
absl::StatusOr<Shape> Send(const Ctx& c);
absl::StatusOr<Shape> Recv(const Ctx& c);
absl::StatusOr<Shape> RecvDone(const Ctx& c);
absl::StatusOr<Shape> SendDone(const Ctx& c);
absl::StatusOr<Shape> Infeed(const Ctx& c);
absl::StatusOr<Shape> Outfeed(const Ctx& c);
absl::StatusOr<Shape> AfterAll(const Ctx&);

// shape_inference_misc.cc: dynamic dimension sizes, reduce-precision, rng, identity-like ops
absl::StatusOr<Shape> GetDimensionSize(const Ctx& c);
absl::StatusOr<Shape> SetDimensionSize(const Ctx& c);
absl::StatusOr<Shape> ReducePrecision(const Ctx& c);
absl::StatusOr<Shape> Rng(const Ctx& c);
absl::StatusOr<Shape> RngBitGenerator(const Ctx& c);
absl::StatusOr<Shape> CopyStart(const Ctx& c);
absl::StatusOr<Shape> Identity(const Ctx& c);
absl::StatusOr<Shape> Written(const Ctx& c);
absl::StatusOr<Shape> TupleOrOperands(const Ctx& c);

}  // namespace hlo::shape_internal
