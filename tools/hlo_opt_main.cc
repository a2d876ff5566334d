// hlo-opt: parse, verify, optimize (passes) and print HLO text. See
// docs/cli.md for the full reference and docs/passes.md for the passes.
//
// Exit status: 0 on success, 1 on any error (usage, I/O, parse, verify).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "analysis/cost_analysis.h"
#include "analysis/dot_graph.h"
#include "analysis/extract.h"
#include "analysis/html_graph.h"
#include "analysis/report_json.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "passes/pipeline.h"
#include "passes/registry.h"
#include "proto/proto_io.h"
#include "tools/cli_flags.h"
#include "tools/file_io.h"
#include "tools/tool_main.h"

namespace hlo {
namespace {

constexpr char kProgram[] = "hlo-opt";
constexpr char kSplitMarker[] = "// -----";

struct Options {
  bool help = false;
  bool no_verify = false;
  bool strict = false;
  bool split_input_file = false;
  bool print_operand_shapes = false;
  bool short_form = false;
  bool no_large_constants = false;
  bool no_metadata = false;
  bool list_passes = false;
  bool list_stages = false;
  bool optimize = false;  // -O
  bool verify_each = false;
  bool print_after_all = false;
  bool time_passes = false;
  std::vector<std::string> print_after;
  std::string disable_passes;
  std::string output = "-";
  std::string passes;
  std::string platform;
  std::string stage = "hlo";
  std::string format;  // "" = by the file name (proto/proto_io.h)
  bool cost = false;      // the cost table instead of the module
  std::string cost_json;  // --cost-json=FILE
  std::string emit = "hlo";  // hlo | dot | html | proto | pbtxt
  bool dot_layouts = false;
  std::string focus;
  std::string radius = "2";
  DotOptions dot;  // from dot_layouts, focus, radius
  std::string extract;
  std::string height = "-1";
  std::string depth = "0";
  ExtractOptions extract_options;  // from extract, height, depth
  bool json = false;
};

// What one module of the input produced besides its printed form.
struct ModuleOutputs {
  std::string printed;    // what goes to -o (module text or a report)
  std::string cost_json;  // CostToJson, when --cost-json or --json asks for it
  std::string stderr_text;  // what goes to stderr without --json, in order
  std::string diagnostics;  // the errors among it
  PipelineReport passes;
};

void Error(absl::string_view message) {
  std::string line = absl::StrCat(kProgram, ": error: ", message, "\n");
  fwrite(line.data(), 1, line.size(), stderr);
}

void Note(absl::string_view message) {
  std::string line = absl::StrCat(kProgram, ": note: ", message, "\n");
  fwrite(line.data(), 1, line.size(), stderr);
}

// Records a diagnostic message as produced by the parser/verifier (already
// in `file:line:col: error: ...` form), newline-terminated.
void AddDiagnostics(absl::string_view message, ModuleOutputs* out) {
  std::string text(message);
  if (text.empty()) text = "error: unknown failure";
  if (text.back() != '\n') text.push_back('\n');
  out->stderr_text += text;
  out->diagnostics += text;
}

void AddError(absl::string_view message, ModuleOutputs* out) {
  AddDiagnostics(absl::StrCat(kProgram, ": error: ", message), out);
}

int UsageError(absl::string_view message) {
  Error(message);
  std::string hint = absl::StrCat("run '", kProgram, " --help' for usage\n");
  fwrite(hint.data(), 1, hint.size(), stderr);
  return 1;
}

// Parses, verifies and prints one module. On failure the diagnostics are
// in out->diagnostics and false is returned.
bool ProcessModule(std::shared_ptr<const std::string> text, const std::string& filename, const Options& opts,
                   const PrintOptions& print_options, const Pipeline* pipeline,
                   const PipelineOptions& pipeline_options, ModuleOutputs* out) {
  ParseOptions parse_options;
  parse_options.filename = filename;
  parse_options.reject_unspecified_api_version = opts.strict;
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(std::move(text), parse_options);
  if (!module.ok()) {
    AddDiagnostics(module.status().message(), out);
    return false;
  }
  // Passes assume a verified module, so it is verified before they run
  // even with --no-verify.
  if (!opts.no_verify || pipeline != nullptr || !opts.extract.empty()) {
    absl::Status st = VerifyModule(**module);
    if (!st.ok()) {
      AddDiagnostics(st.message(), out);
      return false;
    }
  }
  if (!opts.extract.empty()) {
    absl::StatusOr<std::unique_ptr<Module>> extracted = ExtractModule(**module, opts.extract_options);
    if (!extracted.ok()) {
      AddError(extracted.status().message(), out);
      return false;
    }
    *module = std::move(*extracted);
  }
  if (pipeline != nullptr) {
    absl::StatusOr<bool> ran = pipeline->Run(**module, pipeline_options, &out->passes);
    if (opts.time_passes) out->stderr_text += FormatPassTimes(out->passes);
    if (!ran.ok()) {
      AddError(ran.status().message(), out);
      return false;
    }
  }
  if (opts.cost || !opts.cost_json.empty() || opts.json) {
    ModuleCost cost = AnalyzeCost(**module);
    if (!opts.cost_json.empty() || opts.json) out->cost_json = CostToJson(cost);
    if (opts.cost) {
      out->printed = FormatCostTable(cost);
      return true;
    }
  }
  if (opts.emit == "dot" || opts.emit == "html") {
    absl::StatusOr<std::string> graph =
        opts.emit == "dot" ? EmitDot(**module, opts.dot) : EmitHtml(**module, opts.dot);
    if (!graph.ok()) {
      AddError(graph.status().message(), out);
      return false;
    }
    out->printed = std::move(*graph);
    return true;
  }
  if (proto::IsProtoEmit(opts.emit)) {
    absl::StatusOr<std::string> bytes = proto::EncodeModule(**module, opts.emit);
    if (!bytes.ok()) {
      AddError(bytes.status().message(), out);
      return false;
    }
    out->printed = *std::move(bytes);
    return true;
  }
  out->printed = PrintModule(**module, print_options);
  if (!out->printed.empty() && out->printed.back() != '\n') out->printed.push_back('\n');
  return true;
}

std::string UsageDescription() {
  return "Reads one HLO module in XLA's text format (a file, or '-' for stdin), checks it\n"
         "with the verifier, runs the requested passes (--passes, -O) and prints it back\n"
         "in canonical long form. Compatible with\n"
         "the flags of XLA's light-weight hlo-opt where they mean the same thing.\n"
         "Exit status: 0 on success, 1 on any error (usage, I/O, parse or verify\n"
         "error); diagnostics go to stderr as 'file:line:col: error: message'.";
}

std::string UsageEpilogue() {
  return "EXAMPLES:\n"
         "  hlo-opt model.hlo                      verify and print canonical text\n"
         "  hlo-opt --no-verify -o out.hlo in.hlo  parse only, write out.hlo atomically\n"
         "  cat m.hlo | hlo-opt --short -          read stdin, print the short form\n"
         "  hlo-opt --split-input-file cases.hlo   one module per '// -----' chunk\n"
         "  hlo-opt -O model.hlo                   run the default pipeline\n"
         "  hlo-opt --passes=cse,dce --verify-each m.hlo\n"
         "\n"
         "See docs/cli.md for details.\n";
}

int Run(int argc, char** argv) {
  Options opts;
  cli::FlagParser flags(kProgram, "hlo-opt [flags] FILE|-", UsageDescription());
  flags.AddBool("help", &opts.help, "print this help and exit");
  flags.AddAlias("h", "help");
  flags.AddString("o", &opts.output, "FILE",
                  "write the output to FILE instead of stdout ('-' = stdout);\n"
                  "written atomically (temporary file + rename)");
  flags.AddBool("no-verify", &opts.no_verify, "do not run the verifier (parse and print only)");
  flags.AddBool("strict", &opts.strict,
                "reject legacy forms that current XLA no longer parses but\n"
                "older exporters print (custom-call\n"
                "api_version=API_VERSION_UNSPECIFIED)");
  flags.AddBool("split-input-file", &opts.split_input_file,
                "split the input on lines '// -----' and process each chunk\n"
                "as its own module; outputs are joined by '// -----' lines");
  flags.AddBool("print-operand-shapes", &opts.print_operand_shapes,
                "print operand shapes: add(f32[] %x, f32[] %y)");
  flags.AddBool("short", &opts.short_form,
                "print XLA's short parsable form (no '%', no signatures)");
  flags.AddBool("no-large-constants", &opts.no_large_constants,
                "print constants with more than 10 elements as {...}");
  flags.AddBool("no-metadata", &opts.no_metadata, "do not print metadata={...}");
  flags.AddString("passes", &opts.passes, "P1,P2,...",
                  "run these passes in order before printing (after -O's\n"
                  "pipeline if both are given); see --list-passes");
  flags.AddBool("list-passes", &opts.list_passes,
                "list the registered passes (name and description) and exit");
  flags.AddBool("O", &opts.optimize, "run the default optimization pipeline (docs/passes.md)");
  flags.AddBool("verify-each", &opts.verify_each,
                "run the verifier after every pass; an error names the pass");
  flags.AddRepeated("print-after", &opts.print_after, "P1,P2,...",
                    "print the module to stderr after each run of these passes\n"
                    "(repeatable or a comma list)");
  flags.AddBool("print-after-all", &opts.print_after_all,
                "print the module to stderr after every pass");
  flags.AddString("disable-passes", &opts.disable_passes, "P1,P2,...",
                  "never run these passes (also inside -O's pipeline)");
  flags.AddBool("time-passes", &opts.time_passes,
                "print a table of pass, time and changed flag to stderr");
  flags.AddString("platform", &opts.platform, "NAME",
                  "accepted for XLA compatibility and ignored (no backends)");
  flags.AddString("stage", &opts.stage, "STAGE", "output stage; only 'hlo' (the default)");
  flags.AddBool("list-stages", &opts.list_stages, "list the supported stages and exit");
  flags.AddString("format", &opts.format, "FMT",
                  "input format: hlo (text), proto (binary HloModuleProto), pbtxt,\n"
                  "snapshot (HloSnapshot); default by the name: *.pb, *.pbtxt, else hlo");
  flags.AddBool("cost", &opts.cost,
                "print XLA's cost analysis (flops, transcendentals, bytes per\n"
                "instruction and computation) instead of the module");
  flags.AddString("cost-json", &opts.cost_json, "FILE",
                  "write the cost analysis as JSON to FILE (docs/hlo-opt-cost.md)");
  flags.AddString("emit", &opts.emit, "KIND",
                  "what to print: hlo (the module, default), dot (Graphviz),\n"
                  "html (one page with the graph as SVG; needs Graphviz 'dot'),\n"
                  "proto (binary HloModuleProto), pbtxt (its text form)");
  flags.AddBool("dot-layouts", &opts.dot_layouts, "--emit=dot/html: shapes with their layouts");
  flags.AddString("focus", &opts.focus, "NAME",
                  "--emit=dot/html: only the neighbourhood of instruction NAME");
  flags.AddString("radius", &opts.radius, "N", "--focus: hops around the instruction (default 2)");
  flags.AddString("extract", &opts.extract, "NAME",
                  "replace the module by a standalone one around instruction\n"
                  "NAME (before any passes); see --height, --depth");
  flags.AddString("height", &opts.height, "H",
                  "--extract: operand levels kept (-1 = all, the default);\n"
                  "values from further up become parameters");
  flags.AddString("depth", &opts.depth, "D", "--extract: user levels kept (default 0)");
  flags.AddBool("json", &opts.json,
                "print one JSON report to stdout instead (diagnostics, pass\n"
                "times, cost, the output unless -o); docs/hlo-opt-json.md");
  flags.SetEpilogue(UsageEpilogue());

  absl::Status parsed = flags.Parse(argc, argv);
  if (!parsed.ok()) return UsageError(parsed.message());

  if (opts.help) {
    std::string usage = flags.Usage();
    fwrite(usage.data(), 1, usage.size(), stdout);
    return 0;
  }
  if (opts.list_passes) {
    std::string listing;
    size_t width = 0;
    for (const PassInfo* p : AllPasses()) width = std::max(width, p->name.size());
    for (const PassInfo* p : AllPasses())
      absl::StrAppend(&listing, p->name, std::string(width + 2 - p->name.size(), ' '), p->description,
                      "\n");
    fwrite(listing.data(), 1, listing.size(), stdout);
    return 0;
  }
  if (opts.list_stages) {
    fputs("hlo\n", stdout);
    return 0;
  }
  if (opts.stage != "hlo") {
    return UsageError(
        absl::StrCat("unsupported --stage='", opts.stage, "': only 'hlo' is supported"));
  }
  // The pipeline: -O's default pipeline, then --passes in order.
  PipelineOptions pipeline_options;
  pipeline_options.verify_each = opts.verify_each;
  pipeline_options.print_after_all = opts.print_after_all;
  pipeline_options.time_passes = opts.time_passes || opts.json;
  pipeline_options.print_stream = &std::cerr;
  auto check_names = [](const std::vector<std::string>& names, absl::string_view flag) {
    for (const std::string& n : names) {
      if (FindPass(n) == nullptr) {
        Error(absl::StrCat("unknown pass '", n, "' in ", flag, " (see --list-passes)"));
        return false;
      }
    }
    return true;
  };
  const std::vector<std::string> pass_list = cli::SplitList(opts.passes);
  if (!check_names(pass_list, "--passes")) return 1;
  for (const std::string& v : opts.print_after) {
    std::vector<std::string> names = cli::SplitList(v);
    if (!check_names(names, "--print-after")) return 1;
    pipeline_options.print_after.insert(names.begin(), names.end());
  }
  {
    std::vector<std::string> names = cli::SplitList(opts.disable_passes);
    if (!check_names(names, "--disable-passes")) return 1;
    pipeline_options.disabled.insert(names.begin(), names.end());
  }
  Pipeline pipeline = opts.optimize ? DefaultPipeline() : Pipeline("passes");
  for (const std::string& n : pass_list) pipeline.AddPass(n);
  const bool run_pipeline = opts.optimize || !pass_list.empty();
  if (flags.positional().size() != 1) {
    return UsageError(flags.positional().empty()
                          ? "Must specify a single input file (none given; use '-' for stdin)"
                          : absl::StrCat("Must specify a single input file (got ",
                                         flags.positional().size(), ": ",
                                         absl::StrJoin(flags.positional(), " "), ")"));
  }
  const std::string& input = flags.positional()[0];
  if (input.empty()) return UsageError("empty input file name");
  if (opts.output.empty()) return UsageError("empty output file name (-o)");
  if (opts.emit != "hlo" && opts.emit != "dot" && opts.emit != "html" && !proto::IsProtoEmit(opts.emit))
    return UsageError(absl::StrCat("unknown --emit='", opts.emit, "' (expected hlo, dot, html, proto or pbtxt)"));
  absl::StatusOr<proto::InputFormat> format = proto::ResolveInputFormat(opts.format, input);
  if (!format.ok()) return UsageError(format.status().message());
  if (opts.json && opts.emit == "proto" && opts.output == "-")
    return UsageError("--emit=proto is binary and cannot go inside the --json report: give -o FILE");
  if (opts.cost && opts.emit != "hlo") return UsageError("--cost and --emit=" + opts.emit + " both choose the output");
  int64_t radius = 0;
  if (!cli::ParseInt(opts.radius, 0, 1000, &radius))
    return UsageError(absl::StrCat("--radius='", opts.radius, "': expected an integer from 0 to 1000"));
  opts.dot.radius = static_cast<int>(radius);
  if ((flags.WasSet("focus") || flags.WasSet("radius") || opts.dot_layouts) && opts.emit == "hlo")
    return UsageError("--focus, --radius and --dot-layouts apply to --emit=dot or --emit=html");
  int64_t height = 0, depth = 0;
  if (!cli::ParseInt(opts.height, -1, 1 << 20, &height))
    return UsageError(absl::StrCat("--height='", opts.height, "': expected an integer >= -1"));
  if (!cli::ParseInt(opts.depth, 0, 1 << 20, &depth))
    return UsageError(absl::StrCat("--depth='", opts.depth, "': expected an integer >= 0"));
  if ((flags.WasSet("height") || flags.WasSet("depth")) && opts.extract.empty())
    return UsageError("--height and --depth apply to --extract");
  opts.extract_options = ExtractOptions{opts.extract, static_cast<int>(height), static_cast<int>(depth)};
  opts.dot.focus = opts.focus;
  opts.dot.show_layouts = opts.dot_layouts;
  if (flags.WasSet("cost-json") && opts.cost_json.empty())
    return UsageError("empty file name in --cost-json");
  if (!opts.platform.empty() && opts.platform != "transforms") {
    Note(absl::StrCat("--platform=", opts.platform,
                      " ignored: this hlo-opt has no backends; it parses, verifies and prints"));
  }

  const std::string filename = input == "-" ? "<stdin>" : input;
  // With --json every error after flag parsing goes into the report, which
  // is printed last whatever happened.
  ToolReport report;
  report.input = filename;
  auto finish = [&](int status) {
    if (opts.json) {
      std::string doc = ReportToJson(report);
      fwrite(doc.data(), 1, doc.size(), stdout);
    }
    return status;
  };
  auto fail = [&](absl::string_view message) {
    if (opts.json) {
      report.errors.push_back(std::string(message));
    } else {
      Error(message);
    }
    return finish(1);
  };
  absl::StatusOr<std::string> text = ReadInput(input);
  if (!text.ok()) return fail(text.status().message());
  if (*format != proto::InputFormat::kText) {  // protos are read as the text they stand for
    absl::StatusOr<proto::DecodedInput> decoded = proto::DecodeInput(*text, *format, filename);
    if (!decoded.ok()) return fail(decoded.status().message());
    for (const std::string& w : decoded->warnings) fprintf(stderr, "hlo-opt: warning: %s\n", w.c_str());
    *text = std::move(decoded->hlo_text);
  }

  PrintOptions print_options = opts.short_form ? PrintOptions::Short() : PrintOptions::Long();
  if (opts.print_operand_shapes) print_options.print_operand_shapes = true;
  if (opts.no_large_constants) print_options.print_large_constants = false;
  if (opts.no_metadata) print_options.print_metadata = false;
  pipeline_options.print_options = print_options;  // dumps look like the output

  std::vector<InputChunk> chunks;
  if (opts.split_input_file) {
    chunks = SplitInputFile(*text);
  } else {
    chunks.push_back(InputChunk{std::move(*text), 1});
  }

  std::string output;
  std::vector<std::string> cost_jsons;
  int failures = 0;
  for (size_t i = 0; i < chunks.size(); ++i) {
    ModuleOutputs result;
    const bool ok = ProcessModule(std::make_shared<const std::string>(std::move(chunks[i].text)), filename, opts,
                                  print_options, run_pipeline ? &pipeline : nullptr, pipeline_options, &result);
    if (opts.json) {
      ModuleReportEntry entry;
      entry.ok = ok;
      entry.diagnostics = result.diagnostics;
      for (const PassRunRecord& r : result.passes.runs) entry.passes.push_back({r.name, r.seconds, r.changed});
      entry.cost_json = result.cost_json;
      if (ok && opts.output == "-") entry.output = result.printed;
      report.modules.push_back(std::move(entry));
    } else {
      fwrite(result.stderr_text.data(), 1, result.stderr_text.size(), stderr);
    }
    if (!ok) {
      ++failures;
      continue;
    }
    if (i > 0) absl::StrAppend(&output, kSplitMarker, "\n");
    absl::StrAppend(&output, result.printed);
    cost_jsons.push_back(std::move(result.cost_json));
  }
  if (failures > 0) {
    // Nothing written: output is all-or-nothing.
    if (chunks.size() > 1) return fail(absl::StrCat(failures, " of ", chunks.size(), " input chunks failed"));
    return finish(1);
  }
  if (!opts.cost_json.empty()) {
    // One object per module; several (--split-input-file) as an array.
    std::string doc = cost_jsons.size() == 1 ? cost_jsons[0]
                                             : absl::StrCat("[", absl::StrJoin(cost_jsons, ","), "]\n");
    absl::Status written = WriteOutput(opts.cost_json, doc);
    if (!written.ok()) return fail(written.message());
  }
  // With --json, output for stdout is inside the report.
  if (!opts.json || opts.output != "-") {
    absl::Status written = WriteOutput(opts.output, output);
    if (!written.ok()) return fail(written.message());
  }
  return finish(0);
}

}  // namespace
}  // namespace hlo

int main(int argc, char** argv) { return hlo::ToolMain(hlo::kProgram, hlo::Run, argc, argv); }
