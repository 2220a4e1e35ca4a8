// Statistics counters (spec §14.1). One table describes every counter: name, description, argument
// (none, or the target rank) and the minimum verbosity level that activates it. Per-rank counters
// are arrays sized at gaspi_proc_init; every update is a relaxed atomic add.
//
// Cost: the process-wide verbosity level starts at 0 (spec: "a high-speed implementation ... does
// not provide any statistics by default"), and every hook first does one relaxed load of it and a
// predicted-not-taken branch; the counting itself is out of line. Level 1 activates the counts
// (bytes, operations, GASPI_QUEUE_FULL), level 2 also the waiting times, which read the clock twice
// per blocking call.
//
// Hooks are one line each in the bridge, placed after a successful post:
//   stats::posted(rank, bytes, stats::write);       // or read / notify; lists: posted_list(...)
//   stats::atomic_op(rank);  stats::passive_sent(rank, bytes);  stats::queue_full();
//   stats::Timer timer(stats::wait_us);             // first line of a blocking call
#pragma once
#include <GASPI.h>

#include <atomic>
#include <chrono>
#include <cstdint>

namespace hygaspi::stats {

enum Counter : std::uint32_t {
  // per target rank (GASPI_STATISTIC_ARGUMENT_RANK)
  bytes_written,
  bytes_read,
  ops_posted,
  atomic_ops,
  passive_bytes_sent,
  // no argument
  queue_full_events,
  wait_us,
  notify_wait_us,
  collective_us,
  counter_count
};
inline constexpr std::uint32_t kRankCounters = passive_bytes_sent + 1;

struct CounterInfo {
  const char *name;
  const char *description;
  gaspi_statistic_argument_t argument;
  std::uint32_t min_level;
};
const CounterInfo &info(Counter c) noexcept;

enum Kind : std::uint8_t { write, read, notify };

extern std::atomic<std::uint32_t> g_level;

[[nodiscard]] inline bool active(std::uint32_t min_level) noexcept {
  return __builtin_expect(g_level.load(std::memory_order_relaxed) >= min_level, 0);
}

// Out of line: only reached when the level is high enough.
void count_post(std::uint32_t rank, std::uint64_t bytes, Kind kind) noexcept;
void count_post_list(std::uint32_t rank, std::uint32_t num, const gaspi_size_t *sizes, Kind kind) noexcept;
void add(Counter c, std::uint32_t rank, std::uint64_t value) noexcept;
void add_time(Counter c, std::chrono::steady_clock::time_point since) noexcept;

// ---- hooks
inline void posted(std::uint32_t rank, std::uint64_t bytes, Kind kind) noexcept {
  if (active(1))
    count_post(rank, bytes, kind);
}
// The same, passing `rc` through and counting only when it is GASPI_SUCCESS.
inline gaspi_return_t posted(std::uint32_t rank, std::uint64_t bytes, Kind kind, gaspi_return_t rc) noexcept {
  if (active(1) && rc == GASPI_SUCCESS)
    count_post(rank, bytes, kind);
  return rc;
}
inline gaspi_return_t posted_list(std::uint32_t rank, std::uint32_t num, const gaspi_size_t *sizes, Kind kind,
                                  gaspi_return_t rc = GASPI_SUCCESS) noexcept {
  if (active(1) && rc == GASPI_SUCCESS)
    count_post_list(rank, num, sizes, kind);
  return rc;
}
inline void atomic_op(std::uint32_t rank) noexcept {
  if (active(1))
    add(atomic_ops, rank, 1);
}
inline gaspi_return_t passive_sent(std::uint32_t rank, std::uint64_t bytes,
                                   gaspi_return_t rc = GASPI_SUCCESS) noexcept {
  if (active(1) && rc == GASPI_SUCCESS)
    add(passive_bytes_sent, rank, bytes);
  return rc;
}
inline void queue_full() noexcept {
  if (active(1))
    add(queue_full_events, 0, 1);
}

// Adds the time from construction to destruction to `c` (level 2), whatever the call returns.
class Timer {
public:
  explicit Timer(Counter c) noexcept : counter_(c) {
    if (active(2))
      start_ = std::chrono::steady_clock::now();
  }
  ~Timer() {
    if (start_ != std::chrono::steady_clock::time_point{})
      add_time(counter_, start_);
  }
  Timer(const Timer &) = delete;
  Timer &operator=(const Timer &) = delete;

private:
  Counter counter_;
  std::chrono::steady_clock::time_point start_{};
};

// ---- lifecycle and the §14.1 queries
void start(std::uint32_t nranks); // gaspi_proc_init: sizes the per-rank arrays, zeroes everything
void set_level(std::uint32_t level) noexcept;
// False when the counter does not exist or, for a per-rank counter, the rank is out of range.
bool get(std::uint32_t counter, std::uint32_t argument, std::uint64_t &value) noexcept;
bool reset(std::uint32_t counter) noexcept;

} // namespace hygaspi::stats
