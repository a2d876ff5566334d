// dot-canonicalize: every dot becomes
//   lhs' = reshape(transpose(lhs, [batch..., free..., contracting...]), [B..., M, K])
//   rhs' = reshape(transpose(rhs, [batch..., contracting..., free...]), [B..., K, N])
//   dot' = dot(lhs', rhs') with batch dims {0..b-1}, contracting {b+1} x {b}
//   result = reshape(dot', original result dims)
// M/N/K are the products of the free/contracting dim sizes (1 if none).
// The dot's result dims are [batch..., lhs free..., rhs free...] in that
// order, so no transpose of the result is ever needed.
#include "passes/dot_canonicalize.h"

#include <numeric>
#include <utility>
#include <vector>

#include "passes/algsimp_util.h"

namespace hlo {
namespace {

using passes_internal::Builder;

std::vector<int64_t> IntList(const Instruction* x, absl::string_view name) {
  const auto* v = x->GetAttr<std::vector<int64_t>>(name);
  return v ? *v : std::vector<int64_t>{};
}

std::vector<int64_t> Iota(int64_t from, int64_t n) {
  std::vector<int64_t> v(n);
  std::iota(v.begin(), v.end(), from);
  return v;
}

bool IsCanonical(const Instruction* dot) {
  const int64_t lr = dot->operand(0)->shape().rank(), rr = dot->operand(1)->shape().rank();
  const std::vector<int64_t> lb = IntList(dot, "lhs_batch_dims"), rb = IntList(dot, "rhs_batch_dims");
  const int64_t b = static_cast<int64_t>(lb.size());
  return lr == b + 2 && rr == b + 2 && lb == Iota(0, b) && rb == Iota(0, b) &&
         IntList(dot, "lhs_contracting_dims") == std::vector<int64_t>{b + 1} &&
         IntList(dot, "rhs_contracting_dims") == std::vector<int64_t>{b};
}

int64_t Product(const Shape& s, const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= s.dim(d);
  return p;
}

// Rewrites one dot; returns the replacement or nullptr if it cannot.
Instruction* Canonicalize(Instruction* dot, Builder& b) {
  Instruction* lhs = dot->operand(0);
  Instruction* rhs = dot->operand(1);
  const Shape& ls = lhs->shape();
  const Shape& rs = rhs->shape();
  const std::vector<int64_t> lb = IntList(dot, "lhs_batch_dims"), rb = IntList(dot, "rhs_batch_dims");
  const std::vector<int64_t> lc = IntList(dot, "lhs_contracting_dims");
  const std::vector<int64_t> rc = IntList(dot, "rhs_contracting_dims");
  if (lb.size() != rb.size() || lc.size() != rc.size()) return nullptr;
  auto free_dims = [](const Shape& s, const std::vector<int64_t>& batch, const std::vector<int64_t>& contr) {
    std::vector<bool> used(s.rank(), false);
    for (int64_t d : batch) used[d] = true;
    for (int64_t d : contr) used[d] = true;
    std::vector<int64_t> out;
    for (int64_t d = 0; d < s.rank(); ++d)
      if (!used[d]) out.push_back(d);
    return out;
  };
  const std::vector<int64_t> lf = free_dims(ls, lb, lc), rf = free_dims(rs, rb, rc);
  const int64_t nb = static_cast<int64_t>(lb.size());
  if (nb + static_cast<int64_t>(lf.size() + rf.size()) != dot->shape().rank()) return nullptr;

  std::vector<int64_t> batch_sizes;
  for (int64_t d : lb) batch_sizes.push_back(ls.dim(d));
  const int64_t m = Product(ls, lf), k = Product(ls, lc), n = Product(rs, rf);

  std::vector<int64_t> lperm = lb;
  lperm.insert(lperm.end(), lf.begin(), lf.end());
  lperm.insert(lperm.end(), lc.begin(), lc.end());
  std::vector<int64_t> rperm = rb;
  rperm.insert(rperm.end(), rc.begin(), rc.end());
  rperm.insert(rperm.end(), rf.begin(), rf.end());

  std::vector<int64_t> ldims = batch_sizes, rdims = batch_sizes, odims = batch_sizes;
  ldims.push_back(m);
  ldims.push_back(k);
  rdims.push_back(k);
  rdims.push_back(n);
  odims.push_back(m);
  odims.push_back(n);

  Instruction* l2 = b.Reshape(b.Transpose(lhs, lperm), ldims);
  Instruction* r2 = b.Reshape(b.Transpose(rhs, rperm), rdims);
  // The result keeps the dot's shape and layout: the new dot itself when the
  // dims already agree, else the reshape back.
  const bool same_dims = SameInts(odims, dot->shape().dims());
  Instruction* d2 = b.Add(Opcode::kDot,
                          same_dims ? dot->shape()
                                    : passes_internal::ArrayShape(dot->shape().element_type(), odims),
                          {l2, r2});
  for (const auto& [name, v] : dot->attrs()) d2->SetAttr(name, v);
  d2->SetAttr("lhs_batch_dims", Iota(0, nb));
  d2->SetAttr("rhs_batch_dims", Iota(0, nb));
  d2->SetAttr("lhs_contracting_dims", std::vector<int64_t>{nb + 1});
  d2->SetAttr("rhs_contracting_dims", std::vector<int64_t>{nb});
  if (same_dims) return d2;
  return b.Add(Opcode::kReshape, dot->shape(), {d2});
}

class DotCanonicalize : public Pass {
 public:
  absl::string_view name() const override { return "dot-canonicalize"; }
  absl::StatusOr<bool> Run(Module& module) override {
    return passes_internal::ReplaceInPostOrder(
        module, [](Instruction* x, Builder& b) -> absl::StatusOr<Instruction*> {
          if (x->opcode() != Opcode::kDot || x->operand_count() != 2) return nullptr;
          if (!passes_internal::IsRewritable(x) || x->HasAttr("sparsity")) return nullptr;
          if (!x->shape().IsArray() || !x->shape().IsStatic() || !x->operand(0)->shape().IsStatic() ||
              !x->operand(1)->shape().IsStatic())
            return nullptr;
          if (IsCanonical(x)) return nullptr;
          return Canonicalize(x, b);
        });
  }
};

}  // namespace

std::unique_ptr<Pass> CreateDotCanonicalizePass() { return std::make_unique<DotCanonicalize>(); }

}  // namespace hlo
