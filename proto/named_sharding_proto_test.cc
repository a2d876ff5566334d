// Named (Shardy) shardings through XLA's NamedShardingProto and back, on
// every named-sharding fragment of XLA's parser tests in the corpus
// (../shared/corpus/parser/fragments_valid.tsv, read in place): the text
// XLA prints back must come back, but for the axis-name quotes newer XLA
// adds (we print them as it does now).
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "proto/hlo.pb.h"
#include "proto/named_sharding_proto.h"

namespace hlo::proto {
namespace {

TEST(NamedShardingProto, CorpusFragmentsRoundTrip) {
  std::ifstream in(std::string(HLO_SHARED_DIR) + "/corpus/parser/fragments_valid.tsv");
  if (!in) GTEST_SKIP() << "corpus not found under " << HLO_SHARED_DIR;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f = absl::StrSplit(line, '\t');
    if (f.size() < 5 || f[1] != "sharding" || f[3] != "roundtrip") continue;
    if (f[2].rfind("{mesh[", 0) != 0 && f[2].rfind("{maximal_mesh[", 0) != 0) continue;
    xla::NamedShardingProto p;
    ASSERT_TRUE(NamedShardingToProto(f[2], &p)) << f[0] << ": " << f[2];
    absl::StatusOr<std::string> back = NamedShardingText(p);
    ASSERT_TRUE(back.ok()) << f[0] << ": " << back.status();
    EXPECT_EQ(absl::StrReplaceAll(*back, {{"'", ""}}), f[4]) << f[0];
    ++n;
  }
  EXPECT_GE(n, 10);
}

// Axis names come back quoted, as XLA prints them now; a sharding naming an
// axis the mesh lacks is an error.
TEST(NamedShardingProto, QuotedNamesAndBadAxes) {
  xla::NamedShardingProto p;
  ASSERT_TRUE(NamedShardingToProto("{mesh['a.b'=2,'c d'=4], [{'a.b'}, {'c d':(2)2, ?}]}", &p));
  absl::StatusOr<std::string> back = NamedShardingText(p);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, "{mesh['a.b'=2,'c d'=4], [{'a.b'}, {'c d':(2)2, ?}]}");
  p.mutable_dim_shardings(0)->mutable_axes(0)->set_mesh_axis_index(5);
  EXPECT_FALSE(NamedShardingText(p).ok());
  EXPECT_FALSE(NamedShardingToProto("{mesh['a'=2], [{'b'}]}", &p));
  EXPECT_FALSE(NamedShardingToProto("{mesh['a'=4], [{'a':(1)3}]}", &p));  // 3 does not divide 4
}

}  // namespace
}  // namespace hlo::proto
