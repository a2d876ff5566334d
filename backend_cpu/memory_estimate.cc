#include "backend_cpu/memory_estimate.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ir/printer.h"

namespace hlo::cpu {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

int64_t SatAdd(int64_t a, int64_t b) { return a > kMax - b ? kMax : a + b; }
int64_t SatMul(int64_t a, int64_t b) { return b != 0 && a > kMax / b ? kMax : a * b; }

// Bytes the backend's literal of `shape` holds (saturating: a shape of
// absurd size must give a huge need, not a wrapped small one).
int64_t StorageBytes(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t n = 0;
    for (const Shape& e : shape.tuple_shapes()) n = SatAdd(n, StorageBytes(e));
    return n;
  }
  if (!shape.IsArray()) return 0;
  int64_t n = PrimitiveTypeByteSize(shape.element_type());
  for (int64_t d : shape.dims()) n = SatMul(n, std::max<int64_t>(d, 0));
  return n;
}

std::string Describe(const Instruction& inst) {
  PrintOptions o;
  o.print_metadata = false;
  o.print_large_constants = false;
  std::string s = PrintInstruction(inst, o);
  absl::StripAsciiWhitespace(&s);
  if (s.size() > 160) s = absl::StrCat(s.substr(0, 157), "...");
  return s;
}

// The most bytes alive at once while `comp` runs, its parameters excluded
// (they belong to the caller). A walk over the schedule (post order): a
// value lives from its instruction to its last reader, the root's to the
// end. While an instruction runs, the computations it calls (a loop's
// body and condition, a conditional's branches, a call's callee) hold
// their own values on top of what is alive in the caller: their peak is
// added at that point (the largest one: they run one after another).
// Fused computations are not walked: a fusion's kernel evaluates its
// fused expression per block, without whole intermediate arrays.
// `buffers` collects every value walked, for the "largest" list (each
// computation is walked once, however often it is called).
int64_t PeakLiveBytes(const Computation& comp,
                      absl::flat_hash_map<const Computation*, int64_t>* memo,
                      std::vector<std::pair<int64_t, const Instruction*>>* buffers) {
  auto known = memo->find(&comp);
  if (known != memo->end()) return known->second;
  (*memo)[&comp] = 0;  // a (malformed) recursive call graph counts once
  const std::vector<Instruction*> order = comp.MakePostOrder();
  absl::flat_hash_map<const Instruction*, size_t> last_use;
  for (size_t i = 0; i < order.size(); ++i)
    for (const Instruction* o : order[i]->operands()) last_use[o] = i;
  if (comp.root() != nullptr) last_use[comp.root()] = order.size();
  std::vector<int64_t> freed_at(order.size() + 1, 0);
  int64_t live = 0, peak = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const Instruction* inst = order[i];
    if (inst->opcode() != Opcode::kParameter) {
      const int64_t bytes = StorageBytes(inst->shape());
      buffers->push_back({bytes, inst});
      live = SatAdd(live, bytes);
      int64_t callee_peak = 0;
      if (inst->opcode() != Opcode::kFusion) {
        for (const Computation* callee : inst->called_computations())
          if (callee != nullptr) callee_peak = std::max(callee_peak, PeakLiveBytes(*callee, memo, buffers));
      }
      peak = std::max(peak, SatAdd(live, callee_peak));
      auto it = last_use.find(inst);
      // Unused values die at once; the others after their last reader.
      freed_at[it == last_use.end() ? i : it->second] += bytes;
    }
    live -= std::min(live, freed_at[i]);
  }
  (*memo)[&comp] = peak;
  return peak;
}

}  // namespace

std::string FormatBytes(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= 1e9) return absl::StrFormat("%.2f GB (%d bytes)", b / 1e9, bytes);
  if (b >= 1e6) return absl::StrFormat("%.2f MB (%d bytes)", b / 1e6, bytes);
  return absl::StrCat(bytes, " bytes");
}

