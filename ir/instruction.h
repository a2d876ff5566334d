// An HLO instruction: opcode, result shape, operands, attributes. Owned by
// its Computation. Operand/user and control-edge lists are kept consistent
// by the only functions allowed to edit them (below and in Computation).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "ir/attribute.h"
#include "ir/literal.h"
#include "ir/opcode.h"
#include "ir/shape.h"

namespace hlo {

class Computation;

// 1-based line and column in the source text; line 0 = unknown.
struct SourceLoc {
  int line = 0;
  int col = 0;
};

class Instruction {
 public:
  Instruction(Opcode opcode, std::string name, Shape shape);
  Instruction(const Instruction&) = delete;
  Instruction& operator=(const Instruction&) = delete;

  Opcode opcode() const { return opcode_; }
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  const Shape& shape() const { return shape_; }
  Shape& mutable_shape() { return shape_; }
  void set_shape(Shape s) { shape_ = std::move(s); }
  Computation* parent() const { return parent_; }
  SourceLoc loc() const { return loc_; }
  void set_loc(SourceLoc l) { loc_ = l; }
  int64_t unique_id() const { return unique_id_; }

  // --- operands and users ---
  const std::vector<Instruction*>& operands() const { return operands_; }
  Instruction* operand(int64_t i) const { return operands_[i]; }
  int64_t operand_count() const { return static_cast<int64_t>(operands_.size()); }
  const std::vector<Instruction*>& users() const { return users_; }
  int64_t user_count() const { return static_cast<int64_t>(users_.size()); }
  void AppendOperand(Instruction* op);
  void ReserveOperands(size_t n) { operands_.reserve(n); }
  void ReplaceOperand(int64_t i, Instruction* new_op);
  // Replaces every use of this instruction (operands of users and the root
  // of the parent computation) by `other`. Shapes must be compatible.
  absl::Status ReplaceAllUsesWith(Instruction* other);
  void RemoveAllOperands();

  // --- control dependencies ---
  const std::vector<Instruction*>& control_predecessors() const {
    return control_ != nullptr ? control_->predecessors : NoInstructions();
  }
  const std::vector<Instruction*>& control_successors() const {
    return control_ != nullptr ? control_->successors : NoInstructions();
  }
  void AddControlDependencyTo(Instruction* successor);
  void RemoveControlDependencyTo(Instruction* successor);
  void DropAllControlDeps();

  // --- opcode-specific payloads ---
  int64_t parameter_number() const { return parameter_number_; }
  void set_parameter_number(int64_t n) { parameter_number_ = n; }
  bool has_literal() const { return literal_ != nullptr; }
  const Literal& literal() const { return *literal_; }
  Literal& mutable_literal() { return *literal_; }
  void set_literal(Literal lit) { literal_ = std::make_unique<Literal>(std::move(lit)); }

  // --- attributes (names and kinds per attr_spec.h) ---
  const std::vector<std::pair<std::string, AttrValue>>& attrs() const { return attrs_; }
  bool HasAttr(absl::string_view name) const { return FindAttr(name) != nullptr; }
  const AttrValue* FindAttr(absl::string_view name) const;
  // Typed access: nullptr if absent or of another type.
  template <typename T>
  const T* GetAttr(absl::string_view name) const {
    const AttrValue* v = FindAttr(name);
    return v ? AttrGet<T>(*v) : nullptr;
  }
  // Convenience with a default.
  template <typename T>
  T AttrOr(absl::string_view name, T def) const {
    const T* v = GetAttr<T>(name);
    return v ? *v : def;
  }
  void SetAttr(absl::string_view name, AttrValue value);
  // Replaces the whole attribute list at once (names must be unique). Used
  // by the parser to hand over attributes without per-entry copies.
  void set_attrs(std::vector<std::pair<std::string, AttrValue>> attrs) {
    attrs_ = std::move(attrs);
    UpdateCallsFlag();
  }
  void RemoveAttr(absl::string_view name);

  // Every computation this instruction calls (to_apply, body, branches, ...)
  // in attribute order.
  std::vector<Computation*> called_computations() const;
  // Rewrites every reference to `from` in computation attributes to `to`.
  void ReplaceCalledComputation(Computation* from, Computation* to);

  bool IsRoot() const;
  // Side effect by opcode, or custom-call with custom_call_has_side_effect.
  bool HasSideEffect() const;

 private:
  friend class Computation;
  Opcode opcode_;
  std::string name_;
  Shape shape_;
  Computation* parent_ = nullptr;
  SourceLoc loc_;
  int64_t unique_id_ = -1;
  int64_t slot_ = -1;  // index in the parent's instruction array
  // Whether any attribute holds a computation: lets called_computations()
  // skip the attribute list of the (many) instructions that call nothing.
  bool may_call_ = false;
  void UpdateCallsFlag();
  std::vector<Instruction*> operands_;
  std::vector<Instruction*> users_;
  // Control edges, allocated only for the few instructions that have any.
  struct ControlEdges {
    std::vector<Instruction*> predecessors, successors;
  };
  std::unique_ptr<ControlEdges> control_;
  ControlEdges& MutableControl() {
    if (control_ == nullptr) control_ = std::make_unique<ControlEdges>();
    return *control_;
  }
  static const std::vector<Instruction*>& NoInstructions();
  int64_t parameter_number_ = -1;
  std::unique_ptr<Literal> literal_;
  std::vector<std::pair<std::string, AttrValue>> attrs_;
};

}  // namespace hlo
