#include "analysis/cost_analysis.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/json.h"
#include "ir/computation.h"
#include "ir/element_type.h"

namespace hlo {
namespace {

const Computation* Called(const Instruction& instr, const char* attr) {
  const auto* c = instr.GetAttr<Computation*>(attr);
  return c != nullptr ? *c : nullptr;
}

// backend_config={"known_trip_count":{"n":"10"}}: the count XLA's while
// loop analysis stores. Read by hand: the config is free-form JSON text.
std::optional<int64_t> TripCountFromBackendConfig(const Instruction& w) {
  const auto* config = w.GetAttr<StringOrDict>("backend_config");
  if (config == nullptr) return std::nullopt;
  const std::string& t = config->text;
  size_t p = t.find("\"known_trip_count\"");
  if (p == std::string::npos) return std::nullopt;
  p = t.find("\"n\"", p);
  if (p == std::string::npos) return std::nullopt;
  p = t.find(':', p);
  if (p == std::string::npos) return std::nullopt;
  ++p;
  while (p < t.size() && (t[p] == ' ' || t[p] == '"')) ++p;
  int64_t n = 0;
  size_t digits = 0;
  while (p < t.size() && std::isdigit(static_cast<unsigned char>(t[p])) && digits < 18) {
    n = n * 10 + (t[p] - '0');
    ++p;
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  return n;
}

std::optional<int64_t> ScalarInt(const Instruction* i) {
  if (i->opcode() != Opcode::kConstant || !i->has_literal() || !i->shape().IsArray() ||
      !i->shape().dims().empty() || !IsInteger(i->shape().element_type()))
    return std::nullopt;
  return i->literal().GetInt(0);
}

// get-tuple-element(parameter(0)), index=k -> k.
std::optional<int64_t> LoopStateIndex(const Instruction* i) {
  if (i->opcode() != Opcode::kGetTupleElement || i->operand(0)->opcode() != Opcode::kParameter)
    return std::nullopt;
  return i->AttrOr<int64_t>("index", -1);
}

// The pattern counting loops are written in: the condition compares
// state[k] < limit (or <=, or the mirrored >), the init tuple holds a
// constant start at k, and the body's root tuple holds state[k] + step
// with a constant step > 0.
std::optional<int64_t> TripCountFromInduction(const Instruction& w) {
  const Computation* cond = Called(w, "condition");
  const Computation* body = Called(w, "body");
  if (cond == nullptr || body == nullptr || w.operand_count() != 1) return std::nullopt;
  const Instruction* cmp = cond->root();
  if (cmp == nullptr || cmp->opcode() != Opcode::kCompare) return std::nullopt;
  std::string dir = cmp->AttrOr<std::string>("direction", "");
  const Instruction* lhs = cmp->operand(0);
  const Instruction* rhs = cmp->operand(1);
  if (!LoopStateIndex(lhs)) {  // limit OP state: mirror it
    std::swap(lhs, rhs);
    if (dir == "GT") dir = "LT";
    else if (dir == "GE") dir = "LE";
    else return std::nullopt;
  }
  std::optional<int64_t> k = LoopStateIndex(lhs);
  std::optional<int64_t> limit = ScalarInt(rhs);
  if (!k || !limit || (dir != "LT" && dir != "LE")) return std::nullopt;
  const Instruction* init = w.operand(0);
  if (init->opcode() != Opcode::kTuple || *k < 0 || *k >= init->operand_count()) return std::nullopt;
  std::optional<int64_t> start = ScalarInt(init->operand(*k));
  const Instruction* root = body->root();
  if (!start || root == nullptr || root->opcode() != Opcode::kTuple || *k >= root->operand_count())
    return std::nullopt;
  const Instruction* next = root->operand(*k);
  if (next->opcode() != Opcode::kAdd) return std::nullopt;
  const Instruction* a = next->operand(0);
  const Instruction* b = next->operand(1);
  if (LoopStateIndex(b) == k) std::swap(a, b);
  std::optional<int64_t> step = ScalarInt(b);
  if (LoopStateIndex(a) != k || !step || *step <= 0) return std::nullopt;
  // Overflow-free in doubles for any int64 operands we accept.
  const double span = static_cast<double>(*limit) - static_cast<double>(*start) + (dir == "LE" ? 1 : 0);
  if (span <= 0) return 0;
  const double trips = std::ceil(span / static_cast<double>(*step));
  if (trips > 9.0e15) return std::nullopt;
  return static_cast<int64_t>(trips);
}

OpCost Max(const OpCost& a, const OpCost& b) {
  return OpCost{std::max(a.flops, b.flops), std::max(a.transcendentals, b.transcendentals),
                std::max(a.bytes_accessed, b.bytes_accessed)};
}

class Analyzer {
 public:
  // Cost of one execution of `comp` (memoized: shared callees are
  // analyzed once).
  const ComputationCost& Analyze(const Computation* comp, int depth) {
    auto it = done_.find(comp);
    if (it != done_.end()) return *it->second;
    auto result = std::make_unique<ComputationCost>();
    result->computation = comp;
    for (const Instruction* instr : comp->instructions()) {
      InstructionCost row;
      row.instr = instr;
      row.cost = EstimateCost(*instr);
      if (!CostIncludesCallees(instr->opcode()) && depth < 256) AddCallees(*instr, depth, &row);
      result->total += row.cost;
      result->instructions.push_back(row);
    }
    ComputationCost& ref = *result;
    done_[comp] = std::move(result);
    return ref;
  }

  std::unique_ptr<ComputationCost> Take(const Computation* comp) { return std::move(done_[comp]); }

 private:
  OpCost Total(const Computation* comp, int depth) {
    if (comp == nullptr) return OpCost();
    return Analyze(comp, depth + 1).total;
  }

  void AddCallees(const Instruction& instr, int depth, InstructionCost* row) {
    switch (instr.opcode()) {
      case Opcode::kWhile: {
        row->trips = WhileTripCount(instr);
        // Unknown: one trip, as XLA's analysis assumes.
        const double n = row->trips.source == TripCountSource::kUnknown
                             ? 1
                             : static_cast<double>(row->trips.count);
        OpCost body = Total(Called(instr, "body"), depth).Scaled(n);
        // The condition runs once more than the body, to end the loop.
        OpCost cond = Total(Called(instr, "condition"), depth)
                          .Scaled(row->trips.source == TripCountSource::kUnknown ? 1 : n + 1);
        row->cost = body;
        row->cost += cond;
        break;
      }
      case Opcode::kConditional: {
        // The most expensive branch, property by property (XLA's rule).
        OpCost worst;
        for (const Computation* c : instr.called_computations()) worst = Max(worst, Total(c, depth));
        row->cost = worst;
        break;
      }
      case Opcode::kFusion: {
        // The fused computation's arithmetic; its memory traffic is the
        // fusion's operands and result only (intermediates stay on chip).
        OpCost inner = Total(Called(instr, "calls"), depth);
        row->cost.flops = inner.flops;
        row->cost.transcendentals = inner.transcendentals;
        break;
      }
      default: {  // call, async-start: what the callee costs
        OpCost sum;
        for (const Computation* c : instr.called_computations()) sum += Total(c, depth);
        row->cost = sum;
        break;
      }
    }
  }

  absl::flat_hash_map<const Computation*, std::unique_ptr<ComputationCost>> done_;
};

std::string Num(double v) { return json::Number(v); }

std::string TripText(const TripCount& t) {
  switch (t.source) {
    case TripCountSource::kBackendConfig:
      return absl::StrCat(t.count, " (backend_config)");
    case TripCountSource::kInduction:
      return absl::StrCat(t.count, " (induction)");
    case TripCountSource::kUnknown:
      return "unknown (1 assumed)";
    case TripCountSource::kNone:
      break;
  }
  return "";
}

const char* TripSourceName(TripCountSource s) {
  switch (s) {
    case TripCountSource::kBackendConfig: return "backend_config";
    case TripCountSource::kInduction: return "induction";
    case TripCountSource::kUnknown: return "unknown";
    case TripCountSource::kNone: break;
  }
  return "";
}

void WriteCost(json::Writer& w, const OpCost& c) {
  w.Key("flops").Num(c.flops);
  w.Key("transcendentals").Num(c.transcendentals);
  w.Key("bytes_accessed").Num(c.bytes_accessed);
}

}  // namespace

TripCount WhileTripCount(const Instruction& w) {
  TripCount t;
  if (w.opcode() != Opcode::kWhile) return t;
  if (std::optional<int64_t> n = TripCountFromBackendConfig(w)) {
    t.source = TripCountSource::kBackendConfig;
    t.count = *n;
  } else if (std::optional<int64_t> m = TripCountFromInduction(w)) {
    t.source = TripCountSource::kInduction;
    t.count = *m;
  } else {
    t.source = TripCountSource::kUnknown;
  }
  return t;
}

ModuleCost AnalyzeCost(const Module& module) {
  ModuleCost result;
  result.module_name = module.name();
  Analyzer analyzer;
  std::vector<Computation*> order = module.MakeComputationPostOrder();
  for (const Computation* c : order) analyzer.Analyze(c, 0);
  // Entry first, then callers before callees.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    std::unique_ptr<ComputationCost> c = analyzer.Take(*it);
    if (c == nullptr) continue;
    c->is_entry = *it == module.entry();
    if (c->is_entry) result.total = c->total;
    result.computations.push_back(std::move(*c));
  }
  return result;
}

std::string FormatCostTable(const ModuleCost& cost) {
  std::string out = absl::StrCat("cost of module ", cost.module_name,
                                 " (XLA HloCostAnalysis model, one execution)\n");
  absl::StrAppend(&out, "total: flops ", Num(cost.total.flops), ", transcendentals ",
                  Num(cost.total.transcendentals), ", bytes accessed ", Num(cost.total.bytes_accessed),
                  "\n");
  for (const ComputationCost& c : cost.computations) {
    absl::StrAppend(&out, "\n", c.is_entry ? "ENTRY " : "", "computation ", c.computation->name(),
                    ": flops ", Num(c.total.flops), ", transcendentals ", Num(c.total.transcendentals),
                    ", bytes accessed ", Num(c.total.bytes_accessed), "\n");
    int name_w = 11, op_w = 6;
    for (const InstructionCost& r : c.instructions) {
      name_w = std::max(name_w, static_cast<int>(r.instr->name().size()));
      op_w = std::max(op_w, static_cast<int>(OpcodeName(r.instr->opcode()).size()));
    }
    absl::StrAppend(&out, "  ", absl::StrFormat("%-*s  %-*s  %14s  %15s  %14s  %s", name_w, "instruction",
                                                  op_w, "opcode", "flops", "transcendentals",
                                                  "bytes", "trip count")
                                    .c_str());
    while (out.back() == ' ') out.pop_back();
    out += "\n";
    for (const InstructionCost& r : c.instructions) {
      std::string line = absl::StrFormat(
          "  %-*s  %-*s  %14s  %15s  %14s  %s", name_w, r.instr->name(), op_w,
          std::string(OpcodeName(r.instr->opcode())), Num(r.cost.flops), Num(r.cost.transcendentals),
          Num(r.cost.bytes_accessed), TripText(r.trips));
      while (!line.empty() && line.back() == ' ') line.pop_back();
      absl::StrAppend(&out, line, "\n");
    }
  }
  return out;
}

std::string CostToJson(const ModuleCost& cost) {
  json::Writer w;
  w.BeginObject();
  w.Key("module").String(cost.module_name);
  w.Key("model").String("xla-hlo-cost-analysis");
  w.Key("total").BeginObject();
  WriteCost(w, cost.total);
  w.EndObject();
  w.Key("computations").BeginArray();
  for (const ComputationCost& c : cost.computations) {
    w.BeginObject();
    w.Key("name").String(c.computation->name());
    w.Key("is_entry").Bool(c.is_entry);
    WriteCost(w, c.total);
    w.Key("instructions").BeginArray();
    for (const InstructionCost& r : c.instructions) {
      w.BeginObject();
      w.Key("name").String(r.instr->name());
      w.Key("opcode").String(OpcodeName(r.instr->opcode()));
      WriteCost(w, r.cost);
      if (r.trips.source != TripCountSource::kNone) {
        w.Key("trip_count");
        if (r.trips.source == TripCountSource::kUnknown) {
          w.Null();
        } else {
          w.Num(static_cast<double>(r.trips.count));
        }
        w.Key("trip_count_source").String(TripSourceName(r.trips.source));
      }
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.str() + "\n";
}

}  // namespace hlo
