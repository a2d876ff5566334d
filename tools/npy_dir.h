// Writing literals as a directory of .npy files, one per array leaf:
// hlo-run's --output-dir (the result) and --save-inputs (the arguments).
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ir/literal.h"

namespace hlo {

// One array leaf of a literal: where it sits (the top-level value and the
// path of tuple indices below it) and the leaf itself.
struct LiteralLeaf {
  int64_t value_index = 0;
  std::vector<int64_t> tuple_index;
  const Literal* leaf = nullptr;
};

// The leaves of `values` in flattened tuple order (depth first); tokens
// and other non-array leaves are included (they get no file).
std::vector<LiteralLeaf> FlattenLeaves(const std::vector<const Literal*>& values);

// Writes leaf i as DIR/i.npy (DIR is created if missing; `flag` names the
// option in messages). Every leaf is encoded before anything is written, so
// an unencodable leaf leaves no files behind. Types NumPy lacks are widened
// as EncodeNpy does. If `sidecar` is not empty, DIR/<sidecar> is written
// too: a JSON object whose "leaves" list gives, per file, the value index
// (e.g. the parameter number), the tuple index, the real element type and
// the shape with its layout.
absl::Status WriteNpyDir(const std::string& dir, const std::vector<LiteralLeaf>& leaves,
                         const std::string& flag, const std::string& sidecar = "",
                         const std::string& value_key = "value");

}  // namespace hlo
