#include "passes/pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/verifier.h"
#include "passes/registry.h"

namespace hlo {

Pipeline& Pipeline::AddPass(std::string pass_name) {
  Step s;
  s.name = std::move(pass_name);
  steps_.push_back(std::move(s));
  return *this;
}

Pipeline& Pipeline::AddPassInstance(std::shared_ptr<Pass> pass) {
  Step s;
  s.name = std::string(pass->name());
  s.instance = std::move(pass);
  steps_.push_back(std::move(s));
  return *this;
}

Pipeline& Pipeline::AddFixedPoint(std::string group_name, std::vector<std::string> pass_names,
                                  int max_iterations) {
  Step g;
  g.name = std::move(group_name);
  g.max_iterations = max_iterations < 1 ? 1 : max_iterations;
  for (std::string& n : pass_names) {
    Step s;
    s.name = std::move(n);
    g.group.push_back(std::move(s));
  }
  steps_.push_back(std::move(g));
  return *this;
}

Pipeline& Pipeline::AddFixedPointInstances(std::string group_name,
                                           std::vector<std::shared_ptr<Pass>> passes,
                                           int max_iterations) {
  Step g;
  g.name = std::move(group_name);
  g.max_iterations = max_iterations < 1 ? 1 : max_iterations;
  for (auto& p : passes) {
    Step s;
    s.name = std::string(p->name());
    s.instance = std::move(p);
    g.group.push_back(std::move(s));
  }
  steps_.push_back(std::move(g));
  return *this;
}

std::vector<std::string> Pipeline::PassNames() const {
  std::vector<std::string> out;
  for (const Step& s : steps_) {
    if (s.is_group()) {
      for (const Step& t : s.group) out.push_back(t.name);
    } else {
      out.push_back(s.name);
    }
  }
  return out;
}

absl::Status Pipeline::Validate() const {
  if (skip_unregistered_) return absl::OkStatus();
  auto check = [](const Step& s) -> absl::Status {
    if (s.instance == nullptr && FindPass(s.name) == nullptr)
      return absl::NotFoundError(absl::StrCat("unknown pass '", s.name, "' (see --list-passes)"));
    return absl::OkStatus();
  };
  for (const Step& s : steps_) {
    if (s.is_group()) {
      for (const Step& t : s.group) {
        absl::Status st = check(t);
        if (!st.ok()) return st;
      }
    } else {
      absl::Status st = check(s);
      if (!st.ok()) return st;
    }
  }
  return absl::OkStatus();
}

namespace {

void Emit(const PipelineOptions& options, const std::string& text) {
  if (options.print_stream != nullptr) {
    *options.print_stream << text;
    options.print_stream->flush();
  } else if (options.print_string != nullptr) {
    options.print_string->append(text);
  }
}

}  // namespace

absl::StatusOr<bool> Pipeline::RunStep(const Step& step, Module& module, const PipelineOptions& options,
                                       PipelineReport* report) const {
  if (step.is_group()) {
    bool any = false;
    for (int iter = 0; iter < step.max_iterations; ++iter) {
      bool changed = false;
      for (const Step& s : step.group) {
        absl::StatusOr<bool> c = RunStep(s, module, options, report);
        if (!c.ok()) return c.status();
        changed |= *c;
      }
      any |= changed;
      if (!changed) return any;
    }
    return absl::ResourceExhaustedError(
        absl::StrCat("fixed-point group '", step.name, "' of pipeline '", name_,
                     "' did not converge after ", step.max_iterations, " iterations"));
  }
  if (options.disabled.count(step.name)) return false;
  std::shared_ptr<Pass> pass = step.instance;
  if (pass == nullptr) {
    const PassInfo* info = FindPass(step.name);
    if (info == nullptr) {
      if (skip_unregistered_) return false;
      return absl::NotFoundError(absl::StrCat("unknown pass '", step.name, "' (see --list-passes)"));
    }
    pass = info->factory();
  }
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<bool> changed = pass->Run(module);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!changed.ok()) {
    return absl::Status(changed.status().code(),
                        absl::StrCat("pass '", step.name, "' failed: ", changed.status().message()));
  }
  if (options.time_passes && report != nullptr) report->runs.push_back({step.name, seconds, *changed});
  if (options.verify_each) {
    absl::Status st = VerifyModule(module);
    if (!st.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("pass '", step.name, "' broke the module (--verify-each):\n", st.message()));
    }
  }
  if (options.print_after_all || options.print_after.count(step.name)) {
    std::string text = absl::StrCat("// -----// IR Dump After ", step.name, " //----- //\n",
                                    PrintModule(module, options.print_options));
    Emit(options, text);
  }
  return *changed;
}

absl::StatusOr<bool> Pipeline::Run(Module& module, const PipelineOptions& options,
                                   PipelineReport* report) const {
  absl::Status valid = Validate();
  if (!valid.ok()) return valid;
  bool any = false;
  for (const Step& s : steps_) {
    absl::StatusOr<bool> c = RunStep(s, module, options, report);
    if (!c.ok()) return c.status();
    any |= *c;
  }
  return any;
}

Pipeline DefaultPipeline() {
  Pipeline p("default");
  // Passes named here but not registered in this build are skipped.
  p.set_skip_unregistered(true);
  // First, before any rewrite could drop a set-dimension-size: runtime
  // dimension sizes become masks on a static module.
  p.AddPass("dynamic-padder");
  p.AddPass("batchnorm_expander");
  p.AddPass("call-inliner");
  p.AddPass("zero_sized_hlo_elimination");
  // ---- canonicalizations; a pass named here that is not registered in
  // ---- this build is skipped silently (set_skip_unregistered above).
  p.AddPass("dot-canonicalize");
  // The main simplification loop: algebraic simplification and constant
  // folding first, then the structural simplifiers, then cse/dce to clean
  // up. New simplification passes go into this list.
  p.AddFixedPoint("simplification",
                  {"algsimp", "constant_folding", "simplify-conditional", "call-inliner",
                   "simplify-while-loops", "simplify-sorts", "tuple-simplifier", "reshape-mover",
                   "while-loop-invariant-code-motion", "cse", "dce"});
  // After the loop: dot-canonicalize's operand transposes, and any the
  // module had, fold into the dots (the kernel reads them transposed).
  p.AddPass("transpose-folding");
  // Dots write the layout their only (relaying) user wants.
  p.AddPass("layout-sink");
  p.AddPass("computation-deduplicator");
  p.AddPass("dce");
  // Last: fusion groups what the simplifiers left; nothing after it needs
  // to look inside fused computations.
  p.AddPass("fusion");
  return p;
}

std::string FormatPassTimes(const PipelineReport& report) {
  size_t width = 4;
  double total = 0;
  for (const PassRunRecord& r : report.runs) {
    width = std::max(width, r.name.size());
    total += r.seconds;
  }
  std::string out = absl::StrFormat("%-*s  %10s  %s\n", static_cast<int>(width), "pass", "time (ms)",
                                    "changed");
  for (const PassRunRecord& r : report.runs)
    absl::StrAppendFormat(&out, "%-*s  %10.3f  %s\n", static_cast<int>(width), r.name, r.seconds * 1e3,
                          r.changed ? "yes" : "no");
  absl::StrAppendFormat(&out, "%-*s  %10.3f\n", static_cast<int>(width), "total", total * 1e3);
  return out;
}

}  // namespace hlo
