// Builder-made modules kept as golden files in testdata/builder/: each is
// a worked example of the seeds, written out as HLO text with lit RUN
// lines that verify it with hlo-opt and run it with hlo-run, checking the
// document's result. `hlo-builder-goldens DIR` (re)writes the files;
// client/golden_test.cc fails when a file differs from what the builder
// makes now.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/builder.h"

namespace hlo::client {

struct GoldenExample {
  std::string name;    // testdata/builder/<name>.hlo
  std::string source;  // the seed document and example it comes from
  void (*build)(XlaBuilder* b);
  std::vector<std::string> inputs;  // hlo-run --input literals
  std::string expected;             // the document's result, literal text (device 0's)
  int64_t replicas = 1;             // hlo-run --replicas
  std::vector<std::string> infeed;  // hlo-run --infeed literals
};

const std::vector<GoldenExample>& GoldenExamples();

// The examples of collectives, tokens, infeed, custom calls and linear
// algebra (golden_examples_devices.cc), part of GoldenExamples().
std::vector<GoldenExample> DeviceGoldenExamples();

// The golden file: comment, RUN and CHECK lines, then the module text.
absl::StatusOr<std::string> GoldenFileText(const GoldenExample& example);

}  // namespace hlo::client
