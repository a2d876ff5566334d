// The .npy codec: encoding without copies of row-major values, C order for
// other layouts, widened narrow types, and reading a file straight into a
// literal with the same checks as parsing it from memory.
#include "tools/npy.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "parser/parser.h"
#include "tools/file_io.h"

namespace hlo {
namespace {

Literal Parse(const std::string& text) {
  absl::StatusOr<Literal> lit = ParseLiteral(text);
  EXPECT_TRUE(lit.ok()) << lit.status().message();
  return *std::move(lit);
}

Layout MinorToMajor(std::initializer_list<int64_t> order) {
  Layout l;
  for (int64_t d : order) l.minor_to_major.push_back(d);
  return l;
}

std::string TempPath(const std::string& name) {
  const char* dir = getenv("TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/npy_test_", getpid(), "_", name);
}

TEST(NpyTest, RowMajorDataIsWrittenFromTheLiteralsOwnBuffer) {
  Literal lit = Parse("f32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  absl::StatusOr<NpyEncoding> npy = EncodeNpyParts(lit);
  ASSERT_TRUE(npy.ok()) << npy.status().message();
  EXPECT_EQ(npy->data().data(), reinterpret_cast<const char*>(lit.data()));
  EXPECT_EQ(npy->data().size(), 24u);
  EXPECT_EQ(npy->header().size() % 64, 0u);
  EXPECT_NE(npy->header().find("'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"),
            std::string::npos);
  absl::StatusOr<Literal> back = ParseNpy(*EncodeNpy(lit), "x.npy");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(back->LogicallyEqual(lit));
}

TEST(NpyTest, OtherLayoutsAreWrittenInCOrder) {
  Literal lit = Parse("s32[2,3] {{1, 2, 3}, {4, 5, 6}}").Relayout(MinorToMajor({0, 1}));
  ASSERT_EQ(lit.GetInt(1), 4);  // column-major buffer: 1, 4, 2, 5, 3, 6
  absl::StatusOr<NpyEncoding> npy = EncodeNpyParts(lit);
  ASSERT_TRUE(npy.ok()) << npy.status().message();
  ASSERT_EQ(npy->data().size(), 24u);
  const int32_t* v = reinterpret_cast<const int32_t*>(npy->data().data());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(v[i], i + 1);
}

TEST(NpyTest, NarrowTypesAreWidenedInCOrder) {
  Literal bf16 = Parse("bf16[2,2] {{1.5, -2}, {0.25, 3}}").Relayout(MinorToMajor({0, 1}));
  absl::StatusOr<NpyEncoding> npy = EncodeNpyParts(bf16);
  ASSERT_TRUE(npy.ok()) << npy.status().message();
  EXPECT_NE(npy->header().find("'<f4'"), std::string::npos);
  ASSERT_EQ(npy->data().size(), 16u);
  const float* f = reinterpret_cast<const float*>(npy->data().data());
  EXPECT_EQ(f[0], 1.5f);
  EXPECT_EQ(f[1], -2.0f);
  EXPECT_EQ(f[2], 0.25f);
  EXPECT_EQ(f[3], 3.0f);

  Literal s4 = Parse("s4[3] {-8, 7, -1}");
  npy = EncodeNpyParts(s4);
  ASSERT_TRUE(npy.ok()) << npy.status().message();
  EXPECT_NE(npy->header().find("'|i1'"), std::string::npos);
  const int8_t* b = reinterpret_cast<const int8_t*>(npy->data().data());
  EXPECT_EQ(b[0], -8);
  EXPECT_EQ(b[1], 7);
  EXPECT_EQ(b[2], -1);
}

TEST(NpyTest, TuplesAreRefused) {
  Literal t = Parse("(f32[], s32[]) (1, 2)");
  absl::StatusOr<NpyEncoding> npy = EncodeNpyParts(t);
  ASSERT_FALSE(npy.ok());
  EXPECT_EQ(npy.status().message(), "only array values can be written as .npy");
}

TEST(NpyTest, FileIsReadIntoALiteralWithTheChecksOfParsing) {
  Literal lit = Parse("f64[3,2] {{1, 2}, {3, 4}, {5, 6}}");
  absl::StatusOr<NpyEncoding> npy = EncodeNpyParts(lit);
  ASSERT_TRUE(npy.ok());
  const std::string path = TempPath("read.npy");
  const absl::string_view parts[] = {npy->header(), npy->data()};
  ASSERT_TRUE(WriteOutput(path, parts).ok());
  EXPECT_TRUE(IsNpyFile(path));
  absl::StatusOr<Literal> back = ReadNpyFile(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(back->LogicallyEqual(lit));

  // One byte short: the same message as parsing the bytes in memory.
  const std::string whole = *EncodeNpy(lit);
  const std::string cut = whole.substr(0, whole.size() - 1);
  ASSERT_TRUE(WriteOutput(path, cut).ok());
  absl::StatusOr<Literal> short_file = ReadNpyFile(path);
  ASSERT_FALSE(short_file.ok());
  absl::StatusOr<Literal> short_bytes = ParseNpy(cut, path);
  ASSERT_FALSE(short_bytes.ok());
  EXPECT_EQ(short_file.status().message(), short_bytes.status().message());
  EXPECT_NE(std::string(short_file.status().message()).find("expected 48 data bytes"),
            std::string::npos);

  // A version 1 header whose dict is one byte long (shorter than the 12
  // bytes read first): an error about the dict, read within bounds.
  ASSERT_TRUE(WriteOutput(path, std::string("\x93NUMPY\x01\x00\x01\x00{", 11)).ok());
  absl::StatusOr<Literal> tiny = ReadNpyFile(path);
  ASSERT_FALSE(tiny.ok());
  EXPECT_NE(std::string(tiny.status().message()).find("header lacks descr"), std::string::npos)
      << tiny.status().message();

  // A header length beyond the end of the file.
  ASSERT_TRUE(WriteOutput(path, whole.substr(0, 20)).ok());
  absl::StatusOr<Literal> truncated = ReadNpyFile(path);
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(std::string(truncated.status().message()).find("truncated header"), std::string::npos);
  unlink(path.c_str());
  EXPECT_FALSE(IsNpyFile(path));
}

TEST(NpyTest, FortranOrderFileIsReadInLogicalOrder) {
  // A 2x3 int32 array stored column by column: 1 4 2 5 3 6.
  std::string dict = "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }";
  dict.append(64 - (10 + dict.size() + 1) % 64, ' ');
  dict.push_back('\n');
  std::string file = absl::StrCat(std::string("\x93NUMPY\x01\x00", 8), std::string(1, dict.size()),
                                  std::string(1, '\0'), dict);
  for (int32_t v : {1, 4, 2, 5, 3, 6}) file.append(reinterpret_cast<const char*>(&v), 4);
  const std::string path = TempPath("fortran.npy");
  ASSERT_TRUE(WriteOutput(path, file).ok());
  absl::StatusOr<Literal> lit = ReadNpyFile(path);
  unlink(path.c_str());
  ASSERT_TRUE(lit.ok()) << lit.status().message();
  EXPECT_TRUE(lit->LogicallyEqual(Parse("s32[2,3] {{1, 2, 3}, {4, 5, 6}}")));
}

TEST(FileIoTest, PiecesAreWrittenOneAfterAnother) {
  const std::string path = TempPath("pieces.txt");
  const absl::string_view parts[] = {"head", "", "-body-", "tail"};
  ASSERT_TRUE(WriteOutput(path, parts).ok());
  absl::StatusOr<std::string> back = ReadInput(path);
  unlink(path.c_str());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, "head-body-tail");
}

}  // namespace
}  // namespace hlo
