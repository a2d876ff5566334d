// Module structure (spec §3): header attributes, stack-frame tables,
// computations, inline computations, token helpers shared by all parser
// files, and the public entry points of parser.h.
#include "parser/parser.h"

#include <algorithm>
#include <cstring>

#include "absl/container/inlined_vector.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/diagnostic.h"
#include "parser/parser_impl.h"

namespace hlo {
namespace parser_internal {

std::optional<OpcodeInfo> LookupOpcode(absl::string_view name) {
  if (auto op = OpcodeFromName(name)) return OpcodeInfo{*op, false, *op};
  struct Suffix {
    absl::string_view text;
    Opcode op;
  };
  static const Suffix kSuffixes[] = {{"-start", Opcode::kAsyncStart},
                                     {"-update", Opcode::kAsyncUpdate},
                                     {"-done", Opcode::kAsyncDone}};
  for (const Suffix& s : kSuffixes) {
    if (name.size() > s.text.size() && absl::EndsWith(name, s.text)) {
      if (auto w = OpcodeFromName(name.substr(0, name.size() - s.text.size())))
        return OpcodeInfo{s.op, true, *w};
    }
  }
  return std::nullopt;
}

bool IsKeyword(absl::string_view s) {
  static const absl::flat_hash_set<absl::string_view>* kKeywords = [] {
    auto* k = new absl::flat_hash_set<absl::string_view>{
        "HloModule", "ENTRY", "ROOT", "FileNames", "FunctionNames", "FileLocations",
        "StackFrames", "true", "false", "inf", "nan", "maximal", "replicated", "manual",
        "last_tile_dim_replicate", "shard_as", "shard_like", "unknown", "unreduced",
        "opaque_type"};
    for (int i = 0; i < kNumPrimitiveTypes; ++i)
      k->insert(PrimitiveTypeName(static_cast<PrimitiveType>(i)));
    return k;
  }();
  return kKeywords->contains(s);
}

std::string ShapeText(const Shape& s) {
  if (s.IsBuffer()) return absl::StrCat("b(", s.tuple_shapes().empty() ? "" : ShapeText(s.tuple_shape(0)), ")");
  if (s.IsTuple()) {
    std::string out = "(";
    for (int64_t i = 0; i < s.tuple_size(); ++i) {
      if (i) out += ", ";
      out += ShapeText(s.tuple_shape(i));
    }
    return out + ")";
  }
  std::string out = std::string(PrimitiveTypeName(s.element_type()));
  out += "[";
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (i) out += ",";
    if (s.is_dynamic_dim(i)) {
      if (s.dim(i) == Shape::kUnboundedSize) {
        out += "?";
        continue;
      }
      out += "<=";
    }
    absl::StrAppend(&out, s.dim(i));
  }
  out += "]";
  if (s.IsArray() && s.has_layout() && s.rank() > 0) {
    absl::StrAppend(&out, "{", absl::StrJoin(s.layout().minor_to_major, ","), "}");
  }
  return out;
}

int64_t LeafCount(const Shape& s) {
  if (!s.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& e : s.tuple_shapes()) n += LeafCount(e);
  return n;
}

std::string UpperTypeName(PrimitiveType t) {
  std::string s(PrimitiveTypeName(t));
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// ---------------------------------------------------------------------------
// Errors and token helpers

absl::Status Parser::ErrorAt(SourceLoc loc, absl::string_view msg) {
  return absl::InvalidArgumentError(FormatDiagnostic(options_.filename, text_, loc, msg));
}

std::string Parser::Describe(const Token& t) const {
  switch (t.kind) {
    case TokKind::kEof: return "end of file";
    case TokKind::kName: return absl::StrCat("'%", t.text, "'");
    case TokKind::kAttrName: return absl::StrCat("'", t.text, "='");
    case TokKind::kParamName: return absl::StrCat("'", t.text, ":'");
    case TokKind::kString: return absl::StrCat("string ", t.text);
    default: return absl::StrCat("'", t.text, "'");
  }
}

absl::Status Parser::Unexpected(absl::string_view what) {
  if (kind() == TokKind::kError) return ErrorAtTok(lexer_.str());
  return ErrorAtTok(absl::StrCat("expects ", what, ", but sees ", Describe(tok())));
}

absl::Status Parser::Expect(TokKind k, absl::string_view what) {
  if (kind() != k) return Unexpected(what);
  Next();
  return absl::OkStatus();
}

absl::Status Parser::CheckDepth() {
  if (depth_ > options_.max_recursion_depth)
    return ErrorAtTok(absl::StrCat("maximum recursion depth exceeded (limit ",
                                   options_.max_recursion_depth, ")"));
  const uintptr_t here = StackAddress();
  const uintptr_t used = here < stack_base_ ? stack_base_ - here : here - stack_base_;
  if (used > kStackBudgetBytes)
    return ErrorAtTok(absl::StrCat("maximum recursion depth exceeded (nesting too deep at level ",
                                   depth_, ")"));
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Parser::ParseInt(absl::string_view what) {
  if (kind() != TokKind::kInt) return Unexpected(absl::StrCat("integer for ", what));
  if (tok().int_is_big_unsigned)
    return ErrorAtTok(absl::StrCat("integer ", tok().text, " is too large for ", what));
  int64_t v = tok().int_value;
  Next();
  return v;
}

absl::StatusOr<double> Parser::ParseDouble(absl::string_view what) {
  double v;
  if (kind() == TokKind::kDecimal) {
    v = tok().dec_value;
  } else if (kind() == TokKind::kInt) {
    v = tok().int_is_big_unsigned ? static_cast<double>(static_cast<uint64_t>(tok().int_value))
                                  : static_cast<double>(tok().int_value);
  } else {
    return Unexpected(absl::StrCat("decimal or integer for ", what));
  }
  Next();
  return v;
}

absl::StatusOr<bool> Parser::ParseBool() {
  if (IsIdent("true")) {
    Next();
    return true;
  }
  if (IsIdent("false")) {
    Next();
    return false;
  }
  return Unexpected("true or false");
}

absl::Status Parser::ParseStringInto(absl::string_view what, std::string* out) {
  if (kind() != TokKind::kString) return Unexpected(absl::StrCat("quoted string for ", what));
  out->assign(lexer_.str());
  Next();
  return absl::OkStatus();
}

absl::StatusOr<std::string> Parser::ParseString(absl::string_view what) {
  if (kind() != TokKind::kString) return Unexpected(absl::StrCat("quoted string for ", what));
  std::string s = lexer_.str();
  Next();
  return s;
}

absl::StatusOr<std::vector<int64_t>> Parser::ParseIntList() {
  std::vector<int64_t> out;
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start an integer list"));
  if (Accept(TokKind::kRbrace)) return out;
  while (true) {
    HLO_PARSE_ASSIGN_OR_RETURN(int64_t v, ParseInt("list element"));
    out.push_back(v);
    if (Accept(TokKind::kComma)) continue;
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "',' or '}' in integer list"));
    return out;
  }
}

absl::StatusOr<std::vector<int64_t>> Parser::ParseBracketIntList() {
  std::vector<int64_t> out;
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbracket, "'['"));
  if (Accept(TokKind::kRbracket)) return out;
  while (true) {
    HLO_PARSE_ASSIGN_OR_RETURN(int64_t v, ParseInt("list element"));
    out.push_back(v);
    if (Accept(TokKind::kComma)) continue;
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbracket, "',' or ']'"));
    return out;
  }
}

