// Collectives and channels: all-reduce, all-gather, all-to-all,
// reduce-scatter, collective-permute, collective-broadcast, the
// all-reduce/all-gather/collective-permute -start/-done pairs, send/recv
// (-done), infeed and outfeed.
//
// Every device runs on its own thread; a collective computes its
// participant group (collective_groups.h), hands its
// contribution to the CollectiveHub and gets back every member's
// contribution in group order. Each member then computes its own result
// from them, always combining in group order, so all members get
// bit-identical values. Rules and choices: docs/collectives.md.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backend_cpu/collective_groups.h"
#include "backend_cpu/collectives.h"
#include "backend_cpu/donation.h"
#include "backend_cpu/elementwise_kernels.h"
#include "backend_cpu/op_eval.h"
#include "backend_cpu/thread_pool.h"
#include "ir/printer.h"

namespace hlo::cpu {
namespace {

using Contributions = CollectiveHub::Contributions;

// ---------------------------------------------------------------------------
// Literal helpers
// ---------------------------------------------------------------------------

// `lit` in the layout(s) of `shape` (recursing into tuples; tokens fresh).
Literal Conform(Literal lit, const Shape& shape) {
  if (shape.IsToken()) return Literal(shape);
  if (shape.IsTuple()) {
    if (!lit.IsTuple() || lit.tuple_elements().size() != shape.tuple_shapes().size()) return lit;
    std::vector<Literal> elements = std::move(lit.mutable_tuple_elements());
    for (size_t i = 0; i < elements.size(); ++i)
      elements[i] = Conform(std::move(elements[i]), shape.tuple_shape(i));
    return Literal::MakeTuple(std::move(elements));
  }
  if (!shape.IsArray() || !lit.shape().IsArray()) return lit;
  return ToLayout(std::move(lit), shape.layout());
}

// A row-major copy of an array literal.
Literal RowMajorCopy(const Literal& lit) {
  Literal tmp;
  const Literal& rm = RowMajor(lit, &tmp);
  if (&rm == &lit) return lit;
  return tmp;
}

// Operands packed as one contribution: the literal itself for one operand,
// else a tuple of them.
Literal Pack(std::vector<Literal> values, bool force_tuple = false) {
  if (values.size() == 1 && !force_tuple) return std::move(values[0]);
  return Literal::MakeTuple(std::move(values));
}
const Literal& Unpack(const Literal& packed, size_t i, size_t n, bool force_tuple = false) {
  if (n == 1 && !force_tuple) return packed;
  return packed.tuple_elements()[i];
}

// The shape of result `i` of an op with `n` results: the instruction's shape
// itself when it is a single array.
const Shape& ResultShape(const Shape& shape, size_t i, size_t n) {
  if (n == 1 && !shape.IsTuple()) return shape;
  return shape.tuple_shape(static_cast<int64_t>(i));
}

int64_t Product(absl::Span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// ---------------------------------------------------------------------------
// Reductions (all-reduce, reduce-scatter)
// ---------------------------------------------------------------------------

// The to_apply computation: a fast elementwise kernel when its root is a
// binary op of its two scalar parameters, else evaluated per element.
struct Reducer {
  const Computation* computation = nullptr;
  Opcode op = Opcode::kAdd;
  bool simple = false;    // root = op(param a, param b)
  bool swapped = false;   // root = op(param 1, param 0)
  PrimitiveType type = PrimitiveType::kInvalid;  // of the scalar parameters
};

absl::StatusOr<Reducer> ReducerOf(const Instruction& instr) {
  Reducer r;
  r.computation = instr.AttrOr<Computation*>("to_apply", nullptr);
  if (r.computation == nullptr) return OpError(instr, "missing to_apply computation");
  const Computation& c = *r.computation;
  if (c.num_parameters() != 2)
    return OpError(instr, absl::StrCat("to_apply %", c.name(), " must take 2 parameters, takes ",
                                       c.num_parameters()));
  if (c.root() == nullptr) return OpError(instr, absl::StrCat("to_apply %", c.name(), " has no root"));
  const std::optional<BinaryOfParameters> m = MatchBinaryOfParameters(&c);
  if (!m || !m->OpIsOneOf({Opcode::kAdd, Opcode::kMultiply, Opcode::kMaximum, Opcode::kMinimum,
                           Opcode::kAnd, Opcode::kOr, Opcode::kXor}))
    return r;
  r.op = m->op;
  r.simple = true;
  r.swapped = m->swapped;
  r.type = m->type;
  return r;
}

// out[i] = reduce(inputs[0][i], inputs[1][i], ...) in input order, for n
// elements of `type` (physical storage, one element per byte size).
absl::Status ReduceBuffers(const Instruction& instr, const Reducer& reducer, PrimitiveType type,
                           absl::Span<const uint8_t* const> inputs, int64_t n, uint8_t* out,
                           OpContext& ctx) {
  const int eb = PrimitiveTypeByteSize(type);
  const size_t bytes = static_cast<size_t>(n) * eb;
  if (inputs.empty() || n == 0) return absl::OkStatus();
  if (inputs.size() == 1) {
    std::memcpy(out, inputs[0], bytes);
    return absl::OkStatus();
  }
  if (reducer.simple && reducer.type == type) {
    absl::StatusOr<ElementwiseKernel> kernel =
        SelectElementwiseKernel(reducer.op, {type, type}, type, ElementwiseAttrs());
    if (kernel.ok()) {
      // Ping-pong between `out` and a scratch buffer (kernels do not
      // support aliasing); the last step lands in `out`.
      std::vector<uint8_t> scratch(bytes);
      const size_t steps = inputs.size() - 1;
      const void* acc = inputs[0];
      for (size_t k = 1; k <= steps; ++k) {
        // Step k writes `out` when (steps - k) is even.
        void* dst = ((steps - k) % 2 == 0) ? static_cast<void*>(out) : scratch.data();
        const void* pair[2] = {acc, inputs[k]};
        if (reducer.swapped) std::swap(pair[0], pair[1]);
        RunElementwise(*kernel, absl::MakeConstSpan(pair, 2), dst, n, KernelParams());
        acc = dst;
      }
      return absl::OkStatus();
    }
  }
  // Generic: call to_apply per element.
  const Computation& c = *reducer.computation;
  for (int64_t p = 0; p < 2; ++p) {
    const Shape& ps = c.parameter(p)->shape();
    if (!ps.IsScalar() || ps.element_type() != type)
      return OpError(instr, absl::StrCat("to_apply %", c.name(), " parameter ", p, " is ",
                                         ShapeToString(ps, false), ", expected a ",
                                         PrimitiveTypeName(type), " scalar"));
  }
  const Shape scalar = Shape::Scalar(type);
  Literal acc(scalar), next(scalar);
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(acc.data(), inputs[0] + i * eb, eb);
    for (size_t k = 1; k < inputs.size(); ++k) {
      std::memcpy(next.data(), inputs[k] + i * eb, eb);
      const Literal* args[2] = {&acc, &next};
      absl::StatusOr<Literal> r = ctx.call(c, absl::MakeConstSpan(args, 2));
      if (!r.ok()) return r.status();
      if (!r->shape().IsArray() || r->shape().element_type() != type || r->size_bytes() < static_cast<size_t>(eb))
        return OpError(instr, absl::StrCat("to_apply %", c.name(), " returned ",
                                           ShapeToString(r->shape(), false), ", expected a ",
                                           PrimitiveTypeName(type), " scalar"));
      std::memcpy(acc.data(), r->data(), eb);
    }
    std::memcpy(out + i * eb, acc.data(), eb);
  }
  return absl::OkStatus();
}

absl::Status ExpectArrayOperands(const Instruction& instr, absl::Span<const Literal* const> ops) {
  if (ops.empty()) return OpError(instr, "expects at least one operand");
  for (size_t i = 0; i < ops.size(); ++i)
    if (!ops[i]->shape().IsArray())
      return OpError(instr, absl::StrCat("operand ", i, " must be an array, got ",
                                         ShapeToString(ops[i]->shape(), false)));
  return absl::OkStatus();
}

// all-reduce and all-reduce-start (same shape: the operands'). The
// reduction runs once per group (on the last member to arrive), combining
// the contributions in group order; every member copies the result.
absl::StatusOr<Literal> AllReduce(const Instruction& instr, absl::Span<const Literal* const> ops,
                                  OpContext& ctx) {
  if (absl::Status st = ExpectArrayOperands(instr, ops); !st.ok()) return st;
  absl::StatusOr<Reducer> reducer = ReducerOf(instr);
  if (!reducer.ok()) return reducer.status();
  absl::StatusOr<Group> group = GroupOf(instr, ctx);
  if (!group.ok()) return group.status();
  const size_t n = ops.size();
  std::vector<Shape> shapes;
  std::vector<Literal> mine;
  for (const Literal* op : ops) {
    shapes.push_back(op->shape());
    mine.push_back(*op);
  }
  const bool tuple = instr.shape().IsTuple();
  CollectiveHub::Combine combine =
      [&](const std::vector<Literal>& all) -> absl::StatusOr<Literal> {
    std::vector<Literal> results;
    for (size_t i = 0; i < n; ++i) {
      Literal out(shapes[i]);
      std::vector<const uint8_t*> inputs;
      for (const Literal& c : all) inputs.push_back(Unpack(c, i, n).data());
      absl::Status st = ReduceBuffers(instr, *reducer, shapes[i].element_type(), inputs,
                                      out.physical_count(), out.data(), ctx);
      if (!st.ok()) return st;
      results.push_back(std::move(out));
    }
    return Pack(std::move(results), tuple);
  };
  // The same reduction by element ranges, for groups spread over processes.
  CollectiveHub::Sliced sliced;
  sliced.shapes = shapes;
  sliced.tuple = tuple;
  sliced.reduce = [&](size_t i, absl::Span<const uint8_t* const> inputs, int64_t count,
                      uint8_t* out) {
    return ReduceBuffers(instr, *reducer, shapes[i].element_type(), inputs, count, out, ctx);
  };
  bool sole = false;
  absl::StatusOr<std::shared_ptr<const Literal>> combined =
      ExchangeAndCombine(instr, ctx, *group, Pack(std::move(mine)), combine, &sliced, &sole);
  if (!combined.ok()) return combined.status();
  // The group's only member in this process (one device per process)
  // holds the only reference once the rendezvous is gone: it takes the
  // value instead of copying it (the hub made it a non-const Literal).
  // With other local members a count of 1 would not order their reads
  // before this write, so they always copy.
  if (sole && combined->use_count() == 1)
    return Conform(std::move(const_cast<Literal&>(**combined)), instr.shape());
  return Conform(**combined, instr.shape());
}

// Row-major geometry of splitting/concatenating an array along `dim`:
// `outer` blocks of `dim_size` rows of `inner_bytes` each.
struct Split {
  int64_t outer = 1;
  int64_t dim_size = 0;
  int64_t inner_bytes = 0;
};
Split SplitOf(const Shape& shape, int64_t dim) {
  Split s;
  const auto& dims = shape.dims();
  s.outer = Product(absl::MakeConstSpan(dims.data(), dim));
  s.dim_size = dims[dim];
  s.inner_bytes = Product(absl::MakeConstSpan(dims.data() + dim + 1, dims.size() - dim - 1)) *
                  PrimitiveTypeByteSize(shape.element_type());
  return s;
}

// The same geometry in the physical (major-to-minor) order of an untiled
// layout: the literal's bytes split along `dim` as they are stored.
Split PhysicalSplitOf(const Shape& shape, int64_t dim) {
  const auto& m2m = shape.layout().minor_to_major;
  const int64_t rank = shape.rank();
  Split s;
  s.dim_size = shape.dim(dim);
  s.inner_bytes = PrimitiveTypeByteSize(shape.element_type());
  bool inner = true;  // walking from the most minor dimension up to `dim`
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t d = m2m[i];
    if (d == dim) {
      inner = false;
    } else if (inner) {
      s.inner_bytes *= shape.dim(d);
    } else {
      s.outer *= shape.dim(d);
    }
  }
  return s;
}

// Both arrays have one untiled layout that names every dimension, so their
// bytes can be split and joined without relayout.
bool SameUntiledLayout(const Shape& a, const Shape& b) {
  return a.IsArray() && b.IsArray() && a.rank() == b.rank() && a.layout().tiles.empty() &&
         static_cast<int64_t>(a.layout().minor_to_major.size()) == a.rank() &&
         a.layout().minor_to_major == b.layout().minor_to_major &&
         b.layout().tiles.empty();
}

// A copy of an array literal (same layout) without zero fill or
// per-element work.
Literal CopyOnPool(const Literal& lit) {
  Literal out = Literal::Uninitialized(lit.shape());
  CopyBytesOnPool(out.data(), lit.data(), std::min(out.size_bytes(), lit.size_bytes()));
  return out;
}

// all-to-all's result from the members' contributions (geometry `s` of
// their storage): for every outer block, chunk k of the split dimension is
// chunk `me` of member k. Each chunk is copied once, by blocks of at most
// 256 KiB over the pool; `out` (unspecified contents) is in that storage
// order and converted to `layout` at the end (a move when it already is).
Literal ConcatChunks(const std::vector<Literal>& contributions, const Split& s, int64_t parts,
                     int64_t me, Literal out, const Layout& layout) {
  const int64_t chunk = s.dim_size / parts * s.inner_bytes;  // bytes of one chunk per outer
  const int64_t row = s.dim_size * s.inner_bytes;
  constexpr int64_t kPiece = 256 << 10;
  const int64_t pieces = std::max<int64_t>(1, (chunk + kPiece - 1) / kPiece);
  uint8_t* dst = out.data();
  ParallelFor(s.outer * parts * pieces,
              std::max<int64_t>(1, kPiece / std::max<int64_t>(1, chunk)),
              [&](int64_t begin, int64_t end) {
                for (int64_t u = begin; u < end; ++u) {
                  const int64_t piece = u % pieces;
                  const int64_t k = u / pieces % parts;
                  const int64_t o = u / pieces / parts;
                  const int64_t at = piece * kPiece;
                  const int64_t n = std::min(kPiece, chunk - at);
                  if (n <= 0) continue;
                  std::memcpy(dst + o * row + k * chunk + at,
                              contributions[k].data() + o * row + me * chunk + at, n);
                }
              });
  return ToLayout(std::move(out), layout);
}

absl::StatusOr<int64_t> OneDimension(const Instruction& instr, const Shape& operand) {
  const auto* dims = instr.GetAttr<std::vector<int64_t>>("dimensions");
  if (dims == nullptr || dims->size() != 1)
    return OpError(instr, "expects exactly one dimension in dimensions={...}");
  const int64_t d = (*dims)[0];
  if (d < 0 || d >= operand.rank())
    return OpError(instr, absl::StrCat("dimension ", d, " is out of range for ",
                                       ShapeToString(operand, false)));
  return d;
}

// reduce-scatter: all-reduce, then this participant keeps chunk `position`
// of the result along the scatter dimension.
absl::StatusOr<Literal> ReduceScatter(const Instruction& instr,
                                      absl::Span<const Literal* const> ops, OpContext& ctx) {
  if (absl::Status st = ExpectArrayOperands(instr, ops); !st.ok()) return st;
  absl::StatusOr<Reducer> reducer = ReducerOf(instr);
  if (!reducer.ok()) return reducer.status();
  absl::StatusOr<int64_t> dim = OneDimension(instr, ops[0]->shape());
  if (!dim.ok()) return dim.status();
  absl::StatusOr<Group> group = GroupOf(instr, ctx);
  if (!group.ok()) return group.status();
  const size_t n = ops.size();
  const int64_t parts = group->size();
  for (size_t i = 0; i < n; ++i) {
    const Shape& in = ops[i]->shape();
    const Shape& out = ResultShape(instr.shape(), i, n);
    if (*dim >= in.rank() || in.dim(*dim) % parts != 0 || !out.IsArray() ||
        out.rank() != in.rank() || out.dim(*dim) * parts != in.dim(*dim))
      return OpError(instr, absl::StrCat("operand ", i, " ", ShapeToString(in, false),
                                         " cannot be scattered into ", parts,
                                         " chunks of result ", ShapeToString(out, false),
                                         " along dimension ", *dim));
  }
  std::vector<Literal> mine;
  for (const Literal* op : ops) mine.push_back(RowMajorCopy(*op));
  absl::StatusOr<Contributions> all = Exchange(instr, ctx, *group, Pack(std::move(mine)));
  if (!all.ok()) return all.status();
  std::vector<Literal> results;
  for (size_t i = 0; i < n; ++i) {
    const Shape& in = ops[i]->shape();
    const Split s = SplitOf(in, *dim);
    const int64_t chunk_rows = s.dim_size / parts;
    const int64_t chunk_bytes = chunk_rows * s.inner_bytes;
    Literal out = RowMajorLiteral(ResultShape(instr.shape(), i, n));
    std::vector<std::vector<uint8_t>> chunks;
    std::vector<const uint8_t*> inputs;
    for (const Literal& c : **all) {
      const uint8_t* src = Unpack(c, i, n).data() + group->position * chunk_bytes;
      if (s.outer == 1) {
        inputs.push_back(src);
        continue;
      }
      chunks.emplace_back(static_cast<size_t>(s.outer * chunk_bytes));
      uint8_t* dst = chunks.back().data();
      const int64_t row_bytes = s.dim_size * s.inner_bytes;
      for (int64_t o = 0; o < s.outer; ++o)
        std::memcpy(dst + o * chunk_bytes, src + o * row_bytes, chunk_bytes);
      inputs.push_back(dst);
    }
    absl::Status st = ReduceBuffers(instr, *reducer, in.element_type(), inputs,
                                    out.physical_count(), out.data(), ctx);
    if (!st.ok()) return st;
    results.push_back(std::move(out));
  }
  return Conform(Pack(std::move(results), instr.shape().IsTuple()), instr.shape());
}

// ---------------------------------------------------------------------------
// all-gather, all-to-all
// ---------------------------------------------------------------------------

// all-gather: result i = operand i of every participant concatenated along
// the gather dimension in group order. Returns the results (row-major).
absl::StatusOr<std::vector<Literal>> GatherResults(const Instruction& instr,
                                                   absl::Span<const Literal* const> ops,
                                                   absl::Span<const Shape> result_shapes,
                                                   OpContext& ctx) {
  if (absl::Status st = ExpectArrayOperands(instr, ops); !st.ok()) return st;
  absl::StatusOr<int64_t> dim = OneDimension(instr, ops[0]->shape());
  if (!dim.ok()) return dim.status();
  absl::StatusOr<Group> group = GroupOf(instr, ctx);
  if (!group.ok()) return group.status();
  const size_t n = ops.size();
  const int64_t parts = group->size();
  if (result_shapes.size() != n) return OpError(instr, "result count differs from operand count");
  for (size_t i = 0; i < n; ++i) {
    const Shape& in = ops[i]->shape();
    const Shape& out = result_shapes[i];
    if (*dim >= in.rank() || !out.IsArray() || out.rank() != in.rank() ||
        out.dim(*dim) != in.dim(*dim) * parts)
      return OpError(instr, absl::StrCat("gathering operand ", i, " ", ShapeToString(in, false),
                                         " from ", parts, " participants along dimension ", *dim,
                                         " does not give the result ",
                                         ShapeToString(out, false)));
  }
  std::vector<Literal> mine;
  for (const Literal* op : ops) mine.push_back(RowMajorCopy(*op));
  absl::StatusOr<Contributions> all = Exchange(instr, ctx, *group, Pack(std::move(mine)));
  if (!all.ok()) return all.status();
  std::vector<Literal> results;
  for (size_t i = 0; i < n; ++i) {
    const Split s = SplitOf(ops[i]->shape(), *dim);
    const int64_t piece = s.dim_size * s.inner_bytes;
    Literal out = RowMajorLiteral(result_shapes[i]);
    uint8_t* dst = out.data();
    const std::vector<Literal>& contributions = **all;
    ParallelFor(s.outer, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, piece * parts)),
                [&](int64_t begin, int64_t end) {
                  for (int64_t o = begin; o < end; ++o)
                    for (int64_t k = 0; k < parts; ++k)
                      std::memcpy(dst + (o * parts + k) * piece,
                                  Unpack(contributions[k], i, n).data() + o * piece, piece);
                });
    results.push_back(std::move(out));
  }
  return results;
}

