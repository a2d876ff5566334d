// Runs the parser over the shared corpus: every valid file parses, every
// invalid file is rejected with a located diagnostic, and the fragment
// tables behave as listed.
#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "parser/parser.h"

namespace hlo {
namespace {

std::string SharedDir() { return HLO_SHARED_DIR; }

bool DirExists(const std::string& path) {
  DIR* d = opendir(path.c_str());
  if (!d) return false;
  closedir(d);
  return true;
}

std::vector<std::string> ListFiles(const std::string& dir, absl::string_view suffix,
                                   absl::string_view exclude_suffix = "") {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (!absl::EndsWith(name, suffix)) continue;
    if (!exclude_suffix.empty() && absl::EndsWith(name, exclude_suffix)) continue;
    out.push_back(dir + "/" + name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

#define SKIP_IF_NO_CORPUS()                                                          \
  do {                                                                               \
    if (!DirExists(SharedDir() + "/corpus"))                                         \
      GTEST_SKIP() << "shared corpus not found at " << SharedDir() << "/corpus";     \
  } while (0)

void ExpectAllParse(const std::string& dir) {
  std::vector<std::string> files = ListFiles(dir, ".hlo");
  ASSERT_FALSE(files.empty()) << "no .hlo files in " << dir;
  int ok = 0;
  for (const std::string& f : files) {
    ParseOptions opts;
    opts.filename = f;
    auto m = ParseModule(ReadFile(f), opts);
    EXPECT_TRUE(m.ok()) << f << ":\n" << m.status().message();
    if (m.ok()) ++ok;
  }
  std::cout << dir << ": " << ok << "/" << files.size() << " parsed\n";
}

TEST(CorpusTest, ValidParserFilesParse) {
  SKIP_IF_NO_CORPUS();
  ExpectAllParse(SharedDir() + "/corpus/parser/valid");
}

TEST(CorpusTest, ModelsParse) {
  SKIP_IF_NO_CORPUS();
  ExpectAllParse(SharedDir() + "/corpus/models");
}

TEST(CorpusTest, PassTestsParse) {
  SKIP_IF_NO_CORPUS();
  ExpectAllParse(SharedDir() + "/corpus/passtests");
}

// Invalid cases that are accepted by default on purpose: real model dumps
// (corpus/models) use api_version=API_VERSION_UNSPECIFIED, which current
// XLA rejects. They are rejected with reject_unspecified_api_version.
bool NeedsStrictOptions(absl::string_view path) {
  return absl::StrContains(path, "test_CustomCallWithUnspecifiedVersion");
}

TEST(CorpusTest, InvalidParserFilesAreRejectedWithLocation) {
  SKIP_IF_NO_CORPUS();
  std::string dir = SharedDir() + "/corpus/parser/invalid";
  std::vector<std::string> files = ListFiles(dir, ".hlo");
  ASSERT_FALSE(files.empty());
  int rejected = 0;
  for (const std::string& f : files) {
    ParseOptions opts;
    opts.filename = "input.hlo";
    if (NeedsStrictOptions(f)) {
      EXPECT_TRUE(ParseModule(ReadFile(f), opts).ok()) << f << " (legacy form accepted by default)";
      opts.reject_unspecified_api_version = true;
    }
    auto m = ParseModule(ReadFile(f), opts);
    EXPECT_FALSE(m.ok()) << f << " was accepted";
    if (m.ok()) continue;
    ++rejected;
    std::string msg(m.status().message());
    EXPECT_TRUE(absl::StrContains(msg, "input.hlo:")) << f << ": " << msg;
    // The diagnostic carries a line number: file:LINE:COL.
    std::vector<std::string> parts = absl::StrSplit(msg, ':');
    ASSERT_GE(parts.size(), 3u) << msg;
    int line = 0;
    EXPECT_TRUE(absl::SimpleAtoi(parts[1], &line)) << f << ": " << msg;
    EXPECT_GT(line, 0) << f << ": " << msg;
  }
  std::cout << dir << ": " << rejected << "/" << files.size() << " rejected\n";
}

// The line the diagnostic points at matches the line XLA reports, where the
// .error.txt names one ("was parsing L:C").
TEST(CorpusTest, InvalidParserFilesPointAtXlasLine) {
  SKIP_IF_NO_CORPUS();
  std::string dir = SharedDir() + "/corpus/parser/invalid";
  for (const std::string& f : ListFiles(dir, ".hlo")) {
    std::string err_path = f.substr(0, f.size() - 4) + ".error.txt";
    std::string expected = ReadFile(err_path);
    size_t p = expected.find("was parsing ");
    if (p == std::string::npos) continue;
    int xla_line = 0;
    std::string rest = expected.substr(p + 12);
    if (!absl::SimpleAtoi(rest.substr(0, rest.find(':')), &xla_line)) continue;
    ParseOptions opts;
    opts.filename = "input.hlo";
    opts.reject_unspecified_api_version = NeedsStrictOptions(f);
    auto m = ParseModule(ReadFile(f), opts);
    ASSERT_FALSE(m.ok()) << f;
    EXPECT_TRUE(absl::StrContains(m.status().message(), absl::StrCat("input.hlo:", xla_line, ":")))
        << f << "\nXLA: " << expected << "\nours: " << m.status().message();
  }
}

struct Fragment {
  std::string test, entity, input, expect, expected;
};

std::vector<Fragment> ReadFragments(const std::string& path) {
  std::vector<Fragment> out;
  std::string text = ReadFile(path);
  bool first = true;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (first) {
      first = false;
      continue;
    }
    if (line.empty()) continue;
    std::vector<std::string> cols = absl::StrSplit(line, '\t');
    if (cols.size() < 4) continue;
    Fragment f{cols[0], cols[1], cols[2], cols[3], cols.size() > 4 ? cols[4] : ""};
    out.push_back(std::move(f));
  }
  return out;
}

// Embeds an attribute fragment into a small module so it goes through the
// real attribute parser.
std::string WrapFragment(const Fragment& f) {
  const std::string add =
      "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)\n}\n";
  if (f.entity == "window")
    return "HloModule m\n" + add +
           "ENTRY e {\n  p = f32[8,8,8] parameter(0)\n  c = f32[] constant(0)\n"
           "  ROOT r = f32[8,8,8] reduce-window(p, c), window={" + f.input + "}, to_apply=add\n}\n";
  if (f.entity == "padding_config")
    return "HloModule m\nENTRY e {\n  p = f32[2,2] parameter(0)\n  c = f32[] constant(0)\n"
           "  ROOT r = f32[9,9] pad(p, c), padding=" + f.input + "\n}\n";
  if (f.entity == "conv_dim_labels")
    return "HloModule m\nENTRY e {\n  p = f32[2,2,2,2] parameter(0)\n  q = f32[2,2,2,2] parameter(1)\n"
           "  ROOT r = f32[2,2,2,2] convolution(p, q), dim_labels=" + f.input + "\n}\n";
  if (f.entity == "replica_groups")
    return "HloModule m\n" + add +
           "ENTRY e {\n  p = f32[8] parameter(0)\n"
           "  ROOT r = f32[8] all-reduce(p), replica_groups=" + f.input + ", to_apply=add\n}\n";
  if (f.entity == "frontend_attributes" || f.entity == "sharding")
    return "HloModule m\nENTRY e {\n  ROOT p = f32[8] parameter(0), " + f.entity + "=" + f.input +
           "\n}\n";
  return "";
}

void RunFragments(const std::string& path, bool valid) {
  std::vector<Fragment> frags = ReadFragments(path);
  ASSERT_FALSE(frags.empty());
  for (const Fragment& f : frags) {
    SCOPED_TRACE(f.test + " [" + f.entity + "] " + f.input);
    if (f.entity == "json_dict_lexing") {
      EXPECT_EQ(LexesAsJsonDict(f.input), f.expect == "true");
      continue;
    }
    if (f.entity == "shape") {
      auto s = ParseShape(f.input);
      if (valid) {
        EXPECT_TRUE(s.ok()) << s.status().message();
      } else {
        EXPECT_FALSE(s.ok());
        if (!s.ok() && !f.expected.empty()) {
          EXPECT_TRUE(absl::StrContains(s.status().message(), f.expected)) << s.status().message();
        }
      }
      continue;
    }
    std::string module = WrapFragment(f);
    if (module.empty()) continue;
    auto m = ParseModule(module);
    if (valid) {
      EXPECT_TRUE(m.ok()) << m.status().message() << "\n" << module;
    } else {
      EXPECT_FALSE(m.ok()) << module;
    }
  }
}

TEST(CorpusTest, ValidFragments) {
  SKIP_IF_NO_CORPUS();
  RunFragments(SharedDir() + "/corpus/parser/fragments_valid.tsv", true);
}

TEST(CorpusTest, InvalidFragments) {
  SKIP_IF_NO_CORPUS();
  RunFragments(SharedDir() + "/corpus/parser/fragments_invalid.tsv", false);
}

}  // namespace
}  // namespace hlo
