// proto_io.h without protobuf (HLO_WITH_PROTO=OFF): every proto format is
// an error that says how to get it.
#include "absl/strings/str_cat.h"
#include "proto/proto_io.h"

namespace hlo::proto {
namespace {
absl::Status NotBuilt() {
  return absl::UnimplementedError(
      "this build has no protobuf support (install libprotobuf-dev and protobuf-compiler, "
      "then reconfigure with -DHLO_WITH_PROTO=ON)");
}
}  // namespace

bool Available() { return false; }

absl::StatusOr<DecodedInput> DecodeInput(const std::string& bytes, InputFormat format, absl::string_view filename) {
  if (format == InputFormat::kText) return DecodedInput{bytes, false, {}};
  absl::Status st = NotBuilt();
  return absl::Status(st.code(), absl::StrCat(filename, ": ", st.message()));
}

absl::StatusOr<std::string> EncodeModule(const Module&, absl::string_view) { return NotBuilt(); }

absl::StatusOr<std::string> EncodeSnapshot(const Module&, const std::vector<Literal>&) { return NotBuilt(); }

}  // namespace hlo::proto
