// An all-reduce whose group spans several processes, computed by the
// processes together: a reduce-scatter by slices, then an all-gather.
//
// The G processes of the group split every operand into G slices of
// elements; the k-th process (in process order) reduces slice k. Each
// process sends every other one its members' contributions to that one's
// slice, the owner combines all contributions of its slice in group order
// (exactly as one process would combine whole arrays, so the bits are the
// same whatever the split), and sends the reduced slice to every other
// process. Each process thus sends and receives about 2 (G - 1) / G of the
// array per member it holds, as a ring all-reduce would, instead of every
// member's whole array.
//
// A process whose members are the first positions of the group sends one
// slice already combined (the order is kept: the fold starts with them).
// Others send one slice per member: combining them early would change the
// order of the floating-point fold.
//
// Slices travel in pieces of about 4 MB, so that the owner reduces one
// piece while the next is on its way and sends each reduced piece back at
// once: the copies and the reduction overlap the transfers.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backend_cpu/collective_wait.h"
#include "backend_cpu/collectives.h"
#include "backend_cpu/transport.h"

namespace hlo::cpu {
namespace {

// Operand `i` of a packed contribution (a tuple when there are several).
const Literal& OperandOf(const Literal& packed, size_t i, size_t n) {
  return n == 1 ? packed : packed.tuple_elements()[i];
}

absl::Status Corrupt(const Instruction& instr, absl::string_view what) {
  return absl::DataLossError(absl::StrCat("collective %", instr.name(), ": ", what,
                                          " (do all processes run the same module?)"));
}

// Slices travel in pieces of about this size (at most kMaxPieces).
constexpr int64_t kPieceBytes = int64_t{4} << 20;
constexpr int64_t kMaxPieces = 64;

// One entry of a slice: the combination of group positions [begin, end)
// (several only when they start the group), one view per operand.
struct Entry {
  int64_t begin = 0;
  int64_t end = 0;
  std::vector<const uint8_t*> operands;
};

// Storage for aligned copies of message bytes.
using AlignedCopies = std::vector<std::unique_ptr<std::max_align_t[]>>;

bool IsAligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % alignof(std::max_align_t) == 0;
}

// `bytes` bytes of new aligned storage (unset), held by `keep`.
uint8_t* NewAligned(size_t bytes, AlignedCopies* keep) {
  const size_t words = (bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
  keep->emplace_back(new std::max_align_t[std::max<size_t>(words, 1)]);
  return reinterpret_cast<uint8_t*>(keep->back().get());
}

// `data` itself when aligned, else an aligned copy held by `keep`.
const uint8_t* Aligned(const uint8_t* data, size_t bytes, AlignedCopies* keep) {
  if (IsAligned(data)) return data;
  uint8_t* copy = NewAligned(bytes, keep);
  if (bytes > 0) std::memcpy(copy, data, bytes);
  return copy;
}

}  // namespace

// A reader of the payload of `part`.
WireReader CollectiveHub::PayloadOf(const Part& part) {
  return WireReader(
      absl::string_view(part.message.data(), part.message.size()).substr(part.payload));
}

absl::StatusOr<std::vector<CollectiveHub::Part>> CollectiveHub::TakeParts(
    const Instruction& instr, absl::Span<const int64_t> group, const std::string& key,
    int64_t execution, int64_t phase, const std::vector<int>& from) {
  std::unique_lock<std::mutex> lock(mu_);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(timeout_seconds_));
  while (true) {
    if (!aborted_.ok()) return aborted_;
    std::vector<int> missing;
    for (int p : from)
      if (parts_.count(PartKey{key, execution, group[0], p, phase}) == 0) missing.push_back(p);
    if (missing.empty()) break;
    std::cv_status waited;
    {
      ScopedCollectiveWait timed;  // the other processes' parts: waiting (profile)
      waited = cv_.wait_until(lock, deadline);
    }
    if (waited != std::cv_status::timeout) continue;
    std::vector<int64_t> devices;
    for (int64_t d : group)
      if (std::find(missing.begin(), missing.end(), ProcessOf(d)) != missing.end())
        devices.push_back(d);
    if (devices.empty()) continue;  // unreachable: a missing process has members
    aborted_ = absl::DeadlineExceededError(absl::StrCat(
        "collective %", instr.name(), " timed out waiting for devices ",
        absl::StrJoin(devices, ", "), " after ", timeout_seconds_, " s (execution ", execution,
        " of the all-reduce; a device that never reaches it, or executes it fewer times, "
        "deadlocks the run; --collective-timeout sets the limit)"));
    cv_.notify_all();
    return aborted_;
  }
  std::vector<Part> parts;
  for (int p : from) {
    auto it = parts_.find(PartKey{key, execution, group[0], p, phase});
    parts.push_back(std::move(it->second));
    parts_.erase(it);
  }
  return parts;
}