absl::StatusOr<std::vector<std::vector<int64_t>>> Parser::ParseIntListList() {
  std::vector<std::vector<int64_t>> out;
  HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start a list of integer lists"));
  if (Accept(TokKind::kRbrace)) return out;
  while (true) {
    HLO_PARSE_ASSIGN_OR_RETURN(std::vector<int64_t> v, ParseIntList());
    out.push_back(std::move(v));
    if (Accept(TokKind::kComma)) continue;
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "',' or '}'"));
    return out;
  }
}

absl::StatusOr<std::vector<int64_t>> Parser::ParseShapeIndex() {
  if (kind() != TokKind::kLbrace) return Unexpected("'{' at the start of a shape index");
  Next();
  std::vector<int64_t> out;
  if (Accept(TokKind::kRbrace)) return out;
  while (true) {
    if (kind() != TokKind::kInt) return Unexpected("integer in shape index");
    HLO_PARSE_ASSIGN_OR_RETURN(int64_t v, ParseInt("shape index"));
    out.push_back(v);
    if (Accept(TokKind::kComma)) continue;
    if (kind() != TokKind::kRbrace) return Unexpected("'}' at the end of a shape index");
    Next();
    return out;
  }
}

// ---------------------------------------------------------------------------
// Module

absl::StatusOr<std::unique_ptr<Module>> Parser::ParseModuleTop() {
  Next();
  auto module = std::make_unique<Module>("");
  module_ = module.get();
  bool saw_entry = false;
  Computation* entry = nullptr;

  if (IsIdent("HloModule")) {
    Next();
    if (kind() == TokKind::kName || kind() == TokKind::kParamName ||
        (kind() == TokKind::kIdent && !IsKeyword(tok().text))) {
      // Older printers wrote `HloModule name:`; the glued ':' is accepted.
      module->set_name(std::string(tok().text));
      Next();
    } else if (kind() == TokKind::kString) {
      module->set_name(lexer_.str());
      Next();
    } else {
      return Unexpected("module name after 'HloModule'");
    }
    while (kind() == TokKind::kComma) {
      Next();
      HLO_PARSE_RETURN_IF_ERROR(ParseHeaderAttribute(module.get()));
    }
    HLO_PARSE_RETURN_IF_ERROR(ParseStackFrames(module.get()));
    if (kind() == TokKind::kEof) return ErrorAtTok("expects at least one computation in the module");
    while (kind() != TokKind::kEof) {
      HLO_PARSE_RETURN_IF_ERROR(ParseComputation(module.get(), &saw_entry, &entry));
    }
  } else if (kind() == TokKind::kEof) {
    return ErrorAtTok("empty input: expects an HloModule, a computation or an instruction");
  } else {
    bool headerless = IsIdent("ENTRY");
    if (!headerless && (kind() == TokKind::kName || kind() == TokKind::kIdent)) {
      char c = lexer_.PeekChar();
      bool is_shape_start =
          kind() == TokKind::kIdent && (TypeFromName(tok().text) || tok().text == "b");
      // `name {` or `name (sig) -> shape {`; an opcode followed by '(' is a
      // single anonymous instruction instead.
      if (!is_shape_start &&
          (c == '{' || (c == '(' && !(kind() == TokKind::kIdent && LookupOpcode(tok().text)))))
        headerless = true;
    }
    if (headerless) {
      while (kind() != TokKind::kEof) {
        HLO_PARSE_RETURN_IF_ERROR(ParseComputation(module.get(), &saw_entry, &entry));
      }
    } else {
      // Single-instruction mode.
      module->set_name("single_instruction_module");
      auto comp = std::make_unique<Computation>("single_instruction");
      comp->set_loc(TokLoc());
      Scope scope;
      scope.comp = comp.get();
      scope.create_missing_params = true;
      bool saw_root = false;
      Instruction* root = nullptr;
      Instruction* last = nullptr;
      HLO_PARSE_RETURN_IF_ERROR(ParseInstruction(&scope, &saw_root, &root, &last));
      if (kind() != TokKind::kEof) {
        return ErrorAtTok(
            "expects end of input after a single instruction (to parse several instructions, "
            "write an HloModule with a computation)");
      }
      comp->set_root(last);
      computations_[comp->name()] = comp.get();
      entry = module->AddComputation(std::move(comp));
    }
  }

  if (!entry) {
    std::vector<Computation*> comps = module->computations();
    if (comps.empty()) return ErrorAtTok("expects at least one computation");
    entry = comps.back();
  }
  module->set_entry(entry);
  if (module->name().empty()) module->set_name(absl::StrCat("module_", entry->name()));

  ModuleHeader& h = module->header();
  if (!h.entry_computation_layout) {
    ProgramShape ps;
    // parameters() is indexed by parameter number; numbers that were
    // skipped in the text leave null entries (the verifier reports them).
    for (Instruction* p : entry->parameters()) {
      if (p == nullptr) continue;
      ps.parameters.push_back(p->shape());
      ps.parameter_names.push_back(p->name());
    }
    if (entry->root()) ps.result = entry->root()->shape();
    h.entry_computation_layout = std::move(ps);
  }
  HLO_PARSE_RETURN_IF_ERROR(CheckAliasing(module.get()));
  module->set_source(options_.filename, shared_text_ != nullptr
                                            ? shared_text_
                                            : std::make_shared<const std::string>(text_));
  return module;
}

