// Instructions (spec §3): names, operands (incl. nested anonymous
// instructions), attributes checked against the AttrSpec tables,
// control-predecessors, shape inference, async syntax sugar.
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/instruction_name.h"
#include "ir/shape_inference.h"
#include "parser/parser_impl.h"

namespace hlo {
namespace parser_internal {

absl::StatusOr<Instruction*> Parser::AddToScope(Scope* scope, std::unique_ptr<Instruction> inst,
                                                SourceLoc loc) {
  inst->set_loc(loc);
  // The table holds the instruction itself, which stays put: only its
  // owner moves.
  if (Instruction* previous = scope->names.Insert(inst.get())) {
    absl::Status first = ErrorAt(loc, absl::StrCat("instruction already exists: ", inst->name()));
    absl::Status second = ErrorAt(previous->loc(), "instruction previously defined here");
    return absl::InvalidArgumentError(absl::StrCat(first.message(), "\n", second.message()));
  }
  Instruction* p = scope->comp->AddInstruction(std::move(inst));
  return p;
}

absl::StatusOr<Instruction*> Parser::MakeAutoParameter(Scope* scope, std::string name, Shape shape,
                                                       SourceLoc loc) {
  // XLA names a parameter it creates through its sanitizer instead of
  // rejecting the name (it is the text's operand name, not a definition).
  // The name can be taken only by a renamed parameter; XLA's uniquer then
  // numbers it.
  std::string text_name = name;
  if (!IsLegalInstructionName(name)) name = SanitizedInstructionName(name);
  const std::string base = name;
  for (int64_t k = 1; scope->names.Contains(name); ++k) name = absl::StrCat(base, ".", k);
  auto inst = std::make_unique<Instruction>(Opcode::kParameter, name, std::move(shape));
  if (name != text_name) scope->renamed_params[text_name] = inst.get();
  int64_t n = scope->next_auto_param;
  while (scope->parameter_numbers.contains(n)) ++n;
  scope->next_auto_param = n + 1;
  scope->parameter_numbers.insert(n);
  inst->set_parameter_number(n);
  return AddToScope(scope, std::move(inst), loc);
}

absl::Status Parser::ParseInstruction(Scope* scope, bool* saw_root, Instruction** root,
                                      Instruction** last) {
  bool is_root = false;
  SourceLoc root_loc = TokLoc();
  if (IsIdent("ROOT")) {
    is_root = true;
    if (*saw_root)
      return ErrorAt(root_loc, "a computation may have only one ROOT instruction");
    *saw_root = true;
    Next();
  }
  SourceLoc name_loc = TokLoc();
  // A view of the text (or empty): the instruction makes its own copy.
  absl::string_view name;
  bool eq_glued = false;
  if (kind() == TokKind::kName) {
    name = tok().text;
    Next();
  } else if (kind() == TokKind::kIdent && !IsKeyword(tok().text) &&
             lexer_.PeekChar() == '=') {
    name = tok().text;
    Next();
  } else if (kind() == TokKind::kAttrName && !IsKeyword(tok().text)) {
    // `a=f32[] ...`: the lexer glued the '=' to the name.
    name = tok().text;
    eq_glued = true;
    Next();
  } else if (scope->create_missing_params && AtShapeStart()) {
    // Single-instruction mode allows `shape opcode(...)` without a name.
    name = absl::string_view();
  } else if (scope->create_missing_params && kind() == TokKind::kIdent &&
             lexer_.PeekChar() == '(' && LookupOpcode(tok().text)) {
    // XLA's parser reads a single instruction as `name = ...` unless it
    // starts with a shape, so a bare `multiply(...)` is rejected there; it
    // would have no declared result shape to check the operands against.
    return ErrorAtTok(absl::StrCat(
        "expects '=' in instruction: the single instruction '", tok().text,
        "(...)' has neither `name =` nor a result shape before its opcode (write `name = ",
        tok().text, "(...)` or `shape ", tok().text, "(...)`)"));
  } else {
    if (kind() == TokKind::kIdent && IsKeyword(tok().text))
      return ErrorAtTok(absl::StrCat("expects an instruction name, but sees the reserved word '",
                                     tok().text, "' (prefix it with '%' to use it as a name)"));
    return Unexpected("an instruction name");
  }
  // The name goes into the scope's table once the instruction is parsed;
  // fetching its slot now hides the cache miss of a big table behind the
  // parsing.
  if (!name.empty()) scope->names.Prefetch(name);
  if (!name.empty() && !eq_glued) {
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kEqual, "'=' after the instruction name"));
  }
  // Parsed in place: a shape moved from temporary to temporary costs a
  // copy of its inline dimension lists each time.
  std::optional<Shape> shape;
  if (AtShapeStart()) HLO_PARSE_RETURN_IF_ERROR(ParseShapeInto(&shape.emplace()));
  HLO_PARSE_ASSIGN_OR_RETURN(Instruction * inst,
                             ParseInstructionBody(scope, name, name_loc,
                                                  std::move(shape), /*allow_attrs=*/true));
  if (is_root) *root = inst;
  *last = inst;
  return absl::OkStatus();
}

