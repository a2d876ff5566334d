// The module verifier, as strict as XLA's HloVerifier with mixed precision
// allowed and layouts ignored (the settings of XLA's verified test modules):
//
//  * structure: entry exists; computations belong to the module, unique
//    names; each instruction's parent, operand/user and control edges are
//    consistent and stay inside the computation; parameters numbered
//    0..n-1 exactly once; a root; no cycles (operands + control edges); no
//    recursion in the call graph; called computations are in the module.
//  * per instruction: operand count (opcode table), required attributes and
//    attribute kinds (attr_spec), layouts (ValidateLayout), the result shape
//    against InferShape (exact element types for data-movement ops, any
//    floating-point precision elsewhere, dynamic flags ignored), which also
//    checks every called computation's signature; constants' literal
//    shapes, parameter_replication leaf counts, compare `type`, composite
//    calls, custom-call layout constraints and output/operand aliasing,
//    execution threads of called computations.
//  * module: async chains (one wrapped computation per start, threads,
//    start/update/done pairing), copy/all-reduce/collective-permute
//    start/done pairing, send/recv users and channels, mixed
//    layout-constrained all-reduces, async wrapped computation contents,
//    no dead code in fused computations, entry_computation_layout,
//    input_output_alias and buffer_donor indices.
//
// Every problem becomes one diagnostic (file:line:col, source line, caret);
// at most 20 are reported.
#include "ir/verifier.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/attr_spec.h"
#include "ir/diagnostic.h"
#include "ir/layout_index.h"
#include "ir/shape_inference.h"

namespace hlo {
namespace {

constexpr size_t kMaxDiagnostics = 20;

std::string S(const Shape& s) { return ShapeToMessageString(s); }

class Verifier {
 public:
  explicit Verifier(const Module& m) : m_(m) {}

  absl::Status Run() {
    for (Computation* c : m_.computations()) comps_.insert(c);
    if (m_.entry() == nullptr) {
      Report(SourceLoc{}, "module has no entry computation");
    } else if (!comps_.contains(m_.entry())) {
      Report(m_.entry()->loc(),
             absl::StrCat("entry computation ", m_.entry()->name(), " is not in the module"));
    }
    CheckComputationNames();
    for (Computation* c : m_.computations()) VerifyComputationStructure(*c);
    CheckCallGraph();
    if (!structural_error_) {
      // One walk over every instruction for all per-instruction checks: a
      // module of 100k+ instructions does not fit in cache, so each extra
      // walk costs a cache miss per instruction.
      for (Computation* c : m_.computations()) {
        const bool in_async = async_computations_.contains(c);
        for (Instruction* inst : c->instructions()) {
          VerifyInstruction(*inst);
          CheckAsyncOp(*inst);
          CheckPairsAndChannels(*inst, in_async);
          CheckCalledComputationContents(*inst);
        }
      }
      CheckHeader();
    }
    if (diags_.empty()) return absl::OkStatus();
    std::string msg = absl::StrJoin(diags_, "\n");
    if (dropped_ > 0)
      absl::StrAppend(&msg, "\n", m_.source_name(), ": note: ", dropped_, " more error",
                      dropped_ == 1 ? "" : "s", " not shown");
    return absl::InvalidArgumentError(msg);
  }

 private:
  void Report(SourceLoc loc, absl::string_view message) {
    if (diags_.size() >= kMaxDiagnostics) {
      ++dropped_;
      return;
    }
    diags_.push_back(FormatDiagnostic(m_.source_name(), m_.source_text(), loc, message));
  }
  void ReportInst(const Instruction& inst, absl::string_view message) {
    Report(inst.loc(), absl::StrCat("instruction %", inst.name(), ": ", message));
  }
  void ReportComp(const Computation& c, absl::string_view message) {
    Report(c.loc(), absl::StrCat("computation %", c.name(), ": ", message));
  }

  void CheckComputationNames() {
    absl::flat_hash_set<std::string> names;
    for (Computation* c : m_.computations()) {
      if (c->parent() != &m_) ReportComp(*c, "computation's parent is not this module");
      if (!names.insert(c->name()).second) ReportComp(*c, "duplicate computation name");
    }
  }

