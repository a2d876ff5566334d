// Runtime dimension sizes on static shapes: see dynamic_padding.h.
#include "backend_cpu/dynamic_padding.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/name_uniquer.h"

namespace hlo::cpu {
namespace {

void RemoveIfUnused(Instruction* inst) {
  Computation* comp = inst->parent();
  if (comp != nullptr && inst->user_count() == 0 && inst != comp->root() &&
      inst->control_predecessors().empty() && inst->control_successors().empty())
    (void)comp->RemoveInstruction(inst);
}

// Per array dimension: the s32 scalar holding its runtime size, or null
// where the dimension is static (its size is the bound).
using DimSizes = std::vector<Instruction*>;

std::vector<int64_t> IntList(const Instruction& x, absl::string_view name) {
  const auto* v = x.GetAttr<std::vector<int64_t>>(name);
  return v ? *v : std::vector<int64_t>{};
}

bool AnyDynamic(const DimSizes& s) {
  for (Instruction* i : s)
    if (i != nullptr) return true;
  return false;
}

class Padder {
 public:
  Padder(Module* module, Computation* comp) : module_(module), comp_(comp), names_(*comp) {}

  // Rewrites the computation; false if some use of a dynamic dimension
  // could not be handled.
  bool Run() {
    for (Instruction* inst : comp_->MakePostOrder()) Visit(inst);
    if (ReadsDynamic(comp_->root())) complete_ = false;  // the result keeps its padding
    return complete_;
  }
  bool changed() const { return changed_; }

  // Once every use is handled: the shapes that had runtime-sized
  // dimensions become static.
  void ClearDynamicFlags() {
    for (const auto& [inst, dims] : sizes_) ClearFlags(const_cast<Instruction*>(inst)->mutable_shape(), dims);
    for (const auto& [inst, elements] : tuple_sizes_) {
      Shape& shape = const_cast<Instruction*>(inst)->mutable_shape();
      for (size_t i = 0; i < elements.size() && static_cast<int64_t>(i) < shape.tuple_size(); ++i)
        ClearFlags(shape.mutable_tuple_shapes()[i], elements[i]);
    }
  }

 private:
  static void ClearFlags(Shape& shape, const DimSizes& dims) {
    for (size_t i = 0; i < dims.size() && static_cast<int64_t>(i) < shape.rank(); ++i)
      if (dims[i] != nullptr) shape.set_dynamic_dim(static_cast<int64_t>(i), false);
  }

  const DimSizes* Find(const Instruction* inst) const {
    auto it = sizes_.find(inst);
    return it == sizes_.end() ? nullptr : &it->second;
  }
  // Whether `inst`'s value (an array, or a tuple's elements) has a
  // runtime-sized dimension.
  bool ReadsDynamic(const Instruction* inst) const {
    if (const DimSizes* s = Find(inst); s != nullptr && AnyDynamic(*s)) return true;
    auto it = tuple_sizes_.find(inst);
    if (it == tuple_sizes_.end()) return false;
    for (const DimSizes& e : it->second)
      if (AnyDynamic(e)) return true;
    return false;
  }

  void Visit(Instruction* inst) {
    const Opcode op = inst->opcode();
    if (op == Opcode::kSetDimensionSize) {
      SetDimensionSize(inst);
      return;
    }
    bool reads_dynamic = false;
    for (Instruction* o : inst->operands()) reads_dynamic |= ReadsDynamic(o);
    if (!reads_dynamic) return;
    // Tuples carry their elements' sizes to get-tuple-element.
    if (op == Opcode::kTuple) return Tuple(inst);
    if (op == Opcode::kGetTupleElement) return GetTupleElement(inst);
    for (Instruction* o : inst->operands())
      if (tuple_sizes_.contains(o)) {  // a tuple read by anything else (a call, a loop)
        complete_ = false;
        return;
      }
    if (op == Opcode::kSort) return Sort(inst);
    if (!inst->shape().IsArray() && op != Opcode::kReduce) {
      complete_ = false;
      return;
    }
    switch (op) {
      case Opcode::kGetDimensionSize: return GetDimensionSize(inst);
      case Opcode::kBroadcast: return Broadcast(inst);
      case Opcode::kTranspose: return Transpose(inst);
      case Opcode::kReshape: return Reshape(inst);
      case Opcode::kReduce: return Reduce(inst);
      case Opcode::kDot: return Dot(inst);
      case Opcode::kCopy:
      case Opcode::kBitcastConvert:
        if (inst->operand(0)->shape().rank() == inst->shape().rank()) return Elementwise(inst);
        complete_ = false;
        return;
      default:
        if (IsElementwise(op) || op == Opcode::kMap) return Elementwise(inst);
        complete_ = false;
    }
  }

