// A computation: an ordered list of instructions it owns, its parameters and
// its root. Creation order is kept; a scheduled module's text order is its
// schedule.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "ir/instruction.h"

namespace hlo {

class Module;

class Computation {
 public:
  explicit Computation(std::string name) : name_(std::move(name)) {}
  Computation(const Computation&) = delete;
  Computation& operator=(const Computation&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  Module* parent() const { return parent_; }
  SourceLoc loc() const { return loc_; }
  void set_loc(SourceLoc l) { loc_ = l; }
  // "main" unless the text says `, execution_thread="..."`.
  const std::string& execution_thread() const { return execution_thread_; }
  void set_execution_thread(std::string t) { execution_thread_ = std::move(t); }

  // Room for `n` more instructions without growing the instruction array.
  void ReserveInstructions(size_t n) { slots_.reserve(slots_.size() + n); }
  // Takes ownership; parameters are registered by parameter_number().
  Instruction* AddInstruction(std::unique_ptr<Instruction> inst);
  // Removes an instruction that has no users (and is not the root);
  // drops its operand edges and control edges.
  absl::Status RemoveInstruction(Instruction* inst);
  // Removes instructions with no users and no side effects, repeatedly.
  // Returns the number removed. Parameters and the root are kept.
  int64_t RemoveDeadInstructions();

  // Moves `inst` in creation order to just after `anchor` (both of this
  // computation): a pass that adds an instruction to a scheduled module
  // (printed in creation order) puts it where its operands are defined.
  absl::Status MoveAfter(Instruction* inst, const Instruction* anchor);

  // Instructions in creation (text) order.
  std::vector<Instruction*> instructions() const;
  int64_t instruction_count() const { return live_; }
  // Operands (and control predecessors) before users; roots of unused
  // instructions in creation order. Stable for a given graph. Cached until
  // the graph changes: passes ask for it far more often than they edit.
  std::vector<Instruction*> MakePostOrder() const;
  // Drops the cached post order; every edit of the instruction list, of an
  // operand/control edge or of the root calls it.
  void InvalidateOrder() { ++generation_; }

  Instruction* root() const { return root_; }
  void set_root(Instruction* r) {
    root_ = r;
    InvalidateOrder();
  }
  const std::vector<Instruction*>& parameters() const { return parameters_; }
  Instruction* parameter(int64_t i) const { return parameters_[i]; }
  int64_t num_parameters() const { return static_cast<int64_t>(parameters_.size()); }
  Instruction* FindInstruction(absl::string_view name) const;

  // Deep copy into a new computation named `new_name` (not added to a module);
  // called computations are shared, not copied.
  std::unique_ptr<Computation> Clone(const std::string& new_name) const;

 private:
  friend class Module;
  std::string name_;
  Module* parent_ = nullptr;
  SourceLoc loc_;
  std::string execution_thread_ = "main";
  // Owned instructions in creation order; a removed one leaves a null slot
  // (each instruction knows its slot) until the holes outnumber the living
  // and Compact() closes them. A contiguous array rather than a linked list:
  // walks over big computations stay cache-friendly.
  std::vector<std::unique_ptr<Instruction>> slots_;
  int64_t live_ = 0;
  void Compact();
  std::vector<Instruction*> ComputePostOrder() const;

  uint64_t generation_ = 0;
  // The post-order cache (mutable: filled by const readers, which may run
  // on several threads at once, e.g. devices of one module in the backend).
  mutable std::mutex order_mu_;
  mutable std::vector<Instruction*> order_cache_;
  mutable uint64_t order_generation_ = ~uint64_t{0};
  std::vector<Instruction*> parameters_;
  Instruction* root_ = nullptr;
  int64_t next_id_ = 0;
};

}  // namespace hlo
