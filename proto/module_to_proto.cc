// Module -> HloModuleProto (proto/module_proto.h).
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ir/printer.h"
#include "proto/module_proto.h"
#include "proto/shape_literal_proto.h"
#include "proto/stack_frames_proto.h"
#include "proto/typed_fields.h"

namespace hlo::proto {
namespace {

// Splits PrintInstruction's `%name = SHAPE OPCODE(ARGS)TAIL` into the opcode
// as printed and TAIL (the attributes, each `, name=value`).
absl::Status SplitPrinted(const Instruction& inst, std::string* printed_opcode, std::string* tail) {
  PrintOptions options = PrintOptions::Long();
  options.print_control_dependencies = false;  // ids in the typed field
  const std::string line = PrintInstruction(inst, options);
  const std::string head = absl::StrCat("%", inst.name(), " = ", ShapeToString(inst.shape()), " ");
  if (!absl::StartsWith(line, head))
    return absl::InternalError(absl::StrCat("unexpected printed form of ", inst.name(), ": ", line));
  const size_t open = line.find('(', head.size());
  if (open == std::string::npos)
    return absl::InternalError(absl::StrCat("no operand list in the printed form of ", inst.name()));
  *printed_opcode = line.substr(head.size(), open - head.size());
  // The matching parenthesis (constants' literals nest them; no strings
  // appear inside an operand list).
  int depth = 0;
  size_t i = open;
  for (; i < line.size(); ++i) {
    if (line[i] == '(') ++depth;
    if (line[i] == ')' && --depth == 0) break;
  }
  if (i == line.size())
    return absl::InternalError(absl::StrCat("unbalanced operand list in the printed form of ", inst.name()));
  *tail = line.substr(i + 1);
  return absl::OkStatus();
}

void ProgramShapeOf(const Computation& comp, xla::ProgramShapeProto* out, absl::Status* st) {
  for (const Instruction* p : comp.parameters()) {
    if (p == nullptr) continue;
    if (st->ok()) *st = ShapeToProto(p->shape(), out->add_parameters());
    out->add_parameter_names(p->name());
  }
  if (comp.root() != nullptr && st->ok()) *st = ShapeToProto(comp.root()->shape(), out->mutable_result());
}

// The module header line after `HloModule NAME`, and the stack-frame
// tables' text (both as the printer writes them).
absl::Status HeaderTexts(const Module& module, xla::HloToolchainModule* out) {
  const std::string text = PrintModule(module);
  const size_t eol = text.find('\n');
  const std::string first = text.substr(0, eol);
  const std::string prefix = absl::StrCat("HloModule ", module.name());
  if (!absl::StartsWith(first, prefix))
    return absl::InternalError(absl::StrCat("unexpected module header: ", first));
  out->set_header_attributes(first.substr(prefix.size()));
  if (!module.header().stack_frames.empty() && eol != std::string::npos) {
    // Between the blank line after the header and the first computation
    // (a line starting with `%` or `ENTRY`).
    size_t start = eol + 2, end = start;
    while (end < text.size() && text[end] != '%' && !absl::StartsWith(absl::string_view(text).substr(end), "ENTRY")) {
      const size_t nl = text.find('\n', end);
      if (nl == std::string::npos) break;
      end = nl + 1;
    }
    if (start < end) out->set_stack_frames(text.substr(start, end - start));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<xla::HloModuleProto> ModuleToProto(const Module& module) {
  xla::HloModuleProto proto;
  proto.set_name(module.name());
  proto.set_id(0);
  if (absl::Status st = HeaderTexts(module, proto.mutable_hlo_toolchain()); !st.ok()) return st;

  // Ids: computations 0.., instructions 1.. unique in the module (XLA's
  // ids are unique per module too).
  absl::flat_hash_map<const Computation*, int64_t> comp_ids;
  absl::flat_hash_map<const Instruction*, int64_t> inst_ids;
  const std::vector<Computation*> order = module.MakeComputationPostOrder();
  // Instructions in the printer's order: the schedule of a scheduled
  // module, else operands before users (passes append new instructions at
  // the end of a computation; readers want operands first).
  absl::flat_hash_map<const Computation*, std::vector<Instruction*>> inst_order;
  int64_t next_inst = 1;
  for (const Computation* comp : order) {
    comp_ids.emplace(comp, static_cast<int64_t>(comp_ids.size()));
    std::vector<Instruction*>& insts = inst_order[comp];
    insts = module.header().is_scheduled ? comp->instructions() : comp->MakePostOrder();
    for (const Instruction* inst : insts) inst_ids.emplace(inst, next_inst++);
  }

  absl::Status st = absl::OkStatus();
  for (const Computation* comp : order) {
    xla::HloComputationProto* cp = proto.add_computations();
    cp->set_name(comp->name());
    cp->set_id(comp_ids.at(comp));
    if (!IsUtf8(comp->execution_thread()))
      return absl::InvalidArgumentError(absl::StrCat("computation ", comp->name(),
                                                     ": its execution thread name is not UTF-8, which protos cannot hold"));
    cp->set_execution_thread(comp->execution_thread());
    if (comp->root() != nullptr) cp->set_root_id(inst_ids.at(comp->root()));
    ProgramShapeOf(*comp, cp->mutable_program_shape(), &st);
    if (!st.ok()) return st;
    for (const Instruction* inst : inst_order.at(comp)) {
      xla::HloInstructionProto* ip = cp->add_instructions();
      ip->set_name(inst->name());
      ip->set_opcode(std::string(OpcodeName(inst->opcode())));
      ip->set_id(inst_ids.at(inst));
      if (absl::Status s = ShapeToProto(inst->shape(), ip->mutable_shape()); !s.ok())
        return absl::Status(s.code(), absl::StrCat("instruction ", inst->name(), ": ", s.message()));
      for (const Instruction* op : inst->operands()) ip->add_operand_ids(inst_ids.at(op));
      for (const Instruction* pred : inst->control_predecessors()) ip->add_control_predecessor_ids(inst_ids.at(pred));
      for (const Computation* c : CalledInXlaOrder(*inst)) ip->add_called_computation_ids(comp_ids.at(c));
      if (inst->opcode() == Opcode::kParameter) ip->set_parameter_number(inst->parameter_number());
      if (inst->has_literal()) {
        if (absl::Status s = LiteralToProto(inst->literal(), ip->mutable_literal()); !s.ok()) return s;
        if (inst->literal().elided()) ip->mutable_hlo_toolchain()->set_constant_elided(true);
      }
      AttrsToTypedFields(*inst, ip);
      // No `api_version=` in the text means XLA's default, the original API
      // (the proto's 0 is "unspecified", which XLA keeps as such).
      if (inst->opcode() == Opcode::kCustomCall && ip->custom_call_api_version() == xla::API_VERSION_UNSPECIFIED)
        ip->set_custom_call_api_version(xla::API_VERSION_ORIGINAL);
      std::string printed_opcode, tail;
      if (absl::Status s = SplitPrinted(*inst, &printed_opcode, &tail); !s.ok()) return s;
      if (!tail.empty()) ip->mutable_hlo_toolchain()->set_attributes(tail);
      if (printed_opcode != ip->opcode()) ip->mutable_hlo_toolchain()->set_printed_opcode(printed_opcode);
    }
  }
  if (const Computation* entry = module.entry(); entry != nullptr) {
    proto.set_entry_computation_name(entry->name());
    proto.set_entry_computation_id(comp_ids.at(entry));
    ProgramShapeOf(*entry, proto.mutable_host_program_shape(), &st);
    if (!st.ok()) return st;
  }
  const ModuleHeader& header = module.header();
  if (header.is_scheduled) {
    for (const Computation* comp : order) {
      auto& seq = (*proto.mutable_schedule()->mutable_sequences())[comp_ids.at(comp)];
      for (const Instruction* inst : comp->instructions()) seq.add_instruction_ids(inst_ids.at(inst));
    }
  }
  for (const InputOutputAlias& a : header.input_output_alias) {
    auto* e = proto.mutable_input_output_alias()->add_entries();
    for (int64_t i : a.output_index) e->add_output_shape_index(i);
    e->set_parameter_number(a.parameter);
    for (int64_t i : a.parameter_index) e->add_parameter_shape_index(i);
    e->set_kind(a.must_alias ? xla::MUST_ALIAS : xla::MAY_ALIAS);
  }
  if (!header.stack_frames.empty() && !StackFramesToProto(header.stack_frames, proto.mutable_stack_frame_index()))
    proto.clear_stack_frame_index();
  for (const BufferDonor& d : header.buffer_donor) {
    auto* e = proto.mutable_buffer_donor()->add_entries();
    e->set_parameter_number(d.parameter);
    for (int64_t i : d.parameter_index) e->add_parameter_shape_index(i);
  }
  for (const auto& [k, v] : header.frontend_attributes)
    if (IsUtf8(k) && IsUtf8(v.text)) (*proto.mutable_frontend_attributes()->mutable_map())[k] = v.text;
  return proto;
}

}  // namespace hlo::proto
