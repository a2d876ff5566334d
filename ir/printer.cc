// Module / computation / instruction printing (spec §3, §8, §11) and the
// async syntax sugar. Values are printed by print_shape.cc,
// print_literal.cc and print_attributes.cc.
#include "ir/printer.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/printer_internal.h"

namespace hlo {

using print_internal::AppendAttribute;
using print_internal::AppendShape;

namespace {

// Which async wrapped computations print as sugar. `sugar == nullptr`
// means "decide by structure alone" (standalone instruction printing).
struct Context {
  const PrintOptions& options;
  const absl::flat_hash_set<const Computation*>* sugar = nullptr;
};

bool IsAsyncOp(Opcode op) {
  return op == Opcode::kAsyncStart || op == Opcode::kAsyncUpdate || op == Opcode::kAsyncDone;
}

// A computation the parser would build from `<op>-start(...)`: parameters
// plus one root `<op>` whose operands are exactly the parameters in order,
// with `<op>-start/-update/-done` not being real opcodes.
bool IsSugarWrappable(const Computation* c) {
  if (c == nullptr) return false;
  const Instruction* root = c->root();
  if (root == nullptr) return false;
  const int64_t n = c->num_parameters();
  if (c->instruction_count() != n + 1 || root->operand_count() != n) return false;
  switch (root->opcode()) {
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
      return false;
    default:
      break;
  }
  for (int64_t i = 0; i < n; ++i) {
    const Instruction* p = c->parameter(i);
    if (p == nullptr || root->operand(i) != p || !p->attrs().empty() ||
        !p->control_predecessors().empty() || !p->control_successors().empty())
      return false;
  }
  if (!root->control_predecessors().empty() || !root->control_successors().empty()) return false;
  const std::string base(OpcodeName(root->opcode()));
  for (const char* suffix : {"-start", "-update", "-done"})
    if (OpcodeFromName(base + suffix).has_value()) return false;
  return true;
}

// The computation an async op runs: its `calls` attribute, or (for
// update/done written without one) that of the async op it continues.
const Computation* AsyncComputation(const Instruction& inst) {
  const Instruction* cur = &inst;
  for (int guard = 0; cur != nullptr && guard < 1000; ++guard) {
    if (!IsAsyncOp(cur->opcode())) return nullptr;
    if (const auto* c = cur->GetAttr<Computation*>("calls")) return *c;
    if (cur->opcode() == Opcode::kAsyncStart || cur->operand_count() == 0) return nullptr;
    cur = cur->operand(0);
  }
  return nullptr;
}

// The wrapped root instruction when `inst` prints in sugar form.
const Instruction* SugarWrapped(const Instruction& inst, const Context& ctx) {
  if (!IsAsyncOp(inst.opcode())) return nullptr;
  const Computation* c = AsyncComputation(inst);
  if (c == nullptr) return nullptr;
  if (ctx.sugar != nullptr ? !ctx.sugar->contains(c) : !IsSugarWrappable(c)) return nullptr;
  return c->root();
}

// Wrapped computations of a module that print as sugar: wrappable, and
// called only by async ops (so omitting them loses no reference).
absl::flat_hash_set<const Computation*> SugarComputations(const Module& module) {
  absl::flat_hash_set<const Computation*> candidates, excluded;
  for (const Computation* comp : module.computations()) {
    for (const Instruction* inst : comp->instructions()) {
      for (const auto& [name, value] : inst->attrs()) {
        if (const auto* c = std::get_if<Computation*>(&value)) {
          if (*c == nullptr) continue;
          if (IsAsyncOp(inst->opcode()) && name == "calls" && IsSugarWrappable(*c)) {
            candidates.insert(*c);
          } else {
            excluded.insert(*c);
          }
        } else if (const auto* cs = std::get_if<std::vector<Computation*>>(&value)) {
          for (const Computation* c2 : *cs) excluded.insert(c2);
        }
      }
    }
  }
  absl::flat_hash_set<const Computation*> out;
  for (const Computation* c : candidates)
    if (!excluded.contains(c) && c != module.entry()) out.insert(c);
  return out;
}

void AppendName(std::string* out, const std::string& name, const PrintOptions& options) {
  if (options.print_percent) out->push_back('%');
  out->append(name);
}

bool InSpecs(absl::Span<const AttrSpec> specs, absl::string_view name) {
  for (const AttrSpec& s : specs)
    if (s.name == name) return true;
  return false;
}

void AppendAttributes(std::string* out, const Instruction& inst, const Instruction* wrapped,
                      const Context& ctx) {
  const PrintOptions& opts = ctx.options;
  const bool sugar_start = wrapped != nullptr && inst.opcode() == Opcode::kAsyncStart;
  const bool sugar_update_done = wrapped != nullptr && !sugar_start;
  const auto family = FamilyAttrSpecs(OpcodeAttrFamily(inst.opcode()));
  const bool has_attrs = !inst.attrs().empty() || (sugar_start && !wrapped->attrs().empty());

  // broadcast of a scalar may omit `dimensions=` in the text; XLA always
  // prints it (`dimensions={}`). Broadcast has no other family attribute.
  if (inst.opcode() == Opcode::kBroadcast && !inst.HasAttr("dimensions"))
    out->append(", dimensions={}");
  if (has_attrs) {
    // (1) family attributes in table order (called computations last).
    if (!sugar_update_done) {
      for (const AttrSpec& spec : family) {
        if (sugar_start && spec.name == "calls") continue;
        if (const AttrValue* v = inst.FindAttr(spec.name))
          AppendAttribute(out, spec.name, *v, &spec, inst, opts);
      }
    }
    if (sugar_start) {
      for (const AttrSpec& spec : FamilyAttrSpecs(OpcodeAttrFamily(wrapped->opcode()))) {
        if (InSpecs(family, spec.name) && inst.HasAttr(spec.name)) continue;
        if (const AttrValue* v = wrapped->FindAttr(spec.name))
          AppendAttribute(out, spec.name, *v, &spec, *wrapped, opts);
      }
    }
    // Attributes outside the tables (IR built by hand): kept, in stored order.
    for (const auto& [name, value] : inst.attrs()) {
      if (InSpecs(family, name) || print_internal::FindUniversalSpec(name) != nullptr) continue;
      AppendAttribute(out, name, value, nullptr, inst, opts);
    }
  }
  // (2) universal attributes; the sugar form falls back to the wrapped op's.
  auto universal = [&](absl::string_view name) {
    const Instruction* owner = &inst;
    const AttrValue* v = inst.FindAttr(name);
    if (v == nullptr && sugar_start) {
      owner = wrapped;
      v = wrapped->FindAttr(name);
    }
    if (v != nullptr)
      AppendAttribute(out, name, *v, print_internal::FindUniversalSpec(name), *owner, opts);
  };
  if (has_attrs)
    for (absl::string_view name : print_internal::kUniversalBeforeControl) universal(name);
  if (opts.print_control_dependencies && !inst.control_predecessors().empty()) {
    out->append(", control-predecessors={");
    bool first = true;
    for (const Instruction* pred : inst.control_predecessors()) {
      if (!first) out->append(", ");
      first = false;
      AppendName(out, pred->name(), opts);
    }
    out->push_back('}');
  }
  if (has_attrs)
    for (absl::string_view name : print_internal::kUniversalAfterControl) universal(name);
}

void AppendInstructionBody(std::string* out, const Instruction& inst, const Context& ctx) {
  const PrintOptions& opts = ctx.options;
  AppendName(out, inst.name(), opts);
  out->append(" = ");
  AppendShape(out, inst.shape(), /*print_layout=*/true);
  out->push_back(' ');
  const Instruction* wrapped = SugarWrapped(inst, ctx);
  if (wrapped != nullptr) {
    absl::string_view base = OpcodeName(wrapped->opcode());
    out->append(base.data(), base.size());
    switch (inst.opcode()) {
      case Opcode::kAsyncStart: out->append("-start"); break;
      case Opcode::kAsyncUpdate: out->append("-update"); break;
      default: out->append("-done"); break;
    }
  } else {
    absl::string_view name = OpcodeName(inst.opcode());
    out->append(name.data(), name.size());
  }
  out->push_back('(');
  if (inst.opcode() == Opcode::kParameter) {
    absl::StrAppend(out, inst.parameter_number());
  } else if (inst.opcode() == Opcode::kConstant) {
    if (inst.has_literal())
      print_internal::AppendLiteralValue(out, inst.literal(), opts.print_large_constants);
  } else {
    for (int64_t i = 0; i < inst.operand_count(); ++i) {
      if (i) {
        out->append(", ");
        if (i % 5 == 0 && opts.print_operand_index_annotations)
          absl::StrAppend(out, "/*index=", i, "*/");
      }
      const Instruction* op = inst.operand(i);
      if (opts.print_operand_shapes) {
        AppendShape(out, op->shape(), /*print_layout=*/true);
        out->push_back(' ');
      }
      AppendName(out, op->name(), opts);
    }
  }
  out->push_back(')');
  AppendAttributes(out, inst, wrapped, ctx);
}

void AppendComputation(std::string* out, const Computation& comp, const Context& ctx) {
  const PrintOptions& opts = ctx.options;
  const Module* module = comp.parent();
  if (module != nullptr && module->entry() == &comp) out->append("ENTRY ");
  AppendName(out, comp.name(), opts);
  if (opts.print_program_shape) {
    out->append(" (");
    bool first = true;
    for (const Instruction* p : comp.parameters()) {
      if (p == nullptr) continue;
      if (!first) out->append(", ");
      first = false;
      absl::StrAppend(out, p->name(), ": ");
      AppendShape(out, p->shape(), /*print_layout=*/false);
    }
    out->append(") -> ");
    if (comp.root() != nullptr) {
      AppendShape(out, comp.root()->shape(), /*print_layout=*/false);
    } else {
      out->append("()");
    }
  }
  out->append(" {\n");
  const bool scheduled = module != nullptr && module->header().is_scheduled;
  const std::vector<Instruction*> order = scheduled ? comp.instructions() : comp.MakePostOrder();
  for (const Instruction* inst : order) {
    out->append(inst == comp.root() ? "  ROOT " : "  ");
    AppendInstructionBody(out, *inst, ctx);
    out->push_back('\n');
  }
  out->push_back('}');
  if (comp.execution_thread() != "main") {
    out->append(", execution_thread=");
    print_internal::AppendQuoted(out, comp.execution_thread());
  }
}

void AppendShapeIndex(std::string* out, const std::vector<int64_t>& index) {
  print_internal::AppendIntList(out, index);
}

void AppendBoolList(std::string* out, const std::vector<bool>& v) {
  out->push_back('{');
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out->push_back(',');
    out->append(v[i] ? "true" : "false");
  }
  out->push_back('}');
}

void AppendProgramShapeWithLayouts(std::string* out, const ProgramShape& ps) {
  out->append("{(");
  for (size_t i = 0; i < ps.parameters.size(); ++i) {
    if (i) {
      out->append(", ");
      if (i % 5 == 0) absl::StrAppend(out, "/*index=", i, "*/");
    }
    AppendShape(out, ps.parameters[i], /*print_layout=*/true);
  }
  out->append(")->");
  AppendShape(out, ps.result, /*print_layout=*/true);
  out->push_back('}');
}

void AppendHeader(std::string* out, const Module& module) {
  const ModuleHeader& h = module.header();
  absl::StrAppend(out, "HloModule ", module.name());
  if (h.is_scheduled) out->append(", is_scheduled=true");
  if (!h.input_output_alias.empty()) {
    out->append(", input_output_alias={ ");
    for (size_t i = 0; i < h.input_output_alias.size(); ++i) {
      const InputOutputAlias& a = h.input_output_alias[i];
      if (i) out->append(", ");
      AppendShapeIndex(out, a.output_index);
      absl::StrAppend(out, ": (", a.parameter, ", ");
      AppendShapeIndex(out, a.parameter_index);
      out->append(a.must_alias ? ", must-alias)" : ", may-alias)");
    }
    out->append(" }");
  }
  if (!h.buffer_donor.empty()) {
    out->append(", buffer_donor={ ");
    for (size_t i = 0; i < h.buffer_donor.size(); ++i) {
      if (i) out->append(", ");
      absl::StrAppend(out, "(", h.buffer_donor[i].parameter, ", ");
      AppendShapeIndex(out, h.buffer_donor[i].parameter_index);
      out->push_back(')');
    }
    out->append(" }");
  }
  if (h.alias_passthrough_params.value_or(false)) out->append(", alias_passthrough_params=true");
  if (h.entry_computation_layout.has_value()) {
    out->append(", entry_computation_layout=");
    AppendProgramShapeWithLayouts(out, *h.entry_computation_layout);
  } else if (const Computation* entry = module.entry()) {
    // Not given: derived from the entry's parameters and root, as the
    // parser would derive it.
    ProgramShape ps;
    for (const Instruction* p : entry->parameters())
      if (p != nullptr) ps.parameters.push_back(p->shape());
    if (entry->root() != nullptr) ps.result = entry->root()->shape();
    else ps.result = Shape::Tuple({});
    out->append(", entry_computation_layout=");
    AppendProgramShapeWithLayouts(out, ps);
  }
  auto spmd = [&](absl::string_view name, const std::vector<bool>& v) {
    if (v.empty() || (v.size() == 1 && !v[0])) return;
    absl::StrAppend(out, ", ", name, "=");
    AppendBoolList(out, v);
  };
  spmd("allow_spmd_sharding_propagation_to_parameters",
       h.allow_spmd_sharding_propagation_to_parameters);
  spmd("allow_spmd_sharding_propagation_to_output", h.allow_spmd_sharding_propagation_to_output);
  if (h.replica_count != 1) absl::StrAppend(out, ", replica_count=", h.replica_count);
  if (h.num_partitions != 1) absl::StrAppend(out, ", num_partitions=", h.num_partitions);
  if (!h.frontend_attributes.empty()) {
    out->append(", frontend_attributes=");
    print_internal::AppendFrontendAttributes(out, h.frontend_attributes);
  }
  if (h.origin_recovery_table.has_value())
    absl::StrAppend(out, ", origin_recovery_table=", h.origin_recovery_table->text);
}

void AppendStackFrames(std::string* out, const StackFrameTables& t) {
  auto names = [&](absl::string_view title,
                   const std::vector<std::pair<int64_t, std::string>>& table) {
    absl::StrAppend(out, title, "\n");
    for (const auto& [id, name] : table) {
      absl::StrAppend(out, id, " ");
      print_internal::AppendQuoted(out, name);
      out->push_back('\n');
    }
    out->push_back('\n');
  };
  names("FileNames", t.file_names);
  names("FunctionNames", t.function_names);
  out->append("FileLocations\n");
  for (const auto& l : t.file_locations) {
    absl::StrAppend(out, l.id, " {file_name_id=", l.file_name_id,
                    " function_name_id=", l.function_name_id, " line=", l.line,
                    " end_line=", l.end_line, " column=", l.column, " end_column=", l.end_column,
                    "}\n");
  }
  out->append("\nStackFrames\n");
  for (const auto& f : t.frames) {
    absl::StrAppend(out, f.id, " {file_location_id=", f.file_location_id,
                    " parent_frame_id=", f.parent_frame_id, "}\n");
  }
  out->append("\n\n");
}

}  // namespace