// input_output_alias / buffer_donor must name real entry parameters and
// valid shape indices.
absl::Status Parser::CheckAliasing(Module* module) {
  const ModuleHeader& h = module->header();
  if (h.input_output_alias.empty() && h.buffer_donor.empty()) return absl::OkStatus();
  Computation* entry = module->entry();
  SourceLoc loc = header_alias_loc_;
  auto param_shape = [&](int64_t p) -> const Shape* {
    if (p < 0 || p >= entry->num_parameters() || entry->parameter(p) == nullptr) return nullptr;
    return &entry->parameter(p)->shape();
  };
  const Shape* result = entry->root() ? &entry->root()->shape() : nullptr;
  for (const InputOutputAlias& a : h.input_output_alias) {
    if (!result || result->SubShape(a.output_index) == nullptr)
      return ErrorAt(loc, absl::StrCat("input_output_alias: output index {",
                                       absl::StrJoin(a.output_index, ","),
                                       "} does not exist in the entry result shape"));
    const Shape* ps = param_shape(a.parameter);
    if (!ps)
      return ErrorAt(loc, absl::StrCat("input_output_alias: the entry computation has no "
                                       "parameter ", a.parameter));
    if (ps->SubShape(a.parameter_index) == nullptr)
      return ErrorAt(loc, absl::StrCat("input_output_alias: parameter index {",
                                       absl::StrJoin(a.parameter_index, ","),
                                       "} does not exist in parameter ", a.parameter));
  }
  for (const BufferDonor& d : h.buffer_donor) {
    const Shape* ps = param_shape(d.parameter);
    if (!ps || ps->SubShape(d.parameter_index) == nullptr)
      return ErrorAt(loc, absl::StrCat("buffer_donor: parameter ", d.parameter, " index {",
                                       absl::StrJoin(d.parameter_index, ","),
                                       "} does not exist in the entry computation"));
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseHeaderAttribute(Module* module) {
  if (kind() != TokKind::kAttrName) return Unexpected("module attribute name (e.g. is_scheduled=)");
  std::string name(tok().text);
  SourceLoc loc = TokLoc();
  Next();
  ModuleHeader& h = module->header();
  if (name == "input_output_alias" || (name == "buffer_donor" && header_alias_loc_.line == 0))
    header_alias_loc_ = loc;
  if (name == "is_scheduled") {
    HLO_PARSE_ASSIGN_OR_RETURN(h.is_scheduled, ParseBool());
  } else if (name == "entry_computation_layout") {
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start entry_computation_layout"));
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' to start the parameter shapes"));
    ProgramShape ps;
    if (!Accept(TokKind::kRparen)) {
      while (true) {
        HLO_PARSE_ASSIGN_OR_RETURN(Shape s, ParseShape());
        ps.parameters.push_back(std::move(s));
        if (Accept(TokKind::kComma)) continue;
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "',' or ')' in parameter shapes"));
        break;
      }
    }
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kArrow, "'->' in entry_computation_layout"));
    HLO_PARSE_ASSIGN_OR_RETURN(ps.result, ParseShape());
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}' to end entry_computation_layout"));
    h.entry_computation_layout = std::move(ps);
  } else if (name == "input_output_alias") {
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start input_output_alias"));
    h.has_input_output_alias = true;
    if (!Accept(TokKind::kRbrace)) {
      while (true) {
        InputOutputAlias a;
        HLO_PARSE_ASSIGN_OR_RETURN(a.output_index, ParseShapeIndex());
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kColon, "':' after the output shape index"));
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' before the parameter number"));
        HLO_PARSE_ASSIGN_OR_RETURN(a.parameter, ParseInt("parameter number"));
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' after the parameter number"));
        HLO_PARSE_ASSIGN_OR_RETURN(a.parameter_index, ParseShapeIndex());
        if (Accept(TokKind::kComma)) {
          if (IsIdent("may-alias")) {
            a.must_alias = false;
          } else if (IsIdent("must-alias")) {
            a.must_alias = true;
          } else {
            return Unexpected("may-alias or must-alias");
          }
          Next();
        }
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' to end the alias entry"));
        h.input_output_alias.push_back(std::move(a));
        if (Accept(TokKind::kComma)) continue;
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "',' or '}' in input_output_alias"));
        break;
      }
    }
  } else if (name == "buffer_donor") {
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start buffer_donor"));
    h.has_buffer_donor = true;
    if (!Accept(TokKind::kRbrace)) {
      while (true) {
        BufferDonor d;
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' to start a buffer donor"));
        HLO_PARSE_ASSIGN_OR_RETURN(d.parameter, ParseInt("parameter number"));
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kComma, "',' after the parameter number"));
        HLO_PARSE_ASSIGN_OR_RETURN(d.parameter_index, ParseShapeIndex());
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' to end the buffer donor"));
        h.buffer_donor.push_back(std::move(d));
        if (Accept(TokKind::kComma)) continue;
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "',' or '}' in buffer_donor"));
        break;
      }
    }
  } else if (name == "alias_passthrough_params") {
    HLO_PARSE_ASSIGN_OR_RETURN(bool b, ParseBool());
    h.alias_passthrough_params = b;
  } else if (name == "replica_count") {
    HLO_PARSE_ASSIGN_OR_RETURN(h.replica_count, ParseInt("replica_count"));
    if (h.replica_count < 1) return ErrorAt(loc, "replica_count must be at least 1");
  } else if (name == "num_partitions") {
    HLO_PARSE_ASSIGN_OR_RETURN(h.num_partitions, ParseInt("num_partitions"));
    if (h.num_partitions < 1) return ErrorAt(loc, "num_partitions must be at least 1");
  } else if (name == "frontend_attributes") {
    HLO_PARSE_RETURN_IF_ERROR(ParseFrontendAttributes(&h.frontend_attributes));
  } else if (name == "allow_spmd_sharding_propagation_to_parameters") {
    HLO_PARSE_ASSIGN_OR_RETURN(h.allow_spmd_sharding_propagation_to_parameters, ParseBoolList());
  } else if (name == "allow_spmd_sharding_propagation_to_output") {
    HLO_PARSE_ASSIGN_OR_RETURN(h.allow_spmd_sharding_propagation_to_output, ParseBoolList());
  } else if (name == "origin_recovery_table") {
    RawText raw;
    HLO_PARSE_RETURN_IF_ERROR(ParseRaw(&raw));
    h.origin_recovery_table = std::move(raw);
  } else {
    return ErrorAt(loc, absl::StrCat("unknown module attribute \"", name,
                                     "\". Allowed: is_scheduled, entry_computation_layout, "
                                     "input_output_alias, buffer_donor, alias_passthrough_params, "
                                     "replica_count, num_partitions, frontend_attributes, "
                                     "allow_spmd_sharding_propagation_to_parameters, "
                                     "allow_spmd_sharding_propagation_to_output, "
                                     "origin_recovery_table"));
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseStackFrames(Module* module) {
  StackFrameTables& t = module->header().stack_frames;
  auto parse_sub = [&](absl::flat_hash_map<std::string, int64_t>* fields,
                       absl::Span<const absl::string_view> allowed) -> absl::Status {
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
    while (kind() != TokKind::kRbrace) {
      if (kind() != TokKind::kAttrName) return Unexpected("field name");
      std::string key(tok().text);
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        return ErrorAtTok(absl::StrCat("unknown field \"", key, "\" in stack frame table, allowed: ",
                                       absl::StrJoin(allowed, ", ")));
      if (fields->contains(key)) return ErrorAtTok(absl::StrCat("field ", key, " given twice"));
      Next();
      HLO_PARSE_ASSIGN_OR_RETURN((*fields)[key], ParseInt(key));
      Accept(TokKind::kComma);
    }
    Next();
    return absl::OkStatus();
  };
  while (kind() == TokKind::kIdent) {
    absl::string_view section = tok().text;
    if (section == "FileNames" || section == "FunctionNames") {
      bool files = section == "FileNames";
      Next();
      while (kind() == TokKind::kInt) {
        HLO_PARSE_ASSIGN_OR_RETURN(int64_t id, ParseInt("table index"));
        HLO_PARSE_ASSIGN_OR_RETURN(std::string s, ParseString("the name"));
        (files ? t.file_names : t.function_names).emplace_back(id, std::move(s));
      }
    } else if (section == "FileLocations") {
      Next();
      static const absl::string_view kAllowed[] = {"file_name_id", "function_name_id", "line",
                                                   "end_line", "column", "end_column"};
      while (kind() == TokKind::kInt) {
        StackFrameTables::FileLocation loc;
        HLO_PARSE_ASSIGN_OR_RETURN(loc.id, ParseInt("table index"));
        absl::flat_hash_map<std::string, int64_t> f;
        HLO_PARSE_RETURN_IF_ERROR(parse_sub(&f, kAllowed));
        loc.file_name_id = f["file_name_id"];
        loc.function_name_id = f["function_name_id"];
        loc.line = f["line"];
        loc.end_line = f["end_line"];
        loc.column = f["column"];
        loc.end_column = f["end_column"];
        t.file_locations.push_back(loc);
      }
    } else if (section == "StackFrames") {
      Next();
      static const absl::string_view kAllowed[] = {"file_location_id", "parent_frame_id"};
      while (kind() == TokKind::kInt) {
        StackFrameTables::Frame fr;
        HLO_PARSE_ASSIGN_OR_RETURN(fr.id, ParseInt("table index"));
        absl::flat_hash_map<std::string, int64_t> f;
        HLO_PARSE_RETURN_IF_ERROR(parse_sub(&f, kAllowed));
        fr.file_location_id = f["file_location_id"];
        fr.parent_frame_id = f["parent_frame_id"];
        t.frames.push_back(fr);
      }
    } else {
      break;
    }
  }
  return absl::OkStatus();
}

std::string Parser::UniqueComputationName(absl::string_view base) {
  std::string name(base);
  while (computations_.contains(name)) name = absl::StrCat(base, ".", ++unique_comp_counter_);
  return name;
}

absl::Status Parser::ParseComputation(Module* module, bool* saw_entry, Computation** entry) {
  DepthGuard guard(this);
  HLO_PARSE_RETURN_IF_ERROR(CheckDepth());
  bool is_entry = false;
  if (IsIdent("ENTRY")) {
    SourceLoc entry_loc = TokLoc();
    if (*saw_entry) return ErrorAt(entry_loc, "expects only one ENTRY computation in a module");
    is_entry = true;
    *saw_entry = true;
    Next();
  }
  SourceLoc loc = TokLoc();
  std::string name;
  if (kind() == TokKind::kName || (kind() == TokKind::kIdent && !IsKeyword(tok().text))) {
    name = std::string(tok().text);
    Next();
  } else {
    return Unexpected("computation name");
  }
  if (auto it = computation_locs_.find(name); it != computation_locs_.end()) {
    absl::Status first = ErrorAt(loc, absl::StrCat("computation already exists: ", name));
    absl::Status second = ErrorAt(it->second, "computation previously defined here");
    return absl::InvalidArgumentError(absl::StrCat(first.message(), "\n", second.message()));
  }
  std::optional<Shape> declared_result;
  SourceLoc sig_loc = TokLoc();
  if (kind() == TokKind::kLparen) {
    Next();
    if (!Accept(TokKind::kRparen)) {
      while (true) {
        if (kind() != TokKind::kParamName)
          return Unexpected("parameter name glued to ':' (e.g. `x: f32[]`)");
        Next();
        HLO_PARSE_ASSIGN_OR_RETURN(Shape s, ParseShape());
        (void)s;
        if (Accept(TokKind::kComma)) continue;
        HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "',' or ')' in the parameter list"));
        break;
      }
    }
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kArrow, "'->' after the parameter list"));
    sig_loc = TokLoc();
    HLO_PARSE_ASSIGN_OR_RETURN(Shape r, ParseShape());
    declared_result = std::move(r);
  }
  auto comp = std::make_unique<Computation>(name);
  comp->set_loc(loc);
  computations_[name] = comp.get();
  computation_locs_[name] = loc;
  Scope scope;
  scope.comp = comp.get();
  HLO_PARSE_RETURN_IF_ERROR(ParseInstructionList(comp.get(), &scope, loc));
  if (declared_result && comp->root() && !declared_result->Compatible(comp->root()->shape())) {
    return ErrorAt(sig_loc, absl::StrCat("the result shape ", ShapeText(*declared_result),
                                         " of computation ", name,
                                         " is not compatible with the shape of its root "
                                         "instruction ", comp->root()->name(), ": ",
                                         ShapeText(comp->root()->shape())));
  }
  if (kind() == TokKind::kComma) {
    Next();
    if (kind() != TokKind::kAttrName || tok().text != "execution_thread")
      return Unexpected("execution_thread= after the computation");
    Next();
    HLO_PARSE_ASSIGN_OR_RETURN(std::string thread, ParseString("execution_thread"));
    comp->set_execution_thread(std::move(thread));
  }
  Computation* c = module->AddComputation(std::move(comp));
  if (is_entry) *entry = c;
  return absl::OkStatus();
}

