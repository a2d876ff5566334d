#include "analysis/bisect_predicates.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "backend_cpu/executor.h"
#include "ir/computation.h"
#include "ir/printer.h"
#include "parser/parser.h"
#include "tools/literal_compare.h"
#include "tools/run_inputs.h"

extern char** environ;

namespace hlo {
namespace {

absl::Status WriteTemp(const std::string& text, std::string* path) {
  const char* dir = std::getenv("TMPDIR");
  *path = absl::StrCat(dir != nullptr && *dir != '\0' ? dir : "/tmp", "/hlo-bisect-XXXXXX.hlo");
  const int fd = mkstemps(path->data(), 4);
  if (fd < 0) return absl::InternalError("cannot create a temporary file for the candidate");
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) {
      close(fd);
      unlink(path->c_str());
      return absl::InternalError("cannot write the candidate's temporary file");
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  return absl::OkStatus();
}

absl::StatusOr<bool> RunScript(const std::string& script, const std::string& text) {
  std::string path;
  absl::Status written = WriteTemp(text, &path);
  if (!written.ok()) return written;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // The report owns stdout: the script's output goes to stderr.
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  std::string arg0 = script, arg1 = path;
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  pid_t pid = 0;
  const int err = posix_spawn(&pid, script.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (err == 0 && waitpid(pid, &status, 0) < 0) status = -1;
  unlink(path.c_str());
  if (err != 0)
    return absl::FailedPreconditionError(absl::StrCat("cannot run --script '", script, "': ", strerror(err)));
  if (!WIFEXITED(status))
    return absl::AbortedError(absl::StrCat("--script '", script, "' was killed by a signal"));
  const int code = WEXITSTATUS(status);
  if (code == 125 || code > 127)
    return absl::AbortedError(absl::StrCat("--script '", script, "' exited with ", code, ": stopping"));
  return code != 0;
}

}  // namespace

BisectPredicate ScriptPredicate(std::string script) {
  return [script](const Module&, const std::string& text) { return RunScript(script, text); };
}

absl::StatusOr<std::unique_ptr<OutputDiffers>> OutputDiffers::Create(const Module& input, uint64_t seed,
                                                                     double abs_bound, double rel_bound) {
  auto p = std::unique_ptr<OutputDiffers>(new OutputDiffers());
  p->abs_bound_ = abs_bound;
  p->rel_bound_ = rel_bound;
  // hlo-run --random-inputs=SEED: parameter i gets seed + i.
  const Computation* entry = input.entry();
  for (int64_t i = 0; i < entry->num_parameters(); ++i)
    p->args_.push_back(RandomLiteral(entry->parameter(i)->shape(), seed + static_cast<uint64_t>(i)));
  absl::StatusOr<Literal> ref = p->Result(input);
  if (!ref.ok())
    return absl::Status(ref.status().code(), absl::StrCat("the input module does not run: ", ref.status().message()));
  p->reference_ = std::move(*ref);
  return p;
}

absl::StatusOr<Literal> OutputDiffers::Result(const Module& m) const {
  absl::StatusOr<cpu::RunResult> run = cpu::RunModule(m, args_);
  if (!run.ok()) return run.status();
  if (run->results.empty()) return absl::InternalError("no result");
  return std::move(run->results[0]);
}

BisectPredicate OutputDiffers::predicate() {
  return [this](const Module& m, const std::string&) -> absl::StatusOr<bool> {
    absl::StatusOr<Literal> r = Result(m);
    if (!r.ok()) return true;
    return !CompareLiterals(reference_, *r, abs_bound_, rel_bound_).ok;
  };
}

std::string OutputDiffers::Describe(const std::string& module_text) const {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(module_text);
  if (!m.ok()) return absl::StrCat("(does not parse: ", m.status().message(), ")\n");
  absl::StatusOr<Literal> r = Result(**m);
  if (!r.ok()) return absl::StrCat("(does not run: ", r.status().message(), ")\n");
  CompareReport cmp = CompareLiterals(reference_, *r, abs_bound_, rel_bound_);
  return absl::StrCat(LiteralToString(*r), "\n", cmp.ok ? "matches the unoptimized result" : cmp.message, "\n");
}

}  // namespace hlo
