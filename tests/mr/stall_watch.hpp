// A shared machine can stall a process for seconds (measured on the 2-vCPU CI VM under load: a
// 10 ms sleep returning 3 s late). Such a stall is not a wait that ignores its deadline, so a
// watchdog thread sleeps 5 ms at a time and records the largest lateness it saw; a test bounds a
// call by its own limit + the stall seen while it ran.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace mr {

class StallWatch {
public:
  using Clock = std::chrono::steady_clock;
  StallWatch() : thread_([this] { run(); }) {}
  ~StallWatch() {
    stop_.store(true);
    thread_.join();
  }
  void reset() { max_us_.store(0); }
  [[nodiscard]] double max_ms() const { return static_cast<double>(max_us_.load()) / 1000.0; }

private:
  void run() {
    while (!stop_.load()) {
      const auto t0 = Clock::now();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      const auto late = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count() - 5000;
      std::int64_t cur = max_us_.load();
      while (late > cur && !max_us_.compare_exchange_weak(cur, late)) {
      }
    }
  }
  std::atomic<bool> stop_{false};
  std::atomic<std::int64_t> max_us_{0};
  std::thread thread_;
};

} // namespace mr
