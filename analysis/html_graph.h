// hlo-opt --emit=html: one self-contained HTML page with the module's graph
// (analysis/dot_graph.h) rendered to SVG by Graphviz (`dot -Tsvg`, Debian
// package graphviz), inline; hovering a node shows its instruction text in
// a panel (and as the SVG's native tooltip). No external resources.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "analysis/dot_graph.h"
#include "ir/module.h"

namespace hlo {

// Runs `dot -Tsvg` on `dot_text`. The program is $HLO_DOT if set, else `dot`
// on PATH. A clear error when it is missing or fails.
absl::StatusOr<std::string> RenderSvg(const std::string& dot_text);

absl::StatusOr<std::string> EmitHtml(const Module& module, const DotOptions& options);

}  // namespace hlo