absl::StatusOr<Literal> AllGather(const Instruction& instr, absl::Span<const Literal* const> ops,
                                  OpContext& ctx) {
  const size_t n = ops.size();
  std::vector<Shape> shapes;
  if (instr.opcode() == Opcode::kAllGatherStart) {
    // (operand, result) or ((operands), (results))
    const Shape& w = instr.shape();
    if (!w.IsTuple() || w.tuple_size() != 2)
      return OpError(instr, "all-gather-start must have a (operands, results) tuple shape");
    for (size_t i = 0; i < n; ++i) shapes.push_back(ResultShape(w.tuple_shape(1), i, n));
  } else {
    for (size_t i = 0; i < n; ++i) {
      if (n > 1 && (!instr.shape().IsTuple() || instr.shape().tuple_size() != static_cast<int64_t>(n)))
        return OpError(instr, "expects one result per operand");
      shapes.push_back(ResultShape(instr.shape(), i, n));
    }
  }
  absl::StatusOr<std::vector<Literal>> results = GatherResults(instr, ops, shapes, ctx);
  if (!results.ok()) return results.status();
  if (instr.opcode() != Opcode::kAllGatherStart)
    return Conform(Pack(*std::move(results), instr.shape().IsTuple()), instr.shape());
  std::vector<Literal> inputs;
  for (const Literal* op : ops) inputs.push_back(*op);
  std::vector<Literal> pair;
  pair.push_back(Pack(std::move(inputs)));
  pair.push_back(Pack(*std::move(results)));
  return Conform(Literal::MakeTuple(std::move(pair)), instr.shape());
}

