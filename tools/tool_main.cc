#include "tools/tool_main.h"

#include <cstdio>
#include <exception>
#include <new>

#include "tools/heap_setup.h"

namespace hlo {

int ToolMain(const char* program, int (*run)(int, char**), int argc, char** argv) {
  ConfigureHeap();
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: error: out of memory\n", program);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: internal error: %s\n", program, e.what());
  }
  return 1;
}

}  // namespace hlo
