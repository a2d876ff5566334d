// The pieces hlo-gen builds modules from: a portable seeded random source,
// typed values (element type, dims, layout), and computations written as
// HLO text line by line. Every value knows its exact shape, so each op
// generator can emit a shape-correct instruction without shape inference.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hlo::gen {

// splitmix64: the same sequence on every platform and standard library
// (std::uniform_int_distribution is not), so a seed names one module.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  uint64_t Next();
  int64_t Uniform(int64_t lo, int64_t hi);  // inclusive
  bool Chance(double p);
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(Uniform(0, static_cast<int64_t>(v.size()) - 1))];
  }
  template <typename T>
  void Shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[static_cast<size_t>(Uniform(0, i - 1))]);
  }

 private:
  uint64_t state_;
};

enum class Kind { kPred, kSigned, kUnsigned, kFloat, kComplex };

// Element types the generator uses, by kind.
Kind KindOf(const std::string& type);
int BitWidth(const std::string& type);
bool IsNarrowFloat(const std::string& type);  // f16, bf16, f8*
const std::vector<std::string>& AllTypes();

struct Value {
  std::string name;
  std::string type;
  std::vector<int64_t> dims;
  std::vector<int64_t> minor_to_major;  // empty = default (descending)
  std::string tiles;                    // e.g. "T(2,128)"; only with minor_to_major
  std::vector<Value> tuple;             // a tuple value when non-empty
  bool is_tuple() const { return !tuple.empty(); }
  int64_t elements() const;
  int rank() const { return static_cast<int>(dims.size()); }
};

Value Array(const std::string& type, std::vector<int64_t> dims);
Value TupleOf(std::vector<Value> elements);
// `f32[2,3]` or with its layout `f32[2,3]{0,1}`; tuples in parentheses.
std::string ShapeText(const Value& v, bool with_layout = true);

// One computation under construction.
struct Comp {
  std::string name;
  std::vector<Value> params;
  std::vector<std::string> lines;  // instructions, in order
  std::vector<Value> values;       // every non-tuple array value defined so far
  std::map<std::string, int> uses;
};

class ModuleBuilder {
 public:
  explicit ModuleBuilder(uint64_t seed) : rng(seed) {}
  Rng rng;

  std::string Fresh(const std::string& base);
  // Emits `%name = shape rhs` into `c` and returns the value.
  Value Emit(Comp& c, const std::string& base, Value shape, const std::string& rhs,
             const std::vector<const Value*>& operands);
  Value AddParam(Comp& c, Value shape);
  // A scalar constant of `type` (a small value that every type holds).
  Value Constant(Comp& c, const std::string& type, const std::string& text = "");
  // An s32 scalar for index operands (sometimes out of range: clamped by the op).
  Value IndexScalar(Comp& c, int64_t limit);
  // A value of exactly this array shape: an existing one, a new parameter
  // (while there are few) or a broadcast constant.
  Value Need(Comp& c, const std::string& type, const std::vector<int64_t>& dims);
  // Any array value of the pool (one of the kinds in `kinds` if given).
  const Value* PickValue(Comp& c, const std::vector<Kind>& kinds = {});

  // Scalar computations, made once per (kind, type): "add", "multiply",
  // "maximum", "minimum", "and", "or", "assign" (returns b), "lt", "gt"
  // (comparators, two params), "lt_pairs" (four params, compares the first).
  std::string Scalar(const std::string& kind, const std::string& type,
                     const std::string& second_type = "");
  // Finished sub-computations, in definition order (callees first).
  void AddComputation(const Comp& c, const Value& root, bool entry = false);
  std::string Text(const std::string& module_name) const;
  std::string RandomConstantText(const std::string& type);

  int max_params = 5;
  // Set by the collective group: the module runs on this many replicas
  // (replica_count in the header), each on its own thread.
  int64_t replicas = 1;

 private:
  int counter_ = 0;
  std::vector<std::string> computations_;
  std::map<std::string, std::string> scalar_cache_;
};

}  // namespace hlo::gen
