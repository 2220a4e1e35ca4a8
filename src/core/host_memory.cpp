// Host memory that a client hands over (core/host_memory.hpp).
#include "core/host_memory.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>

namespace hygaspi {

namespace {

// One reading of /proc/self/maps (see host_accessible).
bool accessible_once(const void *p, std::uint64_t n, std::string &why) {
  if (n == 0)
    return true;
  const auto start = reinterpret_cast<std::uintptr_t>(p);
  if (n - 1 > UINTPTR_MAX - start) {
    why = "wraps around the address space";
    return false;
  }
  const std::uintptr_t last = start + (n - 1);
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> maps(std::fopen("/proc/self/maps", "re"), &std::fclose);
  if (!maps) {
    why = "/proc/self/maps cannot be read";
    return false;
  }
  // The maps are in address order: walk them from `start`, each covering the next address.
  std::uintptr_t at = start;
  char line[512];
  for (bool line_start = true; std::fgets(line, sizeof line, maps.get()) != nullptr;) {
    const bool at_start = line_start; // the rest of a line longer than the buffer is no entry
    line_start = std::strchr(line, '\n') != nullptr;
    if (!at_start)
      continue;
    std::uintptr_t lo = 0, hi = 0;
    char perms[5] = {};
    if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s", &lo, &hi, perms) != 3 || hi <= at)
      continue;
    char where[96];
    if (lo > at) {
      std::snprintf(where, sizeof where, "is not mapped at %#" PRIxPTR, at);
      why = where;
      return false;
    }
    if (perms[0] != 'r' || perms[1] != 'w') {
      std::snprintf(where, sizeof where, "is mapped %s at %#" PRIxPTR ", not readable and writable", perms, at);
      why = where;
      return false;
    }
    if (hi - 1 >= last)
      return true;
    at = hi;
  }
  char where[64];
  std::snprintf(where, sizeof where, "is not mapped at %#" PRIxPTR, at);
  why = where;
  return false;
}

} // namespace

bool host_accessible(const void *p, std::uint64_t n, std::string &why) {
  // The kernel hands out /proc/self/maps a page at a time: another thread's mmap or munmap
  // between two pages can make a reader skip an entry. A range found wanting is read again, and
  // the second answer stands.
  return accessible_once(p, n, why) || accessible_once(p, n, why);
}

} // namespace hygaspi
