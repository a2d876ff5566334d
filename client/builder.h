// XlaBuilder-style construction of HLO modules: the calls and argument
// orders of the operation-semantics document (Add(lhs, rhs,
// broadcast_dimensions), BroadcastInDim, ConvWithGeneralPadding, ...),
// emitting instructions of our IR. Result shapes come from the verifier's
// own rules (ir/shape_inference.h: InferShape on the instruction being
// added), so a builder-made module verifies by construction. Implicit
// broadcasting of binary ops (client/broadcasting.h) is lowered to explicit
// reshape/broadcast instructions. The first shape error is kept and
// returned by Build(); every later call on an invalid operand is a no-op.
// The free functions (ops.h) are the public surface; see docs/builder.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/attribute.h"
#include "ir/module.h"

namespace hlo::client {

class XlaBuilder;

// A channel for send/recv and cross-module collectives (its channel_id).
struct ChannelHandle {
  int64_t handle = 0;
};

// A value being built: an instruction of one builder's computation. A
// default-constructed or failed op is invalid (the builder holds the error).
class XlaOp {
 public:
  XlaOp() = default;
  bool valid() const { return inst_ != nullptr; }
  XlaBuilder* builder() const { return builder_; }
  Instruction* instruction() const { return inst_; }

 private:
  friend class XlaBuilder;
  XlaOp(Instruction* inst, XlaBuilder* b) : inst_(inst), builder_(b) {}
  Instruction* inst_ = nullptr;
  XlaBuilder* builder_ = nullptr;
};

// A built computation and the module that owns it (shared: a sub-builder's
// computations live in its parent's module). For a top-level builder the
// computation is the module's entry.
class XlaComputation {
 public:
  XlaComputation() = default;
  XlaComputation(std::shared_ptr<Module> module, Computation* comp)
      : module_(std::move(module)), comp_(comp) {}
  const Module& module() const { return *module_; }
  std::shared_ptr<Module> shared_module() const { return module_; }
  Computation* computation() const { return comp_; }
  const std::string& name() const { return comp_->name(); }
  // (parameter shapes) -> root shape.
  ProgramShape GetProgramShape() const;

 private:
  std::shared_ptr<Module> module_;
  Computation* comp_ = nullptr;
};

class XlaBuilder {
 public:
  explicit XlaBuilder(std::string computation_name);
  ~XlaBuilder();
  XlaBuilder(const XlaBuilder&) = delete;
  XlaBuilder& operator=(const XlaBuilder&) = delete;

  const std::string& name() const { return name_; }

  // A builder for a computation called by this one (reducer, body, ...).
  // It adds its computation to this builder's module when built.
  std::unique_ptr<XlaBuilder> CreateSubBuilder(const std::string& computation_name);

  // Finishes the computation with the last added instruction (or `root`)
  // as its root. Returns the first error recorded, if any. A top-level
  // builder's computation becomes the module's entry; its module is then
  // complete (XlaComputation::module()).
  absl::StatusOr<XlaComputation> Build();
  absl::StatusOr<XlaComputation> Build(XlaOp root);
  // Build() and hand over the module (top-level builders only).
  absl::StatusOr<std::shared_ptr<Module>> BuildModule();

  // A channel id not used before in this builder's module (1, 2, ...).
  ChannelHandle CreateChannelHandle();

  // Frontend attributes every instruction added from now on gets (XLA's
  // XlaBuilder::SetFrontendAttributes); an instruction's own attributes of
  // the same key win. Returns the previous set. Per builder: sub-builders
  // start with none.
  FrontendAttributes SetFrontendAttributes(FrontendAttributes attributes);
  void ClearFrontendAttributes() { frontend_attributes_.clear(); }
  const FrontendAttributes& frontend_attributes() const { return frontend_attributes_; }

  // The first error recorded (OK if none).
  const absl::Status& first_error() const { return first_error_; }
  // Records `error` unless one is recorded already; returns an invalid op.
  XlaOp ReportError(const absl::Status& error);

  absl::StatusOr<Shape> GetShape(XlaOp op) const;

  // --- the core every op goes through ---
  // Adds `opcode` over `operands` with `attrs`. `written_shape` is the
  // result shape for the opcodes whose shape the text must spell
  // (reshape, broadcast, convert, iota, rng, ...); ignored otherwise. The
  // result shape is InferShape's. On error (bad operand, shape rule),
  // records "<op_name>: <rule's message>; operand shapes: ..." and returns
  // an invalid op. `op_name` is the builder call (e.g. "Add").
  XlaOp AddInstruction(absl::string_view op_name, Opcode opcode, absl::Span<const XlaOp> operands,
                       std::vector<std::pair<std::string, AttrValue>> attrs = {},
                       const Shape& written_shape = Shape());
  // Parameters and constants (no operands).
  XlaOp AddParameter(int64_t number, const Shape& shape, const std::string& name);
  XlaOp AddConstant(Literal literal);
  // The computation to call for `comp`: its own if it belongs to this
  // builder's module, else a copy imported into it (with its callees).
  absl::StatusOr<Computation*> UseComputation(const XlaComputation& comp);

  // True when every op is valid and belongs to this builder; else records
  // the error (operand from another builder) and returns false. Invalid
  // operands (an earlier error) record nothing new.
  bool CheckOperands(absl::string_view op_name, absl::Span<const XlaOp> operands);

 private:
  struct State;
  XlaBuilder(std::string name, std::shared_ptr<State> state, XlaBuilder* parent);
  std::string UniqueInstructionName(absl::string_view base);
  std::string UniqueComputationName(absl::string_view base);
  // Adds the builder's frontend attributes to `inst`'s own.
  void ApplyFrontendAttributes(Instruction& inst) const;

  std::string name_;
  std::shared_ptr<State> state_;
  XlaBuilder* parent_ = nullptr;
  std::unique_ptr<Computation> comp_;
  Instruction* last_ = nullptr;
  bool built_ = false;
  absl::Status first_error_;
  FrontendAttributes frontend_attributes_;
};

// Sets a builder's frontend attributes for a scope and restores the
// previous ones at its end (XLA's XlaScopedFrontendAttributesAssignment).
class XlaScopedFrontendAttributesAssignment {
 public:
  XlaScopedFrontendAttributesAssignment(XlaBuilder* builder, FrontendAttributes attributes)
      : builder_(builder), saved_(builder->SetFrontendAttributes(std::move(attributes))) {}
  ~XlaScopedFrontendAttributesAssignment() { builder_->SetFrontendAttributes(std::move(saved_)); }
  XlaScopedFrontendAttributesAssignment(const XlaScopedFrontendAttributesAssignment&) = delete;
  XlaScopedFrontendAttributesAssignment& operator=(const XlaScopedFrontendAttributesAssignment&) = delete;

 private:
  XlaBuilder* builder_;
  FrontendAttributes saved_;
};

}  // namespace hlo::client
