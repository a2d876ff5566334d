// Verifier tests: structural checks on programmatically built modules,
// parsed small modules (valid and invalid), and the shared corpus.
#include "ir/verifier.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/module.h"
#include "ir/shape_inference.h"
#include "ir/verifier_test_util.h"
#include "parser/parser.h"

namespace hlo {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using T = PrimitiveType;

// ---------------------------------------------------------------------------
// Programmatic modules
// ---------------------------------------------------------------------------

struct Builder {
  std::unique_ptr<Module> module = std::make_unique<Module>("m");
  Computation* comp = nullptr;
  Builder() {
    comp = module->AddComputation(std::make_unique<Computation>("entry"));
    module->set_entry(comp);
  }
  Instruction* Param(int64_t n, const Shape& s) {
    auto i = std::make_unique<Instruction>(Opcode::kParameter, absl::StrCat("p", n), s);
    i->set_parameter_number(n);
    return comp->AddInstruction(std::move(i));
  }
  Instruction* Add(Opcode op, const std::string& name, const Shape& s, std::vector<Instruction*> ops) {
    auto i = std::make_unique<Instruction>(op, name, s);
    for (Instruction* o : ops) i->AppendOperand(o);
    Instruction* raw = comp->AddInstruction(std::move(i));
    comp->set_root(raw);
    return raw;
  }
};

TEST(VerifierTest, AcceptsSimpleModule) {
  Builder b;
  auto* x = b.Param(0, Shape::Array(T::F32, {2}));
  auto* y = b.Param(1, Shape::Array(T::F32, {2}));
  b.Add(Opcode::kAdd, "sum", Shape::Array(T::F32, {2}), {x, y});
  EXPECT_TRUE(VerifyModule(*b.module).ok()) << VerifyModule(*b.module);
}

TEST(VerifierTest, ReportsShapeMismatchWithBothShapes) {
  Builder b;
  auto* x = b.Param(0, Shape::Array(T::F32, {2}));
  b.Add(Opcode::kNegate, "neg", Shape::Array(T::F32, {3}), {x});
  absl::Status st = VerifyModule(*b.module);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("%neg"));
  EXPECT_THAT(st.message(), HasSubstr("produces f32[2] but the written shape is f32[3]"));
}

TEST(VerifierTest, MixedPrecisionAllowedForComputeButNotForTuple) {
  Builder b;
  auto* x = b.Param(0, Shape::Array(T::BF16, {2}));
  auto* n = b.Add(Opcode::kNegate, "neg", Shape::Array(T::F32, {2}), {x});
  EXPECT_TRUE(VerifyModule(*b.module).ok());
  b.Add(Opcode::kTuple, "t", Shape::Tuple({Shape::Array(T::BF16, {2})}), {n});
  EXPECT_THAT(VerifyModule(*b.module).message(), HasSubstr("%t"));
}

TEST(VerifierTest, DuplicateAndMissingParameterNumbers) {
  Builder b;
  auto* x = b.Param(0, Shape::Scalar(T::S8));
  auto* y = b.Param(0, Shape::Scalar(T::S8));
  b.Add(Opcode::kAdd, "a", Shape::Scalar(T::S8), {x, y});
  EXPECT_THAT(VerifyModule(*b.module).message(), HasSubstr("Duplicate parameter number 0"));
  Builder c;
  auto* z = c.Param(1, Shape::Scalar(T::S8));
  c.Add(Opcode::kNegate, "n", Shape::Scalar(T::S8), {z});
  EXPECT_THAT(VerifyModule(*c.module).message(), HasSubstr("parameter 0 is missing"));
}

TEST(VerifierTest, NoEntryNoRoot) {
  Module m("m");
  EXPECT_THAT(VerifyModule(m).message(), HasSubstr("no entry computation"));
  Computation* c = m.AddComputation(std::make_unique<Computation>("e"));
  m.set_entry(c);
  EXPECT_THAT(VerifyModule(m).message(), HasSubstr("no root"));
}

