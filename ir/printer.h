// Canonical text printer. print(parse(x)) is a fixed point of print∘parse.
#pragma once

#include <string>

#include "ir/literal.h"
#include "ir/module.h"

namespace hlo {

struct PrintOptions {
  bool print_percent = true;          // `%` before instruction/computation names
  bool print_operand_shapes = false;  // `add(f32[] %x, ...)`
  bool print_large_constants = true;  // false: arrays > 10 elements print as {...}
  bool print_metadata = true;
  bool print_backend_config = true;
  bool print_program_shape = true;    // `(p: f32[]) -> f32[]` signatures
  bool print_control_dependencies = true;
  // The long form (the default canonical form).
  static PrintOptions Long() { return PrintOptions(); }
  // XLA's ShortParsable: no `%`, no operand shapes, no signatures.
  static PrintOptions Short() {
    PrintOptions o;
    o.print_percent = false;
    o.print_program_shape = false;
    return o;
  }
};

std::string PrintModule(const Module& module, const PrintOptions& options = PrintOptions());
std::string PrintComputation(const Computation& comp, const PrintOptions& options = PrintOptions());
std::string PrintInstruction(const Instruction& inst, const PrintOptions& options = PrintOptions());
// `f32[2,3]{1,0}`; without layouts when print_layout is false.
std::string ShapeToString(const Shape& shape, bool print_layout = true);
std::string LayoutToString(const Layout& layout);
// The value part as inside `constant(...)`, e.g. `{1, 2, 3}`.
std::string LiteralValueToString(const Literal& literal, bool print_large = true);
// Shape then value, e.g. `s32[2]{0} {1, 2}` (the `literal=` form and
// hlo-run's output form).
std::string LiteralToString(const Literal& literal);

}  // namespace hlo