absl::StatusOr<Literal> AllToAll(const Instruction& instr, absl::Span<const Literal* const> ops,
                                 OpContext& ctx) {
  if (absl::Status st = ExpectArrayOperands(instr, ops); !st.ok()) return st;
  absl::StatusOr<Group> group = GroupOf(instr, ctx);
  if (!group.ok()) return group.status();
  const int64_t parts = group->size();
  const auto* dims = instr.GetAttr<std::vector<int64_t>>("dimensions");
  if (dims == nullptr || dims->empty()) {
    // Tuple form: operand j goes to participant j; result k comes from
    // participant k.
    const int64_t n = static_cast<int64_t>(ops.size());
    if (n != parts)
      return OpError(instr, absl::StrCat("without a split dimension expects one operand per "
                                         "participant: ", n, " operands, ", parts,
                                         " participants"));
    if (!instr.shape().IsTuple() || instr.shape().tuple_size() != n)
      return OpError(instr, "expects a tuple result with one element per operand");
    std::vector<Literal> mine;
    for (const Literal* op : ops) mine.push_back(*op);
    absl::StatusOr<Contributions> all =
        Exchange(instr, ctx, *group, Pack(std::move(mine), /*force_tuple=*/true));
    if (!all.ok()) return all.status();
    std::vector<Literal> results;
    for (int64_t k = 0; k < parts; ++k)
      results.push_back((**all)[k].tuple_elements()[group->position]);
    return Conform(Literal::MakeTuple(std::move(results)), instr.shape());
  }
  if (ops.size() != 1) return OpError(instr, "with a split dimension expects one operand");
  absl::StatusOr<int64_t> dim = OneDimension(instr, ops[0]->shape());
  if (!dim.ok()) return dim.status();
  const Shape in = ops[0]->shape();  // a copy: the operand may be taken below
  if (in.dim(*dim) % parts != 0)
    return OpError(instr, absl::StrCat("split dimension ", *dim, " of ", ShapeToString(in, false),
                                       " is not divisible by the ", parts, " participants"));
  if (!instr.shape().IsArray() || instr.shape().dims() != in.dims())
    return OpError(instr, "the result must have the operand's dimensions");
  // In the operand's own physical order when the result has the same
  // untiled layout (XLA's SPMD all-to-alls split a major dimension of a
  // transposed layout): every chunk is then copied once, no relayout on
  // either side. Otherwise through row-major copies.
  const bool physical = SameUntiledLayout(in, instr.shape());
  Literal mine;
  if (!physical) {
    mine = RowMajorCopy(*ops[0]);
  } else if (DonatedOperand(0) != nullptr) {
    mine = TakeDonated(0);  // the operand dies here: contribute it as it is
  } else {
    mine = CopyOnPool(*ops[0]);
  }
  absl::StatusOr<Contributions> all = Exchange(instr, ctx, *group, std::move(mine));
  if (!all.ok()) return all.status();
  const std::vector<Literal>& contributions = **all;
  // Contributions from another process arrive in their sender's layout.
  bool all_physical = physical;
  for (const Literal& c : contributions)
    all_physical = all_physical && c.shape().IsArray() && c.shape().layout() == in.layout() &&
                   c.size_bytes() == contributions[group->position].size_bytes();
  if (physical && !all_physical) {
    std::vector<Literal> row_major;
    for (const Literal& c : contributions) row_major.push_back(RowMajorCopy(c));
    return ConcatChunks(row_major, SplitOf(in, *dim), parts, group->position,
                        RowMajorUninitialized(instr.shape()), instr.shape().layout());
  }
  const Split s = physical ? PhysicalSplitOf(in, *dim) : SplitOf(in, *dim);
  Literal out = physical ? Literal::Uninitialized(instr.shape()) : RowMajorUninitialized(instr.shape());
  return ConcatChunks(contributions, s, parts, group->position, std::move(out),
                      instr.shape().layout());
}

