#include "tools/heap_setup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#ifdef HLO_HAVE_MIMALLOC
#include <mimalloc.h>
#endif

namespace hlo {
namespace {

constexpr long long kBigInputBytes = 8ll << 20;

bool ThpAvailable() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(f, line)) return false;
  return line.find("[never]") == std::string::npos;
}

bool HasBigInputFile(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    struct stat st;
    if (stat(argv[i], &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= kBigInputBytes) return true;
  }
  return false;
}

#ifndef HLO_HAVE_MIMALLOC
void ReexecWithGlibcHugePageHeap(char** argv) {
  constexpr const char* kTunable = "glibc.malloc.hugetlb=1";
  const char* current = std::getenv("GLIBC_TUNABLES");
  if (current != nullptr && std::strstr(current, "glibc.malloc.hugetlb") != nullptr) return;
  std::string value = current != nullptr && *current != '\0' ? std::string(current) + ":" + kTunable : kTunable;
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // exec failed (no /proc, ...): carry on without huge pages; drop the
  // variable again so that children see the environment we were given.
  if (current != nullptr) {
    setenv("GLIBC_TUNABLES", current, 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
}
#endif

}  // namespace

void ConfigureHeapForInput(int argc, char** argv, bool always) {
  const char* opt = std::getenv("HLO_HUGEPAGE_HEAP");
  if (opt != nullptr && std::strcmp(opt, "0") == 0) return;
  if (!always && !HasBigInputFile(argc, argv)) return;
  if (!ThpAvailable()) return;
#ifdef HLO_HAVE_MIMALLOC
  // Takes effect for every later request of memory from the OS.
  mi_option_set_enabled(mi_option_large_os_pages, true);
#else
  ReexecWithGlibcHugePageHeap(argv);
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
