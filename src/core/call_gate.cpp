#include "core/call_gate.hpp"

#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "core/deadline.hpp"
#include "core/no_destroy.hpp"
#include "core/wait.hpp"

namespace hygaspi::call_gate {

namespace {

struct Registry {
  std::mutex mutex;
  std::vector<const unsigned *> counts; // of the live threads that joined
};
NoDestroy<Registry> g_registry;

// Leaves the registry when its thread ends (thread_local destructors run before its TLS goes).
struct Member {
  const unsigned *count = nullptr;
  ~Member() {
    if (count == nullptr)
      return;
    Registry &r = g_registry.value;
    std::lock_guard guard(r.mutex);
    std::erase(r.counts, count);
  }
};
thread_local Member t_member;

long membarrier(int cmd) noexcept { return syscall(SYS_membarrier, cmd, 0, 0); }

// Which membarrier command works here, found once: the private expedited one (an IPI to the CPUs
// running this process, microseconds) needs registering; the global one waits for every CPU to
// schedule (milliseconds); a seccomp filter may refuse both (-1).
int membarrier_command() noexcept {
  static const int cmd = [] {
    const long supported = membarrier(MEMBARRIER_CMD_QUERY);
    if (supported < 0)
      return -1;
    if ((supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0 &&
        membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0)
      return static_cast<int>(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
    if ((supported & MEMBARRIER_CMD_GLOBAL) != 0)
      return static_cast<int>(MEMBARRIER_CMD_GLOBAL);
    return -1;
  }();
  return cmd;
}

// A full memory barrier on every running thread of this process (membarrier(2), or where the kernel
// refuses it, an mprotect of a page, whose TLB shootdown interrupts the same CPUs).
void fence_all_threads() noexcept {
  if (const int cmd = membarrier_command(); cmd >= 0 && membarrier(cmd) == 0)
    return;
  // Lowering a page's protection makes the kernel shoot its translation down on every CPU that may
  // cache it, by an interrupt, which serialises those CPUs: what folly's asymmetric barrier does
  // where membarrier is missing. The page is touched first, so every CPU of the process maps it.
  static char *const page = static_cast<char *>(mmap(nullptr, static_cast<std::size_t>(sysconf(_SC_PAGESIZE)),
                                                     PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  const std::size_t bytes = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  if (page == MAP_FAILED || mprotect(page, bytes, PROT_READ | PROT_WRITE) != 0) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return;
  }
  __atomic_store_n(page, 1, __ATOMIC_SEQ_CST);
  (void)mprotect(page, bytes, PROT_READ);
}

} // namespace

void join(const unsigned *count) noexcept {
  (void)membarrier_command(); // registers the process before any wait needs it
  Registry &r = g_registry.value;
  std::lock_guard guard(r.mutex);
  r.counts.push_back(count);
  t_member.count = count;
}

void wait_until_outside(const unsigned *self, void (*nudge)() noexcept) noexcept {
  fence_all_threads();
  Registry &r = g_registry.value;
  // Under the registry's lock, so that no thread ends (and frees its count) while it is read. A
  // thread inside a counted call takes no lock of this file, so the wait cannot deadlock with it.
  std::lock_guard guard(r.mutex);
  auto sleep = [nudge, nap = Nap{}](auto &ready, std::chrono::nanoseconds ns) mutable {
    if (nudge != nullptr)
      nudge();
    return nap(ready, ns);
  };
  for (const unsigned *count : r.counts) {
    if (count == self)
      continue;
    auto outside = [count] { return __atomic_load_n(count, __ATOMIC_ACQUIRE) == 0; };
    (void)wait_until(outside, Deadline(GASPI_BLOCK), WaitPolicy{}, NoProgress{}, sleep, kAlwaysHealthy);
  }
}

} // namespace hygaspi::call_gate
