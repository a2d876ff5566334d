// HloModuleProto -> HLO text (proto/module_proto.h). Everything taken from
// the proto is checked before it is pasted into the text: names must be
// identifiers, opcodes known, ids resolvable; values (shapes, literals,
// attributes) are printed by our printer, so the text parser sees only
// well-formed syntax and reports the rest (types, arities) itself.
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/printer.h"
#include "proto/module_proto.h"
#include "proto/shape_literal_proto.h"
#include "proto/stack_frames_proto.h"
#include "proto/typed_fields.h"

namespace hlo::proto {
namespace {

bool IsIdentifier(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') return false;
  return true;
}

absl::Status Bad(absl::string_view where, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", what));
}

// The header must stay on the `HloModule` line.
bool IsOneLine(absl::string_view s) { return s.find('\n') == absl::string_view::npos; }

struct InstructionInfo {
  std::string name;
  int element_type = 0;
  const xla::ShapeProto* shape = nullptr;  // lives as long as the proto
};

// XLA packs an instruction's id as (computation id << 32 | local id), and
// operand ids may name either the whole id or the local part: both are
// looked up, the whole id first.
class IdTable {
 public:
  // False if `id` is already taken.
  bool Add(int64_t id, InstructionInfo info) {
    if (!by_id_.emplace(id, info).second) return false;
    const int64_t local = id & 0xffffffff;
    if (!by_local_.emplace(local, info).second) ambiguous_.insert(local);
    return true;
  }
  const InstructionInfo* Find(int64_t id) const {
    if (auto it = by_id_.find(id); it != by_id_.end()) return &it->second;
    if (id < 0 || id > 0xffffffff || ambiguous_.contains(id)) return nullptr;
    auto it = by_local_.find(id);
    return it == by_local_.end() ? nullptr : &it->second;
  }