absl::Status Parser::ParseOperands(Scope* scope, OperandList* operands, OperandLocs* locs) {
  if (kind() != TokKind::kLparen) return Unexpected("'(' at the beginning of the operands");
  Next();
  if (Accept(TokKind::kRparen)) return absl::OkStatus();
  while (true) {
    locs->push_back(TokLoc());
    HLO_PARSE_ASSIGN_OR_RETURN(Instruction * op, ParseOperand(scope));
    operands->push_back(op);
    if (Accept(TokKind::kComma)) continue;
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "',' or ')' in the operand list"));
    return absl::OkStatus();
  }
}

absl::StatusOr<Instruction*> Parser::ParseOperand(Scope* scope) {
  DepthGuard guard(this);
  HLO_PARSE_RETURN_IF_ERROR(CheckDepth());
  SourceLoc loc = TokLoc();
  // Parsed in place: a shape moved from temporary to temporary costs a
  // copy of its inline dimension lists each time.
  std::optional<Shape> shape;
  if (AtShapeStart()) HLO_PARSE_RETURN_IF_ERROR(ParseShapeInto(&shape.emplace()));
  SourceLoc name_loc = TokLoc();
  if (kind() == TokKind::kIdent && lexer_.PeekChar() == '(' && LookupOpcode(tok().text)) {
    // Nested anonymous instruction.
    std::string base = absl::StrCat(tok().text, ".anon");
    std::string nm = base;
    while (scope->names.Contains(nm)) nm = absl::StrCat(base, ".", ++scope->anon_counter);
    return ParseInstructionBody(scope, nm, name_loc, std::move(shape),
                                /*allow_attrs=*/false);
  }
  if (kind() == TokKind::kName || (kind() == TokKind::kIdent && !IsKeyword(tok().text))) {
    absl::string_view nm = tok().text;
    Instruction* op = scope->FindOperand(nm);
    if (op == nullptr) {
      if (scope->create_missing_params && shape) {
        std::string n(nm);
        Next();
        return MakeAutoParameter(scope, std::move(n), std::move(*shape), name_loc);
      }
      if (scope->create_missing_params && !shape)
        return ErrorAtTok(absl::StrCat("operand ", nm,
                                       " has no shape in the text; in single-instruction mode "
                                       "unknown operands need a shape"));
      return ErrorAtTok(absl::StrCat("instruction does not exist: ", nm));
    }
    if (shape && !shape->Compatible(op->shape())) {
      return ErrorAt(loc, absl::StrCat("the declared operand shape ", ShapeText(*shape),
                                       " is not compatible with the shape of the operand "
                                       "instruction ", op->name(), ": ", ShapeText(op->shape())));
    }
    Next();
    return op;
  }
  if (shape && scope->create_missing_params &&
      (kind() == TokKind::kComma || kind() == TokKind::kRparen)) {
    std::string n = absl::StrCat("_", scope->next_auto_param);
    while (scope->names.Contains(n)) n += "_";
    return MakeAutoParameter(scope, std::move(n), std::move(*shape), loc);
  }
  if (kind() == TokKind::kIdent && IsKeyword(tok().text))
    return ErrorAtTok(absl::StrCat("expects an operand name, but sees the reserved word '",
                                   tok().text, "' (prefix it with '%' to use it as a name)"));
  return Unexpected("an operand name or a nested instruction");
}

