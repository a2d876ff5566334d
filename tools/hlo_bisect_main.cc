// hlo-bisect: finds the pass, then the pass application, of hlo-opt -O's
// pipeline (or --passes) that makes a module bad, judged by --script or by
// the built-in "optimized result differs from the unoptimized one on
// random inputs". The search is analysis/bisect.h; docs/hlo-bisect.md.
//
// Exit status: 0 found, 1 error (input, predicate, nothing to bisect),
// 2 usage.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/bisect.h"
#include "analysis/bisect_predicates.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "passes/pipeline.h"
#include "passes/registry.h"
#include "tools/cli_flags.h"
#include "tools/file_io.h"
#include "tools/tool_main.h"

namespace hlo {
namespace {

constexpr char kProgram[] = "hlo-bisect";

int Fail(absl::string_view message) {
  std::cerr << kProgram << ": error: " << message << "\n";
  return 1;
}

int Usage(absl::string_view message) {
  std::cerr << kProgram << ": error: " << message << "\nrun '" << kProgram << " --help' for usage\n";
  return 2;
}

struct Options {
  bool help = false;
  bool quiet = false;
  std::string script;
  std::string random_inputs = "0";
  std::string abs_bound = "1e-3";
  std::string rel_bound = "1e-3";
  std::string passes;
  std::string save;
};

int Run(int argc, char** argv) {
  Options opts;
  cli::FlagParser flags(kProgram, "hlo-bisect [flags] FILE|-",
                        "Finds the first pass of hlo-opt -O's pipeline (or --passes), then the\n"
                        "first application of a pass, after which the module is bad: --script\n"
                        "judges a candidate (exit 0 good, 1-127 bad, 125 stop), else the\n"
                        "optimized result differs from the unoptimized one on random inputs.\n"
                        "Exit status: 0 found, 1 error, 2 usage.");
  flags.AddBool("help", &opts.help, "print this help and exit");
  flags.AddAlias("h", "help");
  flags.AddString("script", &opts.script, "PATH",
                  "predicate: run 'PATH CANDIDATE.hlo'; exit 0 = good, 1-127 = bad,\n"
                  "125 = stop (as git bisect run)");
  flags.AddOptionalValue("random-inputs", &opts.random_inputs, "SEED", "0",
                         "built-in predicate's inputs (hlo-run --random-inputs=SEED; default 0)");
  flags.AddString("abs-error-bound", &opts.abs_bound, "X", "built-in predicate: absolute tolerance (1e-3)");
  flags.AddString("rel-error-bound", &opts.rel_bound, "X",
                  "built-in predicate: relative tolerance (1e-3); an element differs\n"
                  "only when both bounds are exceeded");
  flags.AddString("passes", &opts.passes, "P1,P2,...", "bisect these passes, in order, instead of -O's pipeline");
  flags.AddString("save", &opts.save, "DIR", "write DIR/before.hlo and DIR/after.hlo around the bad application");
  flags.AddBool("quiet", &opts.quiet, "do not log each candidate's verdict to stderr");
  absl::Status parsed = flags.Parse(argc, argv);
  if (!parsed.ok()) return Usage(parsed.message());
  if (opts.help) {
    std::cout << flags.Usage();
    return 0;
  }
  if (flags.positional().size() != 1) return Usage("expected exactly one input module (or '-')");
  if (flags.WasSet("script") && opts.script.empty()) return Usage("empty --script");
  if (flags.WasSet("save") && opts.save.empty()) return Usage("empty --save directory");
  int64_t seed = 0;
  double abs_bound = 0, rel_bound = 0;
  if (!cli::ParseInt(opts.random_inputs, 0, INT64_MAX, &seed))
    return Usage(absl::StrCat("--random-inputs='", opts.random_inputs, "': expected a seed >= 0"));
  if (!absl::SimpleAtod(opts.abs_bound, &abs_bound) || !(abs_bound >= 0))
    return Usage(absl::StrCat("--abs-error-bound='", opts.abs_bound, "': expected a number >= 0"));
  if (!absl::SimpleAtod(opts.rel_bound, &rel_bound) || !(rel_bound >= 0))
    return Usage(absl::StrCat("--rel-error-bound='", opts.rel_bound, "': expected a number >= 0"));
  if (!opts.script.empty() && (flags.WasSet("random-inputs") || flags.WasSet("abs-error-bound") ||
                               flags.WasSet("rel-error-bound")))
    return Usage("--script and the built-in predicate's flags exclude each other");
  Pipeline pipeline = DefaultPipeline();
  if (!opts.passes.empty()) {
    pipeline = Pipeline("passes");
    for (const std::string& n : cli::SplitList(opts.passes)) {
      if (FindPass(n) == nullptr) return Usage(absl::StrCat("unknown pass '", n, "' in --passes"));
      pipeline.AddPass(n);
    }
  }

  const std::string& input = flags.positional()[0];
  absl::StatusOr<std::string> text = ReadInput(input);
  if (!text.ok()) return Fail(text.status().message());
  ParseOptions parse_options;
  parse_options.filename = input == "-" ? "<stdin>" : input;
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(*text, parse_options);
  if (!module.ok()) {
    std::cerr << module.status().message() << "\n";
    return 1;
  }
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) {
    std::cerr << verified.message() << "\n";
    return 1;
  }

  std::unique_ptr<OutputDiffers> differs;
  BisectPredicate predicate;
  if (!opts.script.empty()) {
    predicate = ScriptPredicate(opts.script);
  } else {
    absl::StatusOr<std::unique_ptr<OutputDiffers>> d =
        OutputDiffers::Create(**module, static_cast<uint64_t>(seed), abs_bound, rel_bound);
    if (!d.ok()) return Fail(d.status().message());
    differs = std::move(*d);
    predicate = differs->predicate();
  }
  absl::StatusOr<BisectResult> r = Bisect(**module, pipeline, predicate, opts.quiet ? nullptr : &std::cerr);
  if (!r.ok()) return Fail(r.status().message());

  std::string report = absl::StrCat(
      "first bad pass: ", r->pass, " (pass ", r->enabled_passes.size(), " of pipeline '", pipeline.name(),
      "' in order of first run; enabled: ", absl::StrJoin(r->enabled_passes, ","), ")\n",
      "first bad application: #", r->application_index, " of ", r->total_applications, ", run ",
      r->application_occurrence, " of ", r->application_pass, "\n", "changed lines:\n",
      ChangedLines(r->before_text, r->after_text, 40));
  if (differs != nullptr) {
    absl::StrAppend(&report, "value before (good):\n", differs->Describe(r->before_text),
                    "value after (bad):\n", differs->Describe(r->after_text));
  }
  absl::StrAppend(&report, "predicate runs: ", r->predicate_runs, "\n");
  std::cout << report;
  if (!opts.save.empty()) {
    for (const auto& [name, body] : {std::pair<const char*, const std::string*>{"before.hlo", &r->before_text},
                                     {"after.hlo", &r->after_text}}) {
      absl::Status w = WriteOutput(absl::StrCat(opts.save, "/", name), *body);
      if (!w.ok()) return Fail(w.message());
    }
  }
  return 0;
}

}  // namespace
}  // namespace hlo

int main(int argc, char** argv) { return hlo::ToolMain(hlo::kProgram, hlo::Run, argc, argv); }
