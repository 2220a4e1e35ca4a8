// A look that runs at most once per interval, in one thread at a time: the watches for dead ranks
// (shm/liveness.hpp, mpi_rma/ring_watch.hpp), which every wait calls on its slow path. A call that
// is not due costs one clock read; one that finds another thread looking returns at once.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

namespace hygaspi {

class Throttle {
public:
  explicit constexpr Throttle(std::chrono::nanoseconds interval) noexcept : interval_ns_(interval.count()) {}

  // `mutex`, locked, when a look is due and no other thread holds it (the next look is then due an
  // interval from now); otherwise a lock that owns nothing.
  [[nodiscard]] std::unique_lock<std::mutex> enter(std::mutex &mutex) noexcept {
    const std::int64_t now =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    if (now < next_ns_.load(std::memory_order_relaxed))
      return {};
    std::unique_lock lock(mutex, std::try_to_lock);
    if (lock.owns_lock())
      next_ns_.store(now + interval_ns_, std::memory_order_relaxed);
    return lock;
  }
  // The next enter() is due at once.
  void reset() noexcept { next_ns_.store(0, std::memory_order_relaxed); }

private:
  std::int64_t interval_ns_;
  std::atomic<std::int64_t> next_ns_{0}; // steady_clock time of the next look
};

} // namespace hygaspi
