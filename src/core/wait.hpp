// The one wait engine (DESIGN.md "Waiting"; issue 10 step 4). Every blocking call of the runtime
// waits here: spin briefly, then sched_yield, then sleep, with a deadline (spec §3.9: GASPI_BLOCK
// waits forever, GASPI_TEST makes one step, anything else is milliseconds) and a health check at
// a bounded interval (a dead partner, gaspi_proc_term in another thread).
//
// core knows neither transport, so what a wait needs from them is passed in:
//  - progress: one step of a transport that needs this CPU to move (MPI has no asynchronous
//    progress here). True when it served or took something. NoProgress when nothing needs one.
//  - sleep: how to block. A futex doorbell (shm::DoorbellSleep) when every producer rings it;
//    Nap (a plain nanosleep) when nothing rings. Either way the engine bounds each sleep: by
//    kHealthEvery without progress, by a growing nap (kFirstNap doubling to kLongestNap) with
//    progress, since MPI traffic rings no doorbell and is seen only at the next look.
//  - healthy: false ends the wait with GASPI_ERROR; the caller logs why.
//
// When MPI is probed (issue 10 step 4: "MPI is not probed on every spin"). One progress step
// (control.cpp: three MPI_Improbe under the MPI lock, plus a test of abandoned replies) costs
// about 1-2 us with Open MPI's ob1/vader, against a few ns for an shm flag look. Probing it on
// every spin turned the spin phase (HYGASPI_SPIN looks) into milliseconds, and made a waiter
// that spins slow to see its own shm flag. So:
//  - spinning: a progress step every kSpinsPerProgress looks (64 pauses, ~2-3 us apart: the
//    latency a spinning target adds to an MPI request stays below one round trip, ~5 us);
//  - yielding and sleeping: a step at every look (a look there already costs a syscall).
// A step that served something restarts the backoff at the yield phase, not at the spin phase: a
// stream of requests is served at every yield (~1 us apart), and the waiter never naps between
// two requests of a burst. The health check stays on its clock meanwhile, so a stream of requests
// cannot keep a wait alive past a partner's death or a term.
#pragma once
#include <GASPI.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <sched.h>
#include <type_traits>
#include <utility>

#include "core/deadline.hpp"

namespace hygaspi {

// HYGASPI_SPIN, HYGASPI_YIELDS (core/knobs.hpp).
struct WaitPolicy {
  std::int64_t spin = 2000; // looks with a pause between them, before the first yield
  std::int64_t yields = 50; // looks with a sched_yield between them, before the first sleep
};

inline constexpr std::int64_t kSpinsPerProgress = 64;
inline constexpr std::chrono::milliseconds kHealthEvery{10};
inline constexpr std::chrono::microseconds kFirstNap{20};
inline constexpr std::chrono::microseconds kLongestNap{1000};

inline void cpu_relax() noexcept { __builtin_ia32_pause(); }

// Nothing to drive: the engine then never probes and sleeps up to kHealthEvery at a time.
struct NoProgress {
  constexpr bool operator()() const noexcept { return false; }
};

// A progress step passed down through a layer that cannot name the bridge's type (a non-owning
// reference to any `bool()` callable, which must outlive the wait), or none (Step{}: the engine
// then waits as with NoProgress). One indirect call per step, on the slow path of a wait only.
class Step {
public:
  Step() noexcept = default;
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, Step>) Step(F &f)
  noexcept // NOLINT(google-explicit-constructor): a Step stands for its callable
      : self_(static_cast<void *>(&f)), call_([](void *s) { return static_cast<bool>((*static_cast<F *>(s))()); }) {}
  [[nodiscard]] bool active() const noexcept { return call_ != nullptr; }
  bool operator()() const { return call_ != nullptr && call_(self_); }

private:
  void *self_ = nullptr;
  bool (*call_)(void *) = nullptr;
};

// Whether a wait drives `progress` at all.
template <class Progress> [[nodiscard]] constexpr bool drives(const Progress &progress) noexcept {
  if constexpr (std::is_same_v<Progress, NoProgress>)
    return false;
  else if constexpr (requires { progress.active(); })
    return progress.active();
  else
    return true;
}

// Sleeping where nothing rings: a nap, then one look. Without progress the engine offers up to
// kHealthEvery; a Nap takes kFirstNap first and doubles up to kLongestNap, so a wait for
// something that comes soon does not oversleep it.
class Nap {
public:
  template <class Ready> bool operator()(Ready &ready, std::chrono::nanoseconds cap) {
    const auto ns = std::min(cap, next_);
    next_ = std::min<std::chrono::nanoseconds>(next_ * 2, kLongestNap);
    timespec ts{static_cast<time_t>(ns.count() / 1000000000), static_cast<long>(ns.count() % 1000000000)};
    nanosleep(&ts, nullptr);
    return ready();
  }

private:
  std::chrono::nanoseconds next_ = kFirstNap;
};

// Waits until ready(). Returns GASPI_SUCCESS when ready() was true, GASPI_TIMEOUT at the deadline
// (GASPI_TEST: after one progress step and one look), GASPI_ERROR when healthy() said false.
// `sleep(ready, ns)` blocks at most `ns` and returns ready(); `healthy()` runs after every sleep,
// and otherwise at least every kHealthEvery once the spin phase is over.
template <class Ready, class Progress, class Sleep, class Healthy>
gaspi_return_t wait_until(Ready &&ready, const Deadline &deadline, const WaitPolicy &policy, Progress &&progress,
                          Sleep &&sleep, Healthy &&healthy) {
  const bool polls = drives(progress);
  if (polls)
    progress(); // GASPI_TEST: the one step; two ranks that test in turn still serve each other
  if (ready())
    return GASPI_SUCCESS;
  if (deadline.test_only())
    return GASPI_TIMEOUT;
  for (std::int64_t i = 1; i <= policy.spin; ++i) {
    cpu_relax();
    if (polls && i % kSpinsPerProgress == 0)
      progress();
    if (ready())
      return GASPI_SUCCESS;
  }
  using Clock = std::chrono::steady_clock;
  auto next_health = Clock::now() + kHealthEvery;
  auto nap = std::chrono::nanoseconds(kFirstNap);
  for (std::int64_t yields = 0;;) {
    bool done = false;
    bool slept = false;
    if (yields < policy.yields) {
      ++yields;
      sched_yield();
      if (polls && progress())
        yields = 0; // a peer is active: keep looking often
      done = ready();
    } else {
      const auto cap = polls ? nap : std::chrono::nanoseconds(kHealthEvery);
      const auto left = deadline.remaining(cap);
      done = left.count() > 0 ? sleep(ready, left) : ready();
      slept = true;
      nap = std::min<std::chrono::nanoseconds>(nap * 2, kLongestNap);
      if (polls && progress()) { // a peer is active: back to yielding, and short naps
        yields = 0;
        nap = kFirstNap;
        done = done || ready();
      }
    }
    if (done)
      return GASPI_SUCCESS;
    if (slept || Clock::now() >= next_health) {
      if (!healthy())
        return GASPI_ERROR;
      next_health = Clock::now() + kHealthEvery;
    }
    if (deadline.expired())
      return ready() ? GASPI_SUCCESS : GASPI_TIMEOUT; // one last look, as after a sleep
  }
}

// Without a health check: for waits whose only end besides ready() is the deadline.
inline constexpr auto kAlwaysHealthy = [] { return true; };

} // namespace hygaspi
