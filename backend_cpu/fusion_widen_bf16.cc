#include "backend_cpu/fusion_widen_bf16.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace hlo::cpu {
namespace {

// What widening does to an instruction.
enum class Widen : uint8_t {
  kNo,       // stays as it is (its widened operands are converted back)
  kExact,    // f32 kernel, result exact in bf16
  kInexact,  // f32 kernel, then reduce-precision to bf16
  kMove,     // data movement: same op on the f32 values
  kIdentity, // convert bf16 -> bf16: the operand's widened value itself
  kRound,    // convert f32 -> bf16: reduce-precision of the operand
  kCompare,  // compare of bf16 values: the same compare of the f32 values
  // A convolution of bf16 values read only by widened ops: it computes in
  // f32 anyway (conv_onednn_literal.cc), so its f32 result is rounded by
  // reduce-precision instead of encoded to bf16 and decoded again.
  kConvolution,
};

// Data movement of a big operand that is not widened stays in bf16 (its
// copy moves half the bytes); small ones (spread scalars, bias vectors)
// are converted whole and moved in f32.
constexpr int64_t kSmallOperandElements = 1 << 16;

bool IsBf16Array(const Shape& s) { return s.IsArray() && s.element_type() == PrimitiveType::BF16; }

bool HasPlainLayout(const Shape& s) {
  return !s.has_layout() || (s.layout().tiles.empty() && s.layout().element_size_in_bits == 0 &&
                             !s.layout().HasNonDefaultTail());
}

Widen Classify(const Instruction& x, const absl::flat_hash_set<const Instruction*>& widened) {
  const Shape& shape = x.shape();
  if (x.opcode() == Opcode::kCompare) {
    const std::string type = x.AttrOr<std::string>("type", "");
    return x.operand_count() == 2 && IsBf16Array(x.operand(0)->shape()) &&
                   IsBf16Array(x.operand(1)->shape()) && type != "TOTALORDER"
               ? Widen::kCompare
               : Widen::kNo;
  }
  if (!IsBf16Array(shape)) return Widen::kNo;
  switch (x.opcode()) {
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kClamp:
    case Opcode::kNegate:
    case Opcode::kAbs:
    case Opcode::kSign:
    case Opcode::kFloor:
    case Opcode::kCeil:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
      return Widen::kExact;
    case Opcode::kSelect:
      return x.operand_count() == 3 && IsBf16Array(x.operand(1)->shape()) &&
                     IsBf16Array(x.operand(2)->shape())
                 ? Widen::kExact
                 : Widen::kNo;
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

std::unique_ptr<Computation> WidenBf16Chains(const Computation& fused) {
  const std::vector<Instruction*> order = fused.MakePostOrder();
  absl::flat_hash_map<const Instruction*, Widen> how;
  absl::flat_hash_set<const Instruction*> widened;  // result held as f32
  int compute_ops = 0;
  for (const Instruction* x : order) {
    if (!x->shape().IsTuple() && !HasPlainLayout(x->shape())) return nullptr;
    if (!x->control_predecessors().empty()) return nullptr;
    const Widen w = Classify(*x, widened);
    how[x] = w;
    if (w != Widen::kNo && w != Widen::kCompare) widened.insert(x);
    if (w == Widen::kExact || w == Widen::kInexact || w == Widen::kCompare) ++compute_ops;
  }
  if (compute_ops < 2) return nullptr;
  for (const Instruction* x : order) {
    if (x->opcode() != Opcode::kConvolution || !IsBf16Array(x->shape()) || x->IsRoot() ||
        x->users().empty())
      continue;
    bool widened_users = true;
    for (const Instruction* u : x->users()) {
      const Widen w = how.at(u);
      widened_users &= w == Widen::kExact || w == Widen::kInexact || w == Widen::kCompare || w == Widen::kIdentity;
    }
    if (!widened_users) continue;
    how[x] = Widen::kConvolution;
    widened.insert(x);
  }

  Builder b(fused.name());
  absl::flat_hash_map<const Instruction*, Instruction*> value;    // as the op-by-op run has it,
                                                                  // or its f32 form if widened
  absl::flat_hash_map<const Instruction*, Instruction*> as_f32;   // converts bf16 -> f32
  absl::flat_hash_map<const Instruction*, Instruction*> as_bf16;  // converts f32 -> bf16 (exact)
  auto wide = [&](const Instruction* o) -> Instruction* {
    if (widened.contains(o)) return value.at(o);
    Instruction*& c = as_f32[o];
    if (c == nullptr)
      c = b.Add(Opcode::kConvert, absl::StrCat(o->name(), ".f32"), WithType(o->shape(), PrimitiveType::F32),
                {value.at(o)});
    return c;
  };
  auto narrow = [&](const Instruction* o) -> Instruction* {
    if (!widened.contains(o)) return value.at(o);
    Instruction*& c = as_bf16[o];
    if (c == nullptr)
      c = b.Add(Opcode::kConvert, absl::StrCat(o->name(), ".bf16"), o->shape(), {value.at(o)});
    return c;
  };

  for (const Instruction* x : order) {
    const Widen w = how.at(x);
    if (w == Widen::kIdentity) {
      value[x] = wide(x->operand(0));
      continue;
    }
    if (w == Widen::kRound) {
      value[x] = b.RoundToBf16(value.at(x->operand(0)), x->name());
      continue;
    }
    std::vector<Instruction*> operands;
    for (const Instruction* o : x->operands()) {
      const bool f32_operand = w != Widen::kNo && w != Widen::kConvolution && IsBf16Array(o->shape());
      operands.push_back(f32_operand ? wide(o) : narrow(o));
    }
    Shape shape = w == Widen::kNo || w == Widen::kCompare ? x->shape()
                                                          : WithType(x->shape(), PrimitiveType::F32);
    const bool rounded = w == Widen::kInexact || w == Widen::kConvolution;
    const std::string name = rounded ? absl::StrCat(x->name(), ".unrounded") : x->name();
    Instruction* copy = b.Add(x->opcode(), name, std::move(shape), std::move(operands), x->parameter_number());
    copy->set_loc(x->loc());
    if (x->has_literal()) copy->set_literal(x->literal());
    for (const auto& [n, v] : x->attrs()) copy->SetAttr(n, v);
    value[x] = rounded ? b.RoundToBf16(copy, x->name()) : copy;
  }
  b.computation().set_root(narrow(fused.root()));
  return b.Take();
}

}  // namespace hlo::cpu
