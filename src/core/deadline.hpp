// Timeout bookkeeping for every blocking call (spec §3.9): GASPI_BLOCK waits forever,
// GASPI_TEST makes exactly one attempt, anything else is milliseconds.
#pragma once
#include <chrono>
#include <cstdint>

namespace hygaspi {

inline constexpr std::uint64_t kTimeoutBlock = ~0ull;
inline constexpr std::uint64_t kTimeoutTest = 0;

class Deadline {
public:
  using Clock = std::chrono::steady_clock;

  explicit Deadline(std::uint64_t timeout_ms) noexcept
      : forever_(timeout_ms == kTimeoutBlock), test_(timeout_ms == kTimeoutTest) {
    // GASPI_TEST and GASPI_BLOCK read no clock: a test is expired from the start (collective
    // steps and queue tests make one per look, where a clock read cost as much as the look).
    if (!forever_ && !test_)
      end_ = Clock::now() + std::chrono::milliseconds(timeout_ms);
  }

  [[nodiscard]] bool forever() const noexcept { return forever_; }
  [[nodiscard]] bool test_only() const noexcept { return test_; }
  [[nodiscard]] bool expired() const noexcept { return test_ || (!forever_ && Clock::now() >= end_); }

  // Time left, capped at `cap`; never negative.
  [[nodiscard]] std::chrono::nanoseconds remaining(std::chrono::nanoseconds cap) const noexcept {
    if (forever_)
      return cap;
    if (test_)
      return std::chrono::nanoseconds::zero();
    auto left = end_ - Clock::now();
    if (left < std::chrono::nanoseconds::zero())
      return std::chrono::nanoseconds::zero();
    return left < cap ? std::chrono::duration_cast<std::chrono::nanoseconds>(left) : cap;
  }

private:
  bool forever_;
  bool test_;
  Clock::time_point end_{};
};

} // namespace hygaspi
