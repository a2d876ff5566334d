#include "tools/distributed_run.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "backend_cpu/collectives.h"
#include "backend_cpu/mpi_transport.h"
#include "tools/npy_dir.h"

namespace hlo::distributed {
namespace {

struct Session {
  std::unique_ptr<cpu::MpiProcesses> mpi;
  std::mutex mu;
  std::string first_error;
  double timeout_seconds = cpu::kCollectiveTimeoutSeconds;
};

Session& session() {
  static Session* s = new Session();  // lives until exit
  return *s;
}

// The transport when the run spans several processes.
cpu::MpiProcesses* Processes() {
  cpu::MpiProcesses* mpi = session().mpi.get();
  return mpi != nullptr && mpi->process_count() > 1 ? mpi : nullptr;
}

void Line(const std::string& text) {
  fwrite(text.data(), 1, text.size(), stderr);
  fflush(stderr);
}

}  // namespace

absl::Status Start(int* argc, char*** argv) {
  if (!cpu::LaunchedByMpi()) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<cpu::MpiProcesses>> mpi = cpu::StartMpi(argc, argv);
  if (!mpi.ok()) return mpi.status();
  session().mpi = *std::move(mpi);
  return absl::OkStatus();
}

std::string ErrorPrefix() {
  cpu::MpiProcesses* p = Processes();
  if (p == nullptr) return "";
  return absl::StrCat("process ", p->process(), " of ", p->process_count(), " (host ",
                      p->host(p->process()), "): ");
}

void RecordError(absl::string_view message) {
  std::lock_guard<std::mutex> lock(session().mu);
  if (session().first_error.empty()) session().first_error = std::string(message);
}

absl::Status Configure(const Module& module, cpu::RunOptions* options) {
  if (options->collective_timeout_seconds > 0)
    session().timeout_seconds = options->collective_timeout_seconds;
  cpu::MpiProcesses* p = Processes();
  if (p == nullptr) return absl::OkStatus();
  const cpu::DeviceGrid grid = cpu::DeviceGridOf(module, *options);
  const int processes = p->process_count();
  if (absl::Status st = cpu::CheckDeviceSplit(grid, processes); !st.ok()) return st;
  const int64_t devices = grid.replicas * grid.partitions;
  const int64_t per = devices / processes;
  const int64_t first = p->process() * per;
  Line(absl::StrCat("hlo-run: note: process ", p->process(), " of ", processes, " (host ",
                    p->host(p->process()), ") runs ",
                    per == 1 ? absl::StrCat("device ", first)
                             : absl::StrCat("devices ", first, "-", first + per - 1),
                    "\n"));
  options->transport = p;
  return absl::OkStatus();
}

cpu::ProcessShare Share() {
  cpu::ProcessShare share;
  cpu::MpiProcesses* p = Processes();
  if (p == nullptr) return share;
  share.processes = p->process_count();
  share.host = p->host(p->process());
  share.on_this_host = 0;
  for (int q = 0; q < share.processes; ++q)
    if (p->host(q) == share.host) ++share.on_this_host;
  return share;
}

bool HoldsDevice0() {
  cpu::MpiProcesses* p = Processes();
  return p == nullptr || p->process() == 0;
}

absl::Status WritePerDevice(const std::string& dir, const char* flag, const cpu::RunResult& result,
                            size_t devices,
                            const std::function<absl::Status(const std::string&, size_t)>& write) {
  if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": cannot create '", dir, "': ", std::strerror(errno)));
  for (size_t i = 0; i < devices; ++i) {
    const int64_t device = result.first_device + static_cast<int64_t>(i);
    if (absl::Status st = write(absl::StrCat(dir, "/device-", device), i); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status WriteDeviceOutputs(const std::string& dir, const cpu::RunResult& result) {
  return WritePerDevice(dir, "output-dir", result, result.results.size(),
                        [&](const std::string& subdir, size_t i) {
                          return WriteNpyDir(subdir, FlattenLeaves({&result.results[i]}), "output-dir");
                        });
}

int64_t RunsSoFar() {
  cpu::MpiProcesses* p = Processes();
  return p == nullptr ? 0 : p->runs();
}

std::string TrafficTable(int64_t first_run, int64_t last_run) {
  cpu::MpiProcesses* p = Processes();
  if (p == nullptr || last_run <= first_run) return "";
  std::map<std::string, cpu::Traffic> rows;
  cpu::Traffic total;
  for (const auto& [key, t] : p->traffic()) {
    if (key.first < first_run || key.first >= last_run) continue;
    for (cpu::Traffic* sum : {&rows[key.second], &total}) {
      sum->sent_bytes += t.sent_bytes;
      sum->received_bytes += t.received_bytes;
      sum->sent_messages += t.sent_messages;
      sum->received_messages += t.received_messages;
    }
  }
  const double runs = static_cast<double>(last_run - first_run);
  auto mb = [&](int64_t bytes) { return static_cast<double>(bytes) / runs / 1e6; };
  std::string out = absl::StrFormat(
      "between processes: process %d of %d sent %.3f MB and received %.3f MB per run "
      "(whole messages, headers included)\n%10s %10s %8s %8s  %s\n",
      p->process(), p->process_count(), mb(total.sent_bytes), mb(total.received_bytes),
      "MB sent", "MB recv", "msgs out", "msgs in",
      "collective (computation/instruction) or channel");
  for (const auto& [what, t] : rows)
    absl::StrAppend(&out, absl::StrFormat("%10.3f %10.3f %8.4g %8.4g  %s\n", mb(t.sent_bytes),
                                          mb(t.received_bytes), t.sent_messages / runs,
                                          t.received_messages / runs, what));
  return out;
}

int Finish(int code) {
  Session& s = session();
  if (s.mpi == nullptr) return code;
  std::unique_ptr<cpu::MpiProcesses> mpi = std::move(s.mpi);
  if (code != 0) {
    std::string why;
    {
      std::lock_guard<std::mutex> lock(s.mu);
      why = s.first_error.empty() ? absl::StrCat("exited with status ", code) : s.first_error;
    }
    mpi->ReportFailure(absl::UnknownError(why));
  }
  const bool several = mpi->process_count() > 1;
  const std::string prefix =
      several ? absl::StrCat("process ", mpi->process(), " of ", mpi->process_count(), " (host ",
                             mpi->host(mpi->process()), "): ")
              : std::string();
  absl::Status others = mpi->Finish(code != 0, s.timeout_seconds);
  if (code == 0 && !others.ok()) {
    Line(absl::StrCat("hlo-run: error: ", prefix, others.message(), "\n"));
    return 1;
  }
  return code;
}

}  // namespace hlo::distributed