// ---------------------------------------------------------------------------
// collective-permute, collective-broadcast
// ---------------------------------------------------------------------------

// The permuted value (operands packed; zeros when nobody sends here).
absl::StatusOr<Literal> PermuteValue(const Instruction& instr,
                                     absl::Span<const Literal* const> ops, OpContext& ctx,
                                     const Shape& result_shape) {
  if (ops.size() == 4 && (instr.HasAttr("slice_sizes") || ops[2]->IsTuple() || ops[3]->IsTuple()))
    return OpUnimplemented(instr, "the in-place form (input, output, offsets, slice_sizes): no "
                                  "open XLA runtime defines its semantics (docs/collectives.md)");
  const auto* pairs = instr.GetAttr<std::vector<std::vector<int64_t>>>("source_target_pairs");
  if (pairs == nullptr) return OpError(instr, "missing source_target_pairs");
  // With a channel_id the ids are partition ids (cross-partition), else
  // replica ids (cross-replica).
  const bool cross_partition = instr.HasAttr("channel_id");
  const Group line = LineOf(ctx, cross_partition);
  bool is_source = false;
  int64_t source = -1;
  for (const auto& p : *pairs) {
    if (p.size() != 2) return OpError(instr, "source_target_pairs entries must be pairs");
    for (int64_t id : p)
      if (id < 0 || id >= line.size())
        return OpError(instr, absl::StrCat("source_target_pairs id ", id, " is out of range for ",
                                           line.size(), cross_partition ? " partitions" : " replicas"));
    if (p[0] == line.position) is_source = true;
    if (p[1] == line.position && source < 0) source = p[0];
  }
  std::vector<Literal> mine;
  if (is_source)
    for (const Literal* op : ops) mine.push_back(*op);
  Literal contribution = is_source ? Pack(std::move(mine)) : Literal();
  absl::StatusOr<Contributions> all = Exchange(instr, ctx, line, std::move(contribution));
  if (!all.ok()) return all.status();
  if (source < 0) return Literal(result_shape);
  return Conform((**all)[source], result_shape);
}

