// Internal: the recursive-descent parser class shared by parser.cc
// (module / header / computations), parse_instruction.cc (instructions,
// operands, async sugar), parse_shape_literal.cc (shapes, layouts,
// literals) and parse_attributes.cc (attribute values).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/attr_spec.h"
#include "ir/attribute.h"
#include "ir/computation.h"
#include "ir/instruction.h"
#include "ir/literal.h"
#include "ir/module.h"
#include "ir/shape.h"
#include "parser/lexer.h"
#include "parser/parser.h"

namespace hlo {
namespace parser_internal {

// Returns early with the status of `expr` if it is not OK.
#define HLO_PARSE_RETURN_IF_ERROR(expr)    \
  do {                                     \
    absl::Status _st = (expr);             \
    if (!_st.ok()) return _st;             \
  } while (0)

#define HLO_PARSE_CONCAT_INNER(a, b) a##b
#define HLO_PARSE_CONCAT(a, b) HLO_PARSE_CONCAT_INNER(a, b)
#define HLO_PARSE_ASSIGN_OR_RETURN(lhs, expr)                              \
  auto HLO_PARSE_CONCAT(_so_, __LINE__) = (expr);                          \
  if (!HLO_PARSE_CONCAT(_so_, __LINE__).ok())                              \
    return HLO_PARSE_CONCAT(_so_, __LINE__).status();                      \
  lhs = std::move(HLO_PARSE_CONCAT(_so_, __LINE__)).value()

// The instructions of one computation body by name. A set of instruction
// pointers hashed by the instruction's name (looked up by plain strings):
// a third of the size of a map from name views, which matters for the
// 100k-instruction bodies of big dumps (the table outgrows the caches).
class NameTable {
 public:
  Instruction* Find(absl::string_view name) const {
    auto it = set_.find(name);
    return it == set_.end() ? nullptr : *it;
  }
  bool Contains(absl::string_view name) const { return set_.contains(name); }
  // Adds `inst` (keyed by its name) and returns null, or returns the
  // instruction that already has the name.
  Instruction* Insert(Instruction* inst) {
    auto [it, inserted] = set_.insert(inst);
    return inserted ? nullptr : *it;
  }
  void Reserve(size_t n) { set_.reserve(n); }
  // Fetches the slot of `name` into the cache ahead of an Insert.
  void Prefetch(absl::string_view name) const { set_.prefetch(name); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(absl::string_view s) const { return absl::Hash<absl::string_view>()(s); }
    size_t operator()(const Instruction* i) const { return (*this)(absl::string_view(i->name())); }
  };
  struct Eq {
    using is_transparent = void;
    static absl::string_view Key(absl::string_view s) { return s; }
    static absl::string_view Key(const Instruction* i) { return i->name(); }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return Key(a) == Key(b);
    }
  };
  absl::flat_hash_set<Instruction*, Hash, Eq> set_;
};

// Names visible while parsing one computation body.
struct Scope {
  Computation* comp = nullptr;
  NameTable names;
  absl::flat_hash_set<int64_t> parameter_numbers;
  // Single-instruction mode: operands given only by shape (or unknown names
  // with a shape) become fresh parameters.
  bool create_missing_params = false;
  int64_t next_auto_param = 0;
  int64_t anon_counter = 0;
  // Auto parameters whose text name XLA's sanitizer changes get the
  // sanitized name, as in XLA, and are found here by their text name.
  absl::flat_hash_map<std::string, Instruction*> renamed_params;

  // The instruction an operand's text name refers to, or null. A renamed
  // parameter's new name is not a text name: `%pred_` after `%pred` is a
  // parameter of its own, as in XLA.
  Instruction* FindOperand(absl::string_view text_name) const {
    Instruction* found = names.Find(text_name);
    if (renamed_params.empty()) return found;
    auto it = renamed_params.find(text_name);
    if (it != renamed_params.end()) return it->second;
    for (const auto& kv : renamed_params)
      if (kv.second == found) return nullptr;
    return found;
  }
};

class Parser {
 public:
  Parser(absl::string_view text, const ParseOptions& options)
      : text_(text), options_(options), lexer_(text), stack_base_(StackAddress()) {}

  absl::StatusOr<std::unique_ptr<Module>> ParseModuleTop();
  absl::StatusOr<Shape> ParseShapeTop();
  absl::StatusOr<Literal> ParseLiteralTop();
  absl::StatusOr<ConvolutionDimensionNumbers> ParseConvDimLabelsTop();
  absl::StatusOr<NamedShardingSpec> ParseNamedShardingTop();

  // ---- errors ----
  absl::Status ErrorAt(SourceLoc loc, absl::string_view msg);
  absl::Status ErrorAtTok(absl::string_view msg) { return ErrorAt(TokLoc(), msg); }
  // Error for an unexpected current token ("expects X, but sees Y"); uses
  // the lexer's message for error tokens.
  absl::Status Unexpected(absl::string_view what);
  SourceLoc TokLoc() const { return SourceLoc{lexer_.tok().line, lexer_.tok().col}; }
  std::string Describe(const Token& t) const;

