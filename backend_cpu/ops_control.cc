// Structural and control-flow ops: tuples, calls, loops, conditionals,
// async wrappers, bitcast, tokens, ids, random numbers and custom-calls.
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "backend_cpu/custom_call.h"
#include "backend_cpu/donation.h"
#include "backend_cpu/fusion_exec.h"
#include "backend_cpu/op_eval.h"
#include "backend_cpu/precision_conform.h"
#include "backend_cpu/rng.h"

namespace hlo::cpu {
namespace {

absl::StatusOr<const Computation*> Called(const Instruction& instr, absl::string_view attr) {
  Computation* const* c = instr.GetAttr<Computation*>(attr);
  if (c == nullptr || *c == nullptr) return OpError(instr, absl::StrCat("missing ", attr, "="));
  return *c;
}

absl::StatusOr<Literal> CallAttr(const Instruction& instr, absl::string_view attr,
                                 absl::Span<const Literal* const> args, OpContext& ctx) {
  absl::StatusOr<const Computation*> c = Called(instr, attr);
  if (!c.ok()) return c.status();
  absl::StatusOr<Literal> r = ctx.call(**c, args);
  if (!r.ok()) return r.status();
  return ConformLayouts(*std::move(r), instr.shape());
}

// A fusion run op by op through its computation. When every operand dies
// here the computation owns them (ctx.call_owned), so its bitcasts and
// in-place ops reuse their buffers: an all-to-all's result bitcast and
// transposed in one fusion is not copied first.
absl::StatusOr<Literal> CallFusion(const Instruction& instr, absl::Span<const Literal* const> ops,
                                   OpContext& ctx) {
  bool all_donated = !ops.empty() && static_cast<bool>(ctx.call_owned);
  // (A value in two operand slots is donated in its last slot only.)
  for (size_t j = 0; j < ops.size() && all_donated; ++j)
    all_donated = DonatedOperand(j) != nullptr;
  if (!all_donated) return CallAttr(instr, "calls", ops, ctx);
  absl::StatusOr<const Computation*> c = Called(instr, "calls");
  if (!c.ok()) return c.status();
  std::vector<Literal> owned;
  for (size_t j = 0; j < ops.size(); ++j) owned.push_back(TakeDonated(j));
  absl::StatusOr<Literal> r = ctx.call_owned(**c, absl::MakeSpan(owned));
  if (!r.ok()) return r.status();
  return ConformLayouts(*std::move(r), instr.shape());
}

absl::StatusOr<bool> PredValue(const Instruction& instr, const Literal& pred) {
  if (!pred.shape().IsScalar() || pred.shape().element_type() != PrimitiveType::PRED)
    return OpError(instr, "the condition must return pred[]");
  return pred.GetRaw<uint8_t>(0) != 0;
}

absl::StatusOr<Literal> While(const Instruction& instr, absl::Span<const Literal* const> ops,
                              OpContext& ctx) {
  absl::StatusOr<const Computation*> cond = Called(instr, "condition");
  if (!cond.ok()) return cond.status();
  absl::StatusOr<const Computation*> body = Called(instr, "body");
  if (!body.ok()) return body.status();
  // The loop state is handed to the body every trip (updated in place there
  // when the body's ops allow it); the initial value is taken over when it
  // dies here, else copied once.
  Literal state;
  if (DonatedOperand(0) != nullptr) {
    state = TakeDonated(0);
  } else {
    state = *ops[0];
  }
  for (;;) {
    const Literal* arg = &state;
    absl::StatusOr<Literal> c = ctx.call(**cond, absl::MakeConstSpan(&arg, 1));
    if (!c.ok()) return c.status();
    absl::StatusOr<bool> go = PredValue(instr, *c);
    if (!go.ok()) return go.status();
    if (!*go) break;
    if (ctx.while_trips_left != nullptr && ctx.while_trips_left->fetch_sub(1) <= 0) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "while %", instr.name(), ": the run's budget of while-loop trips (max_while_trips) is used up"));
    }
    absl::StatusOr<Literal> next = ctx.call_owned ? ctx.call_owned(**body, absl::MakeSpan(&state, 1))
                                                  : ctx.call(**body, absl::MakeConstSpan(&arg, 1));
    if (!next.ok()) return next.status();
    state = *std::move(next);
  }
  return ConformLayouts(std::move(state), instr.shape());
}

