// batchnorm_expander: rewrites batch-norm-inference, batch-norm-training
// and batch-norm-grad into broadcast / elementwise / reduce ops with the
// spec's formulas (the same order of operations as the CPU backend's
// kernels, ops_batchnorm.cc). With x the operand, f = feature_index,
// N = element count / dim(f), broadcasts along f, sums over all other
// dimensions:
//   inference: y = (x - mean) * rsqrt(var + eps) * scale + offset
//   training:  mean = sum(x) / N;  var = sum((x - mean)^2) / N;
//              y = (x - mean) * rsqrt(var + eps) * scale + offset;
//              result (y, mean, var)
//   grad:      xm = x - mean;  ve = var + eps;
//              grad_offset = sum(dy);  grad_scale = sum(dy * xm) * rsqrt(ve);
//              dx = scale * rsqrt(ve) * (dy - sum(dy)/N - sum(dy*xm)/ve/N * xm)
// A shared scalar add computation (one per element type) is added for
// the reductions.
#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "ir/element_type.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

class Builder {
 public:
  Builder(Computation* comp, Module& module, passes::NameUniquer& comp_names,
          absl::flat_hash_map<PrimitiveType, Computation*>& adders)
      : comp_(comp), names_(*comp), module_(module), comp_names_(comp_names), adders_(adders) {}

  Instruction* Binary(Opcode op, Instruction* a, Instruction* b) {
    return passes::AddInst(comp_, names_, op, a->shape(), {a, b}, OpcodeName(op));
  }
  Instruction* Unary(Opcode op, Instruction* a) {
    return passes::AddInst(comp_, names_, op, a->shape(), {a}, OpcodeName(op));
  }
  Instruction* Scalar(PrimitiveType t, double v) { return passes::AddScalarConstant(comp_, names_, t, v); }
  // Broadcast of a [F] vector along dimension f of `shape`, or of a scalar.
  Instruction* Broadcast(Instruction* v, const Shape& shape, std::vector<int64_t> dims) {
    Shape s = Shape::Array(v->shape().element_type(), shape.dims());
    if (shape.has_layout()) s.set_layout(shape.layout());
    return passes::AddInst(comp_, names_, Opcode::kBroadcast, s, {v}, "broadcast",
                           {{"dimensions", AttrValue(std::move(dims))}});
  }
  Instruction* ScalarLike(Instruction* like, double v) {
    return Broadcast(Scalar(like->shape().element_type(), v), like->shape(), {});
  }
  // Sum over every dimension but f: a [F] vector.
  Instruction* SumExcept(Instruction* x, int64_t f) {
    const PrimitiveType t = x->shape().element_type();
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < x->shape().rank(); ++d)
      if (d != f) dims.push_back(d);
    Instruction* zero = Scalar(t, 0);
    return passes::AddInst(comp_, names_, Opcode::kReduce, Shape::Array(t, {x->shape().dim(f)}), {x, zero},
                           "reduce", {{"dimensions", AttrValue(dims)}, {"to_apply", AttrValue(Adder(t))}});
  }
  Computation* comp() { return comp_; }
  passes::NameUniquer& names() { return names_; }

 private:
  Computation* Adder(PrimitiveType t) {
    auto it = adders_.find(t);
    if (it != adders_.end()) return it->second;
    auto c = std::make_unique<Computation>(
        comp_names_.Get(absl::StrCat("batchnorm_add_", absl::AsciiStrToLower(PrimitiveTypeName(t)))));
    Shape s = Shape::Scalar(t);
    auto a = std::make_unique<Instruction>(Opcode::kParameter, "lhs", s);
    a->set_parameter_number(0);
    auto b = std::make_unique<Instruction>(Opcode::kParameter, "rhs", s);
    b->set_parameter_number(1);
    Instruction* pa = c->AddInstruction(std::move(a));
    Instruction* pb = c->AddInstruction(std::move(b));
    auto add = std::make_unique<Instruction>(Opcode::kAdd, "add", s);
    add->AppendOperand(pa);
    add->AppendOperand(pb);
    c->set_root(c->AddInstruction(std::move(add)));
    Computation* added = module_.AddComputation(std::move(c));
    adders_[t] = added;
    return added;
  }

  Computation* comp_;
  passes::NameUniquer names_;
  Module& module_;
  passes::NameUniquer& comp_names_;
  absl::flat_hash_map<PrimitiveType, Computation*>& adders_;
};