namespace {

// Lines from `p` up to the first line that starts with '}' (how printed
// modules end a computation body): an estimate of the body's instruction
// count, used only to size tables up front (a wrong guess costs only
// speed). Growing a name table of 100k entries step by step rehashes every
// name about twice.
size_t EstimateBodyLines(const char* p, const char* end) {
  size_t lines = 0;
  while (p < end) {
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    if (nl == nullptr) break;
    ++lines;
    p = static_cast<const char*>(nl) + 1;
    if (p < end && *p == '}') break;
  }
  return lines;
}

}  // namespace

absl::Status Parser::ParseInstructionList(Computation* comp, Scope* scope, SourceLoc comp_loc) {
  if (kind() != TokKind::kLbrace) return Unexpected("'{' to start the computation body");
  {
    const absl::string_view buf = lexer_.buffer();
    const size_t lines = EstimateBodyLines(tok().begin, buf.data() + buf.size());
    scope->names.Reserve(lines);
    comp->ReserveInstructions(lines);
  }
  Next();
  bool saw_root = false;
  Instruction* root = nullptr;
  Instruction* last = nullptr;
  while (kind() != TokKind::kRbrace) {
    if (kind() == TokKind::kEof)
      return ErrorAtTok("expects '}' at the end of the computation body, but the input ended");
    HLO_PARSE_RETURN_IF_ERROR(ParseInstruction(scope, &saw_root, &root, &last));
  }
  if (!last) return ErrorAt(comp_loc, absl::StrCat("computation ", comp->name(),
                                                   " has no instructions"));
  Next();  // '}'
  comp->set_root(root ? root : last);
  return absl::OkStatus();
}

