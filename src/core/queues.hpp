// Queue accounting (spec §3.6, §8.5 and the GASPI_QUEUE_FULL errata). Every post takes entries
// (write 1, write_notify 2, a list of n with a notification n+1, as GPI-2 counts them). A post
// that would exceed queue_size_max returns GASPI_QUEUE_FULL and posts nothing. Posts may come
// from any thread; gaspi_wait is exclusive per queue.
//
// An empty queue takes any single post, even one of more entries than queue_size_max (a
// write_notify with queue_size_max 1, a list of rw_list_elem_max elements plus its notification
// in a smaller queue). Otherwise such a call could never be issued: GASPI_QUEUE_FULL asks the
// caller to gaspi_wait and retry, and the retry would fail again forever. The errata defines the
// queue as full when "the number of posted communication requests has already reached the queue
// size"; an empty queue has not, so the request is issued. GPI-2 refuses such a post instead
// (ne_count + 2 > queue_size_max), which livelocks the same programs. Counting stays as in GPI-2,
// so clients that size their batches on it see the same numbers.
#pragma once
#include <GASPI.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <sched.h>

#include "core/limits.hpp"
#include "core/statistics.hpp"

namespace hygaspi {

// The lock of the one thread in gaspi_wait / gaspi_queue_purge. Taking it is one locked exchange,
// releasing it a plain store (a pthread mutex costs two locked operations and two calls per
// gaspi_wait). A second thread in gaspi_wait of the same queue yields until it is free.
class QueueLock {
public:
  void lock() noexcept {
    while (held_.exchange(true, std::memory_order_acquire))
      while (held_.load(std::memory_order_relaxed))
        sched_yield();
  }
  [[nodiscard]] bool try_lock() noexcept {
    return !held_.load(std::memory_order_relaxed) && !held_.exchange(true, std::memory_order_acquire);
  }
  void unlock() noexcept { held_.store(false, std::memory_order_release); }

private:
  std::atomic<bool> held_{false};
};

// Entries are counted by two monotonic totals: `posted` (every post adds, with a CAS) and
// `released` (written only by the holder of `waiting`, with a plain store). The queue holds
// posted - released entries; released <= posted always.
struct alignas(limits::kCacheLine) Queue {
  std::atomic<std::uint64_t> posted{0};   // entries ever taken
  std::atomic<std::uint64_t> released{0}; // entries ever released by gaspi_wait (under `waiting`)
  std::atomic<bool> exists{false};
  // 1 + a rank known dead that a request of this queue went to (0: none). The post succeeded and
  // moved nothing; the next gaspi_wait reports it (GASPI_ERROR), gaspi_queue_purge drops it.
  std::atomic<std::uint32_t> dead_target{0};
  QueueLock waiting; // held by the one thread in gaspi_wait / gaspi_queue_purge

  // Entries taken and not yet released.
  [[nodiscard]] std::uint64_t outstanding() const noexcept {
    // released first: a later load of posted is at least the value it was released up to.
    const std::uint64_t rel = released.load(std::memory_order_acquire);
    return posted.load(std::memory_order_acquire) - rel;
  }
};

class QueueTable {
public:
  void reset(std::uint32_t queue_num, std::uint32_t size_max) noexcept {
    size_max_ = size_max;
    for (std::uint32_t q = 0; q < limits::kMaxQueues; ++q) {
      queues_[q].posted.store(0, std::memory_order_relaxed);
      queues_[q].released.store(0, std::memory_order_relaxed);
      queues_[q].dead_target.store(0, std::memory_order_relaxed);
      queues_[q].exists.store(q < queue_num, std::memory_order_release);
    }
  }

  [[nodiscard]] bool exists(std::uint32_t q) const noexcept {
    return q < limits::kMaxQueues && queues_[q].exists.load(std::memory_order_acquire);
  }
  [[nodiscard]] Queue &operator[](std::uint32_t q) noexcept { return queues_[q]; }
  [[nodiscard]] std::uint64_t size_max() const noexcept { return size_max_; }

  // Takes `entries` or reports GASPI_QUEUE_FULL, atomically with respect to other posters.
  // `entries` is 64 bits wide: a list of UINT32_MAX elements plus its notification must not wrap.
  [[nodiscard]] gaspi_return_t reserve(std::uint32_t q, std::uint64_t entries) noexcept {
    Queue &queue = queues_[q];
    for (;;) {
      const std::uint64_t rel = queue.released.load(std::memory_order_acquire); // before posted: see outstanding()
      std::uint64_t cur = queue.posted.load(std::memory_order_acquire);
      const std::uint64_t held = cur - rel;
      // held may exceed size_max_ after a single oversized post into the empty queue.
      if (held != 0 && (held >= size_max_ || entries > size_max_ - held)) {
        stats::queue_full();
        return GASPI_QUEUE_FULL;
      }
      if (queue.posted.compare_exchange_weak(cur, cur + entries, std::memory_order_acq_rel, std::memory_order_relaxed))
        return GASPI_SUCCESS;
    }
  }
  // Releases every entry taken up to `posted` (a value of Queue::posted read under `waiting`,
  // which the caller holds).
  void release_to(std::uint32_t q, std::uint64_t posted) noexcept {
    queues_[q].released.store(posted, std::memory_order_release);
  }

  // Lowest queue id that does not exist yet, or kMaxQueues.
  std::uint32_t create() noexcept {
    std::lock_guard lock(create_mutex_);
    for (std::uint32_t q = 0; q < limits::kMaxQueues; ++q)
      if (!exists(q)) {
        queues_[q].posted.store(0, std::memory_order_relaxed);
        queues_[q].released.store(0, std::memory_order_relaxed);
        queues_[q].dead_target.store(0, std::memory_order_relaxed);
        queues_[q].exists.store(true, std::memory_order_release);
        return q;
      }
    return limits::kMaxQueues;
  }
  void destroy(std::uint32_t q) noexcept { queues_[q].exists.store(false, std::memory_order_release); }

  [[nodiscard]] std::uint32_t count() const noexcept {
    std::uint32_t n = 0;
    for (std::uint32_t q = 0; q < limits::kMaxQueues; ++q)
      n += exists(q) ? 1 : 0;
    return n;
  }

private:
  std::array<Queue, limits::kMaxQueues> queues_;
  std::uint64_t size_max_ = 0;
  std::mutex create_mutex_;
};

} // namespace hygaspi
