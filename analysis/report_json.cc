#include "analysis/report_json.h"

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "analysis/json.h"

namespace hlo {
namespace {

constexpr const char* kSeverities[] = {"error", "warning", "note"};

// "FILE:LINE:COL: SEV: MSG" or "PREFIX: SEV: MSG" -> an entry.
bool ParseHeader(absl::string_view line, DiagnosticEntry* out) {
  for (const char* sev : kSeverities) {
    const std::string tag = std::string(": ") + sev + ": ";
    const size_t at = line.find(tag);
    if (at == absl::string_view::npos) continue;
    DiagnosticEntry e;
    e.severity = sev;
    e.message = std::string(line.substr(at + tag.size()));
    absl::string_view where = line.substr(0, at);
    // FILE:LINE:COL, FILE may itself contain ':'.
    std::vector<absl::string_view> parts = absl::StrSplit(where, ':');
    int l = 0, c = 0;
    if (parts.size() >= 3 && absl::SimpleAtoi(parts[parts.size() - 2], &l) &&
        absl::SimpleAtoi(parts.back(), &c)) {
      e.line = l;
      e.column = c;
      e.file = std::string(where.substr(0, where.size() - parts.back().size() - parts[parts.size() - 2].size() - 2));
    } else if (parts.size() >= 2 && absl::SimpleAtoi(parts.back(), &l)) {
      e.line = l;
      e.file = std::string(where.substr(0, where.size() - parts.back().size() - 1));
    } else {
      e.file = std::string(where);  // a file name, or the program's name
    }
    *out = std::move(e);
    return true;
  }
  return false;
}

}  // namespace

std::vector<DiagnosticEntry> ParseDiagnostics(const std::string& text) {
  std::vector<DiagnosticEntry> out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    DiagnosticEntry e;
    if (ParseHeader(line, &e)) {
      out.push_back(std::move(e));
      continue;
    }
    if (line.empty()) continue;
    if (out.empty()) {
      out.emplace_back();
      out.back().message = std::string(line);
      continue;
    }
    std::string& ctx = out.back().context;
    if (!ctx.empty()) ctx += "\n";
    ctx += std::string(line);
  }
  return out;
}

void WriteDiagnostics(json::Writer& w, const std::string& text) {
  w.BeginArray();
  for (const DiagnosticEntry& d : ParseDiagnostics(text)) {
    w.BeginObject();
    w.Key("severity").String(d.severity);
    w.Key("file").String(d.file);
    w.Key("line").Num(d.line);
    w.Key("column").Num(d.column);
    w.Key("message").String(d.message);
    w.Key("context").String(d.context);
    w.EndObject();
  }
  w.EndArray();
}

bool ToolReport::ok() const {
  if (!errors.empty()) return false;
  for (const ModuleReportEntry& m : modules)
    if (!m.ok) return false;
  return true;
}

std::string ReportToJson(const ToolReport& report) {
  json::Writer w;
  w.BeginObject();
  w.Key("schema").String("hlo-toolchain-report");
  w.Key("version").Num(1);
  w.Key("tool").String(report.tool);
  w.Key("input").String(report.input);
  w.Key("ok").Bool(report.ok());
  w.Key("errors").BeginArray();
  for (const std::string& e : report.errors) w.String(e);
  w.EndArray();
  w.Key("modules").BeginArray();
  for (size_t i = 0; i < report.modules.size(); ++i) {
    const ModuleReportEntry& m = report.modules[i];
    w.BeginObject();
    w.Key("index").Num(static_cast<double>(i));
    w.Key("ok").Bool(m.ok);
    w.Key("diagnostics");
    WriteDiagnostics(w, m.diagnostics);
    w.Key("passes").BeginArray();
    double total = 0;
    for (const PassRunEntry& p : m.passes) {
      w.BeginObject();
      w.Key("name").String(p.name);
      w.Key("ms").Num(p.seconds * 1e3);
      w.Key("changed").Bool(p.changed);
      w.EndObject();
      total += p.seconds;
    }
    w.EndArray();
    w.Key("passes_total_ms").Num(total * 1e3);
    w.Key("cost");
    if (m.cost_json.empty()) {
      w.Null();
    } else {
      w.Raw(absl::StripTrailingAsciiWhitespace(m.cost_json));
    }
    if (m.output.has_value()) w.Key("output").String(*m.output);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.str() + "\n";
}

}  // namespace hlo