TEST(VerifierTest, CalledComputationMustBelongToModule) {
  Builder b;
  Computation foreign("foreign");
  auto* p = std::make_unique<Instruction>(Opcode::kParameter, "q", Shape::Scalar(T::F32)).release();
  p->set_parameter_number(0);
  foreign.set_root(foreign.AddInstruction(std::unique_ptr<Instruction>(p)));
  auto* x = b.Param(0, Shape::Scalar(T::F32));
  auto* call = b.Add(Opcode::kCall, "call", Shape::Scalar(T::F32), {x});
  call->SetAttr("to_apply", &foreign);
  EXPECT_THAT(VerifyModule(*b.module).message(), HasSubstr("not in the module"));
}

TEST(VerifierTest, DetectsCycles) {
  Builder b;
  auto* x = b.Param(0, Shape::Scalar(T::F32));
  auto* n1 = b.Add(Opcode::kNegate, "n1", Shape::Scalar(T::F32), {x});
  auto* n2 = b.Add(Opcode::kNegate, "n2", Shape::Scalar(T::F32), {n1});
  n1->ReplaceOperand(0, n2);
  EXPECT_THAT(VerifyModule(*b.module).message(), HasSubstr("cycle"));
}

TEST(VerifierTest, OperandCountAndMissingAttribute) {
  Builder b;
  auto* x = b.Param(0, Shape::Array(T::F32, {2, 3}));
  b.Add(Opcode::kTranspose, "t", Shape::Array(T::F32, {3, 2}), {x});
  EXPECT_THAT(VerifyModule(*b.module).message(), HasSubstr("missing required attribute dimensions"));
  Builder c;
  auto* y = c.Param(0, Shape::Scalar(T::F32));
  c.Add(Opcode::kAdd, "a", Shape::Scalar(T::F32), {y});
  EXPECT_THAT(VerifyModule(*c.module).message(), HasSubstr("add expects 2 operands, but has 1"));
}

TEST(VerifierTest, HeaderAliasingAndEntryLayout) {
  Builder b;
  auto* x = b.Param(0, Shape::Array(T::F32, {2}));
  b.Add(Opcode::kNegate, "n", Shape::Array(T::F32, {2}), {x});
  InputOutputAlias bad_out;
  bad_out.output_index = {0};
  b.module->header().input_output_alias.push_back(bad_out);
  InputOutputAlias bad_param;
  bad_param.parameter = 3;
  b.module->header().input_output_alias.push_back(bad_param);
  BufferDonor donor;
  donor.parameter = 0;
  donor.parameter_index = {1};
  b.module->header().buffer_donor.push_back(donor);
  ProgramShape ps;
  ps.parameters = {Shape::Array(T::F32, {3})};
  ps.result = Shape::Array(T::F32, {2});
  b.module->header().entry_computation_layout = ps;
  std::string msg(VerifyModule(*b.module).message());
  EXPECT_THAT(msg, HasSubstr("input_output_alias output index {0} is not in the entry result shape"));
  EXPECT_THAT(msg, HasSubstr("input_output_alias parameter 3 is out of range"));
  EXPECT_THAT(msg, HasSubstr("buffer_donor parameter index {1}"));
  EXPECT_THAT(msg, HasSubstr("entry_computation_layout parameter 0 has shape f32[3]"));
}

TEST(VerifierTest, CapsDiagnostics) {
  Builder b;
  auto* x = b.Param(0, Shape::Scalar(T::F32));
  for (int i = 0; i < 30; ++i) b.Add(Opcode::kNegate, absl::StrCat("n", i), Shape::Scalar(T::S32), {x});
  std::string msg(VerifyModule(*b.module).message());
  EXPECT_THAT(msg, HasSubstr("10 more errors not shown"));
}

// ---------------------------------------------------------------------------
// Parsed modules
// ---------------------------------------------------------------------------

TEST(VerifierParsedTest, ValidModule) {
  constexpr char kText[] = R"(HloModule m, entry_computation_layout={(f32[4]{0})->f32[]}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = f32[4]{0} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=add
}
)";
  absl::Status st = ParseAndVerify(kText);
  EXPECT_TRUE(st.ok()) << st;
}