  // ---- token helpers ----
  const Token& tok() const { return lexer_.tok(); }
  TokKind kind() const { return lexer_.kind(); }
  void Next() { lexer_.Lex(); }
  bool IsIdent(absl::string_view s) const { return kind() == TokKind::kIdent && tok().text == s; }
  absl::Status Expect(TokKind k, absl::string_view what);
  bool Accept(TokKind k) {
    if (kind() != k) return false;
    Next();
    return true;
  }
  absl::StatusOr<int64_t> ParseInt(absl::string_view what);
  absl::StatusOr<double> ParseDouble(absl::string_view what);
  absl::StatusOr<bool> ParseBool();
  absl::StatusOr<std::string> ParseString(absl::string_view what);
  absl::Status ParseStringInto(absl::string_view what, std::string* out);
  absl::StatusOr<std::vector<int64_t>> ParseIntList();   // {1,2,3}
  absl::StatusOr<std::vector<int64_t>> ParseBracketIntList();  // [1,2,3]
  absl::StatusOr<std::vector<std::vector<int64_t>>> ParseIntListList();
  absl::StatusOr<std::vector<int64_t>> ParseShapeIndex();  // {} or {1,0}

  // ---- recursion guard ----
  struct DepthGuard {
    explicit DepthGuard(Parser* p) : p(p) { ++p->depth_; }
    ~DepthGuard() { --p->depth_; }
    Parser* p;
  };
  // Fails past options_.max_recursion_depth levels, or when the recursion
  // has used more than kStackBudgetBytes of the thread's stack (sanitizer
  // builds have much larger frames, so a level count alone is not enough).
  absl::Status CheckDepth();
  static constexpr uintptr_t kStackBudgetBytes = 3u << 20;
  // The current frame's address (not a local's: clang warns about returning
  // one, and ASan may move locals to a fake stack).
  static uintptr_t StackAddress() { return reinterpret_cast<uintptr_t>(__builtin_frame_address(0)); }

  // ---- shapes and literals (parse_shape_literal.cc) ----
  bool AtShapeStart() const;
  absl::Status ParseShapeInto(Shape* shape);
  absl::StatusOr<Shape> ParseShape() {
    Shape s;
    HLO_PARSE_RETURN_IF_ERROR(ParseShapeInto(&s));
    return s;
  }
  absl::Status ParseLayout(Shape* shape);
  absl::Status ParseLiteralValue(const Shape& shape, Literal* literal);  // constant(...) body
  absl::Status ParseArrayLiteral(const Shape& shape, Literal* literal);
  absl::Status ParseScalarInto(const Shape& shape, Literal* literal, int64_t slot);
  absl::StatusOr<Literal> ParseLiteralWithShape();
  // Refuses literal shapes whose buffers would be unreasonably large (the
  // buffer is allocated before the values are read).
  absl::Status CheckLiteralSize(const Shape& shape, SourceLoc loc);  // `f32[2] {1,2}` or `(lit, lit)`

  // ---- attributes (parse_attributes.cc) ----
  absl::Status ParseAttrValue(const AttrSpec& spec, Opcode op, Scope* scope, AttrValue* out);
  absl::Status ParseWindow(Window* w);
  absl::Status ParseConvDimLabels(ConvolutionDimensionNumbers* dnums);
  absl::Status ParsePaddingConfig(PaddingConfig* pc);
  absl::Status ParseSliceRanges(SliceRanges* sr);
  absl::Status ParseReplicaGroups(CollectiveDeviceList* out);
  // `<=[reshape_dims]` and an optional `T(perm)` (current token '<=').
  absl::Status ParseIotaReshape(absl::string_view what, IotaDeviceList* iota);
  // replica_groups=mesh[...] {...} (parse_mesh_axes.cc).
  absl::Status ParseMeshAxes(MeshAxesDeviceList* out);
  // `mesh[...]` [`, device_ids=(...)`] or `maximal_mesh[device_id=N]`.
  absl::Status ParseMeshHeader(MeshAxesDeviceList* out);
  // `'x'`, `x`, `'x':(2)2` or `x:(2)2`, an axis of `mesh`.
  absl::Status ParseMeshAxisRef(const MeshAxesDeviceList& mesh, MeshAxisRef* ref);
  absl::Status ParseSharding(Sharding* out);
  absl::Status ParseSingleSharding(Sharding* out);
  absl::Status ParseMetadata(OpMetadata* md);
  absl::Status ParseFrontendAttributes(FrontendAttributes* fa);
  absl::Status ParseStringOrDict(StringOrDict* out);
  absl::Status ParseStatistics(Statistics* st);
  absl::Status ParseOutputOperandAliasing(std::vector<OutputOperandAlias>* out);
  absl::Status ParseDomain(DomainSpec* d);
  absl::Status ParseResultAccuracy(ResultAccuracy* ra);
  absl::Status ParseRaw(RawText* raw);
  absl::StatusOr<Computation*> ParseComputationRef(Scope* scope);
  absl::StatusOr<std::vector<bool>> ParseBoolList();

