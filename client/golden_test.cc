// The golden files of testdata/builder/ are what the builder makes now,
// and each example computes the document's result in-process too.
#include "client/golden_examples.h"

#include <fstream>
#include <set>
#include <sstream>

#include "client/client_test_util.h"

namespace hlo::client {
namespace {

TEST(BuilderGoldens, FilesMatchTheBuilder) {
  for (const GoldenExample& e : GoldenExamples()) {
    absl::StatusOr<std::string> want = GoldenFileText(e);
    ASSERT_TRUE(want.ok()) << e.name << ": " << want.status();
    std::ifstream in(std::string(HLO_SOURCE_DIR) + "/testdata/builder/" + GoldenPath(e));
    ASSERT_TRUE(in.good()) << e.name << ": missing golden file; run hlo-builder-goldens testdata/builder";
    std::stringstream got;
    got << in.rdbuf();
    EXPECT_EQ(got.str(), *want) << e.name << ": stale golden file; run hlo-builder-goldens testdata/builder";
  }
}

TEST(BuilderGoldens, ExamplesComputeTheDocumentsResults) {
  for (const GoldenExample& e : GoldenExamples()) {
    // hlo-run's --random-inputs values are the tool's; the lit test runs it.
    if (e.random_inputs) continue;
    XlaBuilder b(e.name);
    e.build(&b);
    cpu::RunOptions options;
    options.replica_count = e.replicas;
    for (const std::string& in : e.infeed) {
      absl::StatusOr<Literal> l = ParseLiteral(in);
      ASSERT_TRUE(l.ok()) << e.name << ": " << l.status();
      options.infeed.push_back(*std::move(l));
    }
    absl::StatusOr<Literal> r = testing::BuildAndRun(b, e.inputs, options);
    ASSERT_TRUE(r.ok()) << e.name << ": " << r.status();
    EXPECT_TRUE(testing::LiteralIs(*r, e.expected)) << e.name;
  }
}

TEST(BuilderGoldens, NamesAreUniqueAndFamiliesSet) {
  std::set<std::string> paths;
  for (const GoldenExample& e : GoldenExamples()) {
    EXPECT_FALSE(e.family.empty()) << e.name;
    EXPECT_TRUE(paths.insert(GoldenPath(e)).second) << "two examples write " << GoldenPath(e);
  }
}

}  // namespace
}  // namespace hlo::client
