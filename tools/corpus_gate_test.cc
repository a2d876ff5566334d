// Corpus gates: one test per file of the shared corpus, read in place from
// HLO_SHARED_DIR/corpus (never copied into the repo).
//
//  * parser/valid/*.hlo: parses; verifies when it is a complete module and
//    MANIFEST.tsv does not mark it "unverified" (or single-instruction
//    form); round-trips stably: print(parse(print(parse(x)))) ==
//    print(parse(x)), and the printed text verifies again when x did.
//  * parser/invalid/*.hlo: `hlo-opt FILE` exits with status 1 and reports a
//    located diagnostic `:LINE:COL: error:` (parse or verify error).
//  * models/*.hlo: parse, verify and round-trip as above.
//
// When the corpus directory is absent (a user's clone without ../shared),
// each gate instantiates a single test that reports SKIPPED.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"

extern char** environ;

namespace hlo {
namespace {

namespace fs = std::filesystem;

constexpr char kMissing[] = "shared_corpus_missing";

std::string CorpusDir() {
  const char* env = getenv("HLO_SHARED_DIR");
  std::string shared = (env != nullptr && *env != '\0') ? env : HLO_SHARED_DIR;
  return shared + "/corpus";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// MANIFEST.tsv: file -> notes (column 6).
const std::map<std::string, std::string>& ManifestNotes() {
  static const auto* notes = [] {
    auto* m = new std::map<std::string, std::string>();
    std::string text = ReadFile(CorpusDir() + "/MANIFEST.tsv");
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      std::vector<std::string> cols = absl::StrSplit(line, '\t');
      if (cols.size() >= 6) (*m)[cols[0]] = cols[5];
    }
    return m;
  }();
  return *notes;
}

// Corpus-relative paths ("parser/valid/x.hlo") of the *.hlo files in `sub`,
// sorted; {kMissing} when the corpus is not there.
std::vector<std::string> ListHlo(const std::string& sub) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::path dir = fs::path(CorpusDir()) / sub;
  if (!fs::is_directory(dir, ec)) return {kMissing};
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".hlo") out.push_back(sub + "/" + entry.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  if (out.empty()) return {kMissing};
  return out;
}

std::string TestName(const testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

// First differing line of two texts, for readable failures.
std::string FirstDifference(const std::string& a, const std::string& b) {
  std::vector<std::string> la = absl::StrSplit(a, '\n'), lb = absl::StrSplit(b, '\n');
  for (size_t i = 0; i < std::max(la.size(), lb.size()); ++i) {
    std::string x = i < la.size() ? la[i] : "<end of text>";
    std::string y = i < lb.size() ? lb[i] : "<end of text>";
    if (x != y) return absl::StrCat("line ", i + 1, ":\n  first print:  ", x, "\n  second print: ", y);
  }
  return "(no line differs)";
}

bool ShouldVerify(const std::string& rel) {
  auto it = ManifestNotes().find(rel);
  if (it == ManifestNotes().end()) return true;
  const std::string& notes = it->second;
  // "unverified" in the notes, or the single-instruction / canonical-op form
  // (not a complete module).
  return notes.find("unverified") == std::string::npos &&
         notes.find("single-instruction") == std::string::npos &&
         notes.find("canonical form") == std::string::npos;
}

void CheckParsesVerifiesRoundTrips(const std::string& rel, bool verify) {
  const std::string path = CorpusDir() + "/" + rel;
  const std::string text = ReadFile(path);
  ParseOptions options;
  options.filename = path;
  absl::StatusOr<std::unique_ptr<Module>> m1 = ParseModule(text, options);
  ASSERT_TRUE(m1.ok()) << "parse failed:\n" << m1.status().message();
  if (verify) {
    absl::Status st = VerifyModule(**m1);
    ASSERT_TRUE(st.ok()) << "verify failed:\n" << st.message();
  }
  const std::string p1 = PrintModule(**m1);
  options.filename = path + " (printed once)";
  absl::StatusOr<std::unique_ptr<Module>> m2 = ParseModule(p1, options);
  ASSERT_TRUE(m2.ok()) << "printed text does not re-parse:\n"
                       << m2.status().message() << "\n--- printed text ---\n"
                       << p1;
  if (verify) {
    absl::Status st = VerifyModule(**m2);
    ASSERT_TRUE(st.ok()) << "printed text does not verify:\n" << st.message();
  }
  const std::string p2 = PrintModule(**m2);
  EXPECT_TRUE(p1 == p2) << "print(parse(x)) is not a fixed point of print(parse(.)); "
                        << FirstDifference(p1, p2);
}

class ParserValid : public testing::TestWithParam<std::string> {};
class ParserInvalid : public testing::TestWithParam<std::string> {};
class Models : public testing::TestWithParam<std::string> {};

TEST_P(ParserValid, ParsesVerifiesRoundTrips) {
  if (GetParam() == kMissing) GTEST_SKIP() << "shared corpus not found at " << CorpusDir();
  CheckParsesVerifiesRoundTrips(GetParam(), ShouldVerify(GetParam()));
}

TEST_P(Models, ParsesVerifiesRoundTrips) {
  if (GetParam() == kMissing) GTEST_SKIP() << "shared corpus not found at " << CorpusDir();
  CheckParsesVerifiesRoundTrips(GetParam(), /*verify=*/true);
}

// Runs `argv`, stdout discarded, stderr captured. Returns the wait status.
int RunCapturingStderr(const std::vector<std::string>& argv, std::string* err) {
  char tmpl[] = "/tmp/corpus_gate_stderr.XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) return -1;
  unlink(tmpl);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fd, STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = -1;
  if (rc == 0) waitpid(pid, &status, 0);
  lseek(fd, 0, SEEK_SET);
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) err->append(buf, static_cast<size_t>(n));
  close(fd);
  return status;
}

// Invalid cases whose construct older exporters print and our default mode
// therefore accepts: api_version=API_VERSION_UNSPECIFIED appears in the
// PyTorch/XLA dumps of corpus/models.
bool NeedsStrictMode(const std::string& corpus_path) {
  return corpus_path.find("test_CustomCallWithUnspecifiedVersion") != std::string::npos;
}

// True if `text` contains `:LINE:COL: error:` (LINE, COL decimal).
bool HasLocatedError(const std::string& text) {
  for (size_t pos = text.find(": error:"); pos != std::string::npos;
       pos = text.find(": error:", pos + 1)) {
    size_t i = pos;
    int groups = 0;
    while (groups < 2) {
      size_t digits_end = i;
      while (i > 0 && std::isdigit(static_cast<unsigned char>(text[i - 1]))) --i;
      if (i == digits_end || i == 0 || text[i - 1] != ':') break;
      --i;  // the ':' before the digits
      ++groups;
    }
    if (groups == 2) return true;
  }
  return false;
}

TEST_P(ParserInvalid, RejectedWithLocatedError) {
  if (GetParam() == kMissing) GTEST_SKIP() << "shared corpus not found at " << CorpusDir();
  const std::string path = CorpusDir() + "/" + GetParam();
  std::string err;
  std::vector<std::string> argv = {HLO_OPT_PATH};
  // Legacy forms that real dumps (corpus/models) still contain are accepted
  // by default and rejected only under --strict (docs/architecture.md).
  if (NeedsStrictMode(GetParam())) argv.push_back("--strict");
  argv.push_back(path);
  int status = RunCapturingStderr(argv, &err);
  ASSERT_TRUE(WIFEXITED(status)) << "hlo-opt did not exit normally (crash/signal "
                                 << (WIFSIGNALED(status) ? WTERMSIG(status) : -1)
                                 << ")\n--- stderr ---\n"
                                 << err;
  EXPECT_EQ(WEXITSTATUS(status), 1) << "--- stderr ---\n" << err;
  EXPECT_TRUE(HasLocatedError(err))
      << "no located `:LINE:COL: error:` diagnostic\n--- stderr ---\n"
      << err;
}

INSTANTIATE_TEST_SUITE_P(Corpus, ParserValid, testing::ValuesIn(ListHlo("parser/valid")),
                         TestName);
INSTANTIATE_TEST_SUITE_P(Corpus, ParserInvalid, testing::ValuesIn(ListHlo("parser/invalid")),
                         TestName);
INSTANTIATE_TEST_SUITE_P(Corpus, Models, testing::ValuesIn(ListHlo("models")), TestName);

}  // namespace
}  // namespace hlo
