// Protos: text -> proto -> text is the identity (corpus and testdata
// modules, binary and text proto), XLA's typed fields alone carry the
// common modules, literals and snapshots round-trip, and corrupt or
// foreign bytes are errors.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "proto/hlo.pb.h"
#include "proto/module_proto.h"
#include "proto/proto_io.h"
#include "proto/shape_literal_proto.h"
#include "proto/typed_fields.h"

namespace hlo::proto {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Parses `text`, writes it as a proto (binary, or text form), reads that
// back: the printed modules must be equal.
void ExpectRoundTrip(const std::string& text, const std::string& name, bool text_form) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  ASSERT_TRUE(m.ok()) << name << ": " << m.status();
  const std::string before = PrintModule(**m);
  absl::StatusOr<std::string> bytes = EncodeModule(**m, text_form ? "pbtxt" : "proto");
  ASSERT_TRUE(bytes.ok()) << name << ": " << bytes.status();
  absl::StatusOr<DecodedInput> decoded =
      DecodeInput(*bytes, text_form ? InputFormat::kProtoText : InputFormat::kProto, name);
  ASSERT_TRUE(decoded.ok()) << name << ": " << decoded.status();
  absl::StatusOr<std::unique_ptr<Module>> back = ParseModule(decoded->hlo_text);
  ASSERT_TRUE(back.ok()) << name << ": " << back.status() << "\n" << decoded->hlo_text;
  EXPECT_EQ(PrintModule(**back), before) << name;
}

std::vector<fs::path> HloFiles(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".hlo") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ProtoRoundTrip, TestdataModules) {
  const fs::path root = fs::path(HLO_SOURCE_DIR) / "testdata";
  int n = 0;
  for (const char* sub : {"parse", "examples"}) {
    for (const fs::path& p : HloFiles(root / sub)) {
      // Lit files may hold several modules or none that parse alone.
      std::string text = ReadFile(p);
      if (text.find("// -----") != std::string::npos || !ParseModule(text).ok()) continue;
      ExpectRoundTrip(text, p.string(), /*text_form=*/false);
      ++n;
    }
  }
  EXPECT_GT(n, 10);
}

// Every valid corpus module (parser/valid, models, passtests), in both the
// binary and the text form of the proto.
TEST(ProtoRoundTrip, CorpusModules) {
  const fs::path corpus = fs::path(HLO_SHARED_DIR) / "corpus";
  if (!fs::is_directory(corpus)) GTEST_SKIP() << "no corpus at " << corpus << " (../shared absent)";
  int n = 0;
  for (const char* sub : {"parser/valid", "models", "passtests"}) {
    for (const fs::path& p : HloFiles(corpus / sub)) {
      const std::string text = ReadFile(p);
      if (!ParseModule(text).ok()) continue;  // the corpus gate tests own those
      ExpectRoundTrip(text, p.string(), /*text_form=*/n % 2 == 1);
      ++n;
    }
  }
  EXPECT_GT(n, 150);
}

// Without our field 1000, XLA's typed fields alone give back the module.
TEST(ProtoTypedFields, CommonModulesSurviveWithoutOurField) {
  const char* kText = R"(HloModule typed, is_scheduled=true

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

%cond (p: (s32[], f32[4])) -> pred[] {
  %p = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %n = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}

%body (p: (s32[], f32[4])) -> (s32[], f32[4]) {
  %p = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %one = s32[] constant(1)
  %j = s32[] add(%i, %one)
  %v = f32[4]{0} get-tuple-element(%p), index=1
  %w = f32[4]{0} multiply(%v, %v)
  ROOT %t = (s32[], f32[4]{0}) tuple(%j, %w)
}

ENTRY %main (x: f32[2,3], y: f32[3,4], v: f32[4]) -> (f32[2], f32[4], f32[3,2], f32[1,2]) {
  %x = f32[2,3]{1,0} parameter(0)
  %y = f32[3,4]{1,0} parameter(1)
  %v = f32[4]{0} parameter(2)
  %d = f32[2,4]{1,0} dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_type="MatMul" op_name="mm"}
  %z = f32[] constant(0)
  %r = f32[2]{0} reduce(%d, %z), dimensions={1}, to_apply=%add
  %c = s32[] constant(0)
  %t = (s32[], f32[4]{0}) tuple(%c, %v)
  %w = (s32[], f32[4]{0}) while(%t), condition=%cond, body=%body
  %wv = f32[4]{0} get-tuple-element(%w), index=1
  %tr = f32[3,2]{1,0} transpose(%x), dimensions={1,0}
  %sl = f32[1,2]{1,0} slice(%x), slice={[1:2], [0:3:2]}
  ROOT %out = (f32[2]{0}, f32[4]{0}, f32[3,2]{1,0}, f32[1,2]{1,0}) tuple(%r, %wv, %tr, %sl)
}

)";
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(kText);
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<xla::HloModuleProto> p = ModuleToProto(**m);
  ASSERT_TRUE(p.ok()) << p.status();
  FromProtoOptions xla_only;
  xla_only.ignore_toolchain_fields = true;
  absl::StatusOr<std::string> text = ModuleProtoToText(*p, xla_only);
  ASSERT_TRUE(text.ok()) << text.status();
  absl::StatusOr<std::unique_ptr<Module>> back = ParseModule(*text);
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << *text;
  EXPECT_TRUE(VerifyModule(**back).ok());
  EXPECT_EQ(PrintModule(**back), PrintModule(**m));
  // The ids and the while's callees follow XLA's conventions.
  const xla::HloComputationProto& entry = p->computations(p->computations_size() - 1);
  EXPECT_EQ(p->entry_computation_name(), "main");
  EXPECT_EQ(p->entry_computation_id(), entry.id());
  for (const xla::HloInstructionProto& i : entry.instructions()) {
    if (i.opcode() != "while") continue;
    ASSERT_EQ(i.called_computation_ids_size(), 2);
    EXPECT_EQ(p->computations(static_cast<int>(i.called_computation_ids(0))).name(), "body");
  }
}