absl::StatusOr<Literal> CollectiveHub::ReduceAcrossProcesses(const Instruction& instr,
                                                             const Rendezvous& r,
                                                             absl::Span<const int64_t> group,
                                                             const std::string& key,
                                                             int64_t execution,
                                                             const Sliced& sliced) {
  const int me = transport_->process();
  std::vector<int> processes = r.remote_processes;
  processes.push_back(me);
  std::sort(processes.begin(), processes.end());
  const int64_t slices = static_cast<int64_t>(processes.size());
  const int64_t mine = std::find(processes.begin(), processes.end(), me) - processes.begin();
  const size_t n = sliced.shapes.size();
  const int64_t members = static_cast<int64_t>(group.size());

  // This process's members, in group order, and whether they start it.
  std::vector<int64_t> local;
  for (int64_t i = 0; i < members; ++i)
    if (ProcessOf(group[i]) == me) local.push_back(i);
  const bool prefix = local.size() > 1 && local.back() == static_cast<int64_t>(local.size()) - 1;

  std::vector<int64_t> counts(n);
  std::vector<int64_t> element_bytes(n);
  for (size_t i = 0; i < n; ++i) {
    element_bytes[i] = PrimitiveTypeByteSize(sliced.shapes[i].element_type());
    counts[i] = OperandOf(r.values[local[0]], i, n).physical_count();
    for (int64_t pos : local)
      if (OperandOf(r.values[pos], i, n).physical_count() != counts[i])
        return absl::InternalError(
            absl::StrCat("collective %", instr.name(), ": members' operands differ in size"));
  }
  auto slice_begin = [&](size_t i, int64_t s) { return counts[i] * s / slices; };
  auto slice_count = [&](size_t i, int64_t s) {
    return slice_begin(i, s + 1) - slice_begin(i, s);
  };
  // Each slice travels in pieces of about kPieceBytes, so that the owner
  // reduces one piece while the next is on its way (and the reduced piece
  // goes back while it reduces the next). Every process computes the same
  // number from the shapes.
  std::vector<int64_t> pieces(slices);
  int64_t most_pieces = 1;
  for (int64_t s = 0; s < slices; ++s) {
    int64_t bytes = 0;
    for (size_t i = 0; i < n; ++i) bytes += slice_count(i, s) * element_bytes[i];
    pieces[s] = std::clamp<int64_t>(bytes / kPieceBytes, 1, kMaxPieces);
    most_pieces = std::max(most_pieces, pieces[s]);
  }
  // Piece j of slice s of operand i: its first element and its count.
  auto piece_begin = [&](size_t i, int64_t s, int64_t j) {
    return slice_begin(i, s) + slice_count(i, s) * j / pieces[s];
  };
  auto piece_count = [&](size_t i, int64_t s, int64_t j) {
    return piece_begin(i, s, j + 1) - piece_begin(i, s, j);
  };
  auto at = [&](int64_t pos, size_t i, int64_t s, int64_t j) {
    return OperandOf(r.values[pos], i, n).data() + piece_begin(i, s, j) * element_bytes[i];
  };

  // Piece j of slice `s` of every operand from a message of process `from`.
  // Views into a message start at any byte; the typed reduction kernels
  // need aligned elements, so with `keep` a misaligned view is copied into
  // aligned storage that `keep` holds.
  auto read_piece = [&](WireReader& reader, int64_t s, int64_t j, int from,
                        AlignedCopies* keep) -> absl::StatusOr<std::vector<const uint8_t*>> {
    std::vector<const uint8_t*> out;
    for (size_t i = 0; i < n; ++i) {
      absl::StatusOr<absl::string_view> bytes = reader.View();
      if (!bytes.ok() ||
          static_cast<int64_t>(bytes->size()) != piece_count(i, s, j) * element_bytes[i])
        return Corrupt(instr, absl::StrCat("a slice from process ", from, " has the wrong size"));
      const uint8_t* data = reinterpret_cast<const uint8_t*>(bytes->data());
      out.push_back(keep != nullptr ? Aligned(data, bytes->size(), keep) : data);
    }
    return out;
  };

  // Phase 0 (message phase 2j for piece j): every other owner gets this
  // process's contributions to its slice, first pieces first.
  auto send_piece = [&](int64_t s, int64_t j) {
    absl::Status status;
    transport_->SendReducePart(
        run_, processes[s], key, execution, group[0], 2 * j, [&](WireWriter& w) {
          size_t bytes = 64;
          for (size_t i = 0; i < n; ++i)
            bytes += (prefix ? 1 : local.size()) * (piece_count(i, s, j) * element_bytes[i] + 8);
          w.Reserve(w.buffer().size() + bytes + 24 * local.size());
          if (prefix) {
            w.Int(1);
            w.Int(0);
            w.Int(static_cast<int64_t>(local.size()));
            for (size_t i = 0; i < n && status.ok(); ++i) {
              std::vector<const uint8_t*> inputs;
              for (int64_t pos : local) inputs.push_back(at(pos, i, s, j));
              const int64_t count = piece_count(i, s, j);
              const size_t bytes = static_cast<size_t>(count * element_bytes[i]);
              uint8_t* out = reinterpret_cast<uint8_t*>(w.Slot(bytes));
              if (IsAligned(out)) {
                status = sliced.reduce(i, inputs, count, out);
              } else {  // the kernel writes aligned storage, copied in after
                AlignedCopies tmp;
                uint8_t* staged = NewAligned(bytes, &tmp);
                status = sliced.reduce(i, inputs, count, staged);
                if (bytes > 0) std::memcpy(out, staged, bytes);
              }
            }
            return;
          }
          w.Int(static_cast<int64_t>(local.size()));
          for (int64_t pos : local) {
            w.Int(pos);
            w.Int(pos + 1);
            for (size_t i = 0; i < n; ++i)
              w.Bytes(absl::string_view(reinterpret_cast<const char*>(at(pos, i, s, j)),
                                        piece_count(i, s, j) * element_bytes[i]));
          }
        });
    return status;
  };
  for (int64_t j = 0; j < most_pieces; ++j) {
    for (int64_t s = 0; s < slices; ++s) {
      if (s == mine || j >= pieces[s]) continue;
      if (absl::Status st = send_piece(s, j); !st.ok()) return st;
    }
  }

  // This process's slice, piece by piece: all contributions in group
  // order, reduced, and sent back at once.
  std::vector<int> others;
  for (int p : processes)
    if (p != me) others.push_back(p);
  std::vector<Literal> results;
  for (size_t i = 0; i < n; ++i) {
    results.push_back(Literal::Uninitialized(sliced.shapes[i]));
    if (static_cast<int64_t>(results.back().size_bytes()) != counts[i] * element_bytes[i])
      return absl::InternalError(
          absl::StrCat("collective %", instr.name(), ": result and operand sizes differ"));
  }
  // Piece j of this process's slice, reduced, into a message.
  auto write_reduced = [&](WireWriter& w, int64_t j) {
    size_t bytes = 0;
    for (size_t i = 0; i < n; ++i) bytes += piece_count(i, mine, j) * element_bytes[i] + 8;
    w.Reserve(w.buffer().size() + bytes);
    for (size_t i = 0; i < n; ++i) {
      const char* data = reinterpret_cast<const char*>(results[i].data());
      w.Bytes(absl::string_view(data + piece_begin(i, mine, j) * element_bytes[i],
                                piece_count(i, mine, j) * element_bytes[i]));
    }
  };
  for (int64_t j = 0; j < pieces[mine]; ++j) {
    absl::StatusOr<std::vector<Part>> parts =
        TakeParts(instr, group, key, execution, 2 * j, others);
    if (!parts.ok()) return parts.status();
    std::vector<Entry> entries;
    AlignedCopies keep;  // aligned copies of misaligned message views
    for (int64_t pos : local) {
      Entry e{pos, pos + 1, {}};
      for (size_t i = 0; i < n; ++i) e.operands.push_back(at(pos, i, mine, j));
      entries.push_back(std::move(e));
    }
    for (size_t k = 0; k < parts->size(); ++k) {
      WireReader reader = PayloadOf((*parts)[k]);
      absl::StatusOr<int64_t> count = reader.Int();
      const std::string unreadable =
          absl::StrCat("the part from process ", others[k], " is unreadable");
      if (!count.ok() || *count < 0 || *count > members) return Corrupt(instr, unreadable);
      for (int64_t e = 0; e < *count; ++e) {
        absl::StatusOr<int64_t> begin = reader.Int();
        absl::StatusOr<int64_t> end = reader.Int();
        if (!begin.ok() || !end.ok()) return Corrupt(instr, unreadable);
        absl::StatusOr<std::vector<const uint8_t*>> piece = read_piece(reader, mine, j, others[k], &keep);
        if (!piece.ok()) return piece.status();
        entries.push_back(Entry{*begin, *end, *std::move(piece)});
      }
    }
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
    // The entries must cover the group once, in order; only the first may
    // stand for several members.
    for (size_t e = 0; e < entries.size(); ++e) {
      const int64_t expected = e == 0 ? 0 : entries[e - 1].end;
      if (entries[e].begin != expected || entries[e].end <= entries[e].begin ||
          (e > 0 && entries[e].end != entries[e].begin + 1))
        return Corrupt(instr, "the processes' parts do not cover the group once, in order");
    }
    if (entries.empty() || entries.back().end != members)
      return Corrupt(instr, "the processes' parts do not cover the group");
    for (size_t i = 0; i < n; ++i) {
      std::vector<const uint8_t*> inputs;
      for (const Entry& e : entries) inputs.push_back(e.operands[i]);
      uint8_t* out = results[i].data() + piece_begin(i, mine, j) * element_bytes[i];
      if (absl::Status st = sliced.reduce(i, inputs, piece_count(i, mine, j), out); !st.ok())
        return st;
    }
    // Phase 1 (message phase 2j + 1): the reduced piece to every other process.
    for (int p : others)
      transport_->SendReducePart(run_, p, key, execution, group[0], 2 * j + 1,
                                 [&](WireWriter& w) { write_reduced(w, j); });
  }

  // The other slices' reduced pieces into place.
  for (int64_t s = 0; s < slices; ++s) {
    if (s == mine) continue;
    for (int64_t j = 0; j < pieces[s]; ++j) {
      absl::StatusOr<std::vector<Part>> parts =
          TakeParts(instr, group, key, execution, 2 * j + 1, {processes[s]});
      if (!parts.ok()) return parts.status();
      WireReader reader = PayloadOf((*parts)[0]);
      absl::StatusOr<std::vector<const uint8_t*>> piece =
          read_piece(reader, s, j, processes[s], /*keep=*/nullptr);  // only copied
      if (!piece.ok()) return piece.status();
      for (size_t i = 0; i < n; ++i)
        if (piece_count(i, s, j) > 0)
          std::memcpy(results[i].data() + piece_begin(i, s, j) * element_bytes[i], (*piece)[i],
                      static_cast<size_t>(piece_count(i, s, j) * element_bytes[i]));
    }
  }
  if (n == 1 && !sliced.tuple) return std::move(results[0]);
  return Literal::MakeTuple(std::move(results));
}

}  // namespace hlo::cpu
