// Test helpers: build a module, check it verifies and survives print ->
// parse -> print unchanged, run it on the CPU backend, compare with a
// literal written in the text form.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backend_cpu/executor.h"
#include "client/ops.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"

namespace hlo::client::testing {

// Builds `b`'s module, verifies it, checks that its printed text parses
// back to the same text, and returns it.
inline absl::StatusOr<std::shared_ptr<Module>> BuildChecked(XlaBuilder& b) {
  absl::StatusOr<std::shared_ptr<Module>> m = b.BuildModule();
  if (!m.ok()) return m.status();
  absl::Status v = VerifyModule(**m);
  if (!v.ok()) return absl::InternalError(absl::StrCat("verifier: ", v.message(), "\n", PrintModule(**m)));
  const std::string text = PrintModule(**m);
  absl::StatusOr<std::unique_ptr<Module>> reparsed = ParseModule(text);
  if (!reparsed.ok()) return absl::InternalError(absl::StrCat("reparse: ", reparsed.status().message(), "\n", text));
  if (PrintModule(**reparsed) != text)
    return absl::InternalError(absl::StrCat("print/parse is not a fixed point:\n", text));
  return m;
}

// Runs `module` with `args` (literal texts such as "f32[2] {1, 2}"),
// returning device 0's result.
inline absl::StatusOr<Literal> RunWithArgs(const Module& module, const std::vector<std::string>& args,
                                           const cpu::RunOptions& options = {}) {
  std::vector<Literal> lits;
  for (const std::string& a : args) {
    absl::StatusOr<Literal> l = ParseLiteral(a);
    if (!l.ok()) return l.status();
    lits.push_back(*std::move(l));
  }
  absl::StatusOr<cpu::RunResult> r = cpu::RunModule(module, lits, options);
  if (!r.ok()) return r.status();
  return std::move(r->results[0]);
}

// Builds, checks and runs `b` with `args`.
inline absl::StatusOr<Literal> BuildAndRun(XlaBuilder& b, const std::vector<std::string>& args = {},
                                           const cpu::RunOptions& options = {}) {
  absl::StatusOr<std::shared_ptr<Module>> m = BuildChecked(b);
  if (!m.ok()) return m.status();
  return RunWithArgs(**m, args, options);
}

// `actual` equals the literal written as `expected` (shape and values;
// layouts ignored).
inline ::testing::AssertionResult LiteralIs(const Literal& actual, const std::string& expected) {
  absl::StatusOr<Literal> want = ParseLiteral(expected);
  if (!want.ok()) return ::testing::AssertionFailure() << "bad expected literal: " << want.status();
  if (actual.LogicallyEqual(*want)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << LiteralToString(actual) << ", want " << expected;
}

// Runs `b` and expects `expected`.
#define EXPECT_BUILDS_TO(builder, args, expected)                               \
  do {                                                                          \
    absl::StatusOr<Literal> _r = ::hlo::client::testing::BuildAndRun(builder, args); \
    ASSERT_TRUE(_r.ok()) << _r.status();                                        \
    EXPECT_TRUE(::hlo::client::testing::LiteralIs(*_r, expected));              \
  } while (0)

// Scalar parameters 0..n-1 of the given types, named p0, p1, ...
inline std::vector<XlaOp> ScalarParameters(XlaBuilder* b, const std::vector<PrimitiveType>& types) {
  std::vector<XlaOp> out;
  for (size_t i = 0; i < types.size(); ++i)
    out.push_back(Parameter(b, static_cast<int64_t>(i), Shape::Scalar(types[i]), "p" + std::to_string(i)));
  return out;
}

// A computation built by `body` on a sub-builder of `parent`.
inline XlaComputation SubComputation(XlaBuilder& parent, const std::string& name,
                                     const std::function<void(XlaBuilder*)>& body) {
  std::unique_ptr<XlaBuilder> sub = parent.CreateSubBuilder(name);
  body(sub.get());
  absl::StatusOr<XlaComputation> c = sub->Build();
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : XlaComputation();
}

// A scalar computation (T, T) -> T applying `opcode` (add, max, ...),
// built as a sub-builder of `parent`.
inline XlaComputation ScalarBinary(XlaBuilder& parent, const std::string& name, PrimitiveType t,
                                   XlaOp (*op)(XlaOp, XlaOp, absl::Span<const int64_t>)) {
  return SubComputation(parent, name, [&](XlaBuilder* sub) {
    XlaOp x = Parameter(sub, 0, Shape::Scalar(t), "x");
    op(x, Parameter(sub, 1, Shape::Scalar(t), "y"), {});
  });
}

}  // namespace hlo::client::testing
