// XLA's typed fields alone (our field 1000 ignored, as when XLA wrote the
// proto) give back every module of testdata/parse, except the few whose
// attributes have no XLA field here (listed with the reason); and each
// option field of option_fields.h round-trips on its own.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "parser/parser.h"
#include "proto/hlo.pb.h"
#include "proto/module_proto.h"
#include "proto/proto_io.h"

namespace hlo::proto {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<xla::HloModuleProto> ProtoOf(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  if (!m.ok()) return m.status();
  return ModuleToProto(**m);
}

// text -> proto -> text through the typed fields only.
absl::StatusOr<std::string> TypedOnlyText(const std::string& text) {
  absl::StatusOr<xla::HloModuleProto> p = ProtoOf(text);
  if (!p.ok()) return p.status();
  FromProtoOptions xla_only;
  xla_only.ignore_toolchain_fields = true;
  return ModuleProtoToText(*p, xla_only);
}

// "" when the module comes back identical, else what differs.
std::string TypedOnlyDifference(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  if (!m.ok()) return absl::StrCat("parse: ", m.status().message());
  absl::StatusOr<std::string> back_text = TypedOnlyText(text);
  if (!back_text.ok()) return absl::StrCat("through the proto: ", back_text.status().message());
  absl::StatusOr<std::unique_ptr<Module>> back = ParseModule(*back_text);
  if (!back.ok()) return absl::StrCat("reparse: ", back.status().message(), "\n", *back_text);
  // The header's replica/partition counts, layouts of the entry and the
  // like are XLA's HloModuleConfig, not in the proto: computations only.
  std::string want = PrintModule(**m), got = PrintModule(**back);
  want = want.substr(want.find('\n'));
  got = got.substr(got.find('\n'));
  std::istringstream w(want), g(got);
  for (std::string wl, gl; std::getline(w, wl);) {
    if (!std::getline(g, gl)) return absl::StrCat("missing: ", wl);
    if (wl != gl) return absl::StrCat("want: ", wl, "\n got: ", gl);
  }
  return "";
}

// What XLA's proto has no field for (docs/protos.md): our `{...}`
// constants; and mesh axis names written bare, which come back quoted as
// XLA prints them (EachOptionFieldRoundTrips has the quoted form).
const char* const kNotMapped[] = {"constants.hlo", "replica_groups_mesh.hlo"};

TEST(ProtoOptionFields, TestdataParseModulesSurviveTypedFieldsAlone) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(fs::path(HLO_SOURCE_DIR) / "testdata/parse")) {
    if (e.path().extension() != ".hlo") continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    if (text.find("// -----") != std::string::npos || !ParseModule(text).ok()) continue;
    if (std::find(std::begin(kNotMapped), std::end(kNotMapped), e.path().filename()) != std::end(kNotMapped)) {
      EXPECT_NE(TypedOnlyDifference(text), "") << e.path().filename() << " is mapped now: drop it from kNotMapped";
      continue;
    }
    const std::string diff = TypedOnlyDifference(text);
    EXPECT_EQ(diff, "") << "in " << e.path().filename();
    ++n;
  }
  EXPECT_GT(n, 10);
}