absl::StatusOr<Instruction*> Expand(Builder& b, Instruction* bn) {
  const double eps = bn->AttrOr<double>("epsilon", 0.0);
  const int64_t f = bn->AttrOr<int64_t>("feature_index", -1);
  Instruction* x = bn->operand(0);
  const Shape& xs = x->shape();
  if (!xs.IsArray() || f < 0 || f >= xs.rank() || xs.dim(f) == 0) return nullptr;
  const PrimitiveType t = xs.element_type();
  const double count = static_cast<double>(xs.ElementCount() / xs.dim(f));
  auto bcast = [&](Instruction* v) { return b.Broadcast(v, xs, {f}); };
  auto vec_scalar = [&](Instruction* v, double s) {  // [F] op scalar constant, as a [F] broadcast
    return b.Broadcast(b.Scalar(t, s), v->shape(), {});
  };
  switch (bn->opcode()) {
    case Opcode::kBatchNormInference: {
      Instruction* mean = bn->operand(3);
      Instruction* var = bn->operand(4);
      Instruction* inv = b.Unary(Opcode::kRsqrt, b.Binary(Opcode::kAdd, var, vec_scalar(var, eps)));
      Instruction* y = b.Binary(Opcode::kSubtract, x, bcast(mean));
      y = b.Binary(Opcode::kMultiply, y, bcast(inv));
      y = b.Binary(Opcode::kMultiply, y, bcast(bn->operand(1)));
      return b.Binary(Opcode::kAdd, y, bcast(bn->operand(2)));
    }
    case Opcode::kBatchNormTraining: {
      Instruction* sum = b.SumExcept(x, f);
      Instruction* mean = b.Binary(Opcode::kDivide, sum, vec_scalar(sum, count));
      Instruction* d = b.Binary(Opcode::kSubtract, x, bcast(mean));
      Instruction* sq = b.SumExcept(b.Binary(Opcode::kMultiply, d, d), f);
      Instruction* var = b.Binary(Opcode::kDivide, sq, vec_scalar(sq, count));
      Instruction* inv = b.Unary(Opcode::kRsqrt, b.Binary(Opcode::kAdd, var, vec_scalar(var, eps)));
      Instruction* y = b.Binary(Opcode::kMultiply, d, bcast(inv));
      y = b.Binary(Opcode::kMultiply, y, bcast(bn->operand(1)));
      y = b.Binary(Opcode::kAdd, y, bcast(bn->operand(2)));
      return passes::AddTuple(b.comp(), b.names(), {y, mean, var});
    }
    case Opcode::kBatchNormGrad: {
      Instruction* scale = bn->operand(1);
      Instruction* mean = bn->operand(2);
      Instruction* var = bn->operand(3);
      Instruction* dy = bn->operand(4);
      Instruction* xm = b.Binary(Opcode::kSubtract, x, bcast(mean));
      Instruction* sum_dy = b.SumExcept(dy, f);
      Instruction* sum_dy_xm = b.SumExcept(b.Binary(Opcode::kMultiply, dy, xm), f);
      Instruction* ve = b.Binary(Opcode::kAdd, var, vec_scalar(var, eps));
      Instruction* rs = b.Unary(Opcode::kRsqrt, ve);
      Instruction* cl = b.Binary(Opcode::kDivide, b.Binary(Opcode::kDivide, sum_dy_xm, ve),
                                 vec_scalar(ve, count));
      Instruction* dl = b.Binary(Opcode::kDivide, sum_dy, vec_scalar(sum_dy, count));
      Instruction* inner = b.Binary(Opcode::kSubtract, dy, bcast(dl));
      inner = b.Binary(Opcode::kSubtract, inner, b.Binary(Opcode::kMultiply, bcast(cl), xm));
      Instruction* dx = b.Binary(Opcode::kMultiply, bcast(b.Binary(Opcode::kMultiply, scale, rs)), inner);
      Instruction* grad_scale = b.Binary(Opcode::kMultiply, sum_dy_xm, rs);
      return passes::AddTuple(b.comp(), b.names(), {dx, grad_scale, sum_dy});
    }
    default:
      return nullptr;
  }
}

class BatchNormExpander : public Pass {
 public:
  absl::string_view name() const override { return "batchnorm_expander"; }
  absl::StatusOr<bool> Run(Module& module) override {
    bool changed = false;
    passes::NameUniquer comp_names(module);
    absl::flat_hash_map<PrimitiveType, Computation*> adders;
    for (Computation* comp : module.MakeComputationPostOrder()) {
      std::unique_ptr<Builder> b;
      for (Instruction* inst : comp->MakePostOrder()) {
        Opcode op = inst->opcode();
        if (op != Opcode::kBatchNormInference && op != Opcode::kBatchNormTraining &&
            op != Opcode::kBatchNormGrad)
          continue;
        if (!inst->control_predecessors().empty() || !inst->control_successors().empty()) continue;
        if (!b) b = std::make_unique<Builder>(comp, module, comp_names, adders);
        absl::StatusOr<Instruction*> r = Expand(*b, inst);
        if (!r.ok()) return r.status();
        if (*r == nullptr) continue;
        absl::Status st = inst->ReplaceAllUsesWith(*r);
        if (!st.ok()) return st;
        (void)comp->RemoveInstruction(inst);
        changed = true;
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateBatchNormExpanderPass() { return std::make_unique<BatchNormExpander>(); }

}  // namespace hlo
