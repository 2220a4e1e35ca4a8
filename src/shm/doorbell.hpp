// The futex doorbell on which waiters sleep (the wait engine is core/wait.hpp; docs/DESIGN.md
// "Waits and timeouts"). Ranks are often oversubscribed on these machines, where a pure spin costs
// milliseconds.
//
// Protocol (a Dekker pair, both sides sequentially consistent):
//   producer:  store payload (seq_cst)        ; if (waiters.load() != 0) { ++seq; futex_wake }
//   consumer:  waiters.fetch_add(1)           ; s = seq.load(); if (!ready()) futex_wait(seq, s)
// Either the consumer's ready() sees the payload, or the producer sees waiters != 0 and bumps seq
// after the consumer read s, so futex_wait returns at once.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>

#include "core/wait.hpp"
#include "shm/layout.hpp"

namespace hygaspi::shm {

// Wakes the sleepers of `bell`. Call it after the payload store, which must be seq_cst.
void ring(Doorbell &bell) noexcept;

// Sleeps while bell.seq == expected, at most `ns`.
void futex_wait(Doorbell &bell, std::uint32_t expected, std::chrono::nanoseconds ns) noexcept;
void futex_wake_all(Doorbell &bell) noexcept;

// The engine's sleep (core/wait.hpp) on a doorbell: counts itself a waiter, reads `seq`, looks
// once more, and sleeps at most `ns` unless the look found the payload (the consumer side of the
// protocol above).
struct DoorbellSleep {
  Doorbell &bell;
  template <class Ready> bool operator()(Ready &ready, std::chrono::nanoseconds ns) const {
    bell.waiters.fetch_add(1, std::memory_order_seq_cst);
    const std::uint32_t seen = bell.seq.load(std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    bool done = ready();
    if (!done) {
      futex_wait(bell, seen, ns);
      done = ready();
    }
    bell.waiters.fetch_sub(1, std::memory_order_relaxed);
    return done;
  }
};

} // namespace hygaspi::shm