  // Graph consistency, parameters, root, cycles.
  void VerifyComputationStructure(const Computation& c) {
    const std::vector<Instruction*> insts = c.instructions();
    // Only Computation::AddInstruction sets an instruction's parent, and a
    // removed instruction is destroyed: parent == &c means "one of mine".
    auto mine = [&c](const Instruction* i) { return i->parent() == &c; };
    absl::flat_hash_set<absl::string_view> names;
    names.reserve(insts.size());
    std::vector<Computation*>& callees = callees_[&c];
    const size_t before = diags_.size() + dropped_;
    if (c.root() == nullptr) {
      ReportComp(c, "computation has no root instruction");
    } else if (!mine(c.root())) {
      ReportComp(c, absl::StrCat("root %", c.root()->name(), " is not an instruction of the computation"));
    }
    // Parameters: numbered 0..n-1, unique.
    std::vector<const Instruction*> params;
    for (Instruction* inst : insts) {
      if (inst->opcode() != Opcode::kParameter) continue;
      const int64_t n = inst->parameter_number();
      if (n < 0) {
        ReportInst(*inst, absl::StrCat("parameter number must be >= 0, got ", n));
        continue;
      }
      if (n >= static_cast<int64_t>(insts.size())) {
        ReportInst(*inst, absl::StrCat("parameter number ", n, " is out of range (the computation has ",
                                       insts.size(), " instructions)"));
        continue;
      }
      if (static_cast<int64_t>(params.size()) <= n) params.resize(n + 1, nullptr);
      if (params[n] != nullptr) {
        ReportInst(*inst, absl::StrCat("Duplicate parameter number ", n, " (also used by %",
                                       params[n]->name(), ")"));
        continue;
      }
      params[n] = inst;
    }
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i] == nullptr)
        ReportComp(c,
                   absl::StrCat("parameter numbers must be contiguous from 0: parameter ", i, " is missing"));
    if (c.num_parameters() != static_cast<int64_t>(params.size())) {
      ReportComp(
          c, absl::StrCat("computation records ", c.num_parameters(), " parameters but has ", params.size()));
    } else {
      for (size_t i = 0; i < params.size(); ++i)
        if (params[i] != nullptr && c.parameter(i) != params[i])
          ReportComp(c, absl::StrCat("parameter ", i, " is not registered with the computation"));
    }
    // Operands with many users (a weight read by every layer) get a set, so
    // that checking each user edge stays linear overall.
    absl::flat_hash_map<const Instruction*, absl::flat_hash_set<const Instruction*>> user_sets;
    // Users lists are checked by counting: every operand edge was found in
    // its operand's users list (above), so equal totals mean no list holds
    // anything else. Only on a difference are the lists searched for the
    // entry to report (which touches every user again).
    size_t operand_pairs = 0, user_entries = 0;
    for (Instruction* inst : insts) {
      if (inst->parent() != &c) ReportInst(*inst, "instruction's parent is not its computation");
      if (!names.insert(inst->name()).second) ReportInst(*inst, "duplicate instruction name in computation");
      for (int64_t i = 0; i < inst->operand_count(); ++i) {
        const Instruction* op = inst->operand(i);
        if (op == nullptr) {
          ReportInst(*inst, absl::StrCat("operand ", i, " is null"));
          continue;
        }
        if (!mine(op)) {
          ReportInst(*inst, absl::StrCat("operand ", i, " (%", op->name(),
                                         ") is not an instruction of the same computation"));
          continue;
        }
        if (!ListsUser(op, inst, &user_sets))
          ReportInst(*inst, absl::StrCat("is not recorded as a user of its operand %", op->name()));
        // Each distinct (operand, user) pair is one entry of a users list.
        const auto& ops = inst->operands();
        if (std::find(ops.begin(), ops.begin() + i, op) == ops.begin() + i) ++operand_pairs;
      }
      user_entries += inst->users().size();
      for (const Instruction* p : inst->control_predecessors()) {
        const auto& succ = p->control_successors();
        if (!mine(p))
          ReportInst(*inst,
                     absl::StrCat("control predecessor %", p->name(), " is not in the same computation"));
        else if (std::find(succ.begin(), succ.end(), inst) == succ.end())
          ReportInst(*inst,
                     absl::StrCat("control predecessor %", p->name(), " does not list it as a successor"));
      }
      for (const Instruction* s : inst->control_successors()) {
        const auto& pred = s->control_predecessors();
        if (!mine(s))
          ReportInst(*inst,
                     absl::StrCat("control successor %", s->name(), " is not in the same computation"));
        else if (std::find(pred.begin(), pred.end(), inst) == pred.end())
          ReportInst(*inst,
                     absl::StrCat("control successor %", s->name(), " does not list it as a predecessor"));
      }
      for (Computation* callee : inst->called_computations()) {
        if (callee == nullptr || !comps_.contains(callee)) {
          ReportInst(*inst, absl::StrCat("calls computation ", callee ? callee->name() : "<null>",
                                         " which is not in the module"));
          continue;
        }
        callees.push_back(callee);
        if (inst->opcode() == Opcode::kAsyncStart && inst->GetAttr<Computation*>("calls") != nullptr &&
            *inst->GetAttr<Computation*>("calls") == callee)
          async_computations_.insert(callee);
      }
    }
    if (user_entries != operand_pairs) ReportStrayUsers(insts, mine);
    if (diags_.size() + dropped_ == before) CheckCycles(c, insts);
    if (diags_.size() + dropped_ != before) structural_error_ = true;
  }

  // Users-list entries that are not operand edges (see the counting above).
  template <typename Mine>
  void ReportStrayUsers(const std::vector<Instruction*>& insts, const Mine& mine) {
    for (const Instruction* inst : insts) {
      const auto& users = inst->users();
      for (size_t u = 0; u < users.size(); ++u) {
        const Instruction* user = users[u];
        const auto& ops = user->operands();
        if (!mine(user)) {
          ReportInst(*inst, absl::StrCat("has user %", user->name(), " outside its computation"));
        } else if (std::find(ops.begin(), ops.end(), inst) == ops.end()) {
          ReportInst(*inst, absl::StrCat("lists %", user->name(), " as a user, but is not its operand"));
        } else if (std::find(users.begin(), users.begin() + u, user) != users.begin() + u) {
          ReportInst(*inst, absl::StrCat("lists %", user->name(), " as a user twice"));
        }
      }
    }
  }