  void Tuple(Instruction* inst) {
    std::vector<DimSizes> elements;
    for (Instruction* o : inst->operands()) {
      if (tuple_sizes_.contains(o)) {  // nested tuples are not followed
        complete_ = false;
        return;
      }
      const DimSizes* s = Find(o);
      elements.push_back(s != nullptr ? *s : DimSizes());
    }
    tuple_sizes_[inst] = std::move(elements);
  }

  void GetTupleElement(Instruction* inst) {
    auto it = tuple_sizes_.find(inst->operand(0));
    const int64_t* index = inst->GetAttr<int64_t>("index");
    if (it == tuple_sizes_.end() || index == nullptr || *index < 0 ||
        *index >= static_cast<int64_t>(it->second.size())) {
      complete_ = false;
      return;
    }
    Record(inst, it->second[*index]);
  }

  // Sort along a runtime-sized dimension (XLA's rewrite): an extra operand
  // says which elements are inside the size, and the comparator puts those
  // first (in their order) and the padding after them. Other runtime-sized
  // dimensions only carry their sizes to the results.
  void Sort(Instruction* inst) {
    const std::vector<int64_t> dims = IntList(*inst, "dimensions");
    const auto* comparator = inst->GetAttr<Computation*>("to_apply");
    const int64_t n = inst->operand_count();
    if (dims.size() != 1 || comparator == nullptr || *comparator == nullptr || n == 0 ||
        !inst->operand(0)->shape().IsArray() || dims[0] < 0 || dims[0] >= inst->operand(0)->shape().rank()) {
      complete_ = false;
      return;
    }
    // Each result keeps its own operand's sizes (as XLA's inference: an
    // operand without a runtime size gives a static result); the sort
    // dimension's size is any operand's.
    std::vector<DimSizes> own;
    Instruction* size = nullptr;
    for (Instruction* o : inst->operands()) {
      const DimSizes* s = Find(o);
      own.push_back(s != nullptr ? *s : DimSizes());
      if (size == nullptr && s != nullptr && static_cast<int64_t>(s->size()) > dims[0]) size = (*s)[dims[0]];
    }
    if (size == nullptr) {  // sorted along a static dimension: the sizes pass through
      if (inst->shape().IsTuple()) {
        tuple_sizes_[inst] = own;
      } else {
        Record(inst, own[0]);
      }
      return;
    }
    Instruction* inside = Inside(inst->operand(0)->shape(), dims[0], size);
    std::vector<Instruction*> operands = inst->operands();
    operands.push_back(inside);
    std::vector<Shape> shapes;
    for (Instruction* o : operands) shapes.push_back(o->shape());
    auto attrs = inst->attrs();
    for (auto& [name, value] : attrs)
      if (name == "to_apply") value = AttrValue(InsideFirst(**comparator));
    Instruction* sorted = Add(Opcode::kSort, Shape::Tuple(shapes), operands, "sort", std::move(attrs));
    std::vector<Instruction*> elements;
    for (int64_t i = 0; i < n; ++i)
      elements.push_back(Add(Opcode::kGetTupleElement, shapes[i], {sorted}, "get-tuple-element",
                             {{"index", AttrValue(int64_t{i})}}));
    Instruction* result =
        inst->shape().IsTuple() ? Add(Opcode::kTuple, inst->shape(), elements, "tuple") : elements[0];
    module_->InvalidateCallGraph();
    changed_ = true;
    own.push_back(DimSizes());  // the in-bounds mask
    tuple_sizes_[sorted] = own;
    own.pop_back();
    for (int64_t i = 0; i < n; ++i) Record(elements[i], own[i]);
    if (result != elements[0]) tuple_sizes_[result] = own;
    if (!inst->ReplaceAllUsesWith(result).ok()) {
      complete_ = false;
      return;
    }
    RemoveIfUnused(inst);
  }