TEST(VerifierParsedTest, DiagnosticPointsAtLine) {
  constexpr char kText[] = R"(HloModule m

ENTRY e {
  x = f32[2,3] parameter(0)
  ROOT t = f32[2,3] transpose(x), dimensions={1,0}
}
)";
  absl::Status st = ParseAndVerify(kText);
  ASSERT_FALSE(st.ok());
  if (absl::StartsWith(st.message(), "PARSE:")) GTEST_SKIP() << "parser not ready: " << st;
  EXPECT_THAT(st.message(), HasSubstr("test.hlo:5:"));
  EXPECT_THAT(st.message(), HasSubstr("produces f32[3,2] but the written shape is f32[2,3]"));
  EXPECT_THAT(st.message(), HasSubstr("^"));
}

TEST(VerifierParsedTest, ReducerSignature) {
  constexpr char kText[] = R"(HloModule m

add {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}

ENTRY e {
  x = f32[4]{0} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=add
}
)";
  absl::Status st = ParseAndVerify(kText);
  ASSERT_FALSE(st.ok());
  if (absl::StartsWith(st.message(), "PARSE:")) GTEST_SKIP() << "parser not ready: " << st;
  EXPECT_THAT(st.message(), HasSubstr("must take 2 parameters"));
}

TEST(VerifierParsedTest, WhileConditionMustReturnPred) {
  constexpr char kText[] = R"(HloModule m

cond {
  p = s32[] parameter(0)
  ROOT c = s32[] constant(1)
}

body {
  p = s32[] parameter(0)
  ROOT n = s32[] negate(p)
}

ENTRY e {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
}
)";
  absl::Status st = ParseAndVerify(kText);
  ASSERT_FALSE(st.ok());
  if (absl::StartsWith(st.message(), "PARSE:")) GTEST_SKIP() << "parser not ready: " << st;
  EXPECT_THAT(st.message(), HasSubstr("must return pred[]"));
}

TEST(VerifierParsedTest, EntryLayoutAndAliasing) {
  constexpr char kText[] = R"(HloModule m, entry_computation_layout={(f32[2]{0})->f32[3]{0}}

ENTRY e {
  x = f32[2]{0} parameter(0)
  ROOT n = f32[2]{0} negate(x)
}
)";
  absl::Status st = ParseAndVerify(kText);
  ASSERT_FALSE(st.ok());
  if (absl::StartsWith(st.message(), "PARSE:")) GTEST_SKIP() << "parser not ready: " << st;
  EXPECT_THAT(st.message(), HasSubstr("entry_computation_layout result shape f32[3]"));
  EXPECT_THAT(st.message(), HasSubstr("test.hlo:1:"));  // points at the header attribute
}

TEST(VerifierParsedTest, MixedPrecisionDotAndConvolution) {
  constexpr char kText[] = R"(HloModule m

ENTRY e {
  a = bf16[2,8]{1,0} parameter(0)
  b = bf16[8,4]{1,0} parameter(1)
  d = f32[2,4]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={high,default}
  i = bf16[1,5,5,2]{3,2,1,0} parameter(2)
  k = bf16[3,3,2,4]{3,2,1,0} parameter(3)
  c = f32[1,5,5,4]{3,2,1,0} convolution(i, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  ROOT t = (f32[2,4]{1,0}, f32[1,5,5,4]{3,2,1,0}) tuple(d, c)
}
)";
  absl::Status st = ParseAndVerify(kText);
  EXPECT_TRUE(st.ok()) << st;
}

// ---------------------------------------------------------------------------
// Shared corpus
// ---------------------------------------------------------------------------

namespace fs = std::filesystem;

std::string CorpusDir() {
  const char* env = std::getenv("HLO_SHARED_DIR");
#ifdef HLO_SHARED_DIR
  std::string shared = (env != nullptr && *env != '\0') ? env : HLO_SHARED_DIR;
#else
  std::string shared = (env != nullptr && *env != '\0') ? env : "../shared";
#endif
  return shared + "/corpus";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::map<std::string, std::string> ManifestNotes() {
  std::map<std::string, std::string> m;
  std::string text = ReadFile(CorpusDir() + "/MANIFEST.tsv");
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::vector<std::string> cols = absl::StrSplit(line, '\t');
    if (cols.size() >= 6) m[cols[0]] = cols[5];
  }
  return m;
}