absl::StatusOr<Computation*> Parser::ParseInlineComputation(Scope* outer) {
  DepthGuard guard(this);
  HLO_PARSE_RETURN_IF_ERROR(CheckDepth());
  (void)outer;
  SourceLoc loc = TokLoc();
  std::string name = UniqueComputationName("_");
  auto comp = std::make_unique<Computation>(name);
  comp->set_loc(loc);
  computations_[name] = comp.get();
  computation_locs_[name] = loc;
  Scope scope;
  scope.comp = comp.get();
  HLO_PARSE_RETURN_IF_ERROR(ParseInstructionList(comp.get(), &scope, loc));
  return module_->AddComputation(std::move(comp));
}

absl::StatusOr<Computation*> Parser::ParseComputationRef(Scope* scope) {
  if (kind() == TokKind::kLbrace) return ParseInlineComputation(scope);
  if (kind() == TokKind::kName || kind() == TokKind::kIdent) {
    auto it = computations_.find(tok().text);
    if (it == computations_.end() || it->second->parent() == nullptr)
      return ErrorAtTok(absl::StrCat("computation does not exist: ", tok().text,
                                     " (computations must be defined before they are used)"));
    Next();
    return it->second;
  }
  return Unexpected("a computation name");
}

}  // namespace parser_internal