absl::StatusOr<Literal> Conditional(const Instruction& instr,
                                    absl::Span<const Literal* const> ops, OpContext& ctx) {
  const Literal& selector = *ops[0];
  if (!selector.shape().IsScalar()) return OpError(instr, "the branch selector must be a scalar");
  const Computation* branch = nullptr;
  if (selector.shape().element_type() == PrimitiveType::PRED) {
    absl::StatusOr<const Computation*> c =
        Called(instr, selector.GetRaw<uint8_t>(0) ? "true_computation" : "false_computation");
    if (c.ok()) {
      branch = *c;
    } else {
      // The pred form may also be written with branch_computations={true, false}.
      const auto* list = instr.GetAttr<std::vector<Computation*>>("branch_computations");
      if (list == nullptr || list->size() != 2) return c.status();
      branch = (*list)[selector.GetRaw<uint8_t>(0) ? 0 : 1];
    }
    const Literal* arg = ops[selector.GetRaw<uint8_t>(0) ? 1 : 2];
    absl::StatusOr<Literal> r = ctx.call(*branch, absl::MakeConstSpan(&arg, 1));
    if (!r.ok()) return r.status();
    return ConformLayouts(*std::move(r), instr.shape());
  }
  const auto* list = instr.GetAttr<std::vector<Computation*>>("branch_computations");
  if (list == nullptr || list->empty()) return OpError(instr, "missing branch_computations=");
  const int64_t n = static_cast<int64_t>(list->size());
  int64_t index = selector.GetInt(0);
  // An out-of-range index runs the last branch (the spec's rule).
  if (index < 0 || index >= n) index = n - 1;
  if (static_cast<int64_t>(ops.size()) != n + 1)
    return OpError(instr, "needs one operand per branch after the index");
  const Literal* arg = ops[index + 1];
  absl::StatusOr<Literal> r = ctx.call(*(*list)[index], absl::MakeConstSpan(&arg, 1));
  if (!r.ok()) return r.status();
  return ConformLayouts(*std::move(r), instr.shape());
}

absl::StatusOr<Literal> Tuple(const Instruction& instr, absl::Span<const Literal* const> ops) {
  std::vector<Literal> elems;
  elems.reserve(ops.size());
  for (size_t j = 0; j < ops.size(); ++j) {
    // (Not a ?: expression: mixing Literal&& and const Literal& would copy.)
    if (DonatedOperand(j) != nullptr) {
      elems.push_back(TakeDonated(j));
    } else {
      elems.push_back(*ops[j]);
    }
  }
  return ConformLayouts(Literal::MakeTuple(std::move(elems)), instr.shape());
}

absl::StatusOr<Literal> GetTupleElement(const Instruction& instr,
                                        absl::Span<const Literal* const> ops) {
  const int64_t index = instr.AttrOr<int64_t>("index", -1);
  const Literal& t = *ops[0];
  if (!t.IsTuple() || index < 0 || index >= static_cast<int64_t>(t.tuple_elements().size()))
    return OpError(instr, "tuple index out of range");
  return ConformLayouts(t.tuple_elements()[index], instr.shape());
}

// bitcast reinterprets the physical buffer: same bytes, new shape/layout.
// An operand that dies here keeps its buffer under the new shape (XLA's
// bitcast is a view); otherwise the bytes are copied once, by blocks over
// the pool, into storage that is not zero-filled first.
absl::StatusOr<Literal> Bitcast(const Instruction& instr, absl::Span<const Literal* const> ops) {
  const Literal& in = *ops[0];
  if (!in.shape().IsArray() || !instr.shape().IsArray())
    return OpError(instr, "bitcast of a non-array");
  // (ReuseStorageAs leaves the operand as it was when the sizes differ.)
  if (DonatedOperand(0) != nullptr && DonatedOperand(0)->ReuseStorageAs(instr.shape()))
    return TakeDonated(0);
  Literal out = Literal::Uninitialized(instr.shape());
  if (out.size_bytes() != in.size_bytes())
    return OpError(instr, absl::StrCat("bitcast changes the buffer size (", in.size_bytes(),
                                       " bytes to ", out.size_bytes(), ")"));
  CopyBytesOnPool(out.data(), in.data(), out.size_bytes());
  return out;
}

