// libFuzzer entry point for the parser, verifier and printer.
//
//   text --ParseModule--> module --VerifyModule--> (ok or not)
//        --PrintModule--> p1 --ParseModule--> module' --PrintModule--> p2
//
// Rejecting input is fine; crashing, hanging or a sanitizer report is a bug.
// Beyond that two properties are checked, and a violation traps (so
// libFuzzer records the input as a crash):
//   * whatever the printer prints for a parsed module re-parses, and
//   * p1 == p2: print(parse(x)) is a fixed point of print∘parse, and
//   * if the module verified, so does its printed form.
// (Checked for every parsed module, verified or not: the printer must be
// able to print anything the parser accepts.)
//
// Build: cmake -DHLO_BUILD_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-14 (see
// scripts/test.sh, which also runs it for a bounded time seeded with the
// corpus).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"

namespace {

[[noreturn]] void Fail(const char* what, const std::string& detail, const std::string& printed) {
  fprintf(stderr, "parse_fuzzer: %s\n%s\n--- printed text ---\n%s\n--- end ---\n", what,
          detail.c_str(), printed.c_str());
  fflush(stderr);
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  hlo::ParseOptions options;
  options.filename = "<fuzz>";
  absl::StatusOr<std::unique_ptr<hlo::Module>> module = hlo::ParseModule(text, options);
  if (!module.ok()) return 0;

  // The verifier must not crash on anything the parser accepts.
  const absl::Status verified = hlo::VerifyModule(**module);

  const std::string p1 = hlo::PrintModule(**module);
  options.filename = "<fuzz-printed>";
  absl::StatusOr<std::unique_ptr<hlo::Module>> reparsed = hlo::ParseModule(p1, options);
  if (!reparsed.ok()) {
    Fail("printed module does not re-parse", std::string(reparsed.status().message()), p1);
  }
  const std::string p2 = hlo::PrintModule(**reparsed);
  if (p1 != p2) Fail("print(parse(x)) is not a fixed point of print(parse(.))", p2, p1);
  // Printing must not lose what made the module valid.
  if (verified.ok()) {
    absl::Status reverified = hlo::VerifyModule(**reparsed);
    if (!reverified.ok()) {
      Fail("module verifies but its printed form does not", std::string(reverified.message()), p1);
    }
  }

  // The other printing modes must not crash either.
  hlo::PrintOptions short_form = hlo::PrintOptions::Short();
  short_form.print_large_constants = false;
  (void)hlo::PrintModule(**module, short_form);
  return 0;
}
