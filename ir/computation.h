// A computation: an ordered list of instructions it owns, its parameters and
// its root. Creation order is kept; a scheduled module's text order is its
// schedule.
#pragma once

#include <functional>
#include <list>
#include <memory>
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

  // Takes ownership; parameters are registered by parameter_number().
  Instruction* AddInstruction(std::unique_ptr<Instruction> inst);
  // Removes an instruction that has no users (and is not the root);
  // drops its operand edges and control edges.
  absl::Status RemoveInstruction(Instruction* inst);
  // Removes instructions with no users and no side effects, repeatedly.
  // Returns the number removed. Parameters and the root are kept.
  int64_t RemoveDeadInstructions();

  // Instructions in creation (text) order.
  std::vector<Instruction*> instructions() const;
  int64_t instruction_count() const { return static_cast<int64_t>(list_.size()); }
  // Operands (and control predecessors) before users; roots of unused
  // instructions in creation order. Stable for a given graph.
  std::vector<Instruction*> MakePostOrder() const;

  Instruction* root() const { return root_; }
  void set_root(Instruction* r) { root_ = r; }
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
  std::list<std::unique_ptr<Instruction>> list_;
  absl::flat_hash_map<const Instruction*, std::list<std::unique_ptr<Instruction>>::iterator> where_;
  std::vector<Instruction*> parameters_;
  Instruction* root_ = nullptr;
  int64_t next_id_ = 0;
};

}  // namespace hlo
