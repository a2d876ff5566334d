#include "analysis/bisect.h"

#include <memory>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"

namespace hlo {
namespace {

constexpr char kDumpMarker[] = "// -----// IR Dump After ";

struct Application {
  std::string pass;
  std::string text;  // the module after it
};

class Bisector {
 public:
  Bisector(const Module& input, const Pipeline& pipeline, const BisectPredicate& is_bad, std::ostream* log)
      : text_(PrintModule(input)), pipeline_(pipeline), is_bad_(is_bad), log_(log) {
    std::set<std::string> seen;
    for (const std::string& n : pipeline.PassNames())
      if (seen.insert(n).second) passes_.push_back(n);
  }

  absl::StatusOr<BisectResult> Run() {
    BisectResult result;
    absl::StatusOr<bool> input_bad = Judge(text_, "the input (no passes)");
    if (!input_bad.ok()) return input_bad.status();
    if (*input_bad) return absl::FailedPreconditionError("the input module is already bad: nothing to bisect");
    absl::StatusOr<bool> all_bad = JudgePrefix(passes_.size());
    if (!all_bad.ok()) return all_bad.status();
    if (!*all_bad)
      return absl::FailedPreconditionError(
          absl::StrCat("the module after the whole pipeline '", pipeline_.name(), "' is not bad: nothing to bisect"));
    // Smallest prefix length that is bad: bad(hi) holds, bad(lo) does not.
    size_t lo = 0, hi = passes_.size();
    while (hi - lo > 1) {
      const size_t mid = lo + (hi - lo) / 2;
      absl::StatusOr<bool> bad = JudgePrefix(mid);
      if (!bad.ok()) return bad.status();
      (*bad ? hi : lo) = mid;
    }
    result.pass = passes_[hi - 1];
    result.enabled_passes.assign(passes_.begin(), passes_.begin() + hi);

    // Applications with that prefix enabled.
    absl::StatusOr<std::vector<Application>> apps = Applications(hi);
    if (!apps.ok()) return apps.status();
    result.total_applications = static_cast<int>(apps->size());
    // Candidates: the input, then the module after each application that
    // changed it. The last one is the prefix's result (bad, judged above).
    std::vector<int> changed;  // indices into *apps
    const std::string* prev = &text_;
    for (size_t i = 0; i < apps->size(); ++i) {
      if ((*apps)[i].text != *prev) changed.push_back(static_cast<int>(i));
      prev = &(*apps)[i].text;
    }
    if (changed.empty()) return absl::InternalError("no pass application changed the module");
    // bad(candidate changed[hi2]) holds, bad(lo2) does not (-1 = input).
    int lo2 = -1, hi2 = static_cast<int>(changed.size()) - 1;
    while (hi2 - lo2 > 1) {
      const int mid = lo2 + (hi2 - lo2) / 2;
      const Application& a = (*apps)[changed[mid]];
      absl::StatusOr<bool> bad = Judge(a.text, absl::StrCat("after application ", changed[mid] + 1, " (", a.pass, ")"));
      if (!bad.ok()) return bad.status();
      (*bad ? hi2 : lo2) = mid;
    }
    const int index = changed[hi2];
    const Application& bad_app = (*apps)[index];
    // Confirm the final one (the search judged it only as part of a prefix).
    absl::StatusOr<bool> confirm = Judge(bad_app.text, absl::StrCat("after application ", index + 1, " (", bad_app.pass, ")"));
    if (!confirm.ok()) return confirm.status();
    if (!*confirm)
      return absl::InternalError("the predicate is not deterministic: the prefix's result was bad, its last change is not");
    result.application_pass = bad_app.pass;
    result.application_index = index + 1;
    for (int i = 0; i <= index; ++i) result.application_occurrence += (*apps)[i].pass == bad_app.pass;
    // The module right before it: equal to the last candidate judged good
    // (applications in between changed nothing).
    result.before_text = index == 0 ? text_ : (*apps)[index - 1].text;
    result.after_text = bad_app.text;
    result.predicate_runs = runs_;
    return result;
  }

