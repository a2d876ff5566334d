#include "analysis/run_report_json.h"

#include <algorithm>

#include "absl/strings/strip.h"
#include "analysis/json.h"
#include "analysis/report_json.h"

namespace hlo {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

std::string RunReportToJson(const RunReport& r, int exit_status) {
  json::Writer w;
  w.BeginObject();
  w.Key("schema").String("hlo-toolchain-report");
  w.Key("version").Num(1);
  w.Key("tool").String("hlo-run");
  w.Key("input").String(r.input);
  w.Key("ok").Bool(exit_status == 0);
  w.Key("exit_status").Num(exit_status);
  w.Key("errors").BeginArray();
  for (const std::string& e : r.errors) w.String(e);
  w.EndArray();
  w.Key("diagnostics");
  WriteDiagnostics(w, r.diagnostics);
  w.Key("notes").BeginArray();
  for (const std::string& n : r.notes) w.String(n);
  w.EndArray();
  w.Key("run");
  if (!r.ran) {
    w.Null();
  } else {
    w.BeginObject();
    w.Key("iterations").Num(static_cast<double>(r.iterations));
    w.Key("warmup").Num(static_cast<double>(r.warmup));
    w.Key("times_ms").BeginArray();
    for (double s : r.seconds) w.Num(s * 1e3);
    w.EndArray();
    if (!r.seconds.empty()) {
      w.Key("min_ms").Num(*std::min_element(r.seconds.begin(), r.seconds.end()) * 1e3);
      w.Key("median_ms").Num(Median(r.seconds) * 1e3);
    }
    w.Key("peak_memory_bytes");
    if (r.peak_memory_bytes) {
      w.Num(static_cast<double>(*r.peak_memory_bytes));
    } else {
      w.Null();
    }
    w.Key("peak_buffer_bytes");
    if (r.peak_buffer_bytes) {
      w.Num(static_cast<double>(*r.peak_buffer_bytes));
    } else {
      w.Null();
    }
    w.Key("profile");
    if (r.profile_json.empty()) {
      w.Null();
    } else {
      w.Raw(absl::StripTrailingAsciiWhitespace(r.profile_json));
    }
    w.Key("comparison");
    if (!r.comparison) {
      w.Null();
    } else {
      const RunComparisonEntry& c = *r.comparison;
      w.BeginObject();
      w.Key("reference").String(c.reference);
      w.Key("ok").Bool(c.ok);
      w.Key("elements").Num(static_cast<double>(c.elements));
      w.Key("mismatches").Num(static_cast<double>(c.mismatches));
      w.Key("abs_error_bound").Num(c.abs_error_bound);
      w.Key("rel_error_bound").Num(c.rel_error_bound);
      w.Key("message").String(c.message);
      w.EndObject();
    }
    if (r.result) w.Key("result").String(*r.result);
    w.EndObject();
  }
  w.EndObject();
  return w.str() + "\n";
}

}  // namespace hlo
