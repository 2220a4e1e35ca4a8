#include "shm/doorbell.hpp"

#include <climits>
#include <ctime>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace hygaspi::shm {

namespace {
// The futex word lives in memory shared between processes: no FUTEX_PRIVATE_FLAG.
long futex(std::atomic<std::uint32_t> *word, int op, std::uint32_t value, const timespec *timeout) noexcept {
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
  return syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(word), op, value, timeout, nullptr, 0);
}
} // namespace

void ring(Doorbell &bell) noexcept {
  if (bell.waiters.load(std::memory_order_seq_cst) == 0)
    return;
  bell.seq.fetch_add(1, std::memory_order_seq_cst);
  futex(&bell.seq, FUTEX_WAKE, INT_MAX, nullptr);
}

void futex_wake_all(Doorbell &bell) noexcept {
  bell.seq.fetch_add(1, std::memory_order_seq_cst);
  futex(&bell.seq, FUTEX_WAKE, INT_MAX, nullptr);
}

void futex_wait(Doorbell &bell, std::uint32_t expected, std::chrono::nanoseconds ns) noexcept {
  timespec ts{static_cast<time_t>(ns.count() / 1000000000), static_cast<long>(ns.count() % 1000000000)};
  futex(&bell.seq, FUTEX_WAIT, expected, &ts); // EAGAIN, EINTR and ETIMEDOUT all mean "look again"
}

} // namespace hygaspi::shm