  // The comparator with two more parameters (whether the lhs and the rhs
  // element lie inside the size): inside_lhs && (less(lhs, rhs) || !inside_rhs).
  Computation* InsideFirst(const Computation& less) {
    std::unique_ptr<Computation> c = less.Clone(NameUniquer(*module_).Get(less.name() + "_inside_first"));
    const int64_t p = c->num_parameters();
    NameUniquer names(*c);
    const Shape pred = Shape::Scalar(PrimitiveType::PRED);
    auto add = [&](Opcode op, const std::vector<Instruction*>& operands, absl::string_view base) {
      auto inst = std::make_unique<Instruction>(op, names.Get(base), pred);
      for (Instruction* o : operands) inst->AppendOperand(o);
      return c->AddInstruction(std::move(inst));
    };
    auto param = [&](int64_t number, absl::string_view base) {
      auto inst = std::make_unique<Instruction>(Opcode::kParameter, names.Get(base), pred);
      inst->set_parameter_number(number);
      return c->AddInstruction(std::move(inst));
    };
    Instruction* inside_lhs = param(p, "inside_lhs");
    Instruction* inside_rhs = param(p + 1, "inside_rhs");
    Instruction* outside_rhs = add(Opcode::kNot, {inside_rhs}, "outside_rhs");
    Instruction* either = add(Opcode::kOr, {c->root(), outside_rhs}, "less_or_outside_rhs");
    c->set_root(add(Opcode::kAnd, {inside_lhs, either}, "inside_first"));
    return module_->AddComputation(std::move(c));
  }

  void SetDimensionSize(Instruction* inst) {
    const Shape& s = inst->shape();
    const std::vector<int64_t> dims = IntList(*inst, "dimensions");
    if (!s.IsArray() || dims.size() != 1 || dims[0] < 0 || dims[0] >= s.rank()) {
      complete_ = false;
      return;
    }
    const DimSizes* in = Find(inst->operand(0));
    DimSizes out = in != nullptr ? *in : DimSizes(s.rank(), nullptr);
    out[dims[0]] = inst->operand(1);
    sizes_[inst] = std::move(out);
  }

  void GetDimensionSize(Instruction* inst) {
    const std::vector<int64_t> dims = IntList(*inst, "dimensions");
    const DimSizes& in = *Find(inst->operand(0));
    if (dims.size() != 1 || dims[0] < 0 || dims[0] >= static_cast<int64_t>(in.size())) return;
    Instruction* size = in[dims[0]];
    if (size == nullptr || !inst->ReplaceAllUsesWith(size).ok()) return;
    RemoveIfUnused(inst);
    changed_ = true;
  }

  // Result dimension i has the size of the same dimension of any operand
  // of the result's rank (all operands have the same bounds).
  void Elementwise(Instruction* inst) {
    const int64_t rank = inst->shape().rank();
    DimSizes out(rank, nullptr);
    for (Instruction* o : inst->operands()) {
      const DimSizes* s = Find(o);
      if (s == nullptr || static_cast<int64_t>(s->size()) != rank) continue;
      for (int64_t i = 0; i < rank; ++i)
        if (out[i] == nullptr) out[i] = (*s)[i];
    }
    Record(inst, std::move(out));
  }

  void Broadcast(Instruction* inst) {
    const DimSizes& in = *Find(inst->operand(0));
    const std::vector<int64_t> dims = IntList(*inst, "dimensions");
    DimSizes out(inst->shape().rank(), nullptr);
    if (dims.size() != in.size()) {
      complete_ = false;
      return;
    }
    for (size_t i = 0; i < dims.size(); ++i)
      if (dims[i] >= 0 && dims[i] < static_cast<int64_t>(out.size())) out[dims[i]] = in[i];
    Record(inst, std::move(out));
  }

  void Transpose(Instruction* inst) {
    const DimSizes& in = *Find(inst->operand(0));
    const std::vector<int64_t> perm = IntList(*inst, "dimensions");
    if (perm.size() != in.size()) {
      complete_ = false;
      return;
    }
    DimSizes out(perm.size(), nullptr);
    for (size_t i = 0; i < perm.size(); ++i) {
      if (perm[i] < 0 || perm[i] >= static_cast<int64_t>(in.size())) {
        complete_ = false;
        return;
      }
      out[i] = in[perm[i]];
    }
    Record(inst, std::move(out));
  }

