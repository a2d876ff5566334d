// XLA's rule for instruction names. XLA names every instruction through its
// name sanitizer and its parser rejects a name the sanitizer would change,
// so only names that are their own sanitized form can travel between this
// toolchain and XLA in either direction.
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace hlo {

// The name XLA gives an instruction asked to be called `name`, in XLA's
// order of steps: a first character that is not a letter or '_' becomes
// '_'; any other character outside [a-zA-Z0-9_.-] becomes '_'; an element
// type name gets a '_' appended (element types are keywords of the text);
// then a leading "__" that does not start "__xla_" becomes "a_" (backends
// reserve such prefixes). The empty name stays empty.
std::string SanitizedInstructionName(absl::string_view name);

// True if `name` is non-empty and its own sanitized form. Allocation-free:
// the parser asks it for every instruction.
bool IsLegalInstructionName(absl::string_view name);

// True for the names XLA reserves as element types: ours (PrimitiveTypeName)
// plus the types XLA knows and this toolchain does not model. "tuple" is an
// element type in XLA too but is exempt (it is also an opcode name), and
// "opaque_type" (accepted as a type spelling) is not reserved.
bool IsReservedTypeName(absl::string_view name);

}  // namespace hlo
