// hlo-opt --cost: XLA's HloCostAnalysis over a whole module. The counts of
// one instruction come from ir/cost_model.h (shared with hlo-run's
// profile); this file adds what only the module knows: the cost of called
// computations (call, conditional, fusion, async) and of while loops, whose
// body runs `trip count` times when the count is known from
// backend_config={"known_trip_count":{"n":"N"}} or a simple induction
// variable (docs/hlo-opt-cost.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/cost_model.h"
#include "ir/module.h"

namespace hlo {

enum class TripCountSource { kNone, kBackendConfig, kInduction, kUnknown };

struct TripCount {
  TripCountSource source = TripCountSource::kNone;  // kNone: not a while
  int64_t count = 0;                                // valid for kBackendConfig / kInduction
};

// The trip count of a while instruction, or kUnknown.
TripCount WhileTripCount(const Instruction& while_instr);

struct InstructionCost {
  const Instruction* instr = nullptr;
  // Everything one execution of the instruction costs, callees included
  // (a while: its body and condition times the trip count).
  OpCost cost;
  TripCount trips;
};

struct ComputationCost {
  const Computation* computation = nullptr;
  bool is_entry = false;
  OpCost total;  // sum over its instructions
  std::vector<InstructionCost> instructions;  // in text order
};

struct ModuleCost {
  std::string module_name;
  OpCost total;  // the entry computation's
  std::vector<ComputationCost> computations;  // entry first, then callers before callees
};

ModuleCost AnalyzeCost(const Module& module);

// The --cost table (docs/hlo-opt-cost.md).
std::string FormatCostTable(const ModuleCost& cost);
// The --cost-json document, also the "cost" member of hlo-opt --json.
std::string CostToJson(const ModuleCost& cost);

}  // namespace hlo