// Whether no one reads the operands element of an async-start (or of an
// async-update passing it on): every user is an async-update or
// async-done (which read only the result), and it is not a root, whose
// value the caller gets.
bool OperandsElementUnread(const Instruction& async) {
  if (async.parent() == nullptr || async.parent()->root() == &async) return false;
  for (const Instruction* user : async.users()) {
    if (user->opcode() == Opcode::kAsyncDone) continue;
    if (user->opcode() != Opcode::kAsyncUpdate || !OperandsElementUnread(*user)) return false;
  }
  return true;
}

// async-start's value: ((operands...), result, context...).
absl::StatusOr<Literal> AsyncStart(const Instruction& instr, absl::Span<const Literal* const> ops,
                                   OpContext& ctx) {
  const Shape& shape = instr.shape();
  if (!shape.IsTuple() || shape.tuple_shapes().size() < 2)
    return OpError(instr, "async-start shape must be ((operands), result, ...)");
  absl::StatusOr<const Computation*> c = Called(instr, "calls");
  if (!c.ok()) return c.status();
  // Operands that die here are taken now (before the call, as donation.h
  // requires) and moved into element 0 afterwards instead of copied.
  std::vector<Literal> taken(ops.size());
  std::vector<const Literal*> args(ops.begin(), ops.end());
  for (size_t j = 0; j < ops.size(); ++j)
    if (DonatedOperand(j) != nullptr) {
      taken[j] = TakeDonated(j);
      args[j] = &taken[j];
    }
  bool hand_over = !ops.empty() && static_cast<bool>(ctx.call_owned) &&
                   OperandsElementUnread(instr);
  for (size_t j = 0; j < ops.size() && hand_over; ++j)
    hand_over = args[j] == &taken[j] && taken[j].shape().IsArray();
  std::vector<Literal> operands;
  absl::StatusOr<Literal> r;
  if (hand_over) {
    // Dying operands that no one reads back from element 0: the wrapped op
    // owns them (an all-to-all contributes its operand without a copy),
    // and element 0 gets storage of their shapes that is never read (nor
    // touched, so it costs no page faults).
    std::vector<Shape> shapes;
    for (const Literal& t : taken) shapes.push_back(t.shape());
    r = ctx.call_owned(**c, absl::MakeSpan(taken));
    if (!r.ok()) return r.status();
    for (const Shape& shape : shapes) operands.push_back(Literal::Uninitialized(shape));
  } else {
    r = ctx.call(**c, args);
    if (!r.ok()) return r.status();
    for (size_t j = 0; j < ops.size(); ++j) {
      if (args[j] == &taken[j]) {
        operands.push_back(std::move(taken[j]));
      } else {
        operands.push_back(*ops[j]);
      }
    }
  }
  std::vector<Literal> elems;
  elems.push_back(shape.tuple_shapes()[0].IsTuple() ? Literal::MakeTuple(std::move(operands))
                  : operands.empty()                 ? Literal(shape.tuple_shapes()[0])
                                                     : std::move(operands[0]));
  elems.push_back(*std::move(r));
  for (size_t i = 2; i < shape.tuple_shapes().size(); ++i)
    elems.emplace_back(shape.tuple_shapes()[i]);
  return ConformLayouts(Literal::MakeTuple(std::move(elems)), shape);
}

absl::StatusOr<Literal> TupleElementOf(const Instruction& instr, const Literal& t, size_t i) {
  if (!t.IsTuple() || t.tuple_elements().size() <= i)
    return OpError(instr, absl::StrCat("operand has no tuple element ", i));
  return ConformLayouts(t.tuple_elements()[i], instr.shape());
}

absl::StatusOr<Literal> CopyStart(const Instruction& instr, absl::Span<const Literal* const> ops) {
  const Shape& shape = instr.shape();
  if (!shape.IsTuple() || shape.tuple_shapes().size() < 2)
    return OpError(instr, "copy-start shape must be (destination, source, context)");
  std::vector<Literal> elems{*ops[0], *ops[0]};
  for (size_t i = 2; i < shape.tuple_shapes().size(); ++i)
    elems.emplace_back(shape.tuple_shapes()[i]);
  return ConformLayouts(Literal::MakeTuple(std::move(elems)), shape);
}

