#include "tools/cli_flags.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace hlo {
namespace cli {
namespace {

std::string Normalize(absl::string_view name) {
  std::string n(name);
  std::replace(n.begin(), n.end(), '_', '-');
  return n;
}

size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string Dashed(absl::string_view name) {
  return absl::StrCat(name.size() == 1 ? "-" : "--", name);
}

}  // namespace

FlagParser::FlagParser(std::string program, std::string usage_line, std::string description)
    : program_(std::move(program)),
      usage_line_(std::move(usage_line)),
      description_(std::move(description)) {}

void FlagParser::AddBool(absl::string_view name, bool* target, absl::string_view help) {
  Flag f;
  f.name = Normalize(name);
  f.is_bool = true;
  f.bool_target = target;
  f.help = std::string(help);
  flags_.push_back(std::move(f));
}

void FlagParser::AddString(absl::string_view name, std::string* target,
                           absl::string_view value_name, absl::string_view help) {
  Flag f;
  f.name = Normalize(name);
  f.string_target = target;
  f.value_name = std::string(value_name);
  f.help = std::string(help);
  flags_.push_back(std::move(f));
}

void FlagParser::AddRepeated(absl::string_view name, std::vector<std::string>* target,
                             absl::string_view value_name, absl::string_view help) {
  Flag f;
  f.name = Normalize(name);
  f.list_target = target;
  f.value_name = std::string(value_name);
  f.help = std::string(help);
  flags_.push_back(std::move(f));
}

void FlagParser::AddOptionalValue(absl::string_view name, std::string* target,
                                  absl::string_view value_name, std::string implicit_value,
                                  absl::string_view help) {
  Flag f;
  f.name = Normalize(name);
  f.string_target = target;
  f.value_optional = true;
  f.implicit_value = std::move(implicit_value);
  f.value_name = std::string(value_name);
  f.help = std::string(help);
  flags_.push_back(std::move(f));
}

void FlagParser::AddAlias(absl::string_view alias, absl::string_view name) {
  if (Flag* f = Find(name)) f->aliases.push_back(Normalize(alias));
}

FlagParser::Flag* FlagParser::Find(absl::string_view name) {
  std::string n = Normalize(name);
  for (Flag& f : flags_) {
    if (f.name == n) return &f;
    for (const std::string& a : f.aliases)
      if (a == n) return &f;
  }
  return nullptr;
}

const FlagParser::Flag* FlagParser::Find(absl::string_view name) const {
  return const_cast<FlagParser*>(this)->Find(name);
}

bool FlagParser::WasSet(absl::string_view name) const {
  const Flag* f = Find(name);
  return f != nullptr && f->set;
}

std::string FlagParser::Suggest(absl::string_view name) const {
  std::string n = Normalize(name);
  std::string best;
  size_t best_distance = 3;  // suggest only close matches
  for (const Flag& f : flags_) {
    size_t d = EditDistance(n, f.name);
    // A unique-looking prefix ("--split" for "--split-input-file") counts too.
    if (n.size() >= 3 && f.name.compare(0, n.size(), n) == 0) d = std::min<size_t>(d, 1);
    if (d < best_distance) {
      best_distance = d;
      best = f.name;
    }
  }
  return best.empty() ? "" : absl::StrCat(" (did you mean '", Dashed(best), "'?)");
}

absl::Status FlagParser::Parse(int argc, const char* const* argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return Parse(args);
}

absl::Status FlagParser::Parse(const std::vector<std::string>& args) {
  bool only_positional = false;
  for (size_t i = 0; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    if (only_positional || arg.size() < 2 || arg[0] != '-') {
      positional_.emplace_back(arg);  // includes "-" (stdin) and ""
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    absl::string_view body = arg.substr(arg[1] == '-' ? 2 : 1);
    absl::string_view name = body;
    absl::string_view value;
    bool has_value = false;
    size_t eq = body.find('=');
    if (eq != absl::string_view::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      has_value = true;
    }
    if (name.empty() || name[0] == '-') {
      return absl::InvalidArgumentError(absl::StrCat("malformed flag '", arg, "'"));
    }
    Flag* flag = Find(name);
    if (flag == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag '", arg.substr(0, arg.find('=')), "'", Suggest(name)));
    }
    flag->set = true;
    if (flag->is_bool) {
      if (!has_value) {
        *flag->bool_target = true;
      } else {
        std::string v = absl::AsciiStrToLower(value);
        if (v == "true" || v == "1") {
          *flag->bool_target = true;
        } else if (v == "false" || v == "0") {
          *flag->bool_target = false;
        } else {
          return absl::InvalidArgumentError(absl::StrCat(
              "flag '", Dashed(flag->name), "' takes no value or true/false, got '", value, "'"));
        }
      }
      continue;
    }
    if (!has_value && flag->value_optional) {
      *flag->string_target = flag->implicit_value;
      continue;
    }
    if (!has_value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("flag '", Dashed(name), "' requires a value (", Dashed(name), " ",
                         flag->value_name, ")"));
      }
      value = args[++i];
    }
    if (flag->list_target != nullptr) {
      flag->list_target->emplace_back(value);
    } else {
      *flag->string_target = std::string(value);
    }
  }
  return absl::OkStatus();
}

std::string FlagParser::Usage() const {
  std::string out = absl::StrCat("USAGE: ", usage_line_, "\n");
  if (!description_.empty()) absl::StrAppend(&out, "\n", description_, "\n");
  absl::StrAppend(&out, "\nFLAGS:\n");
  std::vector<std::pair<std::string, const Flag*>> rows;
  size_t width = 0;
  for (const Flag& f : flags_) {
    std::string spelled = Dashed(f.name);
    for (const std::string& a : f.aliases) absl::StrAppend(&spelled, ", ", Dashed(a));
    if (f.value_optional) {
      absl::StrAppend(&spelled, "[=", f.value_name, "]");
    } else if (!f.is_bool) {
      absl::StrAppend(&spelled, f.name.size() == 1 ? " " : "=", f.value_name);
    }
    width = std::max(width, spelled.size());
    rows.emplace_back(std::move(spelled), &f);
  }
  width = std::min<size_t>(width, 28);
  for (const auto& [spelled, f] : rows) {
    std::string line = absl::StrCat("  ", spelled);
    if (spelled.size() > width) {
      absl::StrAppend(&line, "\n", std::string(width + 4, ' '));
    } else {
      line.append(width + 2 - spelled.size(), ' ');
    }
    // Indent continuation lines of multi-line help under the help column.
    std::string help;
    for (char c : f->help) {
      help.push_back(c);
      if (c == '\n') help.append(width + 4, ' ');
    }
    absl::StrAppend(&out, line, help, "\n");
  }
  if (!epilogue_.empty()) absl::StrAppend(&out, "\n", epilogue_);
  if (out.back() != '\n') out.push_back('\n');
  return out;
}

std::vector<std::string> SplitList(absl::string_view value) {
  std::vector<std::string> out;
  for (absl::string_view item : absl::StrSplit(value, ',')) {
    item = absl::StripAsciiWhitespace(item);
    if (!item.empty()) out.emplace_back(item);
  }
  return out;
}

bool ParseInt(absl::string_view value, int64_t min, int64_t max, int64_t* out) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(value, &v) || v < min || v > max) return false;
  *out = v;
  return true;
}

}  // namespace cli
}  // namespace hlo