  // A dynamic dimension survives a (row-major) reshape whole when a result
  // dimension has its bound and the same number of elements before it; its
  // padding then sits at the same element positions.
  void Reshape(Instruction* inst) {
    const Shape& from = inst->operand(0)->shape();
    const Shape& to = inst->shape();
    const DimSizes& in = *Find(inst->operand(0));
    DimSizes out(to.rank(), nullptr);
    int64_t before_in = 1;
    for (int64_t i = 0; i < from.rank(); ++i) {
      if (in[i] != nullptr) {
        int64_t before_out = 1;
        bool found = false;
        for (int64_t j = 0; j < to.rank() && !found; ++j) {
          if (before_out == before_in && to.dim(j) == from.dim(i) && out[j] == nullptr) {
            out[j] = in[i];
            found = true;
          }
          before_out *= to.dim(j);
        }
        if (!found) complete_ = false;
      }
      before_in *= from.dim(i);
    }
    Record(inst, std::move(out));
  }

  void Reduce(Instruction* inst) {
    const int64_t n = inst->operand_count() / 2;
    const std::vector<int64_t> dims = IntList(*inst, "dimensions");
    const DimSizes* first = nullptr;
    for (int64_t k = 0; k < n; ++k) {
      const DimSizes* s = Find(inst->operand(k));
      if (s == nullptr) continue;
      if (first == nullptr) first = s;
      Instruction* x = inst->operand(k);
      for (int64_t d : dims)
        if (d >= 0 && d < static_cast<int64_t>(s->size()) && (*s)[d] != nullptr)
          x = Mask(x, d, (*s)[d], inst->operand(n + k));
      if (x != inst->operand(k)) inst->ReplaceOperand(k, x);
    }
    if (first == nullptr) return;
    DimSizes kept;
    for (int64_t d = 0; d < static_cast<int64_t>(first->size()); ++d)
      if (std::find(dims.begin(), dims.end(), d) == dims.end()) kept.push_back((*first)[d]);
    if (!AnyDynamic(kept)) return;
    if (!inst->shape().IsArray()) {  // sizes of tuple results are not followed
      complete_ = false;
      return;
    }
    Record(inst, std::move(kept));
  }

  void Dot(Instruction* inst) {
    DimSizes out;
    const DimSizes* side[2] = {Find(inst->operand(0)), Find(inst->operand(1))};
    std::vector<int64_t> batch[2], contracting[2];
    for (int i = 0; i < 2; ++i) {
      const std::string name = i == 0 ? "lhs" : "rhs";
      batch[i] = IntList(*inst, name + "_batch_dims");
      contracting[i] = IntList(*inst, name + "_contracting_dims");
      const int64_t rank = inst->operand(i)->shape().rank();
      for (const std::vector<int64_t>* list : {&batch[i], &contracting[i]})
        for (int64_t d : *list)
          if (d < 0 || d >= rank) {  // malformed (the verifier says so): leave it
            complete_ = false;
            return;
          }
    }
    if (batch[0].size() != batch[1].size()) {
      complete_ = false;
      return;
    }
    // Padding in a contracting dimension multiplies by zero.
    for (int i = 0; i < 2; ++i) {
      if (side[i] == nullptr) continue;
      Instruction* x = inst->operand(i);
      for (int64_t d : contracting[i])
        if ((*side[i])[d] != nullptr) x = Mask(x, d, (*side[i])[d], Zero(x->shape().element_type()));
      if (x != inst->operand(i)) inst->ReplaceOperand(i, x);
    }
    auto size_of = [&](int i, int64_t d) { return side[i] != nullptr ? (*side[i])[d] : nullptr; };
    for (size_t k = 0; k < batch[0].size(); ++k) {
      Instruction* s = size_of(0, batch[0][k]);
      out.push_back(s != nullptr ? s : size_of(1, batch[1][k]));
    }
    for (int i = 0; i < 2; ++i) {
      const int64_t rank = inst->operand(i)->shape().rank();
      for (int64_t d = 0; d < rank; ++d) {
        if (std::find(batch[i].begin(), batch[i].end(), d) != batch[i].end()) continue;
        if (std::find(contracting[i].begin(), contracting[i].end(), d) != contracting[i].end()) continue;
        out.push_back(size_of(i, d));
      }
    }
    if (static_cast<int64_t>(out.size()) != inst->shape().rank()) {
      complete_ = false;
      return;
    }
    Record(inst, std::move(out));
  }