std::vector<std::string> ListHlo(const std::string& sub) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(CorpusDir()) / sub, ec))
    if (e.path().extension() == ".hlo") out.push_back(sub + "/" + e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(VerifierCorpusTest, ValidFilesAndModelsVerify) {
  if (!fs::is_directory(CorpusDir())) GTEST_SKIP() << "no shared corpus at " << CorpusDir();
  const auto notes = ManifestNotes();
  std::vector<std::string> files = ListHlo("models");
  for (const std::string& f : ListHlo("parser/valid")) files.push_back(f);
  for (const std::string& f : ListHlo("passtests")) files.push_back(f);
  int verified = 0, parse_failures = 0;
  for (const std::string& rel : files) {
    auto it = notes.find(rel);
    const std::string note = it == notes.end() ? "" : it->second;
    if (note.find("unverified") != std::string::npos ||
        note.find("single-instruction") != std::string::npos ||
        note.find("canonical form") != std::string::npos)
      continue;
    ParseOptions opts;
    opts.filename = rel;
    auto m = ParseModule(ReadFile(CorpusDir() + "/" + rel), opts);
    if (!m.ok()) {
      ++parse_failures;  // the parser's own gate reports these
      continue;
    }
    absl::Status st = VerifyModule(**m);
    EXPECT_TRUE(st.ok()) << rel << ":\n" << st.message();
    ++verified;
  }
  std::cout << "verified " << verified << " corpus files; " << parse_failures << " did not parse\n";
}

// Invalid files whose error is semantic (the verifier's job): parse OK and
// verify must fail, or the parser already rejects them.
TEST(VerifierCorpusTest, SemanticInvalidFilesAreRejected) {
  if (!fs::is_directory(CorpusDir())) GTEST_SKIP() << "no shared corpus at " << CorpusDir();
  // Errors only the parser can give (the same text is valid elsewhere).
  const std::vector<std::string> parser_only = {"parser/invalid/test_CustomCallWithUnspecifiedVersion.hlo"};
  for (const std::string& rel : ListHlo("parser/invalid")) {
    if (std::find(parser_only.begin(), parser_only.end(), rel) != parser_only.end()) continue;
    ParseOptions opts;
    opts.filename = rel;
    auto m = ParseModule(ReadFile(CorpusDir() + "/" + rel), opts);
    if (!m.ok()) {
      if (std::getenv("HLO_VERIFIER_TEST_DEBUG"))
        std::cout << "parser rejects " << rel << ": " << std::string(m.status().message()).substr(0, 160)
                  << "\n";
      continue;
    }
    absl::Status st = VerifyModule(**m);
    EXPECT_FALSE(st.ok()) << rel << " parsed and verified, but is invalid";
    std::cout << "verifier rejects " << rel << "\n";
    std::string expected = ReadFile(CorpusDir() + "/" + rel.substr(0, rel.size() - 4) + ".error.txt");
    while (!expected.empty() && (expected.back() == '\n' || expected.back() == ' ')) expected.pop_back();
    if (!st.ok() && !expected.empty()) {
      EXPECT_THAT(std::string(st.message()), HasSubstr(expected)) << rel;
    }
  }
}

}  // namespace
}  // namespace hlo

