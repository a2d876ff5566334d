// A program using the installed toolchain: parse -> verify -> optimize
// (hlo-opt -O's pipeline) -> print -> run on the CPU backend -> cost; then
// the same with a computation made by the builder (client/, docs/builder.md).
// docs/library.md shows this file; testdata/install/check_install.sh builds
// it against an installed tree with find_package and with pkg-config.
#include <iostream>

#include "analysis/cost_analysis.h"
#include "backend_cpu/executor.h"
#include "client/ops.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "parser/parser.h"
#include "passes/pipeline.h"

constexpr char kModule[] = R"(
HloModule axpy
ENTRY %main (a: f32[], x: f32[4], y: f32[4]) -> f32[4] {
  %a = f32[] parameter(0)
  %x = f32[4] parameter(1)
  %y = f32[4] parameter(2)
  %c1 = f32[] constant(1)
  %one = f32[4] broadcast(%c1), dimensions={}
  %ab = f32[4] broadcast(%a), dimensions={}
  %ax = f32[4] multiply(%ab, %x)
  %y1 = f32[4] multiply(%y, %one)
  ROOT %r = f32[4] add(%ax, %y1)
})";

// (x + v) * 2 with the builder: v broadcast along x's rows, 2 a scalar.
int Builder() {
  using namespace hlo::client;
  XlaBuilder b("scaled_rows");
  XlaOp x = Parameter(&b, 0, hlo::Shape::Array(hlo::PrimitiveType::F32, {2, 3}), "x");
  XlaOp v = ConstantR1<float>(&b, {10, 20, 30});
  Mul(Add(x, v, /*broadcast_dimensions=*/{1}), ConstantR0<float>(&b, 2));
  auto module = b.BuildModule();
  if (!module.ok()) return std::cerr << module.status() << "\n", 1;
  if (auto st = hlo::VerifyModule(**module); !st.ok()) return std::cerr << st << "\n", 1;
  std::cout << hlo::PrintModule(**module);
  std::vector<hlo::Literal> args;
  args.push_back(*hlo::ParseLiteral("f32[2,3] {{1, 2, 3}, {4, 5, 6}}"));
  auto run = hlo::cpu::RunModule(**module, args);
  if (!run.ok()) return std::cerr << run.status() << "\n", 1;
  std::cout << hlo::LiteralToString(run->results[0]) << "\n";
  return 0;
}

int main() {
  auto module = hlo::ParseModule(kModule);                   // text -> IR
  if (!module.ok()) return std::cerr << module.status() << "\n", 1;
  if (auto st = hlo::VerifyModule(**module); !st.ok()) return std::cerr << st << "\n", 1;
  auto changed = hlo::DefaultPipeline().Run(**module);      // hlo-opt -O
  if (!changed.ok()) return std::cerr << changed.status() << "\n", 1;
  std::cout << hlo::PrintModule(**module);                   // canonical text
  std::vector<hlo::Literal> args;
  for (const char* v : {"f32[] 2", "f32[4] {1, 2, 3, 4}", "f32[4] {10, 20, 30, 40}"})
    args.push_back(*hlo::ParseLiteral(v));
  auto run = hlo::cpu::RunModule(**module, args);            // CPU backend
  if (!run.ok()) return std::cerr << run.status() << "\n", 1;
  std::cout << hlo::LiteralToString(run->results[0]) << "\n";
  std::cout << "flops " << hlo::AnalyzeCost(**module).total.flops << "\n";
  return Builder();
}