absl::StatusOr<Literal> ScalarId(const Instruction& instr, int64_t id) {
  Literal out(instr.shape());
  if (!instr.shape().IsScalar()) return OpError(instr, "result must be a scalar");
  out.SetInt(0, id);
  return out;
}

absl::StatusOr<Literal> CustomCall(const Instruction& instr, absl::Span<const Literal* const> ops,
                                   OpContext& ctx) {
  const std::string target = instr.AttrOr<std::string>("custom_call_target", "");
  const CustomCallTarget* t = FindCustomCallTarget(target);
  if (t == nullptr)
    return OpUnimplemented(instr, absl::StrCat("custom_call_target=\"", target,
                                               "\" is not a registered target (hlo-run "
                                               "--list-custom-calls shows them)"));
  return t->fn(instr, ops, ctx);
}

}  // namespace

absl::StatusOr<Literal> EvalControl(const Instruction& instr,
                                    absl::Span<const Literal* const> ops, OpContext& ctx) {
  switch (instr.opcode()) {
    case Opcode::kTuple:
      return Tuple(instr, ops);
    case Opcode::kGetTupleElement:
      return GetTupleElement(instr, ops);
    case Opcode::kCall:
      return CallAttr(instr, "to_apply", ops, ctx);
    case Opcode::kFusion: {
      const Computation* fused = instr.AttrOr<Computation*>("calls", nullptr);
      const FusionPlan* plan = ctx.fusion_plans != nullptr && fused != nullptr
                                   ? ctx.fusion_plans->Find(fused)
                                   : nullptr;
      // The plan writes into buffers of the fusion's types: a fusion written
      // in another float precision than its root runs op by op (the
      // executor converts the result, precision_conform.h).
      if (plan != nullptr && SameElementTypes(instr.shape(), fused->root()->shape()))
        return RunFusionPlan(*plan, instr, ops, ctx);
      return CallFusion(instr, ops, ctx);
    }
    case Opcode::kWhile:
      return While(instr, ops, ctx);
    case Opcode::kConditional:
      return Conditional(instr, ops, ctx);
    case Opcode::kAfterAll:
      return Literal(instr.shape());
    case Opcode::kAddDependency:
    case Opcode::kOptimizationBarrier:
    case Opcode::kDomain:
      return ConformLayouts(*ops[0], instr.shape());
    case Opcode::kBitcast:
      return Bitcast(instr, ops);
    case Opcode::kBitcastConvert:
      return EvalBitcastConvert(instr, ops, ctx);
    case Opcode::kAsyncStart:
      return AsyncStart(instr, ops, ctx);
    case Opcode::kAsyncUpdate:
      return ConformLayouts(*ops[0], instr.shape());
    case Opcode::kAsyncDone:
      // The start's tuple dies here (its only reader): its result moves out.
      if (DonatedOperand(0) != nullptr && DonatedOperand(0)->IsTuple() &&
          DonatedOperand(0)->tuple_elements().size() > 1) {
        Literal start = TakeDonated(0);
        return ConformLayouts(std::move(start.mutable_tuple_elements()[1]), instr.shape());
      }
      return TupleElementOf(instr, *ops[0], 1);
    case Opcode::kCopyStart:
      return CopyStart(instr, ops);
    case Opcode::kCopyDone:
      return TupleElementOf(instr, *ops[0], 0);
    case Opcode::kReplicaId:
      return ScalarId(instr, ctx.replica_id);
    case Opcode::kPartitionId:
      return ScalarId(instr, ctx.partition_id);
    case Opcode::kRng:
      return EvalRng(instr, ops, ctx);
    case Opcode::kRngBitGenerator:
      return EvalRngBitGenerator(instr, ops, ctx);
    case Opcode::kRngGetAndUpdateState:
      return EvalRngGetAndUpdateState(instr, ops, ctx);
    case Opcode::kCustomCall:
      return CustomCall(instr, ops, ctx);
    case Opcode::kConstant:
      if (instr.has_literal()) return instr.literal();
      return OpError(instr, "constant without a value");
    default:
      return OpUnimplemented(instr, "op");
  }
}

}  // namespace hlo::cpu