// ---------------------------------------------------------------------------
// Public API

absl::StatusOr<std::unique_ptr<Module>> ParseModule(absl::string_view text,
                                                    const ParseOptions& options) {
  parser_internal::Parser p(text, options);
  return p.ParseModuleTop();
}

absl::StatusOr<std::unique_ptr<Module>> ParseModule(std::shared_ptr<const std::string> text,
                                                    const ParseOptions& options) {
  if (text == nullptr) return absl::InvalidArgumentError("ParseModule: no text");
  parser_internal::Parser p(*text, options);
  p.shared_text_ = std::move(text);
  return p.ParseModuleTop();
}

absl::StatusOr<Shape> ParseShape(absl::string_view text) {
  ParseOptions options;
  options.filename = "<shape>";
  parser_internal::Parser p(text, options);
  return p.ParseShapeTop();
}

absl::StatusOr<Literal> ParseLiteral(absl::string_view text) {
  ParseOptions options;
  options.filename = "<literal>";
  parser_internal::Parser p(text, options);
  return p.ParseLiteralTop();
}

absl::StatusOr<ConvolutionDimensionNumbers> ParseConvDimLabels(absl::string_view text) {
  ParseOptions options;
  options.filename = "<dim_labels>";
  parser_internal::Parser p(text, options);
  return p.ParseConvDimLabelsTop();
}

absl::StatusOr<NamedShardingSpec> ParseNamedSharding(absl::string_view text) {
  ParseOptions options;
  options.filename = "<sharding>";
  parser_internal::Parser p(text, options);
  return p.ParseNamedShardingTop();
}

}  // namespace hlo