std::string StackFramesToString(const StackFrameTables& tables) {
  std::string out;
  AppendStackFrames(&out, tables);
  return out;
}

namespace {

// A generous estimate of the printed size, so that the output string is
// allocated once (growing a 50 MB string by doubling costs more than the
// formatting itself).
size_t EstimateModuleBytes(const Module& module) {
  size_t n = 4096;
  for (const Computation* comp : module.computations()) {
    n += 256 + comp->name().size();
    for (const Instruction* inst : comp->instructions()) {
      n += 96 + 2 * inst->name().size() + 40 * inst->attrs().size();
      for (const Instruction* op : inst->operands()) n += 40 + op->name().size();
      if (inst->has_literal()) n += print_internal::EstimateLiteralBytes(inst->literal());
      for (const auto& [name, value] : inst->attrs()) {
        if (const auto* m = AttrGet<OpMetadata>(value))
          n += 96 + m->op_name.size() + m->op_type.size() + m->source_file.size();
        else if (const auto* b = std::get_if<StringOrDict>(&value))
          n += b->text.size();
      }
    }
  }
  return n;
}

}  // namespace

std::string PrintModule(const Module& module, const PrintOptions& options) {
  std::string out;
  out.reserve(EstimateModuleBytes(module));
  AppendHeader(&out, module);
  out.append("\n\n");
  if (options.print_metadata && !module.header().stack_frames.empty())
    AppendStackFrames(&out, module.header().stack_frames);
  const absl::flat_hash_set<const Computation*> sugar = SugarComputations(module);
  Context ctx{options, &sugar};
  for (const Computation* comp : module.MakeComputationPostOrder()) {
    if (sugar.contains(comp)) continue;
    AppendComputation(&out, *comp, ctx);
    out.append("\n\n");
  }
  return out;
}

std::string PrintComputation(const Computation& comp, const PrintOptions& options) {
  std::string out;
  if (comp.parent() != nullptr) {
    const absl::flat_hash_set<const Computation*> sugar = SugarComputations(*comp.parent());
    AppendComputation(&out, comp, Context{options, &sugar});
  } else {
    AppendComputation(&out, comp, Context{options, nullptr});
  }
  return out;
}

std::string PrintInstruction(const Instruction& inst, const PrintOptions& options) {
  std::string out;
  AppendInstructionBody(&out, inst, Context{options, nullptr});
  return out;
}

}  // namespace hlo