namespace hlo {
namespace {

// Robustness: shape inference on every corpus instruction with each
// attribute removed or replaced by hostile values, and with operands swapped
// for instructions of other shapes, must return (an error or a shape), never
// crash. Run under the sanitizer build for full effect.
std::vector<AttrValue> HostileValues(const AttrValue& v) {
  std::vector<AttrValue> out;
  if (std::holds_alternative<int64_t>(v)) {
    for (int64_t x : {int64_t{-1}, int64_t{0}, int64_t{1} << 40, std::numeric_limits<int64_t>::max(),
                      std::numeric_limits<int64_t>::min()})
      out.emplace_back(x);
  } else if (std::holds_alternative<std::vector<int64_t>>(v)) {
    out.emplace_back(std::vector<int64_t>{});
    out.emplace_back(std::vector<int64_t>{-1});
    out.emplace_back(std::vector<int64_t>{0, 0, 0, 0, 0, 0, 0, 0});
    out.emplace_back(std::vector<int64_t>{std::numeric_limits<int64_t>::max()});
  } else if (const auto* w = std::get_if<Window>(&v)) {
    Window a = *w;
    for (auto& d : a.dimensions) d.size = 0;
    out.emplace_back(a);
    Window b = *w;
    for (auto& d : b.dimensions) {
      d.padding_low = std::numeric_limits<int64_t>::min() / 2;
      d.stride = std::numeric_limits<int64_t>::max();
      d.base_dilation = std::numeric_limits<int64_t>::max();
    }
    out.emplace_back(b);
    out.emplace_back(Window());
  } else if (const auto* dn = AttrGet<ConvolutionDimensionNumbers>(v)) {
    ConvolutionDimensionNumbers a = *dn;
    a.input_batch_dimension = 99;
    a.output_feature_dimension = -5;
    out.emplace_back(a);
    ConvolutionDimensionNumbers b = *dn;
    b.kernel_spatial_dimensions.clear();
    out.emplace_back(b);
  } else if (std::holds_alternative<SliceRanges>(v)) {
    out.emplace_back(SliceRanges{});
    out.emplace_back(SliceRanges{{0, std::numeric_limits<int64_t>::max(), 0}});
  } else if (std::holds_alternative<PaddingConfig>(v)) {
    out.emplace_back(PaddingConfig{});
    out.emplace_back(PaddingConfig{{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max(),
                                    std::numeric_limits<int64_t>::max()}});
  } else if (std::holds_alternative<Computation*>(v)) {
    out.emplace_back(static_cast<Computation*>(nullptr));
  } else if (std::holds_alternative<std::vector<Computation*>>(v)) {
    out.emplace_back(std::vector<Computation*>{});
    out.emplace_back(std::vector<Computation*>{nullptr});
  } else if (AttrHolds<CollectiveDeviceList>(v)) {
    CollectiveDeviceList a;
    a.groups = {{}, {0, 0}};
    out.emplace_back(a);
    CollectiveDeviceList b;
    b.is_iota = true;
    b.iota.dims = {3};
    out.emplace_back(b);
  } else if (std::holds_alternative<std::vector<std::vector<int64_t>>>(v)) {
    out.emplace_back(std::vector<std::vector<int64_t>>{{}, {1, 2, 3}, {-1, -1}});
  }
  out.emplace_back(std::string("bogus"));  // wrong kind
  return out;
}

TEST(VerifierCorpusTest, InferenceSurvivesHostileMutations) {
  if (!fs::is_directory(CorpusDir())) GTEST_SKIP() << "no shared corpus at " << CorpusDir();
  std::vector<std::string> files = ListHlo("models");
  for (const std::string& f : ListHlo("parser/valid")) files.push_back(f);
  int64_t runs = 0;
  for (const std::string& rel : files) {
    auto m = ParseModule(ReadFile(CorpusDir() + "/" + rel));
    if (!m.ok()) continue;
    const bool verified_before = VerifyModule(**m).ok();
    size_t module_size = 0;
    for (Computation* comp : (*m)->computations()) module_size += comp->instructions().size();
    const bool small = module_size < 25;
    for (Computation* comp : (*m)->computations()) {
      std::vector<Instruction*> insts = comp->instructions();
      // Keep the big models quick: sample their instructions.
      const size_t step = insts.size() > 400 ? insts.size() / 400 : 1;
      for (size_t k = 0; k < insts.size(); k += step) {
        Instruction* inst = insts[k];
        const auto attrs = inst->attrs();
        for (const auto& [name, value] : attrs) {
          inst->RemoveAttr(name);
          (void)InferShape(*inst);
          for (const AttrValue& bad : HostileValues(value)) {
            inst->SetAttr(name, bad);
            (void)InferShape(*inst);
            // The whole verifier too, on small modules (keeps the test quick).
            if (small) (void)VerifyModule(**m);
            ++runs;
          }
          inst->SetAttr(name, value);
        }
        {
          // Hostile written shapes.
          const Shape written = inst->shape();
          Shape huge = Shape::Array(PrimitiveType::F32, {int64_t{1} << 62, int64_t{1} << 62});
          Shape unbounded = Shape::Array(PrimitiveType::S32, {Shape::kUnboundedSize});
          unbounded.set_dynamic_dim(0, true);
          for (const Shape& w : {Shape(), Shape::Token(), Shape::Tuple({}), huge, unbounded,
                                 Shape::Tuple({Shape::Tuple({})})}) {
            inst->set_shape(w);
            (void)InferShape(*inst);
            ++runs;
          }
          inst->set_shape(written);
          // No operands at all, then one operand too many.
          const std::vector<Instruction*> ops = inst->operands();
          inst->RemoveAllOperands();
          (void)InferShape(*inst);
          for (Instruction* o : ops) inst->AppendOperand(o);
          inst->AppendOperand(insts.front());
          (void)InferShape(*inst);
          inst->RemoveAllOperands();
          for (Instruction* o : ops) inst->AppendOperand(o);
          runs += 2;
        }
        for (int64_t i = 0; i < inst->operand_count(); ++i) {
          Instruction* original = inst->operand(i);
          for (Instruction* other : {insts.front(), insts.back(), insts[insts.size() / 2]}) {
            if (other == inst) continue;
            inst->ReplaceOperand(i, other);
            (void)InferShape(*inst);
            if (small) (void)VerifyModule(**m);  // may even see cycles
            ++runs;
          }
          inst->ReplaceOperand(i, original);
        }
      }
    }
    EXPECT_EQ(VerifyModule(**m).ok(), verified_before) << rel << ": mutations were not undone";
  }
  std::cout << runs << " hostile inference runs\n";
}

}  // namespace
}  // namespace hlo