// XLA packs ids as (computation id << 32 | local id); operands may name
// the local part only. Parameters without `parameter_number` are 0.
TEST(ProtoTypedFields, PackedIdsAndLocalOperandIds) {
  absl::StatusOr<DecodedInput> d = DecodeInput(R"pb(
    name: "packed"
    entry_computation_name: "e"
    computations {
      name: "e"
      id: 3
      root_id: 12884901895
      instructions { name: "a" opcode: "parameter" id: 12884901892
                     shape { element_type: S32 layout { tail_padding_alignment_in_elements: 1 } } }
      instructions { name: "b" opcode: "parameter" parameter_number: 1 id: 12884901890
                     shape { element_type: S32 layout { tail_padding_alignment_in_elements: 1 } } }
      instructions { name: "s" opcode: "subtract" id: 12884901895 operand_ids: 4 operand_ids: 12884901890
                     shape { element_type: S32 } }
    })pb", InputFormat::kProtoText, "packed.pbtxt");
  ASSERT_TRUE(d.ok()) << d.status();
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(d->hlo_text);
  ASSERT_TRUE(m.ok()) << m.status() << "\n" << d->hlo_text;
  EXPECT_THAT(PrintModule(**m), testing::HasSubstr("ROOT %s = s32[] subtract(%a, %b)"));
}

// Quoted HLO text may hold bytes that are not UTF-8; proto3 strings may
// not (protobuf would refuse to read them back): they travel in our field
// and stay out of XLA's. Found by the proto fuzzer.
TEST(ProtoRoundTrip, TextThatIsNotUtf8) {
  const std::string text =
      "HloModule u\n\nENTRY %e (a: f32[]) -> f32[] {\n"
      "  %a = f32[] parameter(0), metadata={op_name=\"\\377x\"}\n"
      "  ROOT %n = f32[] negate(%a), frontend_attributes={k=\"\\300\"}\n}\n\n";
  ExpectRoundTrip(text, "not-utf8", /*text_form=*/false);
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<xla::HloModuleProto> p = ModuleToProto(**m);
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->computations(0).instructions(0).has_metadata());
  EXPECT_EQ(p->computations(0).instructions(1).frontend_attributes().map_size(), 0);
  EXPECT_TRUE(IsUtf8("plain \xc3\xa9"));
  EXPECT_FALSE(IsUtf8("\xc0\xaf"));  // overlong
  EXPECT_FALSE(IsUtf8("\xed\xa0\x80"));  // surrogate
}

TEST(ProtoLiterals, EveryStoredTypeRoundTrips) {
  for (const char* text : {"pred[3] {1, 0, 1}", "s4[2] {-8, 7}", "u8[2] {0, 255}", "s16[2] {-3, 3}",
                           "bf16[2] {1.5, -2}", "f16[2] {0.5, 65504}", "f8e4m3fn[2] {448, -0.25}",
                           "s32[2,2]{0,1} {{1, 2}, {3, 4}}", "u64[1] {18446744073709551615}",
                           "f64[2] {1e-300, -inf}", "c64[1] {(1, -2)}", "c128[1] {(0.5, 3)}",
                           "(f32[], s8[2]) (1.25, {-1, 2})"}) {
    absl::StatusOr<Literal> lit = ParseLiteral(text);
    ASSERT_TRUE(lit.ok()) << text << ": " << lit.status();
    xla::LiteralProto p;
    ASSERT_TRUE(LiteralToProto(*lit, &p).ok()) << text;
    absl::StatusOr<Literal> back = LiteralFromProto(p, "literal");
    ASSERT_TRUE(back.ok()) << text << ": " << back.status();
    EXPECT_EQ(LiteralToString(*back), LiteralToString(*lit)) << text;
  }
  // The layout decides the order of the stored values.
  absl::StatusOr<Literal> col = ParseLiteral("s32[2,2]{0,1} {{1, 2}, {3, 4}}");
  xla::LiteralProto p;
  ASSERT_TRUE(LiteralToProto(*col, &p).ok());
  EXPECT_THAT(p.s32s(), testing::ElementsAre(1, 3, 2, 4));
}

