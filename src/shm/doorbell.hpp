// Waiting without burning a core (DESIGN.md "Waiting"): spin briefly, then sched_yield, then
// sleep on the target's futex doorbell. Ranks are often oversubscribed on these machines, where a
// pure spin costs milliseconds.
//
// Protocol (a Dekker pair, both sides sequentially consistent):
//   producer:  store payload (seq_cst)        ; if (waiters.load() != 0) { ++seq; futex_wake }
//   consumer:  waiters.fetch_add(1)           ; s = seq.load(); if (!ready()) futex_wait(seq, s)
// Either the consumer's ready() sees the payload, or the producer sees waiters != 0 and bumps seq
// after the consumer read s, so futex_wait returns at once.
#pragma once
#include <algorithm>
#include <chrono>
#include <ctime>
#include <sched.h>
#include <cstdint>

#include "core/deadline.hpp"
#include "shm/layout.hpp"

namespace hygaspi::shm {

struct WaitPolicy {
  std::int64_t spin = 2000;
  std::int64_t yields = 50;
};

enum class WaitResult { ready, timeout, failed };

inline void cpu_relax() noexcept { __builtin_ia32_pause(); }

// Wakes the sleepers of `bell`. Call it after the payload store, which must be seq_cst.
void ring(Doorbell &bell) noexcept;

// Sleeps while bell.seq == expected, at most `ns`.
void futex_wait(Doorbell &bell, std::uint32_t expected, std::chrono::nanoseconds ns) noexcept;
void futex_wake_all(Doorbell &bell) noexcept;

// Waits until ready() is true. `alive()` is asked between sleeps (at most every 10 ms); returning
// false ends the wait with WaitResult::failed.
template <class Ready, class Alive>
WaitResult wait_until(Ready &&ready, Doorbell &bell, const Deadline &deadline, const WaitPolicy &policy,
                      Alive &&alive) {
  if (ready())
    return WaitResult::ready;
  if (deadline.test_only())
    return WaitResult::timeout;
  for (std::int64_t i = 0; i < policy.spin; ++i) {
    cpu_relax();
    if (ready())
      return WaitResult::ready;
  }
  for (std::int64_t i = 0; i < policy.yields; ++i) {
    sched_yield();
    if (ready())
      return WaitResult::ready;
    if (deadline.expired())
      return WaitResult::timeout;
  }
  for (;;) {
    bell.waiters.fetch_add(1, std::memory_order_seq_cst);
    std::uint32_t seen = bell.seq.load(std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    bool done = ready();
    if (!done) {
      auto left = deadline.remaining(std::chrono::milliseconds(10));
      if (left.count() > 0)
        futex_wait(bell, seen, left);
      done = ready();
    }
    bell.waiters.fetch_sub(1, std::memory_order_relaxed);
    if (done)
      return WaitResult::ready;
    if (!alive())
      return WaitResult::failed;
    if (deadline.expired())
      return WaitResult::timeout;
  }
}

// Waiting when part of the traffic arrives through MPI, which has no asynchronous progress and
// rings no futex: poll, driving `progress()` on every look, and sleep with a growing interval
// (20 us up to 1 ms) once spinning and yielding found nothing, so a long wait does not burn a core.
// `progress()` returns true when it served a peer; the wait then starts its backoff afresh.
template <class Ready, class Alive, class Progress>
WaitResult poll_until(Ready &&ready, const Deadline &deadline, const WaitPolicy &policy, Alive &&alive,
                      Progress &&progress) {
  progress();
  if (ready())
    return WaitResult::ready;
  if (deadline.test_only())
    return WaitResult::timeout;
  std::int64_t round = 0;
  auto nap = std::chrono::microseconds(20);
  for (;;) {
    if (progress()) { // a peer is active: look often again
      round = 0;
      nap = std::chrono::microseconds(20);
    }
    if (ready())
      return WaitResult::ready;
    ++round;
    if (round < policy.spin) {
      cpu_relax();
      continue;
    }
    // While spinning, look every 64 polls; once napping (up to 1 ms a nap), at every poll, so that a
    // death or a gaspi_proc_term in another thread ends the wait within a few naps.
    if ((round >= policy.spin + policy.yields || (round & 63) == 0) && !alive())
      return WaitResult::failed;
    if (deadline.expired())
      return WaitResult::timeout;
    if (round < policy.spin + policy.yields) {
      sched_yield();
      continue;
    }
    timespec ts{0, static_cast<long>(std::chrono::nanoseconds(nap).count())};
    nanosleep(&ts, nullptr);
    nap = std::min<std::chrono::microseconds>(nap * 2, std::chrono::milliseconds(1));
  }
}

} // namespace hygaspi::shm
