// Canonical text printer. print(parse(x)) is a fixed point of print∘parse.
#pragma once

#include <string>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "ir/attr_spec.h"
#include "ir/attribute.h"
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
  // `/*index=5*/` before every fifth operand (XLA's operand index
  // annotation; ShortParsable turns it off). Tuple shapes always carry them.
  bool print_operand_index_annotations = true;
  // The long form (the default canonical form).
  static PrintOptions Long() { return PrintOptions(); }
  // XLA's ShortParsable: no `%`, no operand shapes, no signatures, no
  // operand index annotations.
  static PrintOptions Short() {
    PrintOptions o;
    o.print_percent = false;
    o.print_program_shape = false;
    o.print_operand_index_annotations = false;
    return o;
  }
};

// Canonical choices beyond docs/architecture.md (implemented in printer.cc,
// print_shape.cc, print_literal.cc, print_attributes.cc):
//  * `/*index=N*/` before every fifth element of tuple shapes (everywhere a
//    shape prints) and of operand lists, as XLA prints them; `/*iK=V*/`
//    index comments in literals of rank >= 4.
//  * parameter_replication prints right after the family attributes (before
//    sharding), where XLA prints it.
//  * Omitted although present: values equal to AttrSpec::default_text, empty
//    windows, all-`default` operand_precision, compare `type=` equal to the
//    operand type's default, result_accuracy `mode=default`, empty metadata
//    (any non-default field prints it), empty frontend_attributes, empty
//    (non-dict) backend_config, metadata/backend_config/control-predecessors
//    when their option is off.
//  * Async sugar: `<op>-start` prints the async-start's family attributes
//    except `calls` (async_execution_thread when not "main",
//    output_to_operand_aliasing), then the wrapped op's family attributes,
//    then universal attributes (the async-start's, else the wrapped op's).
//    `<op>-update` / `<op>-done` print only their own universal attributes.
//  * NaN payloads print as `nan(0x<mantissa field>)` when the field is not
//    the type's default quiet NaN (IEEE-like types only); the sign comes
//    from the sign bit (fnuz NaN 0x80 prints as `-nan`).
//  * Module text: header, blank line, [stack-frame tables], then every
//    computation followed by a blank line (the text ends in "}\n\n").
std::string PrintModule(const Module& module, const PrintOptions& options = PrintOptions());
// `[ENTRY ]%name (sig) -> shape {\n  instrs\n}[, execution_thread="t"]`
// (ENTRY when it is its module's entry; no trailing newline).
std::string PrintComputation(const Computation& comp, const PrintOptions& options = PrintOptions());
// `%name = shape opcode(operands), attrs` (no indentation, no `ROOT `).
std::string PrintInstruction(const Instruction& inst, const PrintOptions& options = PrintOptions());
// `f32[2,3]{1,0}`; without layouts when print_layout is false.
std::string ShapeToString(const Shape& shape, bool print_layout = true);
std::string LayoutToString(const Layout& layout);
// The value part as inside `constant(...)`, e.g. `{1, 2, 3}`.
std::string LiteralValueToString(const Literal& literal, bool print_large = true);
// Shape then value, e.g. `s32[2]{0} {1, 2}` (the `literal=` form and
// hlo-run's output form).
std::string LiteralToString(const Literal& literal);
// XLA's Literal::ToString() form, as run_hlo_module prints results: shape
// without layout, then the values; rank >= 2 arrays span several lines, e.g.
// "f32[2,2] {\n  { 1, 2 },\n  { 3, 4 }\n}"; tuples "(\n...,\n...\n)".
// Parses back with ParseLiteral.
std::string LiteralToXlaString(const Literal& literal);
// The same text handed to `sink` in pieces of about 1 MiB, so
// that printing a large value does not hold all its text at once.
void PrintLiteralXla(const Literal& literal, absl::FunctionRef<void(absl::string_view)> sink);
// The FileNames / FunctionNames / FileLocations / StackFrames tables as
// printed between the module header and the first computation.
std::string StackFramesToString(const StackFrameTables& tables);
// An attribute's value as after `name=` (sharding `{devices=[2]0,1}`,
// aliasing `{{0}: (1, {})}`, ...); `kind` tells an enum (printed bare) from
// a string (quoted). Readers of other formats build the IR value and print
// it here instead of writing the text syntax themselves.
std::string AttrValueToString(const AttrValue& value, AttrKind kind);

}  // namespace hlo