 private:
  absl::flat_hash_map<int64_t, InstructionInfo> by_id_, by_local_;
  absl::flat_hash_set<int64_t> ambiguous_;
};

// A scheduled module's text lists each computation's instructions in its
// schedule (the text parser takes that order as the schedule); the proto
// lists them in dependency order. A sequence that is not a permutation of
// the computation's instructions is ignored (the proto order stays).
std::vector<const xla::HloInstructionProto*> InTextOrder(const xla::HloComputationProto& c,
                                                         const xla::HloScheduleProto& schedule) {
  std::vector<const xla::HloInstructionProto*> out;
  for (const xla::HloInstructionProto& i : c.instructions()) out.push_back(&i);
  auto seq = schedule.sequences().find(c.id());
  if (seq == schedule.sequences().end() || seq->second.instruction_ids_size() != c.instructions_size()) return out;
  absl::flat_hash_map<int64_t, const xla::HloInstructionProto*> by_id;
  for (const xla::HloInstructionProto& i : c.instructions()) by_id.emplace(i.id(), &i);
  std::vector<const xla::HloInstructionProto*> scheduled;
  for (int64_t id : seq->second.instruction_ids()) {
    auto it = by_id.find(id);
    if (it == by_id.end()) return out;
    scheduled.push_back(it->second);
    by_id.erase(it);  // an id listed twice leaves another one out: not a permutation
  }
  return scheduled;
}

// The module fields HLO text cannot hold, by name and number.
void DroppedFields(const xla::HloModuleProto& proto, std::vector<std::string>* warnings) {
  auto warn = [&](bool present, absl::string_view field, absl::string_view what) {
    if (present)
      warnings->push_back(absl::StrCat("the module's ", field, " (", what,
                                       ") is dropped: HLO text has no form for it"));
  };
  warn(proto.has_spmd_output_sharding(), "spmd_output_sharding", "field 12");
  warn(proto.spmd_parameters_shardings_size() > 0, "spmd_parameters_shardings", "field 14");
  warn(proto.cross_program_prefetches_size() > 0, "cross_program_prefetches", "field 10");
  warn(proto.has_device_assignment(), "device_assignment", "field 15");
  warn(proto.original_value_recovery_table().entries_size() > 0, "original_value_recovery_table", "field 20");
}

}  // namespace

absl::StatusOr<std::string> ModuleProtoToText(const xla::HloModuleProto& proto, const FromProtoOptions& options,
                                              std::vector<std::string>* warnings) {
  if (warnings != nullptr) DroppedFields(proto, warnings);
  const bool ours = proto.has_hlo_toolchain() && !options.ignore_toolchain_fields;
  if (!IsIdentifier(proto.name())) return Bad("the module", absl::StrCat("invalid module name '", proto.name(), "'"));
  if (proto.computations_size() == 0) return Bad("the module", "it has no computations");
  std::string text = absl::StrCat("HloModule ", proto.name());
  if (ours) {
    if (!IsOneLine(proto.hlo_toolchain().header_attributes())) return Bad("the module header", "more than one line");
    absl::StrAppend(&text, proto.hlo_toolchain().header_attributes(), "\n\n", proto.hlo_toolchain().stack_frames());
  } else {
    if (!proto.schedule().sequences().empty()) absl::StrAppend(&text, ", is_scheduled=true");
    if (proto.input_output_alias().entries_size() > 0) {
      std::vector<std::string> entries;
      for (const auto& e : proto.input_output_alias().entries())
        entries.push_back(absl::StrCat("{", absl::StrJoin(e.output_shape_index(), ","), "}: (", e.parameter_number(),
                                       ", {", absl::StrJoin(e.parameter_shape_index(), ","), "}",
                                       e.kind() == xla::MUST_ALIAS ? ", must-alias" : ", may-alias", ")"));
      absl::StrAppend(&text, ", input_output_alias={ ", absl::StrJoin(entries, ", "), " }");
    }
    if (proto.buffer_donor().entries_size() > 0) {
      std::vector<std::string> entries;
      for (const auto& e : proto.buffer_donor().entries())
        entries.push_back(absl::StrCat("(", e.parameter_number(), ", {", absl::StrJoin(e.parameter_shape_index(), ","), "})"));
      absl::StrAppend(&text, ", buffer_donor={ ", absl::StrJoin(entries, ", "), " }");
    }
    if (proto.frontend_attributes().map_size() > 0)
      absl::StrAppend(&text, ", frontend_attributes=", FrontendAttributesText(proto.frontend_attributes()));
    absl::StrAppend(&text, "\n\n");
    if (proto.has_stack_frame_index()) {
      const StackFrameTables tables = StackFramesFromProto(proto.stack_frame_index());
      if (!tables.empty()) absl::StrAppend(&text, StackFramesToString(tables));
    }
  }

  absl::flat_hash_map<int64_t, std::string> comp_names;
  for (const xla::HloComputationProto& c : proto.computations()) {
    if (!IsIdentifier(c.name())) return Bad("a computation", absl::StrCat("invalid name '", c.name(), "'"));
    if (!comp_names.emplace(c.id(), c.name()).second)
      return Bad(absl::StrCat("computation ", c.name()), absl::StrCat("id ", c.id(), " is used twice"));
  }
  // The entry: by id, else by name, else the last computation.
  int64_t entry_id = proto.computations(proto.computations_size() - 1).id();
  if (comp_names.contains(proto.entry_computation_id())) {
    entry_id = proto.entry_computation_id();
  } else if (!proto.entry_computation_name().empty()) {
    bool found = false;
    for (const auto& c : proto.computations())
      if (c.name() == proto.entry_computation_name()) entry_id = c.id(), found = true;
    if (!found) return Bad("the module", absl::StrCat("entry computation '", proto.entry_computation_name(), "' does not exist"));
  }
  // Computations wrapped by async sugar are printed by the parser itself.
  absl::flat_hash_set<int64_t> sugar;
  if (ours)
    for (const auto& c : proto.computations())
      for (const auto& i : c.instructions())
        if (!i.hlo_toolchain().printed_opcode().empty())
          for (int64_t id : i.called_computation_ids()) sugar.insert(id);

  for (const xla::HloComputationProto& c : proto.computations()) {
    if (sugar.contains(c.id())) continue;
    const std::string where_c = absl::StrCat("computation ", c.name());
    absl::StrAppend(&text, c.id() == entry_id ? "ENTRY " : "", "%", c.name(), " {\n");
    IdTable by_id;
    bool root_seen = false;
    for (const xla::HloInstructionProto* ip : InTextOrder(c, proto.schedule())) {
      const xla::HloInstructionProto& i = *ip;
      const std::string where = absl::StrCat(where_c, ", instruction ", i.name());
      if (!IsIdentifier(i.name())) return Bad(where_c, absl::StrCat("invalid instruction name '", i.name(), "'"));
      std::optional<Opcode> op = OpcodeFromName(i.opcode());
      if (!op) return Bad(where, absl::StrCat("unknown opcode '", i.opcode(), "'"));
      absl::StatusOr<std::string> shape = ShapeProtoToText(i.shape());
      if (!shape.ok()) return Bad(where, shape.status().message());
      std::vector<std::string> operands;
      int first_type = 0;
      const xla::ShapeProto* first_shape = nullptr;
      for (int64_t id : i.operand_ids()) {
        const InstructionInfo* op = by_id.Find(id);
        if (op == nullptr)
          return Bad(where, absl::StrCat("operand id ", id, " is not an earlier instruction of the computation"));
        if (operands.empty()) first_type = op->element_type, first_shape = op->shape;
        operands.push_back(absl::StrCat("%", op->name));
      }
      std::string args = absl::StrJoin(operands, ", ");
      const xla::HloToolchainInstruction& ext = i.hlo_toolchain();
      if (*op == Opcode::kParameter) {
        args = absl::StrCat(i.parameter_number());
      } else if (*op == Opcode::kConstant) {
        if (ours && ext.constant_elided()) {
          args = "{...}";
        } else {
          absl::StatusOr<Literal> lit = LiteralFromProto(i.literal(), where);
          if (!lit.ok()) return lit.status();
          args = LiteralValueToString(*lit);
        }
      }
      std::string opcode = i.opcode();
      std::string attrs;
      if (ours) {
        attrs = ext.attributes();
        if (!ext.printed_opcode().empty()) {
          if (!IsIdentifier(ext.printed_opcode())) return Bad(where, "invalid printed opcode");
          opcode = ext.printed_opcode();
        }
      } else {
        TypedContext ctx{&comp_names, first_type, first_shape};
        absl::StatusOr<std::string> typed = TypedFieldsToText(i, *op, ctx);
        if (!typed.ok()) return Bad(where, typed.status().message());
        attrs = *std::move(typed);
      }
      if (i.control_predecessor_ids_size() > 0) {
        std::vector<std::string> preds;
        for (int64_t id : i.control_predecessor_ids()) {
          const InstructionInfo* pred = by_id.Find(id);
          if (pred == nullptr)
            return Bad(where, absl::StrCat("control predecessor id ", id, " is not an earlier instruction"));
          preds.push_back(absl::StrCat("%", pred->name));
        }
        absl::StrAppend(&attrs, ", control-predecessors={", absl::StrJoin(preds, ", "), "}");
      }
      const bool is_root = i.id() == c.root_id();
      root_seen |= is_root;
      absl::StrAppend(&text, "  ", is_root ? "ROOT " : "", "%", i.name(), " = ", *shape, " ", opcode, "(", args, ")",
                      attrs, "\n");
      if (!by_id.Add(i.id(), InstructionInfo{i.name(), i.shape().element_type(), &i.shape()}))
        return Bad(where, absl::StrCat("id ", i.id(), " is used twice"));
    }
    if (!root_seen && c.instructions_size() > 0)
      return Bad(where_c, absl::StrCat("root id ", c.root_id(), " is none of its instructions"));
    absl::StrAppend(&text, "}");
    if (!c.execution_thread().empty() && c.execution_thread() != "main")
      absl::StrAppend(&text, ", execution_thread=\"", absl::CEscape(c.execution_thread()), "\"");
    absl::StrAppend(&text, "\n\n");
  }
  return text;
}

}  // namespace hlo::proto
