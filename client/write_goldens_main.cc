// hlo-builder-goldens DIR: writes every builder golden example
// (client/golden_examples.h) to DIR/<family>/<name>.hlo, making the family
// folders. Exit 1 on an error, 2 on bad usage.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "client/golden_examples.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  for (const hlo::client::GoldenExample& e : hlo::client::GoldenExamples()) {
    absl::StatusOr<std::string> text = hlo::client::GoldenFileText(e);
    if (!text.ok()) {
      std::fprintf(stderr, "error: %s: %s\n", e.name.c_str(), std::string(text.status().message()).c_str());
      return 1;
    }
    const std::filesystem::path path = std::filesystem::path(argv[1]) / hlo::client::GoldenPath(e);
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) {
      std::fprintf(stderr, "error: cannot create %s: %s\n", path.parent_path().c_str(), ec.message().c_str());
      return 1;
    }
    std::ofstream out(path);
    out << *text;
    if (!out) {
      std::fprintf(stderr, "error: cannot write %s\n", path.c_str());
      return 1;
    }
  }
  return 0;
}
