// A module to and from XLA's HloModuleProto (proto/hlo.proto,
// docs/protos.md).
//
// Writing fills XLA's typed fields (ids, operands, shapes, literals,
// called computations, the common attributes) and, in our field 1000, the
// attributes as text, so that reading our own protos back gives exactly the
// module that was written. Reading a proto turns it into HLO text, which
// the text parser then checks and builds: every rule of the parser and
// verifier holds for protos too, and a corrupt proto is an error, not a
// crash.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/module.h"
#include "proto/hlo.pb.h"

namespace hlo::proto {

absl::StatusOr<xla::HloModuleProto> ModuleToProto(const Module& module);

struct FromProtoOptions {
  // Use only XLA's fields, ignoring our field 1000 (how a proto written by
  // XLA is read; tests use it to check the typed fields alone).
  bool ignore_toolchain_fields = false;
};

// The module as HLO text (what the parser will read). Fields of the module
// that HLO text has no form for (the SPMD shardings, cross-program
// prefetches, the device assignment, the original-value recovery table) are
// dropped, each with a warning naming it in `warnings` (when given).
absl::StatusOr<std::string> ModuleProtoToText(const xla::HloModuleProto& proto,
                                              const FromProtoOptions& options = {},
                                              std::vector<std::string>* warnings = nullptr);

}  // namespace hlo::proto
