// constant_folding: an instruction whose operands are all constants is
// evaluated by running a tiny module through the CPU backend (RunModule):
// its entry holds copies of the constant operands and a copy of the
// instruction; computations it calls are deep-copied into that module.
#include "passes/constant_folding.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "backend_cpu/executor.h"
#include "ir/call_graph_copy.h"
#include "backend_cpu/op_eval.h"
#include "passes/algsimp_util.h"

namespace hlo {
namespace {

using passes_internal::Builder;

// Largest folded result (and largest total operand size), in elements.
// XLA uses 45M; we use 45k so folding never bloats a module's text.
constexpr int64_t kMaxElements = 45 * 1000;
// broadcast and iota turn a few values into many: fold only small ones.
constexpr int64_t kMaxExpandingElements = 16;

bool CallsHaveSideEffect(const Instruction& inst, int depth = 0) {
  if (depth > 64) return true;
  for (const Computation* c : inst.called_computations()) {
    if (c == nullptr) return true;
    for (const Instruction* i : c->instructions()) {
      if (i->HasSideEffect()) return true;
      switch (i->opcode()) {  // values that differ per run / device
        case Opcode::kRng: case Opcode::kRngBitGenerator: case Opcode::kRngGetAndUpdateState:
        case Opcode::kReplicaId: case Opcode::kPartitionId: case Opcode::kCustomCall:
        case Opcode::kWhile: case Opcode::kInfeed: case Opcode::kRecv:
          return true;
        default: break;
      }
      if (CallsHaveSideEffect(*i, depth + 1)) return true;
    }
  }
  return false;
}

bool IsFoldableOpcode(Opcode op) {
  switch (op) {
    case Opcode::kParameter: case Opcode::kConstant: case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    // Randomness, device identity, I/O, effects, async pairs, collectives.
    case Opcode::kRng: case Opcode::kRngBitGenerator: case Opcode::kRngGetAndUpdateState:
    case Opcode::kReplicaId: case Opcode::kPartitionId: case Opcode::kInfeed: case Opcode::kOutfeed:
    case Opcode::kSend: case Opcode::kSendDone: case Opcode::kRecv: case Opcode::kRecvDone:
    case Opcode::kCustomCall: case Opcode::kAfterAll: case Opcode::kAddDependency:
    case Opcode::kOptimizationBarrier: case Opcode::kDomain:
    case Opcode::kAsyncStart: case Opcode::kAsyncUpdate: case Opcode::kAsyncDone:
    case Opcode::kCopyStart: case Opcode::kCopyDone:
    case Opcode::kAllGather: case Opcode::kAllGatherStart: case Opcode::kAllGatherDone:
    case Opcode::kAllReduce: case Opcode::kAllReduceStart: case Opcode::kAllReduceDone:
    case Opcode::kAllToAll: case Opcode::kRaggedAllToAll: case Opcode::kReduceScatter:
    case Opcode::kCollectiveBroadcast: case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart: case Opcode::kCollectivePermuteDone:
    case Opcode::kCollectiveReduce: case Opcode::kShuffle:
    // May not terminate / too slow to evaluate at compile time (XLA skips fft).
    case Opcode::kWhile: case Opcode::kFft:
    // Layout- or dynamism-dependent.
    case Opcode::kBitcast: case Opcode::kGetDimensionSize: case Opcode::kSetDimensionSize:
    case Opcode::kDynamicReshape: case Opcode::kFusion:
      return false;
    default:
      return true;
  }
}

// Why `x` is not folded (empty = fold it).
bool ShouldFold(const Instruction& x) {
  if (!IsFoldableOpcode(x.opcode()) || x.HasSideEffect() || !passes_internal::IsRewritable(&x)) return false;
  if (!x.shape().IsArray() || !x.shape().IsStatic()) return false;
  const int64_t n = x.shape().ElementCount();
  if (x.operand_count() == 0) {
    // Zero-operand producers: only small iotas.
    return x.opcode() == Opcode::kIota && n <= kMaxExpandingElements;
  }
  int64_t in = 0;
  for (const Instruction* o : x.operands()) {
    if (o->opcode() != Opcode::kConstant || !o->has_literal()) return false;
    if (o->literal().elided()) return false;  // `{...}`: the values are not known
    if (o->shape().IsArray()) in += o->shape().ElementCount();
    else return false;
  }
  if (n > kMaxElements || in > kMaxElements) return false;
  if (x.opcode() == Opcode::kBroadcast && n > kMaxExpandingElements) return false;
  if (CallsHaveSideEffect(x)) return false;
  return true;
}

absl::StatusOr<Literal> Evaluate(const Instruction& x) {
  Module tmp("constant_folding");
  ComputationMap map;
  auto entry = std::make_unique<Computation>("entry.cf");
  std::vector<Instruction*> ops;
  for (int64_t i = 0; i < x.operand_count(); ++i) {
    const Instruction* o = x.operand(i);
    auto c = std::make_unique<Instruction>(Opcode::kConstant, absl::StrCat("c", i), o->shape());
    c->set_literal(o->literal());
    ops.push_back(entry->AddInstruction(std::move(c)));
  }
  auto y = std::make_unique<Instruction>(x.opcode(), "folded", x.shape());
  for (const auto& [n, v] : x.attrs()) y->SetAttr(n, v);
  if (x.has_literal()) y->set_literal(x.literal());
  for (Instruction* o : ops) y->AppendOperand(o);
  Instruction* root = entry->AddInstruction(std::move(y));
  entry->set_root(root);
  // Called computations first (callees before callers), then the entry.
  for (Computation* called : root->called_computations())
    root->ReplaceCalledComputation(called, CopyCallGraph(called, tmp, map, ".cf"));
  Computation* e = tmp.AddComputation(std::move(entry));
  tmp.set_entry(e);
  absl::StatusOr<cpu::RunResult> run = cpu::RunModule(tmp, {});
  if (!run.ok()) return run.status();
  if (run->results.empty()) return absl::InternalError("constant_folding: no result");
  return cpu::ToLayout(std::move(run->results[0]), x.shape().layout());
}

class ConstantFolding : public Pass {
 public:
  absl::string_view name() const override { return "constant_folding"; }
  absl::StatusOr<bool> Run(Module& module) override {
    return passes_internal::ReplaceInPostOrder(
        module, [](Instruction* x, Builder& b) -> absl::StatusOr<Instruction*> {
          if (!ShouldFold(*x)) return nullptr;
          absl::StatusOr<Literal> value = Evaluate(*x);
          // The backend cannot evaluate it: leave it for run time.
          if (!value.ok() || !value->shape().Compatible(x->shape())) return nullptr;
          Instruction* c = b.Add(Opcode::kConstant, x->shape(), {});
          c->set_literal(*std::move(value));
          return c;
        });
  }
};

}  // namespace

std::unique_ptr<Pass> CreateConstantFoldingPass() { return std::make_unique<ConstantFolding>(); }

}  // namespace hlo
