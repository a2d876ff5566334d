// hlo-gen-diff: generates modules for a range of seeds and runs the
// differential checks of gen/diff_check.h on each (in a child process: a
// crash or hang is that module's failure); a failing module is
// shrunk (gen/shrink.h) and written out. The gen_diff ctest runs it for a
// bounded time; docs/reliability.md gives the longer soak command.
//
// Exit status: 0 if every module passed, 1 if any failed, 2 on bad usage.
#include <signal.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gen/diff_check.h"
#include "gen/hlo_gen.h"
#include "gen/shrink.h"
#include "tools/cli_flags.h"
#include "tools/file_io.h"

namespace hlo {
namespace {

constexpr char kProgram[] = "hlo-gen-diff";

void Print(const std::string& s) { fwrite(s.data(), 1, s.size(), stdout), fflush(stdout); }

// Runs gen::CheckModule in a child process, so that a crash or a hang of
// the module under test is a failure of that module ("crash", "timeout")
// and not the end of the run. The parent never runs a module itself (its
// thread pool is never started, so forking it is safe).
gen::DiffResult CheckIsolated(const std::string& text, uint64_t seed, int timeout_seconds) {
  int fds[2];
  if (pipe(fds) != 0) return {"crash", "pipe() failed"};
  fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) return {"crash", "fork() failed"};
  if (pid == 0) {
    close(fds[0]);
    gen::DiffResult r = gen::CheckModule(text, seed);
    std::string out = absl::StrCat(r.failed, "\n", r.message);
    for (size_t done = 0; done < out.size();) {
      const ssize_t n = write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  // Read while waiting: a long message must not block the child on a full pipe.
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  int status = 0;
  bool timed_out = false;
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  char buf[4096];
  while (true) {
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
    if (waitpid(pid, &status, WNOHANG) == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  if (timed_out) return {"timeout", absl::StrCat("no result after ", timeout_seconds, " s")};
  if (WIFSIGNALED(status)) return {"crash", absl::StrCat("killed by signal ", WTERMSIG(status), " (", strsignal(WTERMSIG(status)), ")")};
  const size_t nl = out.find('\n');
  if (nl == std::string::npos) return {"crash", "the checking process died without a result"};
  return {out.substr(0, nl), out.substr(nl + 1)};
}

int Usage(absl::string_view message) {
  std::string line = absl::StrCat(kProgram, ": error: ", message, "\nrun '", kProgram, " --help' for usage\n");
  fwrite(line.data(), 1, line.size(), stderr);
  return 2;
}

int Run(int argc, char** argv) {
  bool help = false, no_shrink = false, verbose = false;
  std::string first = "0", count = "1000000000", seconds = "0", max_instructions = "30", ops, out_dir,
              timeout = "60";
  cli::FlagParser flags(kProgram, "hlo-gen-diff [flags]",
                        "Checks generated modules (hlo-gen's) seed after seed: print/parse round\n"
                        "trip, 1 vs 2 threads bit-identical, -O vs unoptimized within tolerance.\n"
                        "A failing module is shrunk and written to --out-dir.");
  flags.AddBool("help", &help, "print this help and exit");
  flags.AddString("first-seed", &first, "N", "first seed (default 0)");
  flags.AddString("count", &count, "N", "number of seeds (default: no limit)");
  flags.AddString("seconds", &seconds, "S", "stop starting new seeds after S seconds (0 = no limit)");
  flags.AddString("max-instructions", &max_instructions, "K", "hlo-gen's --max-instructions (default 30)");
  flags.AddString("ops", &ops, "G1,G2,...", "hlo-gen's --ops (default: all groups)");
  flags.AddString("out-dir", &out_dir, "DIR", "write each failing module, shrunk, as DIR/seed-N.hlo");
  flags.AddString("timeout", &timeout, "S", "a module whose checks take longer fails as 'timeout' (default 60)");
  flags.AddBool("no-shrink", &no_shrink, "write failing modules as generated");
  flags.AddBool("verbose", &verbose, "print a line per seed");
  absl::Status parsed = flags.Parse(argc, argv);
  if (!parsed.ok()) return Usage(parsed.message());
  if (help) {
    Print(flags.Usage());
    return 0;
  }
  uint64_t first_seed = 0, n = 0;
  int64_t budget = 0, k = 0;
  if (!absl::SimpleAtoi(first, &first_seed)) return Usage("--first-seed needs a whole number");
  if (!absl::SimpleAtoi(count, &n)) return Usage("--count needs a whole number");
  if (!absl::SimpleAtoi(seconds, &budget) || budget < 0) return Usage("--seconds needs a whole number >= 0");
  if (!absl::SimpleAtoi(max_instructions, &k) || k < 1) return Usage("--max-instructions needs a whole number >= 1");
  int timeout_seconds = 0;
  if (!absl::SimpleAtoi(timeout, &timeout_seconds) || timeout_seconds < 1) return Usage("--timeout needs a whole number >= 1");
  gen::GenOptions options;
  options.max_instructions = static_cast<int>(k);
  if (!ops.empty()) options.ops = absl::StrSplit(ops, ',', absl::SkipEmpty());

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  uint64_t checked = 0, failed = 0;
  for (uint64_t seed = first_seed; seed - first_seed < n; ++seed) {
    if (budget > 0 && elapsed() >= static_cast<double>(budget)) break;
    options.seed = seed;
    absl::StatusOr<std::string> text = gen::GenerateModule(options);
    if (!text.ok()) return Usage(text.status().message());
    gen::DiffResult r = CheckIsolated(*text, seed, timeout_seconds);
    ++checked;
    if (verbose) Print(absl::StrCat("seed ", seed, ": ", r.failed.empty() ? "ok" : r.failed, "\n"));
    if (r.failed.empty()) continue;
    ++failed;
    std::string kept = *text;
    if (!no_shrink)
      kept = gen::ShrinkModule(*text, [&](const std::string& t) { return CheckIsolated(t, seed, timeout_seconds).failed == r.failed; });
    std::string report = absl::StrCat("FAIL seed ", seed, " (", r.failed, "): ", r.message, "\n");
    if (!out_dir.empty()) {
      const std::string path = absl::StrCat(out_dir, "/seed-", seed, ".hlo");
      absl::Status st = WriteOutput(path, kept);
      absl::StrAppend(&report, st.ok() ? absl::StrCat("  shrunk module: ", path, "\n")
                                       : absl::StrCat("  ", st.message(), "\n"));
    } else {
      absl::StrAppend(&report, kept);
    }
    Print(report);
  }
  Print(absl::StrCat(checked, " modules checked (seeds ", first_seed, "..", first_seed + checked - (checked ? 1 : 0),
                     ") in ", static_cast<int64_t>(elapsed()), " s: ", checked - failed, " passed, ", failed,
                     " failed\n"));
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace hlo

int main(int argc, char** argv) { return hlo::Run(argc, argv); }
