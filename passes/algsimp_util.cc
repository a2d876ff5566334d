#include "passes/algsimp_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"

namespace hlo::passes_internal {

Builder::Builder(Computation* comp) : comp_(comp) {}

std::string Builder::UniqueName(absl::string_view base) {
  // The taken names are collected on first use: most builders never name
  // anything (no rule fired).
  if (!names_filled_) {
    for (const Instruction* inst : comp_->instructions()) names_.insert(inst->name());
    names_filled_ = true;
  }
  // Strip an existing ".N" suffix so names do not grow on repeated rewrites.
  std::string b(base);
  size_t dot = b.rfind('.');
  if (dot != std::string::npos && dot + 1 < b.size() &&
      b.find_first_not_of("0123456789", dot + 1) == std::string::npos)
    b.resize(dot);
  if (b.empty()) b = "x";
  for (;;) {
    std::string name = absl::StrCat(b, ".", ++counter_);
    if (names_.insert(name).second) return name;
  }
}

Shape DefaultLayoutShape(const Shape& s) {
  Shape out = s;
  if (out.IsArray()) {
    out.clear_layout();
    out.FillDefaultLayoutIfMissing();
  }
  return out;
}

Shape ArrayShape(PrimitiveType t, absl::Span<const int64_t> dims) { return Shape::Array(t, dims); }

Instruction* Builder::Add(Opcode op, Shape shape, absl::Span<Instruction* const> operands) {
  shape.FillDefaultLayoutIfMissing();
  auto inst = std::make_unique<Instruction>(op, UniqueName(OpcodeName(op)), std::move(shape));
  for (Instruction* o : operands) inst->AppendOperand(o);
  return comp_->AddInstruction(std::move(inst));
}

Instruction* Builder::Constant(Literal lit) {
  Shape s = lit.shape();
  Instruction* c = Add(Opcode::kConstant, s, {});
  c->set_literal(std::move(lit));
  return c;
}

Instruction* Builder::ScalarConstant(PrimitiveType type, double v) {
  Literal lit(Shape::Scalar(type));
  if (IsFloatOrComplex(type))
    lit.SetDouble(0, v);
  else
    lit.SetInt(0, static_cast<int64_t>(v));
  return Constant(std::move(lit));
}

Instruction* Builder::ScalarIntConstant(PrimitiveType type, int64_t v) {
  Literal lit(Shape::Scalar(type));
  lit.SetInt(0, v);
  return Constant(std::move(lit));
}

Instruction* Builder::Broadcast(Instruction* x, const Shape& shape, std::vector<int64_t> dims) {
  Instruction* b = Add(Opcode::kBroadcast, ArrayShape(x->shape().element_type(), shape.dims()), {x});
  b->SetAttr("dimensions", std::move(dims));
  return b;
}

Instruction* Builder::BroadcastScalar(Instruction* scalar, const Shape& shape) {
  if (shape.rank() == 0) return scalar;
  return Broadcast(scalar, shape, {});
}

Instruction* Builder::Reshape(Instruction* x, absl::Span<const int64_t> dims) {
  if (SameInts(x->shape().dims(), dims)) return x;
  return Add(Opcode::kReshape, ArrayShape(x->shape().element_type(), dims), {x});
}

Instruction* Builder::Transpose(Instruction* x, const std::vector<int64_t>& perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
  if (identity) return x;
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(x->shape().dim(p));
  Instruction* t = Add(Opcode::kTranspose, ArrayShape(x->shape().element_type(), dims), {x});
  t->SetAttr("dimensions", perm);
  return t;
}

Instruction* Builder::Unary(Opcode op, Instruction* x) {
  return Add(op, DefaultLayoutShape(x->shape()), {x});
}

Instruction* Builder::Binary(Opcode op, Instruction* a, Instruction* b) {
  return Add(op, DefaultLayoutShape(a->shape()), {a, b});
}

namespace {

bool AllSlotsEqual(const Literal& lit) {
  const int64_t n = lit.physical_count();
  const int eb = lit.element_bytes();
  if (n == 0 || eb == 0) return false;
  const uint8_t* d = lit.data();
  for (int64_t i = 1; i < n; ++i)
    if (std::memcmp(d, d + i * eb, eb) != 0) return false;
  return true;
}

}  // namespace

std::optional<ScalarLike> GetScalarLike(const Instruction* x) {
  for (int depth = 0; depth < 16 && x != nullptr; ++depth) {
    if (!x->shape().IsArray()) return std::nullopt;
    switch (x->opcode()) {
      case Opcode::kConstant: {
        if (!x->has_literal() || x->literal().elided() || x->literal().IsTuple()) return std::nullopt;
        const Literal& lit = x->literal();
        if (lit.shape().ElementCount() == 0 || !AllSlotsEqual(lit)) return std::nullopt;
        // Packed sub-byte layouts store several elements per byte: bail out.
        if (lit.shape().has_layout() && lit.shape().layout().element_size_in_bits != 0) return std::nullopt;
        return ScalarLike{&lit, 0};
      }
      case Opcode::kBroadcast:
      case Opcode::kReshape:
      case Opcode::kTranspose:
        x = x->operand(0);
        break;
      default:
        return std::nullopt;
    }
  }
  return std::nullopt;
}

bool IsIntValue(const Instruction* x, int64_t v) {
  PrimitiveType t = x->shape().element_type();
  if (!IsInteger(t) && !IsPred(t)) return false;
  auto s = GetScalarLike(x);
  if (!s) return false;
  return s->lit->GetInt(s->slot) == v;
}

bool IsFloatValue(const Instruction* x, double v) {
  if (!IsFloat(x->shape().element_type())) return false;
  auto s = GetScalarLike(x);
  if (!s) return false;
  double d = s->lit->GetDouble(s->slot);
  if (d != v) return false;
  if (v == 0) return !std::signbit(d);
  return true;
}

bool IsNegativeZero(const Instruction* x) {
  if (!IsFloat(x->shape().element_type())) return false;
  auto s = GetScalarLike(x);
  if (!s) return false;
  double d = s->lit->GetDouble(s->slot);
  return d == 0 && std::signbit(d);
}

bool IsAllOnesBits(const Instruction* x) {
  PrimitiveType t = x->shape().element_type();
  if (IsPred(t)) return IsIntValue(x, 1);
  if (!IsInteger(t)) return false;
  auto s = GetScalarLike(x);
  if (!s) return false;
  int bits = PrimitiveTypeBitWidth(t);
  uint64_t mask = bits >= 64 ? ~uint64_t{0} : ((uint64_t{1} << bits) - 1);
  return (static_cast<uint64_t>(s->lit->GetInt(s->slot)) & mask) == mask;
}

bool IsRewritable(const Instruction* x) {
  return x->control_predecessors().empty() && x->control_successors().empty() && !x->HasSideEffect();
}

absl::flat_hash_set<const Instruction*> DeadSet(const Computation& comp) {
  absl::flat_hash_set<const Instruction*> out;
  for (const Instruction* i : comp.instructions())
    if (i->user_count() == 0 && i != comp.root()) out.insert(i);
  return out;
}

int64_t RemoveNewlyDead(Computation* comp, const absl::flat_hash_set<const Instruction*>& initially_dead) {
  int64_t removed = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    for (Instruction* i : comp->instructions()) {
      if (i->user_count() != 0 || i == comp->root() || i->opcode() == Opcode::kParameter ||
          !IsRewritable(i) || initially_dead.contains(i))
        continue;
      if (comp->RemoveInstruction(i).ok()) {
        ++removed;
        changed = true;
      }
    }
  }
  return removed;
}

absl::flat_hash_set<const Computation*> FusionComputations(const Module& module) {
  absl::flat_hash_set<const Computation*> out;
  for (const Computation* c : module.computations())
    for (const Instruction* i : c->instructions())
      if (i->opcode() == Opcode::kFusion)
        for (const Computation* called : i->called_computations()) out.insert(called);
  return out;
}

absl::StatusOr<bool> ReplaceInPostOrder(Module& module, const RewriteFn& rewrite) {
  if (module.header().is_scheduled) return false;
  const auto fusion = FusionComputations(module);
  bool changed = false;
  for (Computation* comp : module.MakeComputationPostOrder()) {
    if (fusion.contains(comp)) continue;
    const auto dead = DeadSet(*comp);
    Builder b(comp);
    for (Instruction* x : comp->MakePostOrder()) {
      if (dead.contains(x)) continue;
      absl::StatusOr<Instruction*> y = rewrite(x, b);
      if (!y.ok()) return y.status();
      if (*y == nullptr) continue;
      if (absl::Status st = x->ReplaceAllUsesWith(*y); !st.ok()) return st;
      changed = true;
    }
    RemoveNewlyDead(comp, dead);
  }
  return changed;
}

}  // namespace hlo::passes_internal
