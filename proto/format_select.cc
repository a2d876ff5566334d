// ResolveInputFormat, IsProtoEmit and CheckArguments: shared by the
// protobuf build and the stub (they need no protobuf).
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ir/printer.h"
#include "proto/proto_io.h"

namespace hlo::proto {

absl::StatusOr<InputFormat> ResolveInputFormat(absl::string_view flag, absl::string_view filename) {
  if (flag == "hlo" || flag == "text") return InputFormat::kText;
  if (flag == "proto" || flag == "pb") return InputFormat::kProto;
  if (flag == "pbtxt") return InputFormat::kProtoText;
  if (flag == "snapshot") {
    return absl::EndsWith(filename, ".pbtxt") || absl::EndsWith(filename, ".textproto") ? InputFormat::kSnapshotText
                                                                                      : InputFormat::kSnapshot;
  }
  if (flag == "snapshot_pbtxt") return InputFormat::kSnapshotText;
  if (!flag.empty())
    return absl::InvalidArgumentError(absl::StrCat("unknown --format='", flag,
                                                   "' (expected hlo, proto, pbtxt, snapshot or snapshot_pbtxt)"));
  const bool snapshot = absl::StrContains(filename, "snapshot");
  if (absl::EndsWith(filename, ".pbtxt") || absl::EndsWith(filename, ".textproto"))
    return snapshot ? InputFormat::kSnapshotText : InputFormat::kProtoText;
  if (absl::EndsWith(filename, ".pb")) return snapshot ? InputFormat::kSnapshot : InputFormat::kProto;
  return InputFormat::kText;
}

bool IsProtoEmit(absl::string_view emit) { return emit == "proto" || emit == "pbtxt"; }

absl::Status CheckArguments(const Module& module, const std::vector<Literal>& args) {
  const Computation* entry = module.entry();
  if (entry == nullptr) return absl::InvalidArgumentError("the module has no entry computation");
  if (static_cast<int64_t>(args.size()) != entry->num_parameters())
    return absl::InvalidArgumentError(absl::StrCat("the snapshot holds ", args.size(), " argument",
                                                   args.size() == 1 ? "" : "s", ", the entry computation has ",
                                                   entry->num_parameters(), " parameter",
                                                   entry->num_parameters() == 1 ? "" : "s"));
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    if (!args[i].shape().Compatible(entry->parameter(i)->shape()))
      return absl::InvalidArgumentError(absl::StrCat("snapshot argument ", i, " is ",
                                                     ShapeToString(args[i].shape(), false), ", parameter ", i,
                                                     " is ", ShapeToString(entry->parameter(i)->shape(), false)));
  }
  return absl::OkStatus();
}

}  // namespace hlo::proto
