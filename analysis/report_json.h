// hlo-opt --json: the one machine-readable report of a run (schema in
// docs/hlo-opt-json.md): per module its diagnostics (parsed from the
// `file:line:col: error: message` text the parser and verifier produce),
// its pass runs with times, its cost (analysis/cost_analysis.h) and its
// output when that goes to stdout.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace hlo {

struct DiagnosticEntry {
  std::string severity = "error";  // error | warning | note
  std::string file;                // empty when the text names no location
  int line = 0;                    // 1-based; 0 = unknown
  int column = 0;
  std::string message;
  std::string context;  // the source line and caret lines that followed, if any
};

// Splits diagnostic text into entries: a line `FILE:LINE:COL: SEVERITY: MSG`
// (or `PROGRAM: SEVERITY: MSG`) starts one, the lines after it until the
// next such line are its context. Text before any header becomes one
// error entry.
std::vector<DiagnosticEntry> ParseDiagnostics(const std::string& text);

namespace json {
class Writer;
}  // namespace json

// Writes ParseDiagnostics(text) as the array of diagnostic objects both
// reports use (docs/hlo-opt-json.md).
void WriteDiagnostics(json::Writer& w, const std::string& text);

struct PassRunEntry {
  std::string name;
  double seconds = 0;
  bool changed = false;
};

struct ModuleReportEntry {
  bool ok = false;
  std::string diagnostics;  // as printed to stderr without --json
  std::vector<PassRunEntry> passes;
  std::string cost_json;              // CostToJson; empty if not computed
  std::optional<std::string> output;  // the printed output, when it goes to stdout
};

struct ToolReport {
  std::string tool = "hlo-opt";
  std::string input;
  std::vector<std::string> errors;  // tool-level errors (I/O), not tied to a module
  std::vector<ModuleReportEntry> modules;
  bool ok() const;
};

std::string ReportToJson(const ToolReport& report);

}  // namespace hlo