  void Record(Instruction* inst, DimSizes s) {
    if (AnyDynamic(s)) sizes_[inst] = std::move(s);
  }

  Instruction* Zero(PrimitiveType t) {
    Literal zero(Shape::Scalar(t));
    auto inst = std::make_unique<Instruction>(Opcode::kConstant, names_.Get("constant"), Shape::Scalar(t));
    inst->set_literal(std::move(zero));
    return comp_->AddInstruction(std::move(inst));
  }
  Instruction* Add(Opcode op, Shape shape, const std::vector<Instruction*>& operands, absl::string_view base,
                   std::vector<std::pair<std::string, AttrValue>> attrs = {}) {
    auto inst = std::make_unique<Instruction>(op, names_.Get(base), std::move(shape));
    for (Instruction* o : operands) inst->AppendOperand(o);
    inst->set_attrs(std::move(attrs));
    return comp_->AddInstruction(std::move(inst));
  }

  // pred[dims]: whether each element's index along d is below `size`.
  Instruction* Inside(const Shape& like, int64_t d, Instruction* size) {
    Shape index_shape = Shape::Array(PrimitiveType::S32, like.dims());
    Instruction* iota = Add(Opcode::kIota, index_shape, {}, "iota", {{"iota_dimension", AttrValue(d)}});
    Instruction* bound = Add(Opcode::kBroadcast, index_shape, {size}, "broadcast",
                             {{"dimensions", AttrValue(std::vector<int64_t>{})}});
    return Add(Opcode::kCompare, Shape::Array(PrimitiveType::PRED, like.dims()), {iota, bound}, "compare",
               {{"direction", AttrValue(std::string("LT"))}});
  }

  // select(iota(d) < size, x, broadcast(pad)) with x's shape.
  Instruction* Mask(Instruction* x, int64_t d, Instruction* size, Instruction* pad) {
    const Shape& xs = x->shape();
    Instruction* inside = Inside(xs, d, size);
    // A mixed-precision reduce (f16 operand, f32 init) pads with its init
    // value in the operand's type.
    if (pad->shape().element_type() != xs.element_type())
      pad = Add(Opcode::kConvert, Shape::Scalar(xs.element_type()), {pad}, "convert");
    Instruction* fill = Add(Opcode::kBroadcast, Shape::Array(xs.element_type(), xs.dims()), {pad}, "broadcast",
                            {{"dimensions", AttrValue(std::vector<int64_t>{})}});
    changed_ = true;
    Shape masked = xs;  // dimension d holds no padding any more
    masked.set_dynamic_dim(d, false);
    return Add(Opcode::kSelect, masked, {inside, x, fill}, "select");
  }

  Module* module_;
  Computation* comp_;
  NameUniquer names_;
  absl::flat_hash_map<const Instruction*, DimSizes> sizes_;
  // Tuples holding runtime-sized arrays: per element (empty: none).
  absl::flat_hash_map<const Instruction*, std::vector<DimSizes>> tuple_sizes_;
  bool complete_ = true;
  bool changed_ = false;
};

}  // namespace

bool HasSetDimensionSize(const Module& module) {
  for (const Computation* comp : module.computations())
    for (const Instruction* inst : comp->instructions())
      if (inst->opcode() == Opcode::kSetDimensionSize) return true;
  return false;
}

bool PadDynamicDimensions(Module& module) {
  bool changed = false;
  for (Computation* comp : module.MakeComputationPostOrder()) {
    bool has_set = false;
    for (Instruction* inst : comp->instructions())
      if (inst->opcode() == Opcode::kSetDimensionSize) has_set = true;
    if (!has_set) continue;
    Padder padder(&module, comp);
    const bool complete = padder.Run();
    changed |= padder.changed();
    if (!complete) continue;  // the executor notes the uses left
    // Every use is handled: the computation becomes static again.
    padder.ClearDynamicFlags();
    for (Instruction* inst : comp->MakePostOrder()) {
      if (inst->opcode() != Opcode::kSetDimensionSize) continue;
      if (!inst->control_predecessors().empty() || !inst->control_successors().empty()) continue;
      if (!inst->ReplaceAllUsesWith(inst->operand(0)).ok()) continue;
      RemoveIfUnused(inst);
      changed = true;
    }
  }
  return changed;
}

}  // namespace hlo::cpu