// The option fields testdata/parse does not exercise, one instruction each.
TEST(ProtoOptionFields, EachOptionFieldRoundTrips) {
  const char* kText = R"(HloModule options, buffer_donor={ (1, {}) }, frontend_attributes={fa="1",fb={k=2}}

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %main (x: f32[8,4], y: f32[8,4]) -> (f32[8,4], f32[8,4], f32[8,4], f32[8,4], f32[8,4], /*index=5*/f32[8,4], f32[8]) {
  %x = f32[8,4]{1,0} parameter(0), sharding={devices=[2,2,2]<=[2,4]T(1,0) last_tile_dims={manual}}
  %y = f32[8,4]{1,0} parameter(1), sharding={devices=[2,1,2]0,2,1,3 last_tile_dim_replicate shard_as 3}
  %n = f32[8,4]{1,0} negate(%x), sharding={manual}
  %u = f32[8,4]{1,0} abs(%y), sharding={unknown shard_like 2}
  %m = f32[8,4]{1,0} add(%n, %u), sharding={replicated metadata={op_name="m"}}
  %ar0 = f32[8,4]{1,0} all-reduce(%m), replica_groups=mesh['a'=2,'b'=4] {'b':(2)2}, to_apply=%add
  %ar = f32[8,4]{1,0} all-reduce(%ar0), replica_groups={}, constrain_layout=true, to_apply=%add
  %cc = f32[8,4]{1,0} custom-call(%ar), custom_call_target="t", schedule=SCHEDULE_LATEST, padding_type=PADDING_SAME
  %lo = f32[] constant(0)
  %hi = f32[] constant(1)
  %r = f32[8]{0} rng(%lo, %hi), distribution=rng_normal
  %d = f32[8,4]{1,0} dot(%cc, %y), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={0}, rhs_contracting_dims={1}, operand_precision={high,highest}
  ROOT %t = (f32[8,4]{1,0}, f32[8,4]{1,0}, f32[8,4]{1,0}, f32[8,4]{1,0}, f32[8,4]{1,0}, /*index=5*/f32[8,4]{1,0}, f32[8]{0}) tuple(%x, %y, %n, %u, %ar, /*index=5*/%cc, %r)
}

)";
  EXPECT_EQ(TypedOnlyDifference(kText), "");
  // The module's buffer donors and frontend attributes are XLA's fields too.
  absl::StatusOr<std::string> back = TypedOnlyText(kText);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_THAT(*back, testing::HasSubstr("buffer_donor={ (1, {}) }, frontend_attributes={fa=\"1\",fb={k=2}}"));
}

// Values a proto can hold and the text cannot are errors, not guesses.
TEST(ProtoOptionFields, BadEnumValuesAndShardingsAreErrors) {
  for (const char* field : {"sharding { type: MAXIMAL }", "sharding { type: 9 }",
                            "precision_config { operand_precision: 7 }", "custom_call_api_version: 12"}) {
    xla::HloModuleProto p;
    auto* c = p.add_computations();
    c->set_name("e");
    c->set_root_id(1);
    auto* i = c->add_instructions();
    i->set_name("x");
    i->set_opcode("custom-call");
    i->set_id(1);
    i->set_custom_call_target("t");
    i->mutable_shape()->set_element_type(xla::F32);
    p.set_name("bad");
    ASSERT_TRUE(google::protobuf::TextFormat::MergeFromString(field, i)) << field;
    absl::StatusOr<std::string> text = ModuleProtoToText(p);
    EXPECT_FALSE(text.ok()) << field << "\n" << *text;
  }
}

// The stack-frame tables travel in XLA's StackFrameIndexProto (parents one
// lower there than in the text, as XLA writes them).
TEST(ProtoOptionFields, StackFrameTables) {
  const char* kText = R"(HloModule frames

FileNames
1 "a.py"

FunctionNames
1 "f"
2 "g"

FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}
2 {file_name_id=1 function_name_id=2 line=7 end_line=8 column=2 end_column=4}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=2}


ENTRY %main () -> f32[] {
  ROOT %c = f32[] constant(1), metadata={op_name="c" stack_frame_id=2}
}

)";
  EXPECT_EQ(TypedOnlyDifference(kText), "");
  absl::StatusOr<xla::HloModuleProto> p = ProtoOf(kText);
  ASSERT_TRUE(p.ok()) << p.status();
  const xla::StackFrameIndexProto& index = p->stack_frame_index();
  ASSERT_EQ(index.stack_frames_size(), 2);
  EXPECT_EQ(index.stack_frames(0).parent_frame_id(), 0);
  EXPECT_EQ(index.stack_frames(1).parent_frame_id(), 1);
  ASSERT_EQ(index.file_locations_size(), 2);
  EXPECT_EQ(index.file_locations(1).end_line(), 8);
}

