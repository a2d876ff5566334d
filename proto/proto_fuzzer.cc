// libFuzzer entry point for the proto readers (docs/protos.md).
//
// Every input is tried as a binary HloModuleProto, a binary HloSnapshot
// and a text-format HloModuleProto. Rejecting it is fine; crashing,
// hanging or a sanitizer report is a bug. For whatever decodes and parses,
// one property is checked (a violation traps, so libFuzzer keeps the
// input): writing the module as a proto and reading that back gives the
// same printed module. Every binary HloModuleProto is also read through
// XLA's typed fields alone (as a proto XLA wrote is read), so the seeds,
// written here with both, fuzz the typed readers too (sharding, mesh,
// original-value, sparsity and slice-size fields among them).
//
// Build: cmake -DHLO_BUILD_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-14;
// scripts/test.sh runs it seeded with protos of the test modules.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "proto/hlo.pb.h"
#include "proto/module_proto.h"
#include "proto/proto_io.h"

namespace {

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  fprintf(stderr, "proto_fuzzer: %s\n%s\n", what, detail.c_str());
  fflush(stderr);
  __builtin_trap();
}

void Check(const std::string& bytes, hlo::proto::InputFormat format) {
  absl::StatusOr<hlo::proto::DecodedInput> decoded = hlo::proto::DecodeInput(bytes, format, "<fuzz>");
  if (!decoded.ok()) return;
  absl::StatusOr<std::unique_ptr<hlo::Module>> module = hlo::ParseModule(decoded->hlo_text);
  if (!module.ok()) return;
  (void)hlo::VerifyModule(**module);
  if (decoded->is_snapshot) (void)hlo::proto::CheckArguments(**module, decoded->arguments);
  const std::string p1 = hlo::PrintModule(**module);
  absl::StatusOr<std::string> again = hlo::proto::EncodeModule(**module, "proto");
  if (!again.ok()) return;  // e.g. a layout protos cannot hold
  absl::StatusOr<hlo::proto::DecodedInput> redecoded =
      hlo::proto::DecodeInput(*again, hlo::proto::InputFormat::kProto, "<fuzz-again>");
  if (!redecoded.ok()) Fail("a written proto does not read back", std::string(redecoded.status().message()));
  absl::StatusOr<std::unique_ptr<hlo::Module>> reparsed = hlo::ParseModule(redecoded->hlo_text);
  if (!reparsed.ok()) Fail("a written proto's text does not parse", std::string(reparsed.status().message()));
  const std::string p2 = hlo::PrintModule(**reparsed);
  if (p1 != p2) Fail("text -> proto -> text changed the module", p1 + "\n--- became ---\n" + p2);
}

void CheckTypedFieldsOnly(const std::string& bytes) {
  xla::HloModuleProto proto;
  if (!proto.ParseFromString(bytes)) return;
  hlo::proto::FromProtoOptions xla_only;
  xla_only.ignore_toolchain_fields = true;
  absl::StatusOr<std::string> text = hlo::proto::ModuleProtoToText(proto, xla_only);
  if (!text.ok()) return;
  absl::StatusOr<std::unique_ptr<hlo::Module>> module = hlo::ParseModule(*text);
  if (module.ok()) (void)hlo::VerifyModule(**module);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  Check(bytes, hlo::proto::InputFormat::kProto);
  Check(bytes, hlo::proto::InputFormat::kSnapshot);
  Check(bytes, hlo::proto::InputFormat::kProtoText);
  CheckTypedFieldsOnly(bytes);
  return 0;
}