MemoryEstimate EstimateMemory(const Module& module, int64_t replica_count, int64_t partition_count) {
  MemoryEstimate est;
  const int64_t replicas = replica_count > 0 ? replica_count : std::max<int64_t>(1, module.header().replica_count);
  const int64_t partitions =
      partition_count > 0 ? partition_count : std::max<int64_t>(1, module.header().num_partitions);
  est.devices = SatMul(replicas, partitions);
  const Computation* entry = module.entry();
  if (entry == nullptr) return est;

  std::vector<std::pair<int64_t, const Instruction*>> buffers;
  for (const Instruction* p : entry->parameters()) {
    if (p == nullptr) continue;
    const int64_t bytes = StorageBytes(p->shape());
    est.parameter_bytes = SatAdd(est.parameter_bytes, bytes);
    buffers.push_back({bytes, p});
  }
  absl::flat_hash_map<const Computation*, int64_t> memo;
  est.peak_live_bytes = PeakLiveBytes(*entry, &memo, &buffers);
  est.total_bytes = SatAdd(est.parameter_bytes, SatMul(est.peak_live_bytes, est.devices));
  std::stable_sort(buffers.begin(), buffers.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < buffers.size() && i < 5; ++i)
    est.largest.push_back({Describe(*buffers[i].second), buffers[i].first});
  return est;
}

int64_t DefaultMemoryLimit() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  int64_t kib = -1;
  while (in >> key) {
    if (key == "MemAvailable:") {
      in >> kib >> unit;
      break;
    }
    std::getline(in, unit);
  }
  if (kib < 0) return kMax;
  const int64_t available = SatMul(kib, 1024);
  const int64_t margin = std::max<int64_t>(int64_t{1} << 30, available / 20);
  return std::max<int64_t>(available - margin, 0);
}

absl::StatusOr<int64_t> ParseMemoryLimit(const std::string& text) {
  if (text.empty()) return DefaultMemoryLimit();
  std::string number = text, suffix;
  const size_t cut = text.find_first_not_of("0123456789");
  if (cut != std::string::npos) {
    number = text.substr(0, cut);
    suffix = absl::AsciiStrToUpper(text.substr(cut));
  }
  int64_t scale = 1;
  if (suffix.empty() || suffix == "B") scale = 1;
  else if (suffix == "K" || suffix == "KB" || suffix == "KIB") scale = int64_t{1} << 10;
  else if (suffix == "M" || suffix == "MB" || suffix == "MIB") scale = int64_t{1} << 20;
  else if (suffix == "G" || suffix == "GB" || suffix == "GIB") scale = int64_t{1} << 30;
  else if (suffix == "T" || suffix == "TB" || suffix == "TIB") scale = int64_t{1} << 40;
  else scale = 0;
  int64_t n = 0;
  if (number.empty() || scale == 0 || !absl::SimpleAtoi(number, &n) || n < 1)
    return absl::InvalidArgumentError(absl::StrCat(
        "--memory-limit needs a number of bytes >= 1, optionally with a suffix K, M, G or T, got '", text, "'"));
  return SatMul(n, scale);
}

absl::Status CheckMemoryLimit(const Module& module, int64_t limit, int64_t replica_count,
                              int64_t partition_count, const ProcessShare& share) {
  return CheckMemoryLimit(EstimateMemory(module, replica_count, partition_count), limit, share);
}

absl::Status CheckMemoryLimit(const MemoryEstimate& est, int64_t limit, const ProcessShare& share) {
  std::string msg;
  if (share.processes > 1) {
    const int64_t local = est.devices / share.processes;
    const int64_t per_process = SatAdd(est.parameter_bytes, SatMul(local, est.peak_live_bytes));
    const int64_t need = SatMul(share.on_this_host, per_process);
    if (need <= limit) return absl::OkStatus();
    msg = absl::StrCat(
        "the module needs about ", FormatBytes(need), " on host ", share.host, ": ",
        share.on_this_host, " of the ", share.processes, " processes run there, each needing ",
        FormatBytes(per_process), " (parameters ", FormatBytes(est.parameter_bytes),
        " + live values at the peak ", FormatBytes(est.peak_live_bytes), " x ", local,
        " devices of the process), but the memory limit is ", FormatBytes(limit),
        " (--memory-limit; default: the available memory less a margin); run on more hosts "
        "(fewer processes per host); the largest buffers:");
  } else {
    if (est.total_bytes <= limit) return absl::OkStatus();
    msg = absl::StrCat(
        "the module needs about ", FormatBytes(est.total_bytes), " (parameters ",
        FormatBytes(est.parameter_bytes), " + live values at the peak ",
        FormatBytes(est.peak_live_bytes),
        est.devices > 1 ? absl::StrCat(" x ", est.devices, " devices") : std::string(),
        ") but the memory limit is ", FormatBytes(limit),
        " (--memory-limit; default: the available memory less a margin); the largest buffers:");
  }
  for (const BufferEstimate& b : est.largest) absl::StrAppend(&msg, "\n  ", FormatBytes(b.bytes), "  ", b.instruction);
  return absl::ResourceExhaustedError(msg);
}

}  // namespace hlo::cpu