// What XLA's loader requires of the fields we write (found by loading our
// protos into XLA): an iota sharding's permutation as long as its reshape
// dims, and a custom call without `api_version=` on the original API.
TEST(ProtoOptionFields, FieldsAsXlaLoadsThem) {
  absl::StatusOr<xla::HloModuleProto> p = ProtoOf(R"(HloModule m

ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0), sharding={devices=[2]<=[2]}
  ROOT %c = f32[4]{0} custom-call(%x), custom_call_target="t"
}

)");
  ASSERT_TRUE(p.ok()) << p.status();
  const xla::HloComputationProto& entry = p->computations(0);
  ASSERT_EQ(entry.instructions_size(), 2);
  const xla::OpSharding& sharding = entry.instructions(0).sharding();
  EXPECT_EQ(sharding.iota_reshape_dims_size(), 1);
  ASSERT_EQ(sharding.iota_transpose_perm_size(), 1);
  EXPECT_EQ(sharding.iota_transpose_perm(0), 0);
  EXPECT_EQ(entry.instructions(1).custom_call_api_version(), xla::API_VERSION_ORIGINAL);
}

// A scheduled module's instructions come in the order of its schedule,
// whatever order the proto lists them in.
TEST(ProtoOptionFields, ScheduleOrdersTheText) {
  absl::StatusOr<DecodedInput> d = DecodeInput(R"pb(
    name: "sched"
    computations {
      name: "e" id: 0 root_id: 3
      instructions { name: "a" opcode: "parameter" id: 1 shape { element_type: F32 } }
      instructions { name: "b" opcode: "parameter" parameter_number: 1 id: 2 shape { element_type: F32 } }
      instructions { name: "s" opcode: "add" id: 3 operand_ids: 1 operand_ids: 2 shape { element_type: F32 } }
    }
    schedule { sequences { key: 0 value { instruction_ids: [ 2, 1, 3 ] } } })pb",
                                               InputFormat::kProtoText, "sched.pbtxt");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(d->hlo_text, testing::HasSubstr("%b = f32[] parameter(1)\n  %a = f32[] parameter(0)"));
}

// The fields of newer XLA (testdata/parse/newer_xla_fields.hlo, which the
// test above reads back too): each lands in XLA's field.
TEST(ProtoOptionFields, NewerXlaFieldsRoundTrip) {
  std::ifstream in(fs::path(HLO_SOURCE_DIR) / "testdata/parse/newer_xla_fields.hlo");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string kText = ss.str();
  ASSERT_TRUE(ParseModule(kText).ok()) << ParseModule(kText).status();
  EXPECT_EQ(TypedOnlyDifference(kText), "");
  absl::StatusOr<xla::HloModuleProto> p = ProtoOf(kText);
  ASSERT_TRUE(p.ok()) << p.status();
  const xla::HloComputationProto& entry = p->computations(p->computations_size() - 1);
  auto find = [&](absl::string_view name) -> const xla::HloInstructionProto& {
    for (const auto& i : entry.instructions())
      if (i.name() == name) return i;
    ADD_FAILURE() << name;
    return entry.instructions(0);
  };
  EXPECT_EQ(find("conv").conv_kind(), xla::CONVOLUTION_KIND_WGRAD);
  ASSERT_EQ(find("dot").dot_sparsity_size(), 1);
  EXPECT_EQ(find("dot").dot_sparsity(0).m(), 4);
  EXPECT_EQ(find("ar").iota_collective_device_list().num_replica_groups(), 2);
  EXPECT_EQ(find("ar").collective_device_list().iota_replica_group_list().num_devices_per_group(), 4);
  EXPECT_THAT(find("cp").dynamic_slice_sizes(), testing::ElementsAre(2, 8));
  EXPECT_EQ(find("t").original_value().elements(0).original_array().instruction_name(), "am");
  EXPECT_TRUE(find("zero").original_value().is_synthetic_call());
  // A mesh's iota devices are written as its iota transform.
  EXPECT_THAT(find("am").mesh_axes_replica_group_list().mesh().iota_transform().transpose_perm(),
              testing::ElementsAre(1, 0));
  const xla::NamedShardingProto& named = find("x").sharding().named_sharding();
  ASSERT_EQ(named.dim_shardings_size(), 4);
  EXPECT_FALSE(named.dim_shardings(1).is_closed());
  EXPECT_EQ(named.dim_shardings(1).axes(0).sub_axis_info().pre_size(), 2);
  EXPECT_EQ(named.metadata_size(), 2);
  EXPECT_EQ(find("l").sharding().named_sharding().unreduced_axes_size(), 1);
  EXPECT_EQ(find("t").sharding().type(), xla::OpSharding::TUPLE);
  EXPECT_EQ(find("t").sharding().tuple_shardings(0).named_sharding().manual_axes_size(), 1);
}

