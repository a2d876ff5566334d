#include "backend_cpu/fusion_widen_bf16.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/layout_index.h"

namespace hlo::cpu {
namespace {

// What widening does to an instruction.
enum class Widen : uint8_t {
  kNo,        // stays as it is (its widened operands are converted back)
  kCommutes,  // f32 kernel; commutes with rounding to bf16 (maximum,
              // minimum, clamp, select, negate, abs), so it takes values
              // still to be rounded and leaves its result so
  kExact,     // f32 kernel on rounded values, result exact in bf16 (floor,
              // sign, ...: rounding first matters)
  kInexact,   // f32 kernel on rounded values; its result is to be rounded
  kMove,      // data movement: same op on the f32 values
  kIdentity,  // convert bf16 -> bf16: the operand's widened value itself
  kRound,     // convert f32 -> bf16: the f32 operand, to be rounded
  kToF32,     // convert bf16 -> f32: the operand's rounded value itself
  kCompare,   // compare of bf16 values: the same compare of the rounded values
  // A convolution of bf16 values read only by widened ops: it computes in
  // f32 anyway (conv_onednn_literal.cc), so its f32 result is rounded
  // like an inexact op's instead of encoded to bf16 and decoded again.
  kConvolution,
};

// Data movement of a big operand that is not widened stays in bf16 (its
// copy moves half the bytes); small ones (spread scalars, bias vectors)
// are converted whole and moved in f32.
constexpr int64_t kSmallOperandElements = 1 << 16;

bool IsBf16Array(const Shape& s) { return s.IsArray() && s.element_type() == PrimitiveType::BF16; }

Widen Classify(const Instruction& x, const absl::flat_hash_set<const Instruction*>& widened) {
  const Shape& shape = x.shape();
  if (x.opcode() == Opcode::kCompare) {
    const std::string type = x.AttrOr<std::string>("type", "");
    return x.operand_count() == 2 && IsBf16Array(x.operand(0)->shape()) &&
                   IsBf16Array(x.operand(1)->shape()) && type != "TOTALORDER"
               ? Widen::kCompare
               : Widen::kNo;
  }
  if (x.opcode() == Opcode::kConvert && shape.IsArray() && shape.element_type() == PrimitiveType::F32 &&
      IsBf16Array(x.operand(0)->shape()))
    return Widen::kToF32;
  if (!IsBf16Array(shape)) return Widen::kNo;
  switch (x.opcode()) {
    // Rounding is monotone and odd, and these pick one of their operands
    // by an order in which -0 < +0 (FMax/FMin, ew_types.h) or by a
    // predicate, or flip a sign: rounding before or after gives the same.
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kClamp:
    case Opcode::kNegate:
    case Opcode::kAbs:
      return Widen::kCommutes;
    case Opcode::kSelect:
      return x.operand_count() == 3 && IsBf16Array(x.operand(1)->shape()) &&
                     IsBf16Array(x.operand(2)->shape())
                 ? Widen::kCommutes
                 : Widen::kNo;
    case Opcode::kSign:
    case Opcode::kFloor:
    case Opcode::kCeil:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
      return Widen::kExact;
    case Opcode::kAdd:
    case Opcode::kSubtract:
    case Opcode::kMultiply:
    case Opcode::kDivide:
    case Opcode::kRemainder:
    case Opcode::kPower:
    case Opcode::kAtan2:
    case Opcode::kExp:
    case Opcode::kExpm1:
    case Opcode::kLog:
    case Opcode::kLog1p:
    case Opcode::kLogistic:
    case Opcode::kTanh:
    case Opcode::kSqrt:
    case Opcode::kRsqrt:
    case Opcode::kCbrt:
    case Opcode::kSin:
    case Opcode::kCos:
    case Opcode::kTan:
    case Opcode::kErf:
      return Widen::kInexact;
    case Opcode::kConvert: {
      const PrimitiveType from = x.operand(0)->shape().element_type();
      if (from == PrimitiveType::BF16) return Widen::kIdentity;
      if (from == PrimitiveType::F32) return Widen::kRound;
      return Widen::kNo;
    }
    case Opcode::kBroadcast:
    case Opcode::kReshape:
    case Opcode::kTranspose:
    case Opcode::kSlice:
    case Opcode::kReverse: {
      const Instruction* o = x.operand(0);
      return widened.contains(o) || o->shape().ElementCount() <= kSmallOperandElements ? Widen::kMove
                                                                                         : Widen::kNo;
    }
    default:
      return Widen::kNo;
  }
}

class Builder {
 public:
  explicit Builder(const std::string& name) : out_(std::make_unique<Computation>(name)) {}

  // parameter_number: set before the computation takes it (it registers
  // its parameters by number).
  Instruction* Add(Opcode op, const std::string& name, Shape shape, std::vector<Instruction*> operands,
                   int64_t parameter_number = -1) {
    auto inst = std::make_unique<Instruction>(op, name, std::move(shape));
    inst->set_parameter_number(parameter_number);
    for (Instruction* o : operands) inst->AppendOperand(o);
    return out_->AddInstruction(std::move(inst));
  }

  Instruction* RoundToBf16(Instruction* f32, const std::string& name) {
    Instruction* r = Add(Opcode::kReducePrecision, name, f32->shape(), {f32});
    r->SetAttr("exponent_bits", AttrValue(int64_t{8}));
    r->SetAttr("mantissa_bits", AttrValue(int64_t{7}));
    return r;
  }

  std::unique_ptr<Computation> Take() { return std::move(out_); }
  Computation& computation() { return *out_; }

