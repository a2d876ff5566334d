// Pass pipelines: a named list of steps, each a registered pass (by name),
// a pass instance, or a fixed-point group run until no pass in it changes
// the module (capped: hitting the cap is an error naming the group).
#pragma once

#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "ir/printer.h"
#include "passes/pass.h"

namespace hlo {

struct PipelineOptions {
  // Run VerifyModule after every pass; a failure names the pass.
  bool verify_each = false;
  // Print the module after these passes (or after every pass), each dump
  // preceded by `// -----// IR Dump After NAME //----- //`, to print_stream
  // if set, else appended to print_string if set.
  std::set<std::string> print_after;
  bool print_after_all = false;
  std::ostream* print_stream = nullptr;
  std::string* print_string = nullptr;
  PrintOptions print_options;
  // Passes never run (a fixed-point group runs without them).
  std::set<std::string> disabled;
  // Record time and changed flag of every pass run (PipelineReport).
  bool time_passes = false;
};

struct PassRunRecord {
  std::string name;
  double seconds = 0;
  bool changed = false;
};

struct PipelineReport {
  std::vector<PassRunRecord> runs;  // in execution order (filled when time_passes)
};

class Pipeline {
 public:
  struct Step {
    // A single pass (group empty) or a fixed-point group named `name`.
    std::string name;
    std::shared_ptr<Pass> instance;  // set for AddPassInstance steps
    std::vector<Step> group;
    int max_iterations = 0;
    bool is_group() const { return max_iterations > 0; }
  };

  explicit Pipeline(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }

  // A registered pass by name (checked by Validate / Run).
  Pipeline& AddPass(std::string pass_name);
  // A pass object not (necessarily) in the registry.
  Pipeline& AddPassInstance(std::shared_ptr<Pass> pass);
  // A fixed-point group of registered passes (by name).
  Pipeline& AddFixedPoint(std::string group_name, std::vector<std::string> pass_names,
                          int max_iterations = 25);
  // A fixed-point group of pass objects.
  Pipeline& AddFixedPointInstances(std::string group_name, std::vector<std::shared_ptr<Pass>> passes,
                                   int max_iterations = 25);
  // Unregistered names are silently skipped instead of being errors (the
  // default pipeline names passes that may not be built yet).
  void set_skip_unregistered(bool skip) { skip_unregistered_ = skip; }

  const std::vector<Step>& steps() const { return steps_; }
  // Every pass name the pipeline would run (flattened, in order).
  std::vector<std::string> PassNames() const;
  // OK if every named pass is registered (or skip_unregistered).
  absl::Status Validate() const;

  // Runs the steps in order. True if any pass changed the module.
  absl::StatusOr<bool> Run(Module& module, const PipelineOptions& options = PipelineOptions(),
                           PipelineReport* report = nullptr) const;

 private:
  absl::StatusOr<bool> RunStep(const Step& step, Module& module, const PipelineOptions& options,
                               PipelineReport* report) const;
  std::string name_;
  std::vector<Step> steps_;
  bool skip_unregistered_ = false;
};

// The pipeline of `hlo-opt -O` (see docs/passes.md).
Pipeline DefaultPipeline();

// The --time-passes table: one line per pass run (name, milliseconds,
// changed), then a total line.
std::string FormatPassTimes(const PipelineReport& report);

}  // namespace hlo
