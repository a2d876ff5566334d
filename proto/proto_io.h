// The tools' entry to protos (docs/protos.md): which format an input is
// in, decoding it into HLO text (+ a snapshot's arguments), encoding a
// module. Free of protobuf types, so the tools build the same whether the
// library was built with protobuf (HLO_WITH_PROTO) or without it (then
// every proto format is an error saying so).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/literal.h"
#include "ir/module.h"

namespace hlo::proto {

// Whether this build reads and writes protos.
bool Available();

enum class InputFormat {
  kText,          // HLO text
  kProto,         // binary HloModuleProto
  kProtoText,     // HloModuleProto in protobuf's text format
  kSnapshot,      // binary HloSnapshot
  kSnapshotText,  // HloSnapshot in protobuf's text format
};

// --format=hlo|text|proto|pb|pbtxt|snapshot|snapshot_pbtxt; an empty flag
// picks by the file name: *.pbtxt / *.textproto is a text proto, *.pb a
// binary one, a snapshot when the name contains "snapshot", else HLO
// text. Errors name the accepted values.
absl::StatusOr<InputFormat> ResolveInputFormat(absl::string_view flag, absl::string_view filename);

struct DecodedInput {
  std::string hlo_text;
  bool is_snapshot = false;
  std::vector<Literal> arguments;  // a snapshot's stored arguments
  // Parts of the proto that were dropped (the tools print them as warnings).
  std::vector<std::string> warnings;
};

// A proto input as HLO text. Errors start with `filename: `.
absl::StatusOr<DecodedInput> DecodeInput(const std::string& bytes, InputFormat format, absl::string_view filename);

enum class OutputFormat { kText, kProto, kProtoText };

// --emit values handled here: proto (binary HloModuleProto), pbtxt (text).
bool IsProtoEmit(absl::string_view emit);
absl::StatusOr<std::string> EncodeModule(const Module& module, absl::string_view emit);

// An HloSnapshot of the module and the arguments it runs with (binary).
absl::StatusOr<std::string> EncodeSnapshot(const Module& module, const std::vector<Literal>& args);

// Checks a snapshot's arguments against the entry's parameters (count and
// shapes, layouts aside).
absl::Status CheckArguments(const Module& module, const std::vector<Literal>& args);

}  // namespace hlo::proto