// ---------------------------------------------------------------------------
// Instruction body: opcode, operands, attributes, checks.

absl::StatusOr<Instruction*> Parser::ParseInstructionBody(Scope* scope, absl::string_view name,
                                                          SourceLoc name_loc,
                                                          std::optional<Shape>&& shape,
                                                          bool allow_attrs) {
  DepthGuard guard(this);
  HLO_PARSE_RETURN_IF_ERROR(CheckDepth());
  SourceLoc op_loc = TokLoc();
  if (kind() != TokKind::kIdent) return Unexpected("an opcode");
  std::string opcode_text(tok().text);
  std::optional<OpcodeInfo> info = LookupOpcode(opcode_text);
  if (!info) return ErrorAtTok(absl::StrCat("unknown opcode: ", opcode_text));
  Next();
  const Opcode opcode = info->opcode;
  if (name.empty()) name = opcode_text;  // single-instruction mode without a name

  OperandList operands;
  OperandLocs operand_locs;
  int64_t parameter_number = -1;
  std::optional<Literal> literal;

  if (opcode == Opcode::kParameter) {
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' after parameter"));
    SourceLoc nloc = TokLoc();
    if (kind() != TokKind::kInt) return Unexpected("the parameter number");
    if (tok().int_is_big_unsigned || tok().int_value < 0)
      return ErrorAtTok(absl::StrCat("parameter number must be >= 0, but is ", tok().text));
    parameter_number = tok().int_value;
    // Parameters are stored densely by number; a number larger than the
    // input could ever hold parameters for is certainly a mistake.
    if (parameter_number > static_cast<int64_t>(text_.size()))
      return ErrorAtTok(absl::StrCat("parameter number ", parameter_number,
                                     " is too large for this input"));
    Next();
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' after the parameter number"));
    if (scope->parameter_numbers.contains(parameter_number))
      return ErrorAt(nloc, absl::StrCat("duplicate parameter number ", parameter_number,
                                        " in computation ", scope->comp->name()));
  } else if (opcode == Opcode::kConstant) {
    if (!shape) return ErrorAt(op_loc, "cannot infer shape for opcode: constant (write the shape)");
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' after constant"));
    HLO_PARSE_RETURN_IF_ERROR(CheckLiteralSize(*shape, op_loc));
    Literal lit(*shape);
    HLO_PARSE_RETURN_IF_ERROR(ParseLiteralValue(*shape, &lit));
    HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' after the literal"));
    literal = std::move(lit);
  } else {
    HLO_PARSE_RETURN_IF_ERROR(ParseOperands(scope, &operands, &operand_locs));
  }

  // ---- attributes ----
  const Opcode attr_opcode = info->sugar ? info->wrapped : opcode;
  AttrListLease lease(this);
  AttrList& attrs = *lease.list;
  AttrList async_attrs;  // sugar: kept on the async op
  std::vector<Instruction*> control_preds;
  bool has_control_preds = false;
  absl::InlinedVector<std::pair<absl::string_view, SourceLoc>, 8> attr_locs;
  auto attr_loc = [&](absl::string_view n) -> SourceLoc {
    for (const auto& kv : attr_locs)
      if (kv.first == n) return kv.second;
    return op_loc;
  };
  while (allow_attrs && kind() == TokKind::kComma) {
    Next();
    if (kind() != TokKind::kAttrName) return Unexpected("an attribute name (e.g. `dimensions=`)");
    absl::string_view aname_view = tok().text;
    SourceLoc aloc = TokLoc();
    for (const auto& kv : attr_locs)
      if (kv.first == aname_view)
        return ErrorAt(aloc, absl::StrCat("attribute ", aname_view, " already exists"));
    attr_locs.emplace_back(aname_view, aloc);
    std::string aname(aname_view);
    Next();
    if (aname == "control-predecessors") {
      has_control_preds = true;
      HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start control-predecessors"));
      if (!Accept(TokKind::kRbrace)) {
        while (true) {
          if (kind() != TokKind::kName && kind() != TokKind::kIdent)
            return Unexpected("an instruction name");
          Instruction* pred = scope->names.Find(tok().text);
          if (pred == nullptr)
            return ErrorAtTok(absl::StrCat("instruction does not exist: ", tok().text));
          control_preds.push_back(pred);
          Next();
          if (Accept(TokKind::kComma)) continue;
          HLO_PARSE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "',' or '}'"));
          break;
        }
      }
      continue;
    }
    const AttrSpec* spec = FindAttrSpec(attr_opcode, aname);
    bool to_async = false;
    if (info->sugar) {
      const AttrSpec* async_spec = FindAttrSpec(opcode, aname);
      if (async_spec && aname != "output_to_operand_aliasing" && aname != "calls") {
        spec = async_spec;
        to_async = true;
      } else if (!spec) {
        spec = nullptr;
      }
      if (spec && opcode != Opcode::kAsyncStart && !to_async) {
        // Attributes of the wrapped op repeated on -update/-done: parsed for
        // checking, stored only if universal.
        bool universal = false;
        for (const AttrSpec& u : UniversalAttrSpecs())
          if (u.name == aname) universal = true;
        to_async = universal;
        if (!universal) {
          AttrValue ignored;
          HLO_PARSE_RETURN_IF_ERROR(ParseAttrValue(*spec, attr_opcode, scope, &ignored));
          continue;
        }
      }
    }
    if (!spec) {
      std::vector<std::string> allowed;
      for (const AttrSpec& s : FamilyAttrSpecs(OpcodeAttrFamily(attr_opcode)))
        allowed.emplace_back(s.name);
      if (info->sugar)
        for (const AttrSpec& s : FamilyAttrSpecs(OpcodeAttrFamily(opcode)))
          allowed.emplace_back(s.name);
      for (const AttrSpec& s : UniversalAttrSpecs()) allowed.emplace_back(s.name);
      allowed.emplace_back("control-predecessors");
      return ErrorAt(aloc, absl::StrCat("unexpected attribute \"", aname, "\" for ", opcode_text,
                                        ". Allowed attributes: ", absl::StrJoin(allowed, ", ")));
    }
    auto& target = to_async ? async_attrs : attrs;
    target.emplace_back(std::move(aname), AttrValue());
    HLO_PARSE_RETURN_IF_ERROR(
        ParseAttrValue(*spec, to_async ? opcode : attr_opcode, scope, &target.back().second));
  }
  auto find_attr = [&](absl::string_view n) -> AttrValue* {
    for (auto& kv : attrs)
      if (kv.first == n) return &kv.second;
    for (auto& kv : async_attrs)
      if (kv.first == n) return &kv.second;
    return nullptr;
  };

  // ---- operand count ----
  if (!info->sugar && opcode != Opcode::kParameter && opcode != Opcode::kConstant) {
    int arity = OpcodeArity(opcode);
    if (arity >= 0 && static_cast<int64_t>(operands.size()) != arity) {
      return ErrorAt(op_loc, absl::StrCat(opcode_text, " expects ", arity, " operand",
                                          arity == 1 ? "" : "s", ", but has ", operands.size()));
    }
  }

  // broadcast of a scalar may omit dimensions= (it is then empty).
  if (attr_opcode == Opcode::kBroadcast && !info->sugar && !find_attr("dimensions") &&
      operands.size() == 1) {
    if (operands[0]->shape().IsArray() && operands[0]->shape().rank() == 0)
      attrs.emplace_back("dimensions", std::vector<int64_t>());
    else
      return ErrorAt(op_loc, "attribute dimensions is expected but not seen for broadcast (it "
                             "may only be omitted for a scalar operand)");
  }

  // ---- required attributes ----
  if (!info->sugar || opcode == Opcode::kAsyncStart) {
    for (const AttrSpec& s : FamilyAttrSpecs(OpcodeAttrFamily(attr_opcode))) {
      if (s.required && !find_attr(s.name))
        return ErrorAt(op_loc, absl::StrCat("attribute ", s.name, " is expected but not seen for ",
                                            opcode_text));
    }
  }

  // ---- opcode-specific checks ----
  if (attr_opcode == Opcode::kConditional && !operands.empty()) {
    const Shape& p = operands[0]->shape();
    bool has_tf = find_attr("true_computation") || find_attr("false_computation");
    bool has_branches = find_attr("branch_computations") != nullptr;
    if (p.IsArray() && p.rank() == 0 && p.element_type() == PrimitiveType::PRED) {
      if (has_branches)
        return ErrorAt(attr_loc("branch_computations"),
                       "unexpected attribute \"branch_computations\": a conditional with a pred "
                       "predicate takes true_computation and false_computation");
      if (!find_attr("true_computation") || !find_attr("false_computation"))
        return ErrorAt(op_loc, "a conditional with a pred predicate needs true_computation= and "
                               "false_computation=");
    } else if (p.IsArray() && p.rank() == 0 && p.element_type() == PrimitiveType::S32) {
      if (has_tf)
        return ErrorAt(op_loc, "a conditional with an s32 branch index takes "
                               "branch_computations=, not true/false_computation");
      if (!has_branches)
        return ErrorAt(op_loc, "attribute branch_computations is expected but not seen");
    } else {
      return ErrorAt(operand_locs[0],
                     absl::StrCat("the first operand of conditional must be a scalar of PRED or "
                                  "S32, but is ", ShapeText(p)));
    }
  }
  if (attr_opcode == Opcode::kCustomCall) {
    if (AttrValue* v = find_attr("api_version")) {
      // API_VERSION_UNSPECIFIED is rejected by current XLA, but older
      // exporters (e.g. PyTorch/XLA dumps) print it; it is accepted unless
      // the options ask for strictness.
      if (std::get<std::string>(*v) == "API_VERSION_UNSPECIFIED" &&
          options_.reject_unspecified_api_version)
        return ErrorAt(attr_loc("api_version"),
                       "invalid API version API_VERSION_UNSPECIFIED (write API_VERSION_ORIGINAL)");
    }
    if (find_attr("to_apply") && find_attr("called_computations"))
      return ErrorAt(attr_loc("called_computations"),
                     "custom-call takes either to_apply= or called_computations=, not both");
    if (AttrValue* v = find_attr("operand_layout_constraints")) {
      const auto& shapes = std::get<std::vector<Shape>>(*v);
      if (shapes.size() != operands.size())
        return ErrorAt(attr_loc("operand_layout_constraints"),
                       absl::StrCat("operand_layout_constraints has ", shapes.size(),
                                    " shapes, but the custom-call has ", operands.size(),
                                    " operands"));
      for (size_t i = 0; i < shapes.size(); ++i) {
        if (!shapes[i].Compatible(operands[i]->shape()))
          return ErrorAt(attr_loc("operand_layout_constraints"),
                         absl::StrCat("operand_layout_constraints: shape ", ShapeText(shapes[i]),
                                      " for operand ", i, " is not compatible with the operand "
                                      "shape ", ShapeText(operands[i]->shape())));
      }
    }
  }
  if (attr_opcode == Opcode::kInfeed && shape && !(shape->IsTuple() && shape->tuple_size() > 0))
    return ErrorAt(op_loc, "infeed must have a non-empty tuple shape (data, token)");
  if (AttrValue* v = find_attr("parameter_replication")) {
    const auto& reps = std::get<std::vector<bool>>(*v);
    if (shape && static_cast<int64_t>(reps.size()) != LeafCount(*shape))
      return ErrorAt(attr_loc("parameter_replication"),
                     absl::StrCat("the shape has ", LeafCount(*shape),
                                  " leaf buffers, but parameter_replication has ", reps.size(),
                                  " elements"));
  }
  if (!find_attr("operand_precision")) {
    size_t n = 0;
    if (attr_opcode == Opcode::kDot || attr_opcode == Opcode::kConvolution) n = operands.size();
    if (attr_opcode == Opcode::kRaggedDot || attr_opcode == Opcode::kScaledDot) n = 2;
    if (n > 0 && !info->sugar)
      attrs.emplace_back("operand_precision", std::vector<std::string>(n, "default"));
  }

  // ---- async sugar / async checks ----
  Computation* async_calls = nullptr;
  if (opcode == Opcode::kAsyncStart || opcode == Opcode::kAsyncUpdate ||
      opcode == Opcode::kAsyncDone) {
    std::string thread = "main";
    if (AttrValue* v = find_attr("async_execution_thread")) thread = std::get<std::string>(*v);
    if (opcode == Opcode::kAsyncStart) {
      if (shape && !(shape->IsTuple() && shape->tuple_size() >= 2 &&
                     shape->tuple_shape(0).IsTuple())) {
        return ErrorAt(op_loc, absl::StrCat("async-start expects its shape to be of the form "
                                            "((async operands), async outputs, state...), but "
                                            "it is ", ShapeText(*shape)));
      }
      if (info->sugar) {
        if (!shape) return ErrorAt(op_loc, absl::StrCat("cannot infer shape for opcode: ",
                                                        opcode_text));
        // Build the wrapped computation: parameters for the operands, one root.
        std::string cname = UniqueComputationName(
            absl::StrCat("wrapped_", OpcodeName(info->wrapped), "_computation"));
        auto comp = std::make_unique<Computation>(cname);
        comp->set_loc(op_loc);
        comp->set_execution_thread(thread);
        std::vector<Instruction*> params;
        for (size_t i = 0; i < operands.size(); ++i) {
          auto p = std::make_unique<Instruction>(Opcode::kParameter, absl::StrCat("param_", i),
                                                 operands[i]->shape());
          p->set_parameter_number(static_cast<int64_t>(i));
          p->set_loc(op_loc);
          params.push_back(comp->AddInstruction(std::move(p)));
        }
        auto w = std::make_unique<Instruction>(info->wrapped, std::string(OpcodeName(info->wrapped)),
                                               shape->tuple_shape(1));
        for (Instruction* p : params) w->AppendOperand(p);
        for (auto& kv : attrs) w->SetAttr(kv.first, std::move(kv.second));
        attrs.clear();
        // Universal attributes (metadata, frontend_attributes, backend_config,
        // ...) describe the wrapped operation too: the wrapped instruction
        // gets a copy, the async-start keeps its own.
        for (const auto& kv : async_attrs) {
          for (const AttrSpec& u : UniversalAttrSpecs()) {
            if (u.name == kv.first) {
              w->SetAttr(kv.first, kv.second);
              break;
            }
          }
        }
        w->set_loc(op_loc);
        Instruction* wr = comp->AddInstruction(std::move(w));
        comp->set_root(wr);
        computations_[cname] = comp.get();
        computation_locs_[cname] = op_loc;
        async_calls = module_->AddComputation(std::move(comp));
        async_called_.insert(async_calls);
        async_attrs.emplace_back("calls", async_calls);
      } else {
        AttrValue* calls = find_attr("calls");
        if (!calls) return ErrorAt(op_loc, "attribute calls is expected but not seen for async-start");
        Computation* c = std::get<Computation*>(*calls);
        if (async_called_.contains(c))
          return ErrorAt(attr_loc("calls"),
                         absl::StrCat("computation ", c->name(),
                                      " is already called by another async op; each async "
                                      "computation may be used by one async-start only"));
        async_called_.insert(c);
      }
    } else {
      // async-update / async-done
      if (operands.size() != 1 || (operands[0]->opcode() != Opcode::kAsyncStart &&
                                   operands[0]->opcode() != Opcode::kAsyncUpdate)) {
        return ErrorAt(operand_locs.empty() ? op_loc : operand_locs[0],
                       absl::StrCat(opcode_text, " expects a single async-start or async-update "
                                    "operand"));
      }
      Instruction* prev = operands[0];
      Computation* prev_calls = prev->AttrOr<Computation*>("calls", nullptr);
      std::string prev_thread = prev->AttrOr<std::string>("async_execution_thread", "main");
      if (info->sugar) {
        if (prev_calls && prev_calls->root() && prev_calls->root()->opcode() != info->wrapped) {
          return ErrorAt(op_loc, absl::StrCat("expects the async wrapped opcode to be ",
                                              OpcodeName(prev_calls->root()->opcode()),
                                              " (from the async-start), but got ",
                                              OpcodeName(info->wrapped)));
        }
      }
      // One thread for the whole chain, in either form (a done on another
      // thread than its start is no program; printing would drop a "main"
      // and the re-parse take the start's thread).
      if (find_attr("async_execution_thread") && thread != prev_thread)
        return ErrorAt(attr_loc("async_execution_thread"),
                       absl::StrCat("expects async_execution_thread to be ", prev_thread,
                                    " (from the async-start), but got ", thread));
      AttrValue* calls = find_attr("calls");
      if (calls) {
        if (prev_calls && std::get<Computation*>(*calls) != prev_calls)
          return ErrorAt(attr_loc("calls"), "calls= differs from the computation of the async-start");
      } else if (prev_calls) {
        async_attrs.emplace_back("calls", prev_calls);
      }
      if (!find_attr("async_execution_thread") && prev_thread != "main")
        async_attrs.emplace_back("async_execution_thread", prev_thread);
      if (opcode == Opcode::kAsyncUpdate && shape && !shape->Compatible(prev->shape()))
        return ErrorAt(op_loc, absl::StrCat("async-update expects its shape to be the same as "
                                            "its operand's shape ", ShapeText(prev->shape()),
                                            ", but it is ", ShapeText(*shape)));
    }
  }

  // ---- build ----
  if (!shape && IsShapeRequired(opcode))
    return ErrorAt(op_loc, absl::StrCat("cannot infer shape for opcode: ", opcode_text));
  auto inst = std::make_unique<Instruction>(opcode, std::string(name),
                                            shape ? std::move(*shape) : Shape());
  inst->ReserveOperands(operands.size());
  for (Instruction* op : operands) inst->AppendOperand(op);
  if (!attrs.empty() || !async_attrs.empty()) {
    // Exact-size list: attribute values are large, so no spare capacity.
    std::vector<std::pair<std::string, AttrValue>> exact;
    exact.reserve(attrs.size() + async_attrs.size());
    for (auto& kv : attrs) exact.push_back(std::move(kv));
    for (auto& kv : async_attrs) exact.push_back(std::move(kv));
    inst->set_attrs(std::move(exact));
  }
  if (opcode == Opcode::kParameter) inst->set_parameter_number(parameter_number);
  if (literal) inst->set_literal(std::move(*literal));
  if (!shape) {
    absl::StatusOr<Shape> inferred = InferShape(*inst);
    if (!inferred.ok())
      return ErrorAt(op_loc, absl::StrCat("failed to infer shape for opcode: ", opcode_text,
                                          ": ", inferred.status().message()));
    inst->set_shape(std::move(inferred).value());
  }
  // Checked once the instruction is built, as XLA does: errors of the
  // operands, attributes and shape inference come first.
  if (!IsLegalInstructionName(name))
    return ErrorAt(name_loc, absl::StrCat("illegal instruction name: ", name,
                                          "; suggest renaming to: ", SanitizedInstructionName(name)));
  HLO_PARSE_ASSIGN_OR_RETURN(Instruction * added, AddToScope(scope, std::move(inst), name_loc));
  if (opcode == Opcode::kParameter) scope->parameter_numbers.insert(parameter_number);
  if (has_control_preds)
    for (Instruction* p : control_preds) p->AddControlDependencyTo(added);
  return added;
}

}  // namespace parser_internal
}  // namespace hlo
