// The registry of the golden examples (the families live in
// golden_examples_<family>.cc) and the text of a golden file.
#include "client/golden_examples.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "client/ops.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"

namespace hlo::client {

const std::vector<GoldenExample>& GoldenExamples() {
  static const std::vector<GoldenExample>* const kExamples = [] {
    const std::pair<const char*, std::vector<GoldenExample> (*)()> families[] = {
        {"ops", OpGoldenExamples},
        {"devices", DeviceGoldenExamples},
        {"broadcasting", BroadcastingGoldenExamples},
        {"layout", LayoutGoldenExamples},
    };
    auto* all = new std::vector<GoldenExample>();
    for (const auto& [family, make] : families) {
      for (GoldenExample& e : make()) {
        e.family = family;
        all->push_back(std::move(e));
      }
    }
    return all;
  }();
  return *kExamples;
}

std::string GoldenPath(const GoldenExample& example) {
  return absl::StrCat(example.family, "/", example.name, ".hlo");
}

absl::StatusOr<std::string> GoldenFileText(const GoldenExample& example) {
  XlaBuilder b(example.name);
  example.build(&b);
  absl::StatusOr<std::shared_ptr<Module>> m = b.BuildModule();
  if (!m.ok()) return m.status();
  absl::Status verified = VerifyModule(**m);
  if (!verified.ok()) return verified;
  absl::StatusOr<Literal> expected = ParseLiteral(example.expected);
  if (!expected.ok()) return expected.status();
  const std::string module_text = PrintModule(**m);
  std::string root_line;
  // The entry's root is the last ROOT line (callees print first).
  for (absl::string_view line : absl::StrSplit(module_text, '\n'))
    if (absl::StartsWith(line, "  ROOT ")) root_line = std::string(line.substr(2));
  // FileCheck reads "{{" as the start of a regex: spell it as one.
  root_line = absl::StrReplaceAll(root_line, {{"{{", "{{[{][{]}}"}});
  std::string out = absl::StrCat(
      "// A worked example of the seeds (", example.source, "),\n",
      "// built with the builder: client/golden_examples_", example.family, ".cc; regenerate with\n",
      "// `build/client/hlo-builder-goldens testdata/builder`.\n",
      "// hlo-opt verifies it; hlo-run computes the document's result.\n",
      "// RUN: %hlo_opt %s | FileCheck %s --check-prefix=OPT\n", "// OPT: ", root_line, "\n", "// RUN: %hlo_run %s");
  if (example.replicas != 1) absl::StrAppend(&out, " --replicas=", example.replicas);
  for (const std::string& in : example.infeed) absl::StrAppend(&out, " --infeed='", in, "'");
  if (example.random_inputs) absl::StrAppend(&out, " --random-inputs");
  for (const std::string& in : example.inputs) absl::StrAppend(&out, " --input='", in, "'");
  absl::StrAppend(&out, " | FileCheck %s\n");
  bool first = true;
  // Each line whole ({{$}}: the end of the line), so "s32[] 5" does not
  // pass for "s32[] 50"; a last "{" goes into the regex, or "{{{$}}"
  // would open it one brace early.
  for (absl::string_view line : absl::StrSplit(LiteralToXlaString(*expected), '\n')) {
    std::string text(line);
    std::string end = "{{$}}";
    if (absl::EndsWith(text, "{")) {
      text.pop_back();
      end = "{{[{]$}}";
    }
    absl::StrAppend(&out, first ? "// CHECK: " : "// CHECK-NEXT: ", text, end, "\n");
    first = false;
  }
  absl::StrAppend(&out, "\n", module_text);
  return out;
}

}  // namespace hlo::client
