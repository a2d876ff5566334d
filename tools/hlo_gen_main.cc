// hlo-gen: prints a random valid HLO module (gen/hlo_gen.h). See docs/cli.md.
//
// Exit status: 0 on success, 1 on an I/O error, 2 on bad usage.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gen/hlo_gen.h"
#include "tools/cli_flags.h"
#include "tools/file_io.h"

namespace hlo {
namespace {

constexpr char kProgram[] = "hlo-gen";

int Error(int code, absl::string_view message) {
  std::string line = absl::StrCat(kProgram, ": error: ", message, "\n");
  if (code == 2) absl::StrAppend(&line, "run '", kProgram, " --help' for usage\n");
  fwrite(line.data(), 1, line.size(), stderr);
  return code;
}

int Run(int argc, char** argv) {
  bool help = false, list_ops = false;
  std::string seed = "0", ops, max_instructions = "30", output = "-";
  cli::FlagParser flags(kProgram, "hlo-gen [flags]",
                        "Prints a random, valid, shape-correct HLO module. The same --seed and\n"
                        "options give the same module on every machine.");
  flags.AddBool("help", &help, "print this help and exit");
  flags.AddAlias("h", "help");
  flags.AddString("seed", &seed, "N", "which module (default 0)");
  flags.AddString("ops", &ops, "G1,G2,...", "draw only from these op groups (default: all; see --list-ops)");
  flags.AddString("max-instructions", &max_instructions, "K",
                  "at most about K instructions in the entry computation (default 30)");
  flags.AddString("o", &output, "FILE", "write the module to FILE (default: stdout)");
  flags.AddBool("list-ops", &list_ops, "print the op group names and exit");
  absl::Status parsed = flags.Parse(argc, argv);
  if (!parsed.ok()) return Error(2, parsed.message());
  if (help) {
    std::string usage = flags.Usage();
    fwrite(usage.data(), 1, usage.size(), stdout);
    return 0;
  }
  if (list_ops) {
    std::string names = absl::StrCat(absl::StrJoin(gen::OpGroupNames(), "\n"), "\n");
    fwrite(names.data(), 1, names.size(), stdout);
    return 0;
  }
  if (!flags.positional().empty()) return Error(2, "hlo-gen takes no file arguments");
  gen::GenOptions options;
  int64_t k = 0;
  if (!absl::SimpleAtoi(seed, &options.seed))
    return Error(2, absl::StrCat("--seed needs a whole number >= 0, got '", seed, "'"));
  if (!absl::SimpleAtoi(max_instructions, &k) || k < 1 || k > 100000)
    return Error(2, absl::StrCat("--max-instructions needs a whole number in [1, 100000], got '",
                                 max_instructions, "'"));
  options.max_instructions = static_cast<int>(k);
  if (!ops.empty()) options.ops = absl::StrSplit(ops, ',', absl::SkipEmpty());
  absl::StatusOr<std::string> text = gen::GenerateModule(options);
  if (!text.ok()) return Error(2, text.status().message());
  absl::Status written = WriteOutput(output, *text);
  if (!written.ok()) return Error(1, written.message());
  return 0;
}

}  // namespace
}  // namespace hlo

int main(int argc, char** argv) { return hlo::Run(argc, argv); }
