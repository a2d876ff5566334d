// Literals as bytes, for messages between processes (mpi_transport.cc):
// the shape as HLO text (with its layout) and the raw physical storage, so
// the receiver gets a bit-identical literal. Tuples recurse; a default
// (shapeless) literal, which collectives use for "nothing from this
// member", round-trips too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/buffer_allocator.h"
#include "ir/literal.h"

namespace hlo::cpu {

// A message's bytes. The buffer allocator's large blocks (huge pages,
// reused when freed) spare a message of tens of MB the page faults of a
// fresh mapping on every send and receive, which cost more than moving it
// between processes; resize() does not zero-fill.
using WireBuffer = std::vector<char, BufferAllocator<char>>;

// Appends to a message buffer.
class WireWriter {
 public:
  void Int(int64_t v);
  void Bytes(absl::string_view bytes);  // length-prefixed
  void Put(const Literal& lit);
  // Length-prefixed room for `n` bytes the caller fills (a reduction
  // writes its result straight into the message).
  char* Slot(size_t n);
  void Reserve(size_t n) { buffer_.reserve(n); }
  WireBuffer& buffer() { return buffer_; }

 private:
  void Append(const void* data, size_t n);
  WireBuffer buffer_;
};

// Reads a buffer written by WireWriter; every read checks the bounds.
class WireReader {
 public:
  explicit WireReader(absl::string_view buffer) : rest_(buffer) {}
  absl::StatusOr<int64_t> Int();
  absl::StatusOr<std::string> Bytes();
  // Like Bytes, but a view into the buffer (no copy).
  absl::StatusOr<absl::string_view> View();
  absl::StatusOr<Literal> Get();
  bool done() const { return rest_.empty(); }
  size_t left() const { return rest_.size(); }

 private:
  absl::string_view rest_;
};

}  // namespace hlo::cpu
