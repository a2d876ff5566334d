#include "backend_cpu/machine_rates.h"

#include <algorithm>

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/op_eval.h"
#include "backend_cpu/openblas_core.h"
#include "backend_cpu/thread_pool.h"
#include "parser/parser.h"

namespace hlo::cpu {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    }
  return "unknown";
}

std::string CacheDir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return absl::StrCat(xdg, "/hlo-toolchain");
  if (const char* home = std::getenv("HOME"); home && *home)
    return absl::StrCat(home, "/.cache/hlo-toolchain");
  return "";
}

double MeasureBandwidth() {
  const size_t bytes = size_t{128} << 20;
  std::vector<char> src(bytes, 1), dst(bytes, 0);  // touched: no page faults timed
  const int64_t chunk = int64_t{1} << 20;
  const int64_t chunks = static_cast<int64_t>(bytes) / chunk;
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const double t0 = Now();
    ParallelFor(chunks, 1, [&](int64_t b, int64_t e) {
      std::memcpy(dst.data() + b * chunk, src.data() + b * chunk, static_cast<size_t>((e - b) * chunk));
    });
    best = std::min(best, Now() - t0);
  }
  return 2.0 * static_cast<double>(bytes) / best;  // read + write
}

double MeasureGemm() {
  constexpr int64_t n = 1024;
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(
      "HloModule gemm_rate\n"
      "ENTRY e {\n"
      "  a = f32[1024,1024] parameter(0)\n"
      "  b = f32[1024,1024] parameter(1)\n"
      "  ROOT d = f32[1024,1024] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
      "}\n");
  if (!module.ok()) return 0;
  std::vector<Literal> args;
  for (int i = 0; i < 2; ++i) args.push_back(Literal((*module)->entry()->parameter(i)->shape()));
  double best = 1e30;
  for (int rep = 0; rep < 4; ++rep) {
    const double t0 = Now();
    if (!RunModule(**module, args).ok()) return 0;
    if (rep > 0) best = std::min(best, Now() - t0);  // the first run warms up
  }
  return 2.0 * n * n * n / best;
}

}  // namespace

MachineRates GetMachineRates() { return GetMachineRates(ThreadPoolWidth()); }

MachineRates GetMachineRatesForDevices(int64_t devices) {
  return devices > 1 ? GetMachineRates(SharingOf(devices).SharedThreads()) : GetMachineRates();
}

MachineRates GetMachineRates(int threads) {
  threads = std::max(threads, 1);
  // The BLAS kernel family is part of the key: the same CPU runs GEMM at a
  // quarter of the rate with OpenBLAS's fallback kernels (openblas_core.h).
  UseSingleThreadedBlas();
  const std::string core = OpenBlasCoreName();
  const std::string key =
      absl::StrCat(CpuModel(), core.empty() ? "" : absl::StrCat(" [", core, "]"), "\t", threads);
  const std::string dir = CacheDir();
  const std::string file = dir.empty() ? "" : dir + "/machine-rates.tsv";
  if (!file.empty()) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
      std::vector<std::string> f = absl::StrSplit(line, '\t');
      double bw = 0, fl = 0;
      if (f.size() == 4 && absl::StrCat(f[0], "\t", f[1]) == key && absl::SimpleAtod(f[2], &bw) &&
          absl::SimpleAtod(f[3], &fl) && bw > 0 && fl > 0)
        return MachineRates{bw, fl, absl::StrCat("cached in ", file), threads};
    }
  }
  const int width = ThreadPoolWidth();
  if (threads != width) SetThreadPoolWidth(threads);
  MachineRates rates{MeasureBandwidth(), MeasureGemm(), "measured now", threads};
  if (threads != width) SetThreadPoolWidth(width);
  if (!file.empty() && rates.bytes_per_second > 0 && rates.flops_per_second > 0) {
    mkdir(dir.substr(0, dir.rfind('/')).c_str(), 0755);
    mkdir(dir.c_str(), 0755);
    std::ofstream out(file, std::ios::app);
    if (out) {
      out << key << '\t' << rates.bytes_per_second << '\t' << rates.flops_per_second << '\n';
      if (out) rates.source = absl::StrCat("measured now, cached in ", file);
    }
  }
  return rates;
}

}  // namespace hlo::cpu