 private:
  absl::StatusOr<bool> Judge(const std::string& text, const std::string& what) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
    if (!m.ok()) return absl::InternalError(absl::StrCat("candidate ", what, " does not parse: ", m.status().message()));
    ++runs_;
    absl::StatusOr<bool> bad = is_bad_(**m, text);
    if (log_ != nullptr && bad.ok()) *log_ << "hlo-bisect: " << what << ": " << (*bad ? "bad" : "good") << "\n";
    return bad;
  }

  std::set<std::string> DisabledAfter(size_t prefix) const {
    return std::set<std::string>(passes_.begin() + prefix, passes_.end());
  }

  absl::StatusOr<bool> JudgePrefix(size_t prefix) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text_);
    if (!m.ok()) return m.status();
    PipelineOptions options;
    options.disabled = DisabledAfter(prefix);
    absl::StatusOr<bool> ran = pipeline_.Run(**m, options);
    if (!ran.ok()) return ran.status();
    const std::string what = prefix == 0 ? "no passes"
                                         : absl::StrCat("passes up to ", passes_[prefix - 1], " (", prefix, " of ",
                                                        passes_.size(), ")");
    return Judge(PrintModule(**m), what);
  }

  // The module after every pass run with the first `prefix` passes enabled.
  absl::StatusOr<std::vector<Application>> Applications(size_t prefix) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text_);
    if (!m.ok()) return m.status();
    PipelineOptions options;
    options.disabled = DisabledAfter(prefix);
    options.print_after_all = true;
    std::string dumps;
    options.print_string = &dumps;
    absl::StatusOr<bool> ran = pipeline_.Run(**m, options);
    if (!ran.ok()) return ran.status();
    std::vector<Application> apps;
    size_t pos = dumps.find(kDumpMarker);
    while (pos != std::string::npos) {
      const size_t name_start = pos + sizeof(kDumpMarker) - 1;
      const size_t name_end = dumps.find(' ', name_start);
      const size_t text_start = dumps.find('\n', name_start);
      if (name_end == std::string::npos || text_start == std::string::npos) break;
      const size_t next = dumps.find(kDumpMarker, text_start);
      apps.push_back({dumps.substr(name_start, name_end - name_start),
                      dumps.substr(text_start + 1, next == std::string::npos ? std::string::npos : next - text_start - 1)});
      pos = next;
    }
    return apps;
  }

  const std::string text_;
  const Pipeline& pipeline_;
  const BisectPredicate& is_bad_;
  std::ostream* log_;
  std::vector<std::string> passes_;
  int runs_ = 0;
};

}  // namespace

absl::StatusOr<BisectResult> Bisect(const Module& input, const Pipeline& pipeline, const BisectPredicate& is_bad,
                                    std::ostream* log) {
  return Bisector(input, pipeline, is_bad, log).Run();
}

std::string ChangedLines(const std::string& before, const std::string& after, int max_lines) {
  std::vector<std::string> a = absl::StrSplit(before, '\n');
  std::vector<std::string> b = absl::StrSplit(after, '\n');
  absl::flat_hash_map<std::string, int> count_a, count_b;
  for (const std::string& l : a) ++count_a[l];
  for (const std::string& l : b) ++count_b[l];
  std::string out;
  int lines = 0;
  auto emit = [&](const std::vector<std::string>& side, absl::flat_hash_map<std::string, int>& other,
                  const char* tag) {
    for (const std::string& l : side) {
      auto it = other.find(l);
      if (it != other.end() && it->second > 0) {
        --it->second;  // present on both sides
        continue;
      }
      if (lines++ < max_lines) absl::StrAppend(&out, tag, l, "\n");
    }
  };
  emit(a, count_b, "- ");
  emit(b, count_a, "+ ");
  if (lines > max_lines) absl::StrAppend(&out, "  ... (", lines - max_lines, " more changed lines)\n");
  return out;
}

}  // namespace hlo