absl::StatusOr<Literal> CollectivePermute(const Instruction& instr,
                                          absl::Span<const Literal* const> ops, OpContext& ctx) {
  if (instr.opcode() == Opcode::kCollectivePermute)
    return PermuteValue(instr, ops, ctx, instr.shape());
  // -start: (input, output, contexts...)
  const Shape& w = instr.shape();
  if (!w.IsTuple() || w.tuple_size() < 2)
    return OpError(instr, "collective-permute-start must have an (input, output, ...) tuple shape");
  absl::StatusOr<Literal> value = PermuteValue(instr, ops, ctx, w.tuple_shape(1));
  if (!value.ok()) return value.status();
  std::vector<Literal> elements;
  std::vector<Literal> inputs;
  for (const Literal* op : ops) inputs.push_back(*op);
  elements.push_back(Conform(Pack(std::move(inputs)), w.tuple_shape(0)));
  elements.push_back(*std::move(value));
  for (int64_t i = 2; i < w.tuple_size(); ++i) elements.push_back(Literal(w.tuple_shape(i)));
  return Literal::MakeTuple(std::move(elements));
}

// collective-broadcast: every member gets the operands of the first member
// of its group.
absl::StatusOr<Literal> CollectiveBroadcast(const Instruction& instr,
                                            absl::Span<const Literal* const> ops,
                                            OpContext& ctx) {
  if (absl::Status st = ExpectArrayOperands(instr, ops); !st.ok()) return st;
  absl::StatusOr<Group> group = GroupOf(instr, ctx);
  if (!group.ok()) return group.status();
  std::vector<Literal> mine;
  if (group->position == 0)
    for (const Literal* op : ops) mine.push_back(*op);
  Literal contribution =
      group->position == 0 ? Pack(std::move(mine), instr.shape().IsTuple()) : Literal();
  absl::StatusOr<Contributions> all = Exchange(instr, ctx, *group, std::move(contribution));
  if (!all.ok()) return all.status();
  return Conform((**all)[0], instr.shape());
}

