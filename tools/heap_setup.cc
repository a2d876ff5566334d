#include "tools/heap_setup.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#ifdef HLO_HAVE_MIMALLOC
#include <mimalloc.h>
#endif

namespace hlo {

void ConfigureHeap() {
#ifdef HLO_HAVE_MIMALLOC
  const char* opt = std::getenv("HLO_HUGEPAGE_HEAP");
  if (opt == nullptr || std::strcmp(opt, "1") != 0) return;
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(f, line) || line.find("[never]") != std::string::npos) return;
  // Takes effect for every later request of memory from the OS.
  mi_option_set_enabled(mi_option_large_os_pages, true);
#endif
}

const char* HeapAllocatorName() {
#ifdef HLO_HAVE_MIMALLOC
  return "mimalloc";
#else
  return "glibc";
#endif
}

}  // namespace hlo
