// A small hand-written command-line flag parser shared by the tools
// (hlo-opt now, hlo-run later). No global registry, no static state: a tool
// declares its flags on a FlagParser, calls Parse(), and gets either its
// variables filled in or one clear error message.
//
// Accepted spellings (the usual GNU / LLVM / absl conventions):
//   --name  -name            boolean flag set to true
//   --name=true|false|1|0    boolean flag with an explicit value
//   --name=VALUE             value flag
//   --name VALUE  -o VALUE   value flag, value in the next argument
//   -                        a positional argument (stdin)
//   --                       every later argument is positional
// '_' and '-' are interchangeable inside flag names (--list_passes ==
// --list-passes), as XLA's tools spell some flags with underscores.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hlo {
namespace cli {

class FlagParser {
 public:
  // `usage_line` is printed first by Usage(), e.g. "hlo-opt [flags] FILE|-".
  FlagParser(std::string program, std::string usage_line, std::string description = "");

  // Declarations. `name` is written without dashes. `*target` keeps its
  // current value as the default.
  void AddBool(absl::string_view name, bool* target, absl::string_view help);
  void AddString(absl::string_view name, std::string* target, absl::string_view value_name,
                 absl::string_view help);
  // A flag that may be given several times; every value is appended
  // (--input=a --input=b).
  void AddRepeated(absl::string_view name, std::vector<std::string>* target,
                   absl::string_view value_name, absl::string_view help);
  // A flag whose value is optional: `--name` alone stores `implicit_value`,
  // `--name=V` stores V (a value never comes from the next argument).
  void AddOptionalValue(absl::string_view name, std::string* target,
                        absl::string_view value_name, std::string implicit_value,
                        absl::string_view help);
  // Another spelling of an already declared flag (e.g. "h" for "help").
  void AddAlias(absl::string_view alias, absl::string_view name);
  // Free text appended after the flag table by Usage() (examples etc.).
  void SetEpilogue(std::string text) { epilogue_ = std::move(text); }

  // Parses args (without the program name). On error returns
  // InvalidArgument with a one-line message such as
  // "unknown flag '--frob' (did you mean '--from'?)".
  absl::Status Parse(const std::vector<std::string>& args);
  absl::Status Parse(int argc, const char* const* argv);  // skips argv[0]

  const std::vector<std::string>& positional() const { return positional_; }
  // True if the flag was given on the command line (in any spelling).
  bool WasSet(absl::string_view name) const;

  // Full usage text: usage line, description, flag table, epilogue.
  std::string Usage() const;
  const std::string& program() const { return program_; }

 private:
  struct Flag {
    std::string name;
    std::vector<std::string> aliases;
    bool is_bool = false;
    bool* bool_target = nullptr;
    std::string* string_target = nullptr;
    std::vector<std::string>* list_target = nullptr;
    bool value_optional = false;
    std::string implicit_value;
    std::string value_name;
    std::string help;
    bool set = false;
  };
  Flag* Find(absl::string_view name);
  const Flag* Find(absl::string_view name) const;
  std::string Suggest(absl::string_view name) const;

  std::string program_;
  std::string usage_line_;
  std::string description_;
  std::string epilogue_;
  std::vector<Flag> flags_;
  std::vector<std::string> positional_;
};

// Splits "a,b,,c" into {"a","b","c"} (empty items and surrounding
// whitespace dropped): how list-valued flags such as --passes are read.
std::vector<std::string> SplitList(absl::string_view value);

// A decimal integer in [min, max] (how integer-valued flags such as
// --radius are read); false if it is not one.
bool ParseInt(absl::string_view value, int64_t min, int64_t max, int64_t* out);

}  // namespace cli
}  // namespace hlo