// Element `index` of a tuple operand (the -done ops).
absl::StatusOr<Literal> DoneElement(const Instruction& instr, const Literal& start,
                                    int64_t index) {
  if (!start.IsTuple() || static_cast<int64_t>(start.tuple_elements().size()) <= index)
    return OpError(instr, absl::StrCat("operand must be a tuple with more than ", index,
                                       " elements"));
  return Conform(start.tuple_elements()[index], instr.shape());
}

// ---------------------------------------------------------------------------
// send / recv, infeed / outfeed
// ---------------------------------------------------------------------------

absl::Status NeedChannels(const Instruction& instr, const OpContext& ctx) {
  if (ctx.channels == nullptr) return OpError(instr, "no channel hub in this run");
  return absl::OkStatus();
}

// channel_id of a send/recv(-done); -1 when absent (recv-done/send-done
// without one use the channel of their recv/send operand).
int64_t ChannelOf(const Instruction& instr) {
  if (const int64_t* ch = instr.GetAttr<int64_t>("channel_id")) return *ch;
  if ((instr.opcode() == Opcode::kRecvDone || instr.opcode() == Opcode::kSendDone) &&
      instr.operand_count() == 1)
    if (const int64_t* ch = instr.operand(0)->GetAttr<int64_t>("channel_id")) return *ch;
  return -1;
}

// frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,2}}"}:
// the pairs, or nullopt-like empty + false when absent.
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> SendRecvPairs(const Instruction& instr,
                                                                       bool* present) {
  *present = false;
  std::vector<std::pair<int64_t, int64_t>> pairs;
  const auto* fa = instr.GetAttr<FrontendAttributes>("frontend_attributes");
  if (fa == nullptr) return pairs;
  auto it = fa->find("_xla_send_recv_source_target_pairs");
  if (it == fa->end()) return pairs;
  *present = true;
  std::vector<int64_t> ids;
  const std::string& text = it->second.text;
  size_t i = 0;
  while (i < text.size()) {
    if (absl::ascii_isdigit(static_cast<unsigned char>(text[i]))) {
      size_t j = i;
      while (j < text.size() && absl::ascii_isdigit(static_cast<unsigned char>(text[j]))) ++j;
      int64_t v = 0;
      if (!absl::SimpleAtoi(text.substr(i, j - i), &v))
        return OpError(instr, "bad _xla_send_recv_source_target_pairs");
      ids.push_back(v);
      i = j;
    } else if (text[i] == '{' || text[i] == '}' || text[i] == ',' || text[i] == ' ' ||
               text[i] == '"') {
      ++i;
    } else {
      return OpError(instr, absl::StrCat("bad _xla_send_recv_source_target_pairs \"", text, "\""));
    }
  }
  if (ids.size() % 2 != 0)
    return OpError(instr, absl::StrCat("_xla_send_recv_source_target_pairs \"", text,
                                       "\" is not a list of pairs"));
  for (size_t k = 0; k < ids.size(); k += 2) pairs.emplace_back(ids[k], ids[k + 1]);
  return pairs;
}

// The id space of send/recv pairs: partition ids within this replica when
// the run has several partitions, else replica ids within this partition.
Group SendRecvLine(const OpContext& ctx) { return LineOf(ctx, ctx.partition_count > 1); }

absl::StatusOr<Literal> Send(const Instruction& instr, absl::Span<const Literal* const> ops,
                             OpContext& ctx) {
  if (absl::Status st = NeedChannels(instr, ctx); !st.ok()) return st;
  if (ops.size() != 2) return OpError(instr, "expects (data, token) operands");
  const Shape& w = instr.shape();
  if (!w.IsTuple() || w.tuple_size() != 3)
    return OpError(instr, "must have a (data, u32[], token[]) shape");
  bool present = false;
  absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> pairs = SendRecvPairs(instr, &present);
  if (!pairs.ok()) return pairs.status();
  const int64_t channel = ChannelOf(instr);
  if (!present) {
    ctx.channels->Send(channel, DeviceOf(ctx), *ops[0]);
  } else {
    const Group line = SendRecvLine(ctx);
    for (const auto& [src, dst] : *pairs) {
      if (src < 0 || src >= line.size() || dst < 0 || dst >= line.size())
        return OpError(instr, absl::StrCat("_xla_send_recv_source_target_pairs id out of range for ",
                                           line.size(), " participants"));
      if (src == line.position) ctx.channels->Send(channel, line.devices[dst], *ops[0]);
    }
  }
  std::vector<Literal> elements;
  elements.push_back(Conform(*ops[0], w.tuple_shape(0)));
  elements.push_back(Literal(w.tuple_shape(1)));
  elements.push_back(Literal(w.tuple_shape(2)));
  return Literal::MakeTuple(std::move(elements));
}