namespace hlo {
namespace {

struct BadCase {
  const char* name;
  const char* text;
  const char* expected;
};

class VerifierRejectsTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(VerifierRejectsTest, Rejects) {
  const BadCase& c = GetParam();
  absl::Status st = ParseAndVerify(c.text);
  ASSERT_FALSE(st.ok()) << c.name;
  if (absl::StartsWith(st.message(), "PARSE:")) GTEST_SKIP() << "parser rejects it first: " << st.message();
  EXPECT_THAT(std::string(st.message()), HasSubstr(c.expected));
  EXPECT_THAT(std::string(st.message()), HasSubstr("test.hlo:"));
}

const BadCase kBadCases[] = {
    {"CompareType", R"(HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  ROOT c = pred[2] compare(a, a), direction=LT, type=SIGNED
})",
     "needs type FLOAT or TOTALORDER"},
    {"BroadcastChangesType", R"(HloModule m
ENTRY e {
  a = bf16[2] parameter(0)
  ROOT b = f32[3,2] broadcast(a), dimensions={1}
})",
     "produces bf16[3,2] but the written shape is f32[3,2]"},
    {"ReshapeCount", R"(HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  ROOT r = f32[5] reshape(a)
})",
     "element count"},
    {"CopyStartTwoUsers", R"(HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  s = (f32[2], f32[2], u32[]) copy-start(a)
  d1 = f32[2] copy-done(s)
  d2 = f32[2] copy-done(s)
  ROOT t = (f32[2], f32[2]) tuple(d1, d2)
})",
     "must have exactly one user"},
    {"AllGatherShardCount", R"(HloModule m, replica_count=4
ENTRY e {
  a = f32[8,2] parameter(0)
  ROOT g = f32[8,6] all-gather(a), replica_groups={{0,1},{2,3}}, dimensions={1}
})",
     "differs from the replica group size 2"},
    {"ReplicaGroupsCount", R"(HloModule m, replica_count=8
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[8] parameter(0)
  ROOT r = f32[8] all-reduce(a), replica_groups={{0,1},{2,3}}, to_apply=add
})",
     "the module has 8 replicas"},
    {"FusedDeadCode", R"(HloModule m
fused {
  p = f32[2] parameter(0)
  dead = f32[2] negate(p)
  ROOT n = f32[2] exponential(p)
}
ENTRY e {
  a = f32[2] parameter(0)
  ROOT f = f32[2] fusion(a), kind=kLoop, calls=fused
})",
     "must have users"},
    {"ThreadMismatch", R"(HloModule m
callee {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}, execution_thread="other"
ENTRY e {
  a = f32[2] parameter(0)
  ROOT c = f32[2] call(a), to_apply=callee
})",
     "execution thread"},
    {"ConditionalBranchMismatch", R"(HloModule m
b0 {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
b1 {
  p = f32[2] parameter(0)
  ROOT n = f32[3] pad(p, f32[] constant(0)), padding=0_1
}
ENTRY e {
  i = s32[] parameter(0)
  a = f32[2] parameter(1)
  ROOT c = f32[2] conditional(i, a, a), branch_computations={b0, b1}
})",
     "branch 1"},
    {"GatherSliceSize", R"(HloModule m
ENTRY e {
  t = f32[10,4] parameter(0)
  i = s32[3] parameter(1)
  ROOT g = f32[3,5] gather(t, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,5}
})",
     "slice_sizes[1] = 5"},
    {"ScatterUpdateShape", R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  t = f32[10,4] parameter(0)
  i = s32[3] parameter(1)
  u = f32[2,4] parameter(2)
  ROOT s = f32[10,4] scatter(t, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})",
     "matching indices dimension has size 3"},
    {"DotContracting", R"(HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[4,5] parameter(1)
  ROOT d = f32[2,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
     "contracting dimension sizes differ"},
    {"ConvolutionFeatures", R"(HloModule m
ENTRY e {
  i = f32[1,5,5,3] parameter(0)
  k = f32[3,3,2,4] parameter(1)
  ROOT c = f32[1,5,5,4] convolution(i, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})",
     "input feature size 3"},
    {"SliceOutOfRange", R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  ROOT s = f32[3] slice(a), slice={[2:5]}
})",
     "exceeds the size 4"},
    {"ElementwiseImplicitBroadcast", R"(HloModule m
ENTRY e {
  a = f32[2,1] parameter(0)
  b = f32[2,3] parameter(1)
  ROOT s = f32[2,3] add(a, b)
})",
     "dimension 1: 1 vs 3"},
    {"AliasParamTwice",
     R"(HloModule m, input_output_alias={ {0}: (0, {}, may-alias), {1}: (0, {}, may-alias) }
ENTRY e {
  a = f32[2] parameter(0)
  ROOT t = (f32[2], f32[2]) tuple(a, a)
})",
     "to more than one output"},
    {"EntryLayoutParamCount", R"(HloModule m, entry_computation_layout={(f32[2], f32[2])->f32[2]}
ENTRY e {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
})",
     "entry_computation_layout has 2 parameters"},
    {"SortComparator", R"(HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8] parameter(0)
  ROOT s = f32[8] sort(x), dimensions={0}, to_apply=cmp
})",
     "must return pred[]"},
    {"CollectivePermuteDuplicateTarget", R"(HloModule m
ENTRY e {
  x = f32[8] parameter(0)
  ROOT p = f32[8] collective-permute(x), source_target_pairs={{0,1},{2,1}}
})",
     "target 1 appears more than once"},
    {"FftLength", R"(HloModule m
ENTRY e {
  x = f32[4,16] parameter(0)
  ROOT f = c64[4,9] fft(x), fft_type=RFFT, fft_length={8}
})",
     "fft_length[0] is 8"},
    {"SelectAndScatterSource", R"(HloModule m
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4,4] parameter(0)
  s = f32[3,3] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[4,4] select-and-scatter(x, s, z), window={size=2x2 stride=2x2}, select=ge, scatter=add
})",
     "windowed operand f32[2,2]"},
};

INSTANTIATE_TEST_SUITE_P(Cases, VerifierRejectsTest, ::testing::ValuesIn(kBadCases),
                         [](const ::testing::TestParamInfo<BadCase>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace hlo
