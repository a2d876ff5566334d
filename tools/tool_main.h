// The common main() of the tools: heap set-up, then the tool's Run, with
// exceptions (out of memory, internal errors) turned into an
// `PROGRAM: error: ...` line and exit status 1 instead of an abort.
#pragma once

namespace hlo {

int ToolMain(const char* program, int (*run)(int, char**), int argc, char** argv);

}  // namespace hlo