absl::StatusOr<Literal> Recv(const Instruction& instr, absl::Span<const Literal* const>,
                             OpContext& ctx) {
  if (absl::Status st = NeedChannels(instr, ctx); !st.ok()) return st;
  bool present = false;
  absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> pairs = SendRecvPairs(instr, &present);
  if (!pairs.ok()) return pairs.status();
  int64_t source = DeviceOf(ctx);
  if (present) {
    const Group line = SendRecvLine(ctx);
    source = -1;
    for (const auto& [src, dst] : *pairs) {
      if (src < 0 || src >= line.size() || dst < 0 || dst >= line.size())
        return OpError(instr, absl::StrCat("_xla_send_recv_source_target_pairs id out of range for ",
                                           line.size(), " participants"));
      if (dst == line.position && source < 0) source = line.devices[src];
    }
  }
  ctx.channels->PostRecv(ChannelOf(instr), DeviceOf(ctx), source);
  // The data arrives at recv-done; the recv value only carries the shape.
  return Literal(instr.shape());
}

absl::StatusOr<Literal> RecvDone(const Instruction& instr, absl::Span<const Literal* const>,
                                 OpContext& ctx) {
  if (absl::Status st = NeedChannels(instr, ctx); !st.ok()) return st;
  const Shape& w = instr.shape();
  if (!w.IsTuple() || w.tuple_size() != 2)
    return OpError(instr, "must have a (data, token[]) shape");
  absl::StatusOr<Literal> data =
      ctx.channels->FinishRecv(ChannelOf(instr), DeviceOf(ctx), w.tuple_shape(0), instr.name());
  if (!data.ok()) return data.status();
  if (!data->shape().Compatible(w.tuple_shape(0)))
    return OpError(instr, absl::StrCat("received ", ShapeToString(data->shape(), false),
                                       " but expects ", ShapeToString(w.tuple_shape(0), false)));
  std::vector<Literal> elements;
  elements.push_back(Conform(*std::move(data), w.tuple_shape(0)));
  elements.push_back(Literal(w.tuple_shape(1)));
  return Literal::MakeTuple(std::move(elements));
}

absl::StatusOr<Literal> Infeed(const Instruction& instr, OpContext& ctx) {
  if (absl::Status st = NeedChannels(instr, ctx); !st.ok()) return st;
  const Shape& w = instr.shape();
  if (!w.IsTuple() || w.tuple_size() != 2)
    return OpError(instr, "must have a (data, token[]) shape");
  const Shape& data_shape = w.tuple_shape(0);
  std::vector<Literal> elements;
  if (data_shape.IsTuple() && data_shape.tuple_size() == 0) {
    // An empty tuple reads nothing.
    elements.push_back(Literal(data_shape));
  } else {
    absl::StatusOr<Literal> lit = ctx.channels->NextInfeed(DeviceOf(ctx), data_shape);
    if (!lit.ok()) return OpError(instr, absl::StrCat("expects ", ShapeToString(data_shape, false),
                                                      ": ", lit.status().message()));
    if (!lit->shape().Compatible(data_shape))
      return OpError(instr, absl::StrCat("expects ", ShapeToString(data_shape, false),
                                         " but the next infeed literal is ",
                                         ShapeToString(lit->shape(), false)));
    elements.push_back(Conform(*std::move(lit), data_shape));
  }
  elements.push_back(Literal(w.tuple_shape(1)));
  return Literal::MakeTuple(std::move(elements));
}

absl::StatusOr<Literal> Outfeed(const Instruction& instr, absl::Span<const Literal* const> ops,
                                OpContext& ctx) {
  if (absl::Status st = NeedChannels(instr, ctx); !st.ok()) return st;
  if (ops.empty()) return OpError(instr, "expects an operand");
  ctx.channels->Outfeed(DeviceOf(ctx), *ops[0]);
  return Literal(instr.shape());
}

}  // namespace

absl::StatusOr<Literal> EvalCollective(const Instruction& instr,
                                       absl::Span<const Literal* const> ops, OpContext& ctx) {
  switch (instr.opcode()) {
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
      return AllReduce(instr, ops, ctx);
    case Opcode::kAllReduceDone:
      if (ops.size() != 1) return OpError(instr, "expects one operand");
      return Conform(*ops[0], instr.shape());
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
      return AllGather(instr, ops, ctx);
    case Opcode::kAllGatherDone:
    case Opcode::kCollectivePermuteDone:
      if (ops.size() != 1) return OpError(instr, "expects one operand");
      return DoneElement(instr, *ops[0], 1);
    case Opcode::kReduceScatter:
      return ReduceScatter(instr, ops, ctx);
    case Opcode::kAllToAll:
      return AllToAll(instr, ops, ctx);
    case Opcode::kRaggedAllToAll:
      return EvalRaggedAllToAll(instr, ops, ctx);
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
      return CollectivePermute(instr, ops, ctx);
    case Opcode::kCollectiveBroadcast:
      return CollectiveBroadcast(instr, ops, ctx);
    case Opcode::kSend:
      return Send(instr, ops, ctx);
    case Opcode::kSendDone:
      return Literal(instr.shape());
    case Opcode::kRecv:
      return Recv(instr, ops, ctx);
    case Opcode::kRecvDone:
      return RecvDone(instr, ops, ctx);
    case Opcode::kInfeed:
      return Infeed(instr, ctx);
    case Opcode::kOutfeed:
      return Outfeed(instr, ops, ctx);
    default:
      return OpUnimplemented(instr, "op");
  }
}

}  // namespace hlo::cpu