 private:
  std::unique_ptr<Computation> out_;
};

Shape WithType(Shape s, PrimitiveType t) {
  s.set_element_type(t);
  return s;
}

}  // namespace

std::unique_ptr<Computation> WidenBf16Chains(
    const Computation& fused, absl::flat_hash_map<const Instruction*, const Instruction*>* origins) {
  const std::vector<Instruction*> order = fused.MakePostOrder();
  absl::flat_hash_map<const Instruction*, Widen> how;
  absl::flat_hash_set<const Instruction*> widened;  // bf16 result held as f32
  int compute_ops = 0;
  for (const Instruction* x : order) {
    if (!x->shape().IsTuple() && !HasPlainLayout(x->shape())) return nullptr;
    if (!x->control_predecessors().empty()) return nullptr;
    const Widen w = Classify(*x, widened);
    how[x] = w;
    if (w != Widen::kNo && w != Widen::kCompare && w != Widen::kToF32) widened.insert(x);
    if (w == Widen::kCommutes || w == Widen::kExact || w == Widen::kInexact || w == Widen::kCompare)
      ++compute_ops;
  }
  if (compute_ops < 2) return nullptr;
  for (const Instruction* x : order) {
    if (x->opcode() != Opcode::kConvolution || !IsBf16Array(x->shape()) || x->IsRoot() ||
        x->users().empty())
      continue;
    bool widened_users = true;
    for (const Instruction* u : x->users()) {
      const Widen w = how.at(u);
      widened_users &= w == Widen::kCommutes || w == Widen::kExact || w == Widen::kInexact ||
                       w == Widen::kCompare || w == Widen::kIdentity || w == Widen::kToF32;
    }
    if (!widened_users) continue;
    how[x] = Widen::kConvolution;
    widened.insert(x);
  }

  Builder b(fused.name());
  // Per instruction: its value as the op-by-op run has it, or for a
  // widened one its f32 form; `pending`: that f32 form is not rounded to
  // bf16 yet (rounding is deferred through ops that commute with it, and
  // the encode at a chain's end rounds by itself).
  absl::flat_hash_map<const Instruction*, Instruction*> value;
  absl::flat_hash_set<const Instruction*> pending;
  absl::flat_hash_map<const Instruction*, Instruction*> as_f32;      // converts bf16 -> f32
  absl::flat_hash_map<const Instruction*, Instruction*> as_bf16;     // converts f32 -> bf16
  absl::flat_hash_map<const Instruction*, Instruction*> as_rounded;  // reduce-precisions
  // The f32 form of bf16 value `o` (maybe still to be rounded).
  auto wide = [&](const Instruction* o) -> Instruction* {
    if (widened.contains(o)) return value.at(o);
    Instruction*& c = as_f32[o];
    if (c == nullptr)
      c = b.Add(Opcode::kConvert, absl::StrCat(o->name(), ".f32"), WithType(o->shape(), PrimitiveType::F32),
                {value.at(o)});
    return c;
  };
  // The f32 form of `o`, rounded to bf16 values.
  auto rounded = [&](const Instruction* o) -> Instruction* {
    if (!pending.contains(o)) return wide(o);
    Instruction*& r = as_rounded[o];
    if (r == nullptr) r = b.RoundToBf16(value.at(o), absl::StrCat(o->name(), ".rounded"));
    return r;
  };
  // `o` as bf16 (the convert rounds a pending value itself).
  auto narrow = [&](const Instruction* o) -> Instruction* {
    if (!widened.contains(o)) return value.at(o);
    Instruction*& c = as_bf16[o];
    if (c == nullptr)
      c = b.Add(Opcode::kConvert, absl::StrCat(o->name(), ".bf16"), o->shape(), {value.at(o)});
    return c;
  };

  for (const Instruction* x : order) {
    const Widen w = how.at(x);
    switch (w) {
      case Widen::kIdentity:
        value[x] = wide(x->operand(0));
        if (pending.contains(x->operand(0))) pending.insert(x);
        continue;
      case Widen::kRound:
        value[x] = value.at(x->operand(0));
        pending.insert(x);
        continue;
      case Widen::kToF32:
        value[x] = rounded(x->operand(0));
        continue;
      default:
        break;
    }
    std::vector<Instruction*> operands;
    bool pending_operand = false;
    for (const Instruction* o : x->operands()) {
      if (w == Widen::kNo || w == Widen::kConvolution || !IsBf16Array(o->shape())) {
        operands.push_back(narrow(o));
      } else if (w == Widen::kCommutes || w == Widen::kMove) {
        operands.push_back(wide(o));
        pending_operand |= pending.contains(o);
      } else {
        operands.push_back(rounded(o));
      }
    }
    Shape shape = w == Widen::kNo || w == Widen::kCompare ? x->shape()
                                                          : WithType(x->shape(), PrimitiveType::F32);
    Instruction* copy = b.Add(x->opcode(), x->name(), std::move(shape), std::move(operands), x->parameter_number());
    copy->set_loc(x->loc());
    if (x->has_literal()) copy->set_literal(x->literal());
    for (const auto& [n, v] : x->attrs()) copy->SetAttr(n, v);
    if (origins != nullptr) (*origins)[copy] = x;
    value[x] = copy;
    if (w == Widen::kInexact || w == Widen::kConvolution || pending_operand) pending.insert(x);
  }
  b.computation().set_root(narrow(fused.root()));
  return b.Take();
}

}  // namespace hlo::cpu