  // ---- module structure (parser.cc) ----
  absl::Status ParseHeaderAttribute(Module* module);
  absl::Status CheckAliasing(Module* module);
  absl::Status ParseStackFrames(Module* module);
  absl::Status ParseComputation(Module* module, bool* saw_entry, Computation** entry);
  // Parses `{ instr* }` (current token '{') into `comp`.
  absl::Status ParseInstructionList(Computation* comp, Scope* scope, SourceLoc comp_loc);
  absl::Status ParseInstruction(Scope* scope, bool* saw_root, Instruction** root,
                                Instruction** last);
  // Parses `opcode(...) [, attrs]` after name and optional shape.
  absl::StatusOr<Instruction*> ParseInstructionBody(Scope* scope, absl::string_view name,
                                                    SourceLoc name_loc,
                                                    std::optional<Shape>&& shape, bool allow_attrs);
  // Operands as parsed (inline: no heap allocation for the usual few).
  using OperandList = absl::InlinedVector<Instruction*, 6>;
  using OperandLocs = absl::InlinedVector<SourceLoc, 6>;
  absl::Status ParseOperands(Scope* scope, OperandList* operands, OperandLocs* locs);
  absl::StatusOr<Instruction*> ParseOperand(Scope* scope);
  absl::StatusOr<Instruction*> AddToScope(Scope* scope, std::unique_ptr<Instruction> inst,
                                          SourceLoc loc);
  absl::StatusOr<Instruction*> MakeAutoParameter(Scope* scope, std::string name, Shape shape,
                                                 SourceLoc loc);
  std::string UniqueComputationName(absl::string_view base);
  absl::StatusOr<Computation*> ParseInlineComputation(Scope* outer);
  Computation* AddPendingComputation(std::unique_ptr<Computation> comp);

  absl::string_view text_;
  // The owner of text_ when the caller shares it (handed to the module
  // instead of a copy); null otherwise.
  std::shared_ptr<const std::string> shared_text_;
  ParseOptions options_;
  Lexer lexer_;
  int depth_ = 0;
  // Set for standalone literals: a layout only when `{` directly follows `]`.
  bool layout_must_touch_shape_ = false;
  uintptr_t stack_base_;
  Module* module_ = nullptr;
  // All computations known so far (including inline and async-wrapped ones).
  absl::flat_hash_map<std::string, Computation*> computations_;
  absl::flat_hash_map<std::string, SourceLoc> computation_locs_;
  // Computations finished but not yet handed to the module; handed over in
  // creation order when the enclosing computation completes, so callees
  // precede callers.
  std::vector<std::unique_ptr<Computation>> pending_;
  // Computations already used by an async-start (each may be used once).
  absl::flat_hash_set<const Computation*> async_called_;
  int64_t unique_comp_counter_ = 0;
  // Reusable attribute lists, one per nesting level of instruction parsing
  // (inline computations nest), so the per-instruction list keeps its
  // capacity instead of reallocating large attribute values.
  using AttrList = std::vector<std::pair<std::string, AttrValue>>;
  std::vector<std::unique_ptr<AttrList>> attr_pool_;
  size_t attr_pool_depth_ = 0;
  struct AttrListLease {
    explicit AttrListLease(Parser* p) : p(p) {
      if (p->attr_pool_depth_ == p->attr_pool_.size())
        p->attr_pool_.push_back(std::make_unique<AttrList>());
      list = p->attr_pool_[p->attr_pool_depth_++].get();
      list->clear();
    }
    ~AttrListLease() {
      list->clear();
      --p->attr_pool_depth_;
    }
    Parser* p;
    AttrList* list;
  };
  SourceLoc header_alias_loc_;
};

// Opcode of `name`, or of the async sugar form `<op>-start/-update/-done`
// (for an opcode without a real -start form of its own).
struct OpcodeInfo {
  Opcode opcode;
  bool sugar = false;
  Opcode wrapped = Opcode::kAbs;
};
std::optional<OpcodeInfo> LookupOpcode(absl::string_view name);

// Element type by text name (fast hash lookup; accepts "opaque_type").
std::optional<PrimitiveType> TypeFromName(absl::string_view name);
// Reserved words that cannot be bare instruction/computation names.
bool IsKeyword(absl::string_view s);

// Text of a shape for messages (with layouts).
std::string ShapeText(const Shape& s);
// Number of leaf (non-tuple) sub-shapes.
int64_t LeafCount(const Shape& s);
// Uppercase type name for range messages (S8, U32, F32, ...).
std::string UpperTypeName(PrimitiveType t);

}  // namespace parser_internal
}  // namespace hlo
