#include "gen/diff_check.h"

#include <cstring>
#include <exception>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/thread_pool.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "passes/pipeline.h"
#include "tools/literal_compare.h"
#include "tools/run_inputs.h"

namespace hlo::gen {
namespace {

void Leaves(const Literal& l, std::vector<const Literal*>* out) {
  if (!l.IsTuple()) {
    out->push_back(&l);
    return;
  }
  for (const Literal& e : l.tuple_elements()) Leaves(e, out);
}

// Narrow floats round every intermediate; a pass that changes the order or
// the precision of a computation (e.g. folding in f32) moves results by
// several of their ulps, which the f32 bounds would call a mismatch.
double BoundFor(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::F16: return 2e-2;
    case PrimitiveType::BF16: return 1e-1;
    default: break;
  }
  if (PrimitiveTypeByteSize(t) == 1 && IsFloat(t)) return 0.5;
  return 1e-3;
}

absl::StatusOr<std::unique_ptr<Module>> Load(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  if (!m.ok()) return m.status();
  absl::Status v = VerifyModule(**m);
  if (!v.ok()) return v;
  return m;
}

absl::StatusOr<Literal> RunWith(const Module& m, const std::vector<Literal>& args, int threads) {
  cpu::SetThreadPoolWidth(threads);
  absl::StatusOr<cpu::RunResult> r = cpu::RunModule(m, args);
  if (!r.ok()) return r.status();
  return std::move(r->results[0]);
}

DiffResult Fail(std::string check, std::string message) { return {std::move(check), std::move(message)}; }

DiffResult Check(const std::string& text, uint64_t input_seed) {
  absl::StatusOr<std::unique_ptr<Module>> parsed = ParseModule(text);
  if (!parsed.ok()) return Fail("parse", std::string(parsed.status().message()));
  absl::Status verified = VerifyModule(**parsed);
  if (!verified.ok()) return Fail("verify", std::string(verified.message()));
  const std::string once = PrintModule(**parsed);
  absl::StatusOr<std::unique_ptr<Module>> again = ParseModule(once);
  if (!again.ok()) return Fail("roundtrip", absl::StrCat("the printed module does not parse: ", again.status().message()));
  const std::string twice = PrintModule(**again);
  if (twice != once) return Fail("roundtrip", "print(parse(print(m))) differs from print(m)");

  const Module& m = **parsed;
  std::vector<Literal> args;
  for (int64_t i = 0; i < m.entry()->num_parameters(); ++i)
    args.push_back(RandomLiteral(m.entry()->parameter(i)->shape(), input_seed + static_cast<uint64_t>(i)));
  absl::StatusOr<Literal> one = RunWith(m, args, 1);
  if (!one.ok()) return Fail("run", std::string(one.status().message()));
  absl::StatusOr<Literal> two = RunWith(m, args, 2);
  if (!two.ok()) return Fail("threads", absl::StrCat("fails on 2 threads only: ", two.status().message()));
  std::vector<const Literal*> a, b;
  Leaves(*one, &a);
  Leaves(*two, &b);
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i]->size_bytes() != b[i]->size_bytes() ||
        std::memcmp(a[i]->data(), b[i]->data(), a[i]->size_bytes()) != 0)
      return Fail("threads", absl::StrCat("result leaf ", i, " differs between 1 and 2 threads"));

  absl::StatusOr<std::unique_ptr<Module>> opt = Load(text);
  if (!opt.ok()) return Fail("parse", std::string(opt.status().message()));
  absl::StatusOr<bool> changed = DefaultPipeline().Run(**opt);
  if (!changed.ok()) return Fail("opt", absl::StrCat("the -O pipeline failed: ", changed.status().message()));
  absl::Status still_valid = VerifyModule(**opt);
  if (!still_valid.ok()) return Fail("opt", absl::StrCat("-O left an invalid module: ", still_valid.message()));
  absl::StatusOr<Literal> optimized = RunWith(**opt, args, 2);
  if (!optimized.ok()) return Fail("opt", absl::StrCat("the -O module does not run: ", optimized.status().message()));
  std::vector<const Literal*> c;
  Leaves(*optimized, &c);
  if (c.size() != a.size()) return Fail("opt", "the -O module returns a different number of values");
  for (size_t i = 0; i < a.size(); ++i) {
    const double bound = BoundFor(a[i]->shape().element_type());
    CompareReport report = CompareLiterals(*a[i], *c[i], bound, bound);
    if (!report.ok) return Fail("opt", absl::StrCat("result leaf ", i, " of -O differs: ", report.message));
  }
  return {};
}

}  // namespace

DiffResult CheckModule(const std::string& text, uint64_t input_seed) {
  const int width = cpu::ThreadPoolWidth();
  DiffResult r;
  try {
    r = Check(text, input_seed);
  } catch (const std::exception& e) {
    r = Fail("run", absl::StrCat("exception: ", e.what()));
  }
  cpu::SetThreadPoolWidth(width);
  return r;
}

}  // namespace hlo::gen