// A mesh's iota transform as XLA writes it reads as XLA prints it.
TEST(ProtoOptionFields, MeshIotaTransformReads) {
  absl::StatusOr<DecodedInput> d = DecodeInput(R"pb(
    name: "iota_mesh"
    computations {
      name: "e" id: 0 root_id: 1
      instructions {
        name: "p" opcode: "parameter" id: 1 shape { element_type: F32 }
        sharding { named_sharding { mesh { axes { name: "a" size: 2 } axes { name: "b" size: 4 }
                                           iota_transform { reshape_dims: [ 4, 2 ] transpose_perm: [ 1, 0 ] } } } }
      }
    })pb",
                                               InputFormat::kProtoText, "m.pbtxt");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(d->hlo_text,
              testing::HasSubstr("sharding={mesh['a'=2,'b'=4], device_ids=([4,2]T(1,0)), replicated}"));
  EXPECT_TRUE(ParseModule(d->hlo_text).ok());
}

// What the text cannot say is an error naming the field, or, for module
// fields XLA's text drops as well, a warning naming it.
TEST(ProtoOptionFields, UnrepresentableFieldsAreNamed) {
  xla::HloModuleProto p;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    name: "m"
    computations {
      name: "e" id: 0 root_id: 1
      instructions { name: "p" opcode: "parameter" id: 1 shape { element_type: F32 } }
    }
    spmd_output_sharding { type: REPLICATED }
    spmd_parameters_shardings { type: REPLICATED }
    cross_program_prefetches { parameter: 0 }
    device_assignment { replica_count: 1 computation_count: 1 })pb",
                                                            &p));
  std::vector<std::string> warnings;
  ASSERT_TRUE(ModuleProtoToText(p, {}, &warnings).ok());
  // An empty sparsity_config (XLA writes one on every convolution) is none.
  xla::HloModuleProto empty_sparsity = p;
  empty_sparsity.mutable_computations(0)->mutable_instructions(0)->mutable_sparsity_config();
  EXPECT_TRUE(ModuleProtoToText(empty_sparsity).ok());
  EXPECT_THAT(warnings, testing::ElementsAre(testing::HasSubstr("spmd_output_sharding"),
                                             testing::HasSubstr("spmd_parameters_shardings"),
                                             testing::HasSubstr("cross_program_prefetches"),
                                             testing::HasSubstr("device_assignment")));
  for (const char* field : {"sparsity_config { lhs { num_non_zero: 2 block_size: 4 } }",
                            "dot_sparsity { type: SPARSITY_STRUCTURED_N_M index: 3 n: 2 m: 4 }",
                            "original_value { elements { shape_index: 1 original_array { instruction_name: \"a\" } } }",
                            "sharding { named_sharding { mesh { axes { name: \"a\" size: 2 } } "
                            "dim_shardings { axes { mesh_axis_index: 1 } } } }",
                            "mesh_axes_replica_group_list { mesh { axes { name: \"a\" size: 2 } "
                            "iota_transform { reshape_dims: 3 transpose_perm: 0 } } }"}) {
    xla::HloModuleProto q = p;
    ASSERT_TRUE(google::protobuf::TextFormat::MergeFromString(field, q.mutable_computations(0)->mutable_instructions(0)))
        << field;
    absl::StatusOr<std::string> text = ModuleProtoToText(q);
    EXPECT_FALSE(text.ok()) << field << "\n" << *text;
  }
}

}  // namespace
}  // namespace hlo::proto