  static bool ListsUser(
      const Instruction* op, const Instruction* user,
      absl::flat_hash_map<const Instruction*, absl::flat_hash_set<const Instruction*>>* user_sets) {
    const auto& users = op->users();
    if (users.size() <= 16) return std::find(users.begin(), users.end(), user) != users.end();
    auto [it, inserted] = user_sets->try_emplace(op);
    if (inserted) it->second.insert(users.begin(), users.end());
    return it->second.contains(user);
  }

  // Iterative DFS over operand and control edges.
  // Runs only on a structurally sound computation: every edge stays inside
  // it, so the per-computation unique ids index a state array.
  void CheckCycles(const Computation& c, const std::vector<Instruction*>& insts) {
    int64_t max_id = 0;
    for (const Instruction* inst : insts) max_id = std::max(max_id, inst->unique_id());
    std::vector<char> states(static_cast<size_t>(max_id) + 1, 0);  // 1 = on stack, 2 = done
    auto state = [&](const Instruction* inst) -> char& { return states[static_cast<size_t>(inst->unique_id())]; };
    auto deps_done = [&](const Instruction* inst) {
      for (const Instruction* op : inst->operands())
        if (state(op) != 2) return false;
      for (const Instruction* p : inst->control_predecessors())
        if (state(p) != 2) return false;
      return true;
    };
    std::vector<std::pair<const Instruction*, size_t>> stack;
    for (const Instruction* start : insts) {
      if (state(start) != 0) continue;
      // Text order is nearly always an order of definition: then every
      // dependency is already done and no search is needed.
      if (deps_done(start)) {
        state(start) = 2;
        continue;
      }
      stack.assign(1, {start, 0});
      state(start) = 1;
      while (!stack.empty()) {
        auto& [inst, next] = stack.back();
        const size_t nops = inst->operands().size();
        const size_t nall = nops + inst->control_predecessors().size();
        if (next < nall) {
          const Instruction* dep =
              next < nops ? inst->operands()[next] : inst->control_predecessors()[next - nops];
          ++next;
          char& st = state(dep);
          if (st == 1) {
            ReportComp(c, absl::StrCat("instruction %", dep->name(), " is part of a cycle"));
            structural_error_ = true;
            return;
          }
          if (st == 0) {
            st = 1;
            stack.push_back({dep, 0});
          }
        } else {
          state(inst) = 2;
          stack.pop_back();
        }
      }
    }
  }

  // No computation may (transitively) call itself.
  void CheckCallGraph() {
    absl::flat_hash_map<const Computation*, int> state;
    for (Computation* start : m_.computations()) {
      if (state[start] != 0) continue;
      struct Frame {
        const Computation* comp;
        std::vector<Computation*> callees;
        size_t next;
      };
      // Recorded by VerifyComputationStructure (only callees in the module).
      auto callees_of = [this](const Computation* c) {
        auto it = callees_.find(c);
        return it == callees_.end() ? std::vector<Computation*>() : it->second;
      };
      std::vector<Frame> stack{{start, callees_of(start), 0}};
      state[start] = 1;
      while (!stack.empty()) {
        Frame& f = stack.back();
        if (f.next < f.callees.size()) {
          Computation* callee = f.callees[f.next++];
          int& st = state[callee];
          if (st == 1) {
            ReportComp(*callee, "computation calls itself (recursion in the call graph)");
            structural_error_ = true;
            return;
          }
          if (st == 0) {
            st = 1;
            stack.push_back({callee, callees_of(callee), 0});
          }
        } else {
          state[f.comp] = 2;
          stack.pop_back();
        }
      }
    }
  }

