#include "proto/proto_io.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "proto/hlo.pb.h"
#include "proto/module_proto.h"
#include "proto/shape_literal_proto.h"

namespace hlo::proto {
namespace {

// Keeps the first error of protobuf's text parser (with its position).
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (text_.empty()) text_ = absl::StrCat(line + 1, ":", column + 1, ": ", message);
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// Protobuf logs some problems (a string field that is not UTF-8) to
// stderr itself; the tools report errors their own way.
void SilenceProtobufLog() {
  static const bool once = [] {
    google::protobuf::SetLogHandler(nullptr);
    return true;
  }();
  (void)once;
}

template <typename Message>
absl::Status ParseMessage(const std::string& bytes, bool text_form, absl::string_view filename, Message* out) {
  SilenceProtobufLog();
  const std::string kind = Message::descriptor()->full_name();
  if (text_form) {
    google::protobuf::TextFormat::Parser parser;
    FirstError errors;
    parser.RecordErrorsTo(&errors);
    if (!parser.ParseFromString(bytes, out))
      return absl::InvalidArgumentError(
          absl::StrCat(filename, ":", errors.text().empty() ? " " : errors.text(), " (not a text-format ", kind, ")"));
    return absl::OkStatus();
  }
  if (!out->ParseFromString(bytes))
    return absl::InvalidArgumentError(absl::StrCat(filename, ": not a binary ", kind, " (corrupt or another message)"));
  return absl::OkStatus();
}

absl::Status Prefixed(absl::string_view filename, const absl::Status& st) {
  return absl::Status(st.code(), absl::StrCat(filename, ": ", st.message()));
}

}  // namespace

bool Available() { return true; }

absl::StatusOr<DecodedInput> DecodeInput(const std::string& bytes, InputFormat format, absl::string_view filename) {
  DecodedInput out;
  if (format == InputFormat::kText) {
    out.hlo_text = bytes;
    return out;
  }
  const bool text_form = format == InputFormat::kProtoText || format == InputFormat::kSnapshotText;
  const xla::HloModuleProto* module = nullptr;
  xla::HloModuleProto module_proto;
  xla::HloSnapshot snapshot;
  if (format == InputFormat::kSnapshot || format == InputFormat::kSnapshotText) {
    if (absl::Status st = ParseMessage(bytes, text_form, filename, &snapshot); !st.ok()) return st;
    if (!snapshot.has_hlo() || !snapshot.hlo().has_hlo_module())
      return absl::InvalidArgumentError(absl::StrCat(filename, ": the HloSnapshot holds no module (hlo.hlo_module)"));
    module = &snapshot.hlo().hlo_module();
    out.is_snapshot = true;
    for (int i = 0; i < snapshot.arguments_size(); ++i) {
      absl::StatusOr<Literal> arg = LiteralFromProto(snapshot.arguments(i), absl::StrCat("argument ", i));
      if (!arg.ok()) return Prefixed(filename, arg.status());
      out.arguments.push_back(*std::move(arg));
    }
  } else {
    if (absl::Status st = ParseMessage(bytes, text_form, filename, &module_proto); !st.ok()) return st;
    module = &module_proto;
  }
  absl::StatusOr<std::string> text = ModuleProtoToText(*module, {}, &out.warnings);
  for (std::string& w : out.warnings) w = absl::StrCat(filename, ": ", w);
  if (!text.ok()) return Prefixed(filename, text.status());
  out.hlo_text = *std::move(text);
  return out;
}

absl::StatusOr<std::string> EncodeModule(const Module& module, absl::string_view emit) {
  SilenceProtobufLog();
  absl::StatusOr<xla::HloModuleProto> proto = ModuleToProto(module);
  if (!proto.ok()) return proto.status();
  std::string out;
  if (emit == "pbtxt") {
    if (!google::protobuf::TextFormat::PrintToString(*proto, &out))
      return absl::InternalError("protobuf could not print the module as text");
  } else if (!proto->SerializeToString(&out)) {
    return absl::InternalError("protobuf could not serialize the module (over 2 GB?)");
  }
  return out;
}

absl::StatusOr<std::string> EncodeSnapshot(const Module& module, const std::vector<Literal>& args) {
  xla::HloSnapshot snapshot;
  absl::StatusOr<xla::HloModuleProto> proto = ModuleToProto(module);
  if (!proto.ok()) return proto.status();
  *snapshot.mutable_hlo()->mutable_hlo_module() = *std::move(proto);
  for (const Literal& a : args)
    if (absl::Status st = LiteralToProto(a, snapshot.add_arguments()); !st.ok()) return st;
  snapshot.set_execution_platform("Host");
  std::string out;
  if (!snapshot.SerializeToString(&out)) return absl::InternalError("protobuf could not serialize the snapshot");
  return out;
}

}  // namespace hlo::proto
