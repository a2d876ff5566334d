// Builder-made modules kept as golden files in testdata/builder/<family>/:
// each is a worked example of the seeds, written out as HLO text with lit
// RUN lines that verify it with hlo-opt and run it with hlo-run, checking
// the document's result. The examples of family F are in
// client/golden_examples_F.cc. `hlo-builder-goldens DIR` (re)writes the
// files; client/golden_test.cc and the ctest client/goldens_up_to_date fail
// when a file differs from what the builder makes now.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/builder.h"

namespace hlo::client {

struct GoldenExample {
  std::string name;    // testdata/builder/<family>/<name>.hlo, and the module's name
  std::string source;  // the seed document and example it comes from
  void (*build)(XlaBuilder* b);
  std::vector<std::string> inputs;  // hlo-run --input literals
  std::string expected;             // the document's result, literal text (device 0's)
  int64_t replicas = 1;             // hlo-run --replicas
  std::vector<std::string> infeed = {};  // hlo-run --infeed literals
  // hlo-run --random-inputs instead of `inputs`, for an example whose
  // document gives a shape but no values and whose result does not depend
  // on them (e.g. a difference that must be zero).
  bool random_inputs = false;
  std::string family = {};  // set by GoldenExamples(): the subfolder and source file
};

// Every example, each with its family set.
const std::vector<GoldenExample>& GoldenExamples();

// "<family>/<name>.hlo", relative to testdata/builder.
std::string GoldenPath(const GoldenExample& example);

// The families, parts of GoldenExamples(): operation semantics computed on
// one device (golden_examples_ops.cc); collectives, tokens, infeed, custom
// calls and linear algebra (golden_examples_devices.cc); the broadcasting
// document (golden_examples_broadcasting.cc); the shapes-and-layout and
// tiled-layout documents (golden_examples_layout.cc).
std::vector<GoldenExample> OpGoldenExamples();
std::vector<GoldenExample> DeviceGoldenExamples();
std::vector<GoldenExample> BroadcastingGoldenExamples();
std::vector<GoldenExample> LayoutGoldenExamples();

// The golden file: comment, RUN and CHECK lines, then the module text.
absl::StatusOr<std::string> GoldenFileText(const GoldenExample& example);

}  // namespace hlo::client
