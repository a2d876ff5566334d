// Test helpers for the algsimp / constant_folding / dot-canonicalize tests:
// run a pass on parsed HLO, verify, and check that the entry computation
// gives bit-identical results before and after on deterministic
// pseudo-random inputs (run through the CPU backend).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "backend_cpu/executor.h"
#include "gtest/gtest.h"
#include "ir/module.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "passes/pass.h"

namespace hlo::passes_test {

struct PassRun {
  std::unique_ptr<Module> module;
  bool changed = false;
  std::string text;  // printed after the pass
};

inline std::vector<Literal> RandomArgs(const Module& m, uint64_t seed) {
  std::vector<Literal> args;
  for (const Instruction* p : m.entry()->parameters()) {
    Literal lit(p->shape());
    lit.FillDeterministic(seed * 7919 + p->parameter_number());
    args.push_back(std::move(lit));
  }
  return args;
}

// Parses `hlo`, runs `pass`, verifies; compares results of the entry on
// `seeds` random input sets (plus `extra_args` if given) before and after.
// With `nan_sign_free`, a NaN matches a NaN of either sign/payload (what
// algsimp promises); otherwise results must be bit-identical.
inline PassRun RunAndCompare(Pass& pass, const std::string& hlo, int seeds = 3,
                             const std::vector<std::vector<std::string>>& extra_args = {},
                             bool nan_sign_free = false) {
  PassRun out;
  auto parsed = ParseModule(hlo);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (!parsed.ok()) return out;
  std::unique_ptr<Module> before = *std::move(parsed);
  EXPECT_TRUE(VerifyModule(*before).ok()) << VerifyModule(*before);
  std::unique_ptr<Module> after = *ParseModule(hlo);
  auto changed = pass.Run(*after);
  EXPECT_TRUE(changed.ok()) << changed.status();
  if (!changed.ok()) return out;
  out.changed = *changed;
  out.text = PrintModule(*after);
  absl::Status v = VerifyModule(*after);
  EXPECT_TRUE(v.ok()) << v << "\n" << out.text;
  // The printed module must parse back (what hlo-opt users get).
  auto reparsed = ParseModule(out.text);
  EXPECT_TRUE(reparsed.ok()) << reparsed.status() << "\n" << out.text;
  std::vector<std::vector<Literal>> arg_sets;
  for (int s = 0; s < seeds; ++s) arg_sets.push_back(RandomArgs(*before, s + 1));
  for (const auto& texts : extra_args) {
    std::vector<Literal> a;
    for (const std::string& t : texts) {
      auto lit = ParseLiteral(t);
      EXPECT_TRUE(lit.ok()) << lit.status();
      if (lit.ok()) a.push_back(*std::move(lit));
    }
    arg_sets.push_back(std::move(a));
  }
  for (const auto& args : arg_sets) {
    auto r0 = cpu::RunModule(*before, args);
    auto r1 = cpu::RunModule(*after, args);
    EXPECT_TRUE(r0.ok()) << r0.status();
    EXPECT_TRUE(r1.ok()) << r1.status() << "\n" << out.text;
    if (!r0.ok() || !r1.ok()) continue;
    auto text_of = [&](const Literal& l) {
      std::string s = LiteralToString(l);
      if (nan_sign_free) s = absl::StrReplaceAll(s, {{"-nan", "nan"}});
      return s;
    };
    EXPECT_TRUE(r0->results[0].LogicallyEqual(r1->results[0]) ||
                (nan_sign_free && text_of(r0->results[0]) == text_of(r1->results[0])))
        << "before: " << LiteralToString(r0->results[0]) << "\nafter:  " << LiteralToString(r1->results[0])
        << "\n" << out.text;
  }
  out.module = std::move(after);
  return out;
}

inline int64_t CountOpcode(const Module& m, Opcode op) {
  int64_t n = 0;
  for (const Computation* c : m.computations())
    for (const Instruction* i : c->instructions()) n += i->opcode() == op;
  return n;
}

}  // namespace hlo::passes_test