TEST(ProtoLiterals, WrongValueCountsAreErrors) {
  xla::LiteralProto p;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      "shape { element_type: F32 dimensions: 1000000000 dimensions: 1000000000 } f32s: 1", &p));
  absl::StatusOr<Literal> lit = LiteralFromProto(p, "argument 0");
  ASSERT_FALSE(lit.ok());
  EXPECT_THAT(lit.status().message(), testing::HasSubstr("argument 0: f32[1000000000,1000000000]"));
  p.Clear();
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString("shape { element_type: F16 dimensions: 1 } f16s: \"abc\"", &p));
  EXPECT_FALSE(LiteralFromProto(p, "x").ok());
  p.Clear();
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString("shape { element_type: 99 }", &p));
  EXPECT_THAT(LiteralFromProto(p, "x").status().message(), testing::HasSubstr("unknown element type 99"));
}

TEST(ProtoSnapshot, ArgumentsComeBack) {
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModule("HloModule s\nENTRY %e (a: f32[2]) -> f32[2] {\n  %a = f32[2] parameter(0)\n  ROOT %n = f32[2] negate(%a)\n}\n");
  ASSERT_TRUE(m.ok());
  xla::HloSnapshot snap;
  absl::StatusOr<xla::HloModuleProto> mp = ModuleToProto(**m);
  ASSERT_TRUE(mp.ok());
  *snap.mutable_hlo()->mutable_hlo_module() = *mp;
  ASSERT_TRUE(LiteralToProto(*ParseLiteral("f32[2] {1, -2}"), snap.add_arguments()).ok());
  absl::StatusOr<DecodedInput> d = DecodeInput(snap.SerializeAsString(), InputFormat::kSnapshot, "s.pb");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->is_snapshot);
  ASSERT_EQ(d->arguments.size(), 1u);
  EXPECT_EQ(LiteralToString(d->arguments[0]), "f32[2]{0} {1, -2}");
  absl::StatusOr<std::unique_ptr<Module>> back = ParseModule(d->hlo_text);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(CheckArguments(**back, d->arguments).ok());
  EXPECT_FALSE(CheckArguments(**back, {}).ok());
}

TEST(ProtoErrors, CorruptAndForeignInputs) {
  // Not protobuf wire format at all.
  absl::StatusOr<DecodedInput> d = DecodeInput(std::string("\xff\xff\xff\xff", 4), InputFormat::kProto, "bad.pb");
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), testing::HasSubstr("bad.pb: not a binary xla.HloModuleProto"));
  // A valid message of another kind: no computations.
  xla::ShapeProto shape;
  shape.set_element_type(xla::F32);
  d = DecodeInput(shape.SerializeAsString(), InputFormat::kProto, "shape.pb");
  ASSERT_FALSE(d.ok());
  // Text form with a syntax error names the position.
  d = DecodeInput("name: \"m\" computations {", InputFormat::kProtoText, "m.pbtxt");
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), testing::HasSubstr("m.pbtxt:1:"));
  // Dangling operand ids and unknown opcodes.
  d = DecodeInput(R"pb(name: "m" computations { name: "e" id: 1 root_id: 2
      instructions { name: "x" opcode: "negate" id: 2 operand_ids: 7 shape { element_type: F32 } } })pb",
                  InputFormat::kProtoText, "m.pbtxt");
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), testing::HasSubstr("operand id 7"));
  d = DecodeInput(R"pb(name: "m" computations { name: "e" id: 1 root_id: 2
      instructions { name: "x" opcode: "frobnicate" id: 2 shape { element_type: F32 } } })pb",
                  InputFormat::kProtoText, "m.pbtxt");
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), testing::HasSubstr("unknown opcode 'frobnicate'"));
  // A name that would change the text's meaning.
  d = DecodeInput(R"pb(name: "m" computations { name: "e" id: 1 root_id: 2
      instructions { name: "x = f32[] parameter(0)" opcode: "parameter" id: 2 shape { element_type: F32 } } })pb",
                  InputFormat::kProtoText, "m.pbtxt");
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), testing::HasSubstr("invalid instruction name"));
}

TEST(ProtoFormats, ChosenByFlagOrName) {
  EXPECT_EQ(*ResolveInputFormat("", "a.hlo"), InputFormat::kText);
  EXPECT_EQ(*ResolveInputFormat("", "a.pb"), InputFormat::kProto);
  EXPECT_EQ(*ResolveInputFormat("", "a.pbtxt"), InputFormat::kProtoText);
  EXPECT_EQ(*ResolveInputFormat("", "module.snapshot.pb"), InputFormat::kSnapshot);
  EXPECT_EQ(*ResolveInputFormat("snapshot", "x"), InputFormat::kSnapshot);
  EXPECT_EQ(*ResolveInputFormat("proto", "x.hlo"), InputFormat::kProto);
  EXPECT_FALSE(ResolveInputFormat("json", "x").ok());
}

}  // namespace
}  // namespace hlo::proto