  static bool KindMatches(AttrKind kind, const AttrValue& v) {
    switch (kind) {
      case AttrKind::kBool:
        return std::holds_alternative<bool>(v);
      case AttrKind::kInt:
        return std::holds_alternative<int64_t>(v);
      case AttrKind::kFloat:
        return std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v);
      case AttrKind::kString:
      case AttrKind::kEnum:
        return std::holds_alternative<std::string>(v);
      case AttrKind::kIntList:
        return std::holds_alternative<std::vector<int64_t>>(v);
      case AttrKind::kIntListList:
        return std::holds_alternative<std::vector<std::vector<int64_t>>>(v);
      case AttrKind::kBoolList:
        return std::holds_alternative<std::vector<bool>>(v);
      case AttrKind::kEnumList:
        return std::holds_alternative<std::vector<std::string>>(v);
      case AttrKind::kWindow:
        return std::holds_alternative<Window>(v);
      case AttrKind::kConvDimLabels:
        return AttrHolds<ConvolutionDimensionNumbers>(v);
      case AttrKind::kPaddingConfig:
        return std::holds_alternative<PaddingConfig>(v);
      case AttrKind::kSliceRanges:
        return std::holds_alternative<SliceRanges>(v);
      case AttrKind::kShape:
        return AttrHolds<Shape>(v);
      case AttrKind::kShapeList:
        return std::holds_alternative<std::vector<Shape>>(v);
      case AttrKind::kComputation:
        return std::holds_alternative<Computation*>(v);
      case AttrKind::kComputationList:
        return std::holds_alternative<std::vector<Computation*>>(v);
      case AttrKind::kStringOrDict:
        return std::holds_alternative<StringOrDict>(v);
      case AttrKind::kLiteral:
        return std::holds_alternative<LiteralPtr>(v);
      case AttrKind::kReplicaGroups:
        return AttrHolds<CollectiveDeviceList>(v);
      case AttrKind::kSharding:
        return AttrHolds<Sharding>(v);
      case AttrKind::kMetadata:
        return AttrHolds<OpMetadata>(v);
      case AttrKind::kFrontendAttributes:
        return std::holds_alternative<FrontendAttributes>(v);
      case AttrKind::kStatistics:
        return std::holds_alternative<Statistics>(v);
      case AttrKind::kOutputOperandAliasing:
        return std::holds_alternative<std::vector<OutputOperandAlias>>(v);
      case AttrKind::kDomain:
        return AttrHolds<DomainSpec>(v);
      case AttrKind::kResultAccuracy:
        return std::holds_alternative<ResultAccuracy>(v);
      case AttrKind::kRaw:
        return std::holds_alternative<RawText>(v);
    }
    return false;
  }

  // Attribute kinds and required attributes per attr_spec; enum values.
  bool CheckAttributes(const Instruction& inst) {
    bool ok = true;
    for (const auto& [name, value] : inst.attrs()) {
      const AttrSpec* spec = FindAttrSpec(inst.opcode(), name);
      if (spec == nullptr) continue;  // the parser rejects unknown names; tools may add their own
      if (!KindMatches(spec->kind, value)) {
        ReportInst(inst, absl::StrCat("attribute ", name, " has the wrong kind of value"));
        ok = false;
      }
      // Enum values are the parser's business (it accepts some legacy spellings).
    }
    for (const AttrSpec& spec : FamilyAttrSpecs(OpcodeAttrFamily(inst.opcode()))) {
      if (spec.required && !inst.HasAttr(spec.name)) {
        // The parser accepts async sugar and inferred forms; only the
        // genuinely required attributes are enforced here.
        ReportInst(inst, absl::StrCat("missing required attribute ", spec.name));
        ok = false;
      }
    }
    return ok;
  }

  void CheckLayouts(const Instruction& inst, const Shape& s) {
    if (s.IsTuple() || s.IsBuffer()) {
      for (const Shape& e : s.tuple_shapes()) CheckLayouts(inst, e);
      return;
    }
    if (!s.IsArray() || !s.has_layout()) return;
    absl::Status st = ValidateLayout(s);
    if (!st.ok()) ReportInst(inst, absl::StrCat("invalid layout in shape ", S(s), ": ", st.message()));
  }

  static int64_t LeafCount(const Shape& s) {
    if (!s.IsTuple()) return 1;
    int64_t n = 0;
    for (const Shape& e : s.tuple_shapes()) n += LeafCount(e);
    return n;
  }

  // Whether the written shape may differ from the inferred one in
  // floating-point precision (XLA's allow_mixed_precision): not for ops that
  // only move or reinterpret data.
  static bool AllowsMixedPrecision(Opcode op) {
    switch (op) {
      case Opcode::kBitcast:
      case Opcode::kCall:
      case Opcode::kConditional:
      case Opcode::kConstant:
      case Opcode::kCopyDone:
      case Opcode::kCopyStart:
      case Opcode::kCustomCall:
      case Opcode::kDynamicUpdateSlice:
      case Opcode::kGetTupleElement:
      case Opcode::kInfeed:
      case Opcode::kOutfeed:
      case Opcode::kOptimizationBarrier:
      case Opcode::kParameter:
      case Opcode::kRecv:
      case Opcode::kRecvDone:
      case Opcode::kSend:
      case Opcode::kSendDone:
      case Opcode::kTuple:
      case Opcode::kWhile:
      case Opcode::kAsyncStart:
      case Opcode::kAsyncUpdate:
      case Opcode::kAsyncDone:
      // XLA checks these three for the exact element type of their operand.
      case Opcode::kBroadcast:
      case Opcode::kReshape:
      case Opcode::kDynamicReshape:
        return false;
      default:
        return true;
    }
  }

  void VerifyInstruction(const Instruction& inst) {
    const Opcode op = inst.opcode();
    const int arity = OpcodeArity(op);
    if (arity >= 0 && inst.operand_count() != arity) {
      ReportInst(inst, absl::StrCat(OpcodeName(op), " expects ", arity, " operand", arity == 1 ? "" : "s",
                                    ", but has ", inst.operand_count()));
      return;
    }
    if (!inst.shape().IsValid()) {
      ReportInst(inst, "has no valid result shape");
      return;
    }
    if (!CheckAttributes(inst)) return;
    CheckLayouts(inst, inst.shape());
    if (op == Opcode::kParameter) {
      if (const auto* rep = inst.GetAttr<std::vector<bool>>("parameter_replication")) {
        int64_t leaves = LeafCount(inst.shape());
        if (static_cast<int64_t>(rep->size()) != leaves)
          ReportInst(inst,
                     absl::StrCat("parameter has ", leaves, " leaf buffers, but parameter_replication has ",
                                  rep->size(), " elements"));
      }
    }
    if (op == Opcode::kConstant) {
      if (!inst.has_literal()) {
        ReportInst(inst, "constant has no literal");
      } else if (!ShapesCompatible(inst.literal().shape(), inst.shape())) {
        ReportInst(inst, absl::StrCat("constant's literal has shape ", S(inst.literal().shape()),
                                      " but the instruction's shape is ", S(inst.shape())));
      }
    }
    if (op == Opcode::kCustomCall) CheckCustomCall(inst);
    if (op == Opcode::kCompare) CheckCompareType(inst);
    if (op == Opcode::kCall) CheckCompositeCall(inst);
    if (op == Opcode::kFusion)
      if (const auto* alias = inst.GetAttr<std::vector<OutputOperandAlias>>("output_to_operand_aliasing"))
        CheckOutputOperandAliasing(inst, *alias);
    CheckThreads(inst);
    absl::StatusOr<Shape> inferred = InferShape(inst);
    if (!inferred.ok()) {
      ReportInst(inst, inferred.status().message());
      return;
    }
    if (!ShapesCompatible(*inferred, inst.shape(), AllowsMixedPrecision(op))) {
      ReportInst(inst, absl::StrCat("shape mismatch: ", OpcodeName(op), " produces ", S(*inferred),
                                    " but the written shape is ", S(inst.shape())));
    }
  }

  // The comparison type must suit the operand type (XLA's rule).
  void CheckCompareType(const Instruction& inst) {
    const auto* type = inst.GetAttr<std::string>("type");
    if (type == nullptr || inst.operand_count() != 2) return;
    const PrimitiveType t = inst.operand(1)->shape().element_type();
    if (IsFloat(t)) {
      if (*type != "FLOAT" && *type != "TOTALORDER")
        ReportInst(inst, absl::StrCat("compare of ", PrimitiveTypeName(t),
                                      " operands needs type FLOAT or TOTALORDER, got ", *type));
      return;
    }
    const char* want = IsComplex(t) ? "FLOAT" : IsSignedInt(t) ? "SIGNED" : "UNSIGNED";
    if (*type != want)
      ReportInst(inst, absl::StrCat("compare of ", PrimitiveTypeName(t), " operands needs type ", want,
                                    ", got ", *type));
  }

  void CheckCompositeCall(const Instruction& inst) {
    if (!inst.AttrOr<bool>("is_composite", false)) return;
    const auto* fa = inst.GetAttr<FrontendAttributes>("frontend_attributes");
    if (fa == nullptr) {
      ReportInst(inst, "a composite call must have frontend attributes");
      return;
    }
    auto name = fa->find("composite.name");
    if (name == fa->end() || name->second.text.empty())
      ReportInst(inst, "a composite call needs a non-empty frontend attribute composite.name");
    auto attrs = fa->find("composite.attributes");
    if (attrs != fa->end() && attrs->second.text.empty())
      ReportInst(inst, "a composite call's composite.attributes must be {} or non-empty");
    auto version = fa->find("composite.version");
    if (version != fa->end()) {
      int64_t v = 0;
      if (!absl::SimpleAtoi(version->second.text, &v) || v < 0)
        ReportInst(inst, absl::StrCat("composite.version must be a non-negative integer, got ",
                                      version->second.text));
    }
  }

  // Called computations run on the caller's execution thread (async ops
  // name theirs explicitly and are checked in CheckAsyncOps).
  void CheckThreads(const Instruction& inst) {
    const Opcode op = inst.opcode();
    if (op == Opcode::kAsyncStart || op == Opcode::kAsyncUpdate || op == Opcode::kAsyncDone) return;
    const Computation* parent = inst.parent();
    if (parent == nullptr) return;
    for (const Computation* callee : inst.called_computations())
      if (callee != nullptr && callee->execution_thread() != parent->execution_thread())
        ReportInst(inst, absl::StrCat("calls computation ", callee->name(), " on execution thread ",
                                      callee->execution_thread(), " from a computation on thread ",
                                      parent->execution_thread()));
  }

  void CheckCustomCall(const Instruction& inst) {
    if (inst.HasAttr("to_apply") && inst.HasAttr("called_computations"))
      ReportInst(inst, "custom-call cannot have both to_apply and called_computations");
    if (const auto* cons = inst.GetAttr<std::vector<Shape>>("operand_layout_constraints")) {
      if (static_cast<int64_t>(cons->size()) != inst.operand_count()) {
        ReportInst(inst, absl::StrCat("operand_layout_constraints has ", cons->size(),
                                      " shapes but there are ", inst.operand_count(), " operands"));
        return;
      }
      for (int64_t i = 0; i < inst.operand_count(); ++i)
        if (!ShapesCompatible((*cons)[i], inst.operand(i)->shape()))
          ReportInst(inst, absl::StrCat("operand ", i, " shape ", S(inst.operand(i)->shape()),
                                        " is incompatible with its layout constraint ", S((*cons)[i])));
    }
    if (const auto* alias = inst.GetAttr<std::vector<OutputOperandAlias>>("output_to_operand_aliasing"))
      CheckOutputOperandAliasing(inst, *alias);
  }

  void CheckOutputOperandAliasing(const Instruction& inst, const std::vector<OutputOperandAlias>& alias) {
    for (const OutputOperandAlias& a : alias) {
      const Shape* out = inst.shape().SubShape(a.output_index);
      if (out == nullptr) {
        ReportInst(inst, absl::StrCat("output_to_operand_aliasing output index {",
                                      absl::StrJoin(a.output_index, ","), "} is not in the result shape"));
        continue;
      }
      if (a.operand < 0 || a.operand >= inst.operand_count()) {
        ReportInst(inst, absl::StrCat("output_to_operand_aliasing operand ", a.operand, " is out of range"));
        continue;
      }
      const Shape* in = inst.operand(a.operand)->shape().SubShape(a.operand_index);
      if (in == nullptr) {
        ReportInst(inst,
                   absl::StrCat("output_to_operand_aliasing operand index {",
                                absl::StrJoin(a.operand_index, ","), "} is not in operand ", a.operand));
        continue;
      }
      if (!ShapesCompatible(*out, *in))
        ReportInst(inst, absl::StrCat("output_to_operand_aliasing pairs output ", S(*out),
                                      " with operand shape ", S(*in)));
    }
  }

  // Async chains: each wrapped computation belongs to one chain; execution
  // threads agree; update/done name the same computation as their start.
  // Each async wrapped computation is called by one async-start; the
  // chain's -update/-done call the same one, on its execution thread.
  void CheckAsyncOp(const Instruction& inst) {
    const Opcode op = inst.opcode();
    if (op != Opcode::kAsyncStart && op != Opcode::kAsyncUpdate && op != Opcode::kAsyncDone) return;
    // Find the start of the chain.
    const Instruction* start = &inst;
    int guard = 0;
    while (start->opcode() != Opcode::kAsyncStart && start->operand_count() == 1 && guard++ < 10000) {
      const Instruction* prev = start->operand(0);
      if (prev->opcode() != Opcode::kAsyncStart && prev->opcode() != Opcode::kAsyncUpdate) break;
      start = prev;
    }
    if (start->opcode() != Opcode::kAsyncStart) return;  // InferShape reports it
    const auto* called = start->GetAttr<Computation*>("calls");
    if (called == nullptr || *called == nullptr) return;
    const Computation* wrapped = *called;
    if (op == Opcode::kAsyncStart) {
      auto [it, inserted] = async_owner_.emplace(wrapped, &inst);
      if (!inserted)
        ReportInst(inst, absl::StrCat("Computation ", wrapped->name(),
                                      " is called by more than one async op (also by %",
                                      it->second->name(), ")"));
    } else if (const auto* mine = inst.GetAttr<Computation*>("calls")) {
      if (*mine != wrapped)
        ReportInst(inst, absl::StrCat("async op calls ", (*mine) ? (*mine)->name() : "<null>",
                                      " but its async-start calls ", wrapped->name()));
    }
    if (const auto* thread = inst.GetAttr<std::string>("async_execution_thread")) {
      if (*thread != wrapped->execution_thread())
        ReportInst(inst, absl::StrCat("Expect async_execution_thread to be ", wrapped->execution_thread(),
                                      ", but got ", *thread));
    }
  }

  static bool OneOf(Opcode op, std::initializer_list<Opcode> ops) {
    return std::find(ops.begin(), ops.end(), op) != ops.end();
  }
  static std::string Names(std::initializer_list<Opcode> ops) {
    std::vector<std::string> n;
    for (Opcode o : ops) n.emplace_back(OpcodeName(o));
    return absl::StrJoin(n, " or ");
  }

  void ExpectSingleUser(const Instruction& inst, std::initializer_list<Opcode> users) {
    if (inst.user_count() != 1) {
      ReportInst(inst, absl::StrCat(OpcodeName(inst.opcode()), " must have exactly one user (", Names(users),
                                    "), has ", inst.user_count()));
      return;
    }
    if (!OneOf(inst.users()[0]->opcode(), users))
      ReportInst(inst,
                 absl::StrCat("the user of ", OpcodeName(inst.opcode()), " must be ", Names(users), ", got ",
                              OpcodeName(inst.users()[0]->opcode()), " %", inst.users()[0]->name()));
  }
  void ExpectOperandOf(const Instruction& inst, std::initializer_list<Opcode> ops) {
    if (inst.operand_count() != 1) return;  // reported as an operand-count error
    if (!OneOf(inst.operand(0)->opcode(), ops))
      ReportInst(inst,
                 absl::StrCat("the operand of ", OpcodeName(inst.opcode()), " must be ", Names(ops), ", got ",
                              OpcodeName(inst.operand(0)->opcode()), " %", inst.operand(0)->name()));
  }

  // XLA's pairing rules for asynchronous ops, and channel consistency of
  // send/recv with their -done ops. `in_async`: the instruction's
  // computation is an async wrapped computation.
  void CheckPairsAndChannels(const Instruction& inst, bool in_async) {
    const Opcode op = inst.opcode();
    switch (op) {
      case Opcode::kAsyncStart:
        ExpectSingleUser(inst, {Opcode::kAsyncUpdate, Opcode::kAsyncDone});
        break;
      case Opcode::kAsyncUpdate:
        ExpectOperandOf(inst, {Opcode::kAsyncStart, Opcode::kAsyncUpdate});
        ExpectSingleUser(inst, {Opcode::kAsyncUpdate, Opcode::kAsyncDone});
        break;
      case Opcode::kAsyncDone:
        ExpectOperandOf(inst, {Opcode::kAsyncStart, Opcode::kAsyncUpdate});
        break;
      case Opcode::kAllReduceStart:
        ExpectSingleUser(inst, {Opcode::kAllReduceDone});
        break;
      case Opcode::kAllReduceDone:
        ExpectOperandOf(inst, {Opcode::kAllReduceStart});
        break;
      case Opcode::kCopyStart:
        ExpectSingleUser(inst, {Opcode::kCopyDone});
        break;
      case Opcode::kCopyDone:
        ExpectOperandOf(inst, {Opcode::kCopyStart});
        break;
      case Opcode::kCollectivePermuteStart:
        ExpectSingleUser(inst, {Opcode::kCollectivePermuteDone});
        break;
      case Opcode::kCollectivePermuteDone:
        ExpectOperandOf(inst, {Opcode::kCollectivePermuteStart});
        break;
      case Opcode::kSend:
      case Opcode::kRecv: {
        if (inst.IsRoot() && in_async) break;
        const Opcode done = op == Opcode::kSend ? Opcode::kSendDone : Opcode::kRecvDone;
        ExpectSingleUser(inst, {done, Opcode::kTuple});
        if (inst.user_count() == 1 && inst.users()[0]->opcode() == done) {
          const Instruction* d = inst.users()[0];
          const int64_t* a = inst.GetAttr<int64_t>("channel_id");
          const int64_t* b = d->GetAttr<int64_t>("channel_id");
          if ((a == nullptr) != (b == nullptr) || (a && b && *a != *b))
            ReportInst(*d, absl::StrCat("channel_id differs from that of its operand %", inst.name()));
          if (inst.AttrOr<bool>("is_host_transfer", false) != d->AttrOr<bool>("is_host_transfer", false))
            ReportInst(*d,
                       absl::StrCat("is_host_transfer differs from that of its operand %", inst.name()));
        }
        break;
      }
      case Opcode::kSendDone:
        ExpectOperandOf(inst, {Opcode::kSend, Opcode::kGetTupleElement});
        break;
      case Opcode::kRecvDone:
        ExpectOperandOf(inst, {Opcode::kRecv, Opcode::kGetTupleElement});
        break;
      case Opcode::kAllReduce: {
        const bool cl = inst.AttrOr<bool>("constrain_layout", false);
        if (all_reduce_constrain_layout_ && *all_reduce_constrain_layout_ != cl)
          ReportInst(inst,
                     "the module mixes layout-constrained and unconstrained all-reduce instructions");
        all_reduce_constrain_layout_ = cl;
        break;
      }
      default:
        break;
    }
  }

  // Async wrapped computations: XLA's verifier checks their contents only on
  // the main execution thread and exempts "async barrier" computations
  // (every instruction but the root is a parameter or a get-tuple-element)
  // and collective groups (the async-start carries the `_collectives_group`
  // frontend attribute); what remains must be parameters and the root. An
  // earlier XLA revision also exempted send/recv-only computations (send,
  // recv, bitcast, parameter, tuple), still accepted here so that its dumps
  // verify. Fused computations have no dead instructions.
  void CheckCalledComputationContents(const Instruction& inst) {
    if (inst.opcode() == Opcode::kAsyncStart) {
      const auto* called = inst.GetAttr<Computation*>("calls");
      if (called == nullptr || *called == nullptr || (*called)->root() == nullptr) return;
      const Computation* w = *called;
      if (w->execution_thread() != "main") return;
      if (const auto* fa = inst.GetAttr<FrontendAttributes>("frontend_attributes"))
        if (fa->count("_collectives_group") != 0) return;
      bool barrier = true, send_recv = true;
      for (const Instruction* i : w->instructions()) {
        const Opcode o = i->opcode();
        if (i != w->root() && !OneOf(o, {Opcode::kParameter, Opcode::kGetTupleElement}))
          barrier = false;
        if (!OneOf(o, {Opcode::kSend, Opcode::kRecv, Opcode::kBitcast, Opcode::kParameter,
                       Opcode::kTuple}))
          send_recv = false;
      }
      if (!barrier && !send_recv)
        ReportComp(*w,
                   "an asynchronous computation on the main thread may contain only its "
                   "parameters, get-tuple-elements and the root instruction");
    } else if (inst.opcode() == Opcode::kFusion) {
      const auto* called = inst.GetAttr<Computation*>("calls");
      if (called == nullptr || *called == nullptr || (*called)->root() == nullptr) return;
      const Computation* f = *called;
      if (f->root()->user_count() != 0)
        ReportInst(*f->root(), "the root of a fused computation may not have users");
      for (const Instruction* i : f->instructions())
        if (i != f->root() && i->user_count() == 0)
          ReportInst(*i, absl::StrCat("non-root instruction of fused computation ", f->name(),
                                      " must have users"));
    }
  }

  // Where a header attribute is written (the `HloModule` line), else the
  // entry computation.
  SourceLoc HeaderLoc(absl::string_view attr) const {
    const std::string& text = m_.source_text();
    size_t at = text.find("HloModule");
    if (at != std::string::npos) {
      size_t line_end = text.find('\n', at);
      size_t a = text.find(std::string(attr), at);
      if (a != std::string::npos && (line_end == std::string::npos || a < line_end)) at = a;
      int line = 1, col = 1;
      for (size_t i = 0; i < at; ++i) {
        if (text[i] == '\n') {
          ++line;
          col = 1;
        } else {
          ++col;
        }
      }
      return SourceLoc{line, col};
    }
    return m_.entry() != nullptr ? m_.entry()->loc() : SourceLoc{};
  }

  void CheckHeader() {
    const Computation* entry = m_.entry();
    if (entry == nullptr || entry->root() == nullptr) return;
    const ModuleHeader& h = m_.header();
    if (h.entry_computation_layout) {
      const ProgramShape& ps = *h.entry_computation_layout;
      if (static_cast<int64_t>(ps.parameters.size()) != entry->num_parameters()) {
        Report(HeaderLoc("entry_computation_layout"),
               absl::StrCat("entry_computation_layout has ", ps.parameters.size(),
                            " parameters but the entry computation ", entry->name(), " has ",
                            entry->num_parameters()));
      } else {
        for (int64_t i = 0; i < entry->num_parameters(); ++i) {
          const Instruction* p = entry->parameter(i);
          if (p != nullptr && !ShapesCompatible(ps.parameters[i], p->shape()))
            Report(HeaderLoc("entry_computation_layout"),
                   absl::StrCat("entry_computation_layout parameter ", i, " has shape ", S(ps.parameters[i]),
                                " but parameter %", p->name(), " has shape ", S(p->shape())));
        }
      }
      if (!ShapesCompatible(ps.result, entry->root()->shape()))
        Report(
            HeaderLoc("entry_computation_layout"),
            absl::StrCat("entry_computation_layout result shape ", S(ps.result), " differs from the shape ",
                         S(entry->root()->shape()), " of the entry root %", entry->root()->name()));
    }
    std::vector<std::vector<int64_t>> seen_outputs;
    std::vector<std::pair<int64_t, std::vector<int64_t>>> seen_params;
    for (const InputOutputAlias& a : h.input_output_alias) {
      const Shape* out = entry->root()->shape().SubShape(a.output_index);
      if (out == nullptr) {
        Report(HeaderLoc("input_output_alias"),
               absl::StrCat("input_output_alias output index {", absl::StrJoin(a.output_index, ","),
                            "} is not in the entry result shape ", S(entry->root()->shape())));
        continue;
      }
      if (std::find(seen_outputs.begin(), seen_outputs.end(), a.output_index) != seen_outputs.end()) {
        Report(HeaderLoc("input_output_alias"),
               absl::StrCat("input_output_alias output index {", absl::StrJoin(a.output_index, ","),
                            "} is aliased more than once"));
        continue;
      }
      seen_outputs.push_back(a.output_index);
      if (a.parameter < 0 || a.parameter >= entry->num_parameters() ||
          entry->parameter(a.parameter) == nullptr) {
        Report(HeaderLoc("input_output_alias"),
               absl::StrCat("input_output_alias parameter ", a.parameter, " is out of range (the entry has ",
                            entry->num_parameters(), " parameters)"));
        continue;
      }
      const Shape* in = entry->parameter(a.parameter)->shape().SubShape(a.parameter_index);
      if (in == nullptr) {
        Report(HeaderLoc("input_output_alias"),
               absl::StrCat("input_output_alias parameter index {", absl::StrJoin(a.parameter_index, ","),
                            "} is not in parameter ", a.parameter, "'s shape ",
                            S(entry->parameter(a.parameter)->shape())));
        continue;
      }
      std::pair<int64_t, std::vector<int64_t>> key{a.parameter, a.parameter_index};
      if (std::find(seen_params.begin(), seen_params.end(), key) != seen_params.end())
        Report(HeaderLoc("input_output_alias"),
               absl::StrCat("input_output_alias aliases parameter ", a.parameter, " {",
                            absl::StrJoin(a.parameter_index, ","), "} to more than one output"));
      seen_params.push_back(std::move(key));
    }
    for (const BufferDonor& d : h.buffer_donor) {
      if (d.parameter < 0 || d.parameter >= entry->num_parameters() ||
          entry->parameter(d.parameter) == nullptr) {
        Report(HeaderLoc("buffer_donor"),
               absl::StrCat("buffer_donor parameter ", d.parameter, " is out of range"));
        continue;
      }
      std::pair<int64_t, std::vector<int64_t>> key{d.parameter, d.parameter_index};
      if (std::find(seen_params.begin(), seen_params.end(), key) != seen_params.end())
        Report(HeaderLoc("buffer_donor"),
               absl::StrCat("buffer_donor parameter ", d.parameter, " {",
                            absl::StrJoin(d.parameter_index, ","), "} is also aliased to an output"));
      if (entry->parameter(d.parameter)->shape().SubShape(d.parameter_index) == nullptr)
        Report(HeaderLoc("buffer_donor"),
               absl::StrCat("buffer_donor parameter index {", absl::StrJoin(d.parameter_index, ","),
                            "} is not in parameter ", d.parameter, "'s shape"));
    }
  }

  const Module& m_;
  absl::flat_hash_set<const Computation*> comps_;
  // Per computation, the computations its instructions call (in the module).
  absl::flat_hash_map<const Computation*, std::vector<Computation*>> callees_;
  // Computations called by an async-start, and the async-start of each.
  absl::flat_hash_set<const Computation*> async_computations_;
  absl::flat_hash_map<const Computation*, const Instruction*> async_owner_;
  // Whether the all-reduces seen so far are layout-constrained.
  std::optional<bool> all_reduce_constrain_layout_;
  std::vector<std::string> diags_;
  size_t dropped_ = 0;
  bool structural_error_ = false;
};

}  // namespace

absl::Status VerifyModule(const Module& module) { return Verifier(module).Run(); }

}  // namespace hlo
