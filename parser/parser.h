// The HLO text parser: hand-written lexer + recursive descent over the
// whole grammar of docs/hlo-text-format.md.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/attribute.h"
#include "ir/literal.h"
#include "ir/module.h"
#include "ir/named_sharding.h"

namespace hlo {

struct ParseOptions {
  std::string filename = "<stdin>";  // used in diagnostics
  bool fill_missing_layouts = true;
  int max_recursion_depth = 500;
  // Current XLA rejects custom-call api_version=API_VERSION_UNSPECIFIED, but
  // dumps from older exporters (PyTorch/XLA) contain it. Accepted (and kept
  // as written) unless this is set.
  bool reject_unspecified_api_version = false;
};

// Parses a whole module (with or without the `HloModule` header). On error
// the status message holds one or more diagnostics in the form
// `file:line:col: error: message` + source line + caret line.
// The returned module remembers its source (Module::source_text) so later
// diagnostics (verifier) can point at lines.
absl::StatusOr<std::unique_ptr<Module>> ParseModule(absl::string_view text,
                                                    const ParseOptions& options = ParseOptions());
// The same for text the caller already holds in a shared string: the module
// keeps a reference to it instead of a copy (for big inputs).
absl::StatusOr<std::unique_ptr<Module>> ParseModule(std::shared_ptr<const std::string> text,
                                                    const ParseOptions& options = ParseOptions());

// Parses a shape such as `f32[2,3]{1,0}` or `(f32[], s32[4])`.
absl::StatusOr<Shape> ParseShape(absl::string_view text);

// Parses a literal with its shape, e.g. `f32[2,2] {{1,2},{3,4}}` or
// `(s32[], f32[2]) (1, {2, 3})` (hlo-run's --input form).
absl::StatusOr<Literal> ParseLiteral(absl::string_view text);

// Parses convolution dim labels such as `b01f_01io->b01f` (the text form of
// dim_labels=), with the same checks as in a module.
absl::StatusOr<ConvolutionDimensionNumbers> ParseConvDimLabels(absl::string_view text);

// Parses a named (Shardy) sharding, the text the IR keeps verbatim, e.g.
// `{mesh['a'=2,'b'=4], [{'a'}, {'b', ?}], replicated={...}}` (ir/named_sharding.h).
absl::StatusOr<NamedShardingSpec> ParseNamedSharding(absl::string_view text);

// Splits input on lines that are exactly `// -----` (hlo-opt
// --split-input-file). Each chunk keeps its starting line number so
// diagnostics point into the original file.
struct InputChunk {
  std::string text;  // padded with leading newlines so line numbers match the file
  int first_line = 1;
};
std::vector<InputChunk> SplitInputFile(absl::string_view text);

// True if `text` is a balanced {...} JSON-ish dict (quotes respected): how
// backend_config decides between dict and string.
bool LexesAsJsonDict(absl::string_view text);

}  // namespace hlo
