// The builder core: naming, error recording, adding instructions with
// shapes from ir/shape_inference, building and importing computations.
#include "client/builder.h"

#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/instruction_name.h"
#include "ir/literal.h"
#include "ir/shape_inference.h"

namespace hlo::client {

// Shared by a builder and its sub-builders: one module, one name space.
struct XlaBuilder::State {
  std::shared_ptr<Module> module;
  int64_t next_id = 1;
  int64_t next_channel = 1;
  std::set<std::string> computation_names;
  // Imported computations of other modules, by their address there.
  absl::flat_hash_map<const Computation*, Computation*> imported;
};

ProgramShape XlaComputation::GetProgramShape() const {
  ProgramShape ps;
  for (const Instruction* p : comp_->parameters()) {
    ps.parameters.push_back(p->shape());
    ps.parameter_names.push_back(p->name());
  }
  ps.result = comp_->root()->shape();
  return ps;
}

XlaBuilder::XlaBuilder(std::string computation_name)
    : XlaBuilder(std::move(computation_name), std::make_shared<State>(), nullptr) {}

XlaBuilder::XlaBuilder(std::string name, std::shared_ptr<State> state, XlaBuilder* parent)
    : state_(std::move(state)), parent_(parent) {
  if (state_->module == nullptr) state_->module = std::make_shared<Module>(SanitizedInstructionName(name));
  name_ = UniqueComputationName(name);
  comp_ = std::make_unique<Computation>(name_);
}

XlaBuilder::~XlaBuilder() = default;

std::unique_ptr<XlaBuilder> XlaBuilder::CreateSubBuilder(const std::string& computation_name) {
  return std::unique_ptr<XlaBuilder>(new XlaBuilder(computation_name, state_, this));
}

std::string XlaBuilder::UniqueInstructionName(absl::string_view base) {
  std::string b = SanitizedInstructionName(base);
  if (b.empty()) b = "op";
  return absl::StrCat(b, ".", state_->next_id++);
}

std::string XlaBuilder::UniqueComputationName(absl::string_view base) {
  std::string b = SanitizedInstructionName(base);
  if (b.empty()) b = "computation";
  std::string n = b;
  while (state_->computation_names.count(n)) n = absl::StrCat(b, ".", state_->next_id++);
  state_->computation_names.insert(n);
  return n;
}

ChannelHandle XlaBuilder::CreateChannelHandle() { return ChannelHandle{state_->next_channel++}; }

FrontendAttributes XlaBuilder::SetFrontendAttributes(FrontendAttributes attributes) {
  std::swap(frontend_attributes_, attributes);
  return attributes;
}

void XlaBuilder::ApplyFrontendAttributes(Instruction& inst) const {
  if (frontend_attributes_.empty()) return;
  FrontendAttributes merged = frontend_attributes_;
  if (const auto* own = inst.GetAttr<FrontendAttributes>("frontend_attributes"))
    for (const auto& [key, value] : *own) merged[key] = value;
  inst.SetAttr("frontend_attributes", std::move(merged));
}

XlaOp XlaBuilder::ReportError(const absl::Status& error) {
  if (first_error_.ok()) first_error_ = error;
  return XlaOp();
}

bool XlaBuilder::CheckOperands(absl::string_view op_name, absl::Span<const XlaOp> operands) {
  if (built_) {
    ReportError(absl::FailedPreconditionError(
        absl::StrCat(op_name, ": builder '", name_, "' has already been built")));
    return false;
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    const XlaOp& op = operands[i];
    if (op.builder_ != nullptr && op.builder_ != this) {
      ReportError(absl::InvalidArgumentError(
          absl::StrCat(op_name, ": operand ", i, " belongs to builder '", op.builder_->name(),
                       "', not to '", name_, "'")));
      return false;
    }
    if (!op.valid()) {
      // An earlier call failed (and is recorded); a default-constructed op
      // is the caller's mistake.
      if (first_error_.ok())
        ReportError(absl::InvalidArgumentError(absl::StrCat(op_name, ": operand ", i, " is not a valid op")));
      return false;
    }
  }
  return true;
}

absl::StatusOr<Shape> XlaBuilder::GetShape(XlaOp op) const {
  if (!op.valid()) return absl::InvalidArgumentError("GetShape: invalid op");
  return op.inst_->shape();
}

XlaOp XlaBuilder::AddInstruction(absl::string_view op_name, Opcode opcode, absl::Span<const XlaOp> operands,
                                 std::vector<std::pair<std::string, AttrValue>> attrs,
                                 const Shape& written_shape) {
  if (!CheckOperands(op_name, operands)) return XlaOp();
  auto inst = std::make_unique<Instruction>(opcode, UniqueInstructionName(OpcodeName(opcode)), written_shape);
  if (!attrs.empty()) inst->set_attrs(std::move(attrs));
  ApplyFrontendAttributes(*inst);
  for (const XlaOp& op : operands) inst->AppendOperand(op.inst_);
  absl::StatusOr<Shape> shape = InferShape(*inst);
  if (!shape.ok()) {
    std::vector<std::string> shapes;
    for (const XlaOp& op : operands) shapes.push_back(ShapeToMessageString(op.inst_->shape()));
    inst->RemoveAllOperands();  // drop the user edges before the instruction goes
    return ReportError(absl::InvalidArgumentError(absl::StrCat(
        op_name, ": ", shape.status().message(), "; operand shapes: (", absl::StrJoin(shapes, ", "), ")")));
  }
  // Results take the default layout, except a bitcast's: it reinterprets
  // the operand's buffer, so the layout written for it is its meaning.
  if (opcode == Opcode::kBitcast && written_shape.IsArray() && written_shape.has_layout()) *shape = written_shape;
  inst->set_shape(*std::move(shape));
  last_ = comp_->AddInstruction(std::move(inst));
  return XlaOp(last_, this);
}

XlaOp XlaBuilder::AddParameter(int64_t number, const Shape& shape, const std::string& name) {
  if (!CheckOperands("Parameter", {})) return XlaOp();
  if (number < 0) return ReportError(absl::InvalidArgumentError(absl::StrCat("Parameter: negative number ", number)));
  if (number < comp_->num_parameters() && comp_->parameter(number) != nullptr)
    return ReportError(absl::InvalidArgumentError(
        absl::StrCat("Parameter: parameter ", number, " of '", name_, "' is defined twice")));
  if (!shape.IsValid() && !shape.IsTuple())
    return ReportError(absl::InvalidArgumentError("Parameter: invalid shape"));
  Shape s = shape;
  if (s.IsArray() && !s.has_layout()) s.FillDefaultLayoutIfMissing();
  std::string n = name.empty() ? UniqueInstructionName("parameter") : SanitizedInstructionName(name);
  // Names are unique in the module: suffix a user's name seen before.
  if (!name.empty()) n = UniqueInstructionName(n);
  auto inst = std::make_unique<Instruction>(Opcode::kParameter, n, s);
  inst->set_parameter_number(number);
  ApplyFrontendAttributes(*inst);
  last_ = comp_->AddInstruction(std::move(inst));
  return XlaOp(last_, this);
}

XlaOp XlaBuilder::AddConstant(Literal literal) {
  if (!CheckOperands("ConstantLiteral", {})) return XlaOp();
  if (!literal.shape().IsArray() || literal.shape().IsTuple())
    return ReportError(absl::InvalidArgumentError("ConstantLiteral: only array literals are supported"));
  auto inst = std::make_unique<Instruction>(Opcode::kConstant, UniqueInstructionName("constant"), literal.shape());
  inst->set_literal(std::move(literal));
  ApplyFrontendAttributes(*inst);
  last_ = comp_->AddInstruction(std::move(inst));
  return XlaOp(last_, this);
}

absl::StatusOr<Computation*> XlaBuilder::UseComputation(const XlaComputation& comp) {
  if (comp.computation() == nullptr) return absl::InvalidArgumentError("empty XlaComputation");
  if (comp.shared_module() == state_->module) return comp.computation();
  // Another builder's module: copy the computation and everything it calls
  // (callees first) into ours, once.
  std::function<Computation*(Computation*)> import = [&](Computation* c) -> Computation* {
    auto it = state_->imported.find(c);
    if (it != state_->imported.end()) return it->second;
    std::vector<std::pair<Computation*, Computation*>> callees;
    for (Instruction* inst : c->instructions())
      for (Computation* callee : inst->called_computations()) callees.emplace_back(callee, import(callee));
    std::unique_ptr<Computation> copy = c->Clone(UniqueComputationName(c->name()));
    for (Instruction* inst : copy->instructions())
      for (const auto& [from, to] : callees) inst->ReplaceCalledComputation(from, to);
    for (Instruction* inst : copy->instructions()) inst->set_name(UniqueInstructionName(inst->name()));
    Computation* added = state_->module->AddComputation(std::move(copy));
    state_->imported[c] = added;
    return added;
  };
  return import(comp.computation());
}

absl::StatusOr<XlaComputation> XlaBuilder::Build() { return Build(XlaOp(last_, this)); }

absl::StatusOr<XlaComputation> XlaBuilder::Build(XlaOp root) {
  if (!first_error_.ok()) return first_error_;
  if (built_) return absl::FailedPreconditionError(absl::StrCat("builder '", name_, "' was built already"));
  if (root.builder_ != this || !root.valid())
    return absl::InvalidArgumentError(absl::StrCat("Build: the root of '", name_, "' is not an op of this builder"));
  for (int64_t i = 0; i < comp_->num_parameters(); ++i)
    if (comp_->parameter(i) == nullptr)
      return absl::InvalidArgumentError(
          absl::StrCat("Build: parameter ", i, " of '", name_, "' is missing (parameters must be numbered 0..n-1)"));
  comp_->set_root(root.inst_);
  built_ = true;
  Computation* c = state_->module->AddComputation(std::move(comp_));
  if (parent_ == nullptr) state_->module->set_entry(c);
  return XlaComputation(state_->module, c);
}

absl::StatusOr<std::shared_ptr<Module>> XlaBuilder::BuildModule() {
  if (parent_ != nullptr)
    return absl::FailedPreconditionError("BuildModule: only a top-level builder makes a module");
  absl::StatusOr<XlaComputation> c = Build();
  if (!c.ok()) return c.status();
  return c->shared_module();
}

}  // namespace hlo::client
