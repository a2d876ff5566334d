#include "gen/hlo_gen.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gen/gen_builder.h"
#include "gen/gen_ops.h"

namespace hlo::gen {

std::vector<std::string> OpGroupNames() {
  std::vector<std::string> names;
  for (const OpGroup& g : OpGroups()) names.push_back(g.name);
  return names;
}

absl::StatusOr<std::string> GenerateModule(const GenOptions& options) {
  if (options.max_instructions < 1)
    return absl::InvalidArgumentError("the instruction bound must be at least 1");
  std::vector<OpFn> enabled;
  for (const std::string& name : options.ops) {
    auto it = std::find_if(OpGroups().begin(), OpGroups().end(),
                           [&](const OpGroup& g) { return name == g.name; });
    if (it == OpGroups().end())
      return absl::InvalidArgumentError(absl::StrCat("unknown op group '", name, "' (known: ",
                                                     absl::StrJoin(OpGroupNames(), ","), ")"));
    enabled.push_back(it->fn);
  }
  if (enabled.empty())
    for (const OpGroup& g : OpGroups()) enabled.push_back(g.fn);

  ModuleBuilder b(options.seed);
  Comp entry;
  entry.name = "main";
  const int64_t target = b.rng.Uniform(std::max(1, options.max_instructions / 3), options.max_instructions);
  for (int attempts = 0; static_cast<int64_t>(entry.lines.size()) < target && attempts < 8 * target; ++attempts) {
    // Work on a copy: a group that gives up (returns false) may have
    // emitted helpers already, and must leave no trace.
    Comp trial = entry;
    if (b.rng.Pick(enabled)(b, trial)) entry = std::move(trial);
  }
  if (entry.values.empty()) AnyValue(b, entry);
  // The root returns every value nothing uses (the last few of them), so
  // little is dead and dce has little to take.
  std::vector<Value> leaves;
  for (const Value& v : entry.values)
    if (entry.uses[v.name] == 0) leaves.push_back(v);
  if (leaves.size() > 6) leaves.erase(leaves.begin(), leaves.end() - 6);
  Value root = leaves.empty() ? entry.values.back() : leaves.back();
  if (leaves.size() > 1) {
    std::vector<Value> shapes;
    std::vector<std::string> names;
    for (const Value& v : leaves) {
      shapes.push_back(Array(v.type, v.dims));
      names.push_back(absl::StrCat("%", v.name));
    }
    root = b.Emit(entry, "out", TupleOf(shapes), absl::StrCat("tuple(", absl::StrJoin(names, ", "), ")"), {});
  }
  b.AddComputation(entry, root, /*entry=*/true);
  return b.Text(absl::StrCat("gen_", options.seed));
}

}  // namespace hlo::gen
