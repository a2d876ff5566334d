// ragged-all-to-all(input, output, input_offsets, send_sizes,
// output_offsets, recv_sizes): every member of a group sends runs of rows
// (slices along dimension 0) of its input to every member, and each
// receiver's result is its `output` operand with the runs it received
// written in.
//
// The four offset/size arrays hold N x U entries (N = group size, U updates
// per peer), read in row-major order; entry j * U + u describes update u
// between this device and the member at group position j. On the sender,
// input_offsets / send_sizes say which rows go out and output_offsets says
// where they land in the receiver's output (the sender chooses it); on the
// receiver, recv_sizes says how many rows it expects from that member.
// Semantics, sources and the error choices: docs/collectives.md.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend_cpu/collective_groups.h"
#include "backend_cpu/op_eval.h"
#include "ir/printer.h"

namespace hlo::cpu {
namespace {

constexpr const char* kMetaNames[4] = {"input_offsets", "send_sizes", "output_offsets",
                                       "recv_sizes"};

// The entries of one offsets/sizes array, as int64 in row-major order. Unsigned values above INT64_MAX saturate (and then
// fail the bounds checks).
std::vector<int64_t> MetaValues(const Literal& lit) {
  Literal tmp;
  const Literal& rm = RowMajor(lit, &tmp);
  const int64_t n = rm.shape().ElementCount();
  const bool is_unsigned = IsUnsignedInt(rm.shape().element_type());
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t x = rm.GetInt(i);
    v[i] = (is_unsigned && x < 0) ? INT64_MAX : x;
  }
  return v;
}

// Operand shapes XLA's verifier requires, checked again because the run
// may use other group sizes than the module header: input and output arrays
// of one element type and the same row shape; the four offsets/sizes
// operands integer arrays of rank 1 or 2, all of one shape, with a number
// of entries divisible by the group size. Returns the updates per peer.
absl::StatusOr<int64_t> CheckOperands(const Instruction& instr,
                                      absl::Span<const Literal* const> ops, int64_t group_size) {
  if (ops.size() != 6)
    return OpError(instr, absl::StrCat("expects 6 operands (input, output, input_offsets, "
                                       "send_sizes, output_offsets, recv_sizes), got ",
                                       ops.size()));
  const Shape& in = ops[0]->shape();
  const Shape& out = ops[1]->shape();
  if (!in.IsArray() || !out.IsArray() || in.rank() == 0 || in.rank() != out.rank() ||
      in.element_type() != out.element_type() ||
      !std::equal(in.dims().begin() + 1, in.dims().end(), out.dims().begin() + 1))
    return OpError(instr, absl::StrCat("input ", ShapeToString(in, false), " and output ",
                                       ShapeToString(out, false),
                                       " must be arrays of one element type whose dimensions "
                                       "agree but for dimension 0"));
  if (!instr.shape().IsArray() || instr.shape().dims() != out.dims())
    return OpError(instr, "the result must have the output operand's dimensions");
  const Shape& meta = ops[2]->shape();
  for (int i = 0; i < 4; ++i) {
    const Shape& s = ops[2 + i]->shape();
    if (!s.IsArray() || !IsInteger(s.element_type()) || s.rank() < 1 || s.rank() > 2)
      return OpError(instr, absl::StrCat(kMetaNames[i], " must be an integer array of rank 1 or "
                                         "2, got ", ShapeToString(s, false)));
    if (s.element_type() != meta.element_type() || s.dims() != meta.dims())
      return OpError(instr, absl::StrCat(kMetaNames[i], " ", ShapeToString(s, false),
                                         " differs from input_offsets ",
                                         ShapeToString(meta, false)));
  }
  const int64_t entries = meta.ElementCount();
  if (entries % group_size != 0)
    return OpError(instr, absl::StrCat("the ", entries, " entries of the offsets/sizes arrays "
                                       "are not a multiple of the ", group_size,
                                       " members of the replica group"));
  return entries / group_size;
}

// "update u to/from group position j (device d)", for messages (the
// executor names the device that reports it).
std::string EntryText(const Group& g, const char* direction, int64_t j, int64_t u) {
  return absl::StrCat("update ", u, " ", direction, " group position ", j, " (device ",
                      g.devices[j], ")");
}

// Update `u` to group position `j` sends the run [offset, offset + size) of
// `rows` rows (of the input or of the receiver's output), or is an error
// naming the update and the arrays it comes from.
absl::Status CheckRun(const Instruction& instr, const Group& g, int64_t j, int64_t u,
                      const char* offset_name, int64_t offset, int64_t size,
                      const char* rows_name, int64_t rows) {
  if (size < 0)
    return OpError(instr, absl::StrCat(EntryText(g, "to", j, u), ": send_sizes ", size,
                                       " is negative"));
  if (offset < 0 || offset > rows || size > rows - offset)
    return OpError(instr, absl::StrCat(EntryText(g, "to", j, u), ": rows [", offset, ", ",
                                       offset, " + ", size, ") from ", offset_name,
                                       " and send_sizes are outside the ", rows, " rows of the ",
                                       rows_name));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Literal> EvalRaggedAllToAll(const Instruction& instr,
                                           absl::Span<const Literal* const> ops, OpContext& ctx) {
  absl::StatusOr<Group> group = GroupOf(instr, ctx);
  if (!group.ok()) return group.status();
  const int64_t members = group->size();
  absl::StatusOr<int64_t> per_peer = CheckOperands(instr, ops, members);
  if (!per_peer.ok()) return per_peer.status();
  const int64_t updates = *per_peer;
  const int64_t in_rows = ops[0]->shape().dim(0);
  const int64_t out_rows = ops[1]->shape().dim(0);

  // Every device checks the runs it sends before the exchange: all members
  // have the same input and output shapes, so a bad offset or size is
  // reported by the device whose operands hold it.
  std::vector<int64_t> meta[4];
  for (int i = 0; i < 4; ++i) meta[i] = MetaValues(*ops[2 + i]);
  for (int64_t j = 0; j < members; ++j)
    for (int64_t u = 0; u < updates; ++u) {
      const int64_t e = j * updates + u;
      if (absl::Status st = CheckRun(instr, *group, j, u, "input_offsets", meta[0][e],
                                     meta[1][e], "input", in_rows);
          !st.ok())
        return st;
      if (absl::Status st = CheckRun(instr, *group, j, u, "output_offsets", meta[2][e],
                                     meta[1][e], "output", out_rows);
          !st.ok())
        return st;
    }

  // Contribution: the input rows and the sender's side of the metadata.
  Literal tmp;
  const Literal& in_rm = RowMajor(*ops[0], &tmp);
  std::vector<Literal> mine;
  mine.push_back(&in_rm == &tmp ? std::move(tmp) : in_rm);
  for (int i = 0; i < 3; ++i) mine.push_back(*ops[2 + i]);
  absl::StatusOr<CollectiveHub::Contributions> all =
      Exchange(instr, ctx, *group, Literal::MakeTuple(std::move(mine)));
  if (!all.ok()) return all.status();

  Literal out_tmp;
  const Literal& out_rm = RowMajor(*ops[1], &out_tmp);
  Literal result = RowMajorUninitialized(instr.shape());
  if (result.size_bytes() != out_rm.size_bytes())
    return OpError(instr, "the result and the output operand differ in size");
  std::memcpy(result.data(), out_rm.data(), out_rm.size_bytes());
  const int64_t row_bytes =
      (out_rows == 0 ? 0 : static_cast<int64_t>(out_rm.size_bytes()) / out_rows);
  const int64_t me = group->position;
  // Senders in group order, then their updates in order: where runs
  // overlap, the later one wins.
  for (int64_t k = 0; k < members; ++k) {
    const std::vector<Literal>& from = (**all)[k].tuple_elements();
    const std::vector<int64_t> in_off = MetaValues(from[1]);
    const std::vector<int64_t> sizes = MetaValues(from[2]);
    const std::vector<int64_t> out_off = MetaValues(from[3]);
    for (int64_t u = 0; u < updates; ++u) {
      const int64_t e = me * updates + u;  // the sender's entry for this device
      const int64_t expected = meta[3][k * updates + u];
      if (expected != sizes[e])
        return OpError(instr, absl::StrCat(EntryText(*group, "from", k, u), ": recv_sizes ",
                                           expected, " but that member sends ", sizes[e],
                                           " rows"));
      std::memcpy(result.data() + out_off[e] * row_bytes, from[0].data() + in_off[e] * row_bytes,
                  static_cast<size_t>(sizes[e] * row_bytes));
    }
  }
  return ToLayout(std::move(result), instr.shape().layout());
}

}  // namespace hlo::cpu
