#include "analysis/extract.h"

#include <deque>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/call_graph_copy.h"
#include "ir/verifier.h"

namespace hlo {
namespace {

using InstrSet = absl::flat_hash_set<const Instruction*>;

// Instructions within `limit` steps of `start` along `next` (-1 = no limit).
template <typename Next>
void Walk(const Instruction* start, int limit, Next next, InstrSet* kept) {
  std::deque<std::pair<const Instruction*, int>> queue{{start, 0}};
  while (!queue.empty()) {
    auto [i, d] = queue.front();
    queue.pop_front();
    if (limit >= 0 && d >= limit) continue;
    for (const Instruction* n : next(i))
      if (kept->insert(n).second) queue.push_back({n, d + 1});
  }
}

std::unique_ptr<Instruction> CopyOf(const Instruction& i) {
  auto copy = std::make_unique<Instruction>(i.opcode(), i.name(), i.shape());
  copy->set_loc(i.loc());
  copy->set_parameter_number(i.parameter_number());
  if (i.has_literal()) copy->set_literal(i.literal());
  for (const auto& [n, v] : i.attrs()) copy->SetAttr(n, v);
  return copy;
}

// A name no instruction or computation of `module` has.
std::string FreshName(const Module& module, const std::string& base) {
  absl::flat_hash_set<std::string> used;
  for (const Computation* c : module.computations()) {
    used.insert(c->name());
    for (const Instruction* i : c->instructions()) used.insert(i->name());
  }
  std::string name = base;
  for (int n = 1; used.contains(name); ++n) name = absl::StrCat(base, ".", n);
  return name;
}

class Extractor {
 public:
  Extractor(const Computation& comp, const InstrSet& kept, Module& dst)
      : comp_(comp), kept_(kept), dst_(dst), entry_(std::make_unique<Computation>("")) {}

  std::unique_ptr<Computation> Build(const std::string& entry_name, const std::string& root_name) {
    entry_->set_name(entry_name);
    std::vector<Instruction*> sinks;
    for (Instruction* i : comp_.MakePostOrder()) {
      if (!kept_.contains(i)) continue;
      Instruction* copy = Copy(*i);
      bool used = false;
      for (const Instruction* u : i->users()) used = used || kept_.contains(u);
      if (!used) sinks.push_back(copy);
    }
    if (sinks.size() == 1) {
      entry_->set_root(sinks[0]);
    } else {
      std::vector<Shape> shapes;
      for (const Instruction* s : sinks) shapes.push_back(s->shape());
      auto tuple = std::make_unique<Instruction>(Opcode::kTuple, root_name, Shape::Tuple(shapes));
      for (Instruction* s : sinks) tuple->AppendOperand(s);
      entry_->set_root(entry_->AddInstruction(std::move(tuple)));
    }
    return std::move(entry_);
  }

 private:
  Instruction* Copy(const Instruction& i) {
    std::unique_ptr<Instruction> copy;
    if (i.opcode() == Opcode::kParameter) {
      copy = std::make_unique<Instruction>(Opcode::kParameter, i.name(), i.shape());
      copy->set_parameter_number(next_parameter_++);
    } else {
      copy = CopyOf(i);
      for (const Instruction* op : i.operands()) copy->AppendOperand(Operand(*op));
      for (Computation* called : i.called_computations())
        copy->ReplaceCalledComputation(called, CopyCallGraph(called, dst_, callees_));
    }
    Instruction* raw = entry_->AddInstruction(std::move(copy));
    for (const Instruction* pred : i.control_predecessors()) {
      auto it = copies_.find(pred);
      if (it != copies_.end()) it->second->AddControlDependencyTo(raw);
    }
    copies_[&i] = raw;
    return raw;
  }

  // A kept operand's copy, or what stands in for a value from outside:
  // the same constant, a fresh token, or a new parameter (one per value).
  Instruction* Operand(const Instruction& op) {
    auto it = copies_.find(&op);
    if (it != copies_.end()) return it->second;
    std::unique_ptr<Instruction> stand_in;
    if (op.opcode() == Opcode::kConstant) {
      stand_in = CopyOf(op);
    } else if (op.shape().IsToken()) {
      stand_in = std::make_unique<Instruction>(Opcode::kAfterAll, op.name(), op.shape());
    } else {
      stand_in = std::make_unique<Instruction>(Opcode::kParameter, op.name(), op.shape());
      stand_in->set_parameter_number(next_parameter_++);
    }
    Instruction* raw = entry_->AddInstruction(std::move(stand_in));
    copies_[&op] = raw;
    return raw;
  }

  const Computation& comp_;
  const InstrSet& kept_;
  Module& dst_;
  std::unique_ptr<Computation> entry_;
  absl::flat_hash_map<const Instruction*, Instruction*> copies_;
  ComputationMap callees_;
  int64_t next_parameter_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Module>> ExtractModule(const Module& module, const ExtractOptions& options) {
  const Instruction* center = nullptr;
  for (const Computation* c : module.computations())
    if (center == nullptr) center = c->FindInstruction(options.instruction);
  if (center == nullptr)
    return absl::NotFoundError(absl::StrCat("--extract: no instruction named '", options.instruction, "'"));
  InstrSet kept{center};
  Walk(center, options.height, [](const Instruction* i) { return i->operands(); }, &kept);
  Walk(center, options.depth, [](const Instruction* i) { return i->users(); }, &kept);

  auto out = std::make_unique<Module>(absl::StrCat("extracted_", module.name()));
  out->header().replica_count = module.header().replica_count;
  out->header().num_partitions = module.header().num_partitions;
  Extractor extractor(*center->parent(), kept, *out);
  std::unique_ptr<Computation> entry =
      extractor.Build(FreshName(module, "extracted"), FreshName(module, "extracted_root"));
  out->set_entry(out->AddComputation(std::move(entry)));
  absl::Status verified = VerifyModule(*out);
  if (!verified.ok())
    return absl::InternalError(absl::StrCat("the extracted module does not verify:\n", verified.message()));
  return out;
}

}  // namespace hlo
