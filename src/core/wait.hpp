// The one wait engine (docs/DESIGN.md "Waits and timeouts"). Every wait of the library waits here
// (notify_waitsome, passive send and receive, collectives, atomics and kills over MPI, credit
// waits, the node handshake of init, term's wait for the calls in flight, GASNet's exit): spin
// briefly, then sched_yield, then sleep, with a deadline (spec §3.9: GASPI_BLOCK waits forever,
// GASPI_TEST makes one step, anything else is milliseconds) and a health check at a bounded
// interval (a dead partner, gaspi_proc_term in another thread). A wait whose loop its caller owns
// (a client's GASNET_BLOCKUNTIL, which loops in the client's code; an AM sender that keeps serving
// while a lane is full) takes the same phases one look at a time from Backoff. What loops
// elsewhere: the progress thread's service loop, short lock waits, and the GASPI threads barrier
// (a futex wait among the threads of one process).
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
// When MPI is probed (not on every spin), measured with
// bench_progress waitsome (2 ranks as 2 nodes on one host, Open MPI ob1/vader, a loaded 2-core VM):
// one progress step (three MPI_Improbe under the MPI lock, and the atomic requests it serves) costs
// about 0.2 us, a pause a few tens of ns, and an idle target answers a fetch_add in ~2 us.
//  - spinning: a step every kSpinsPerProgress = 8 spins. Every spin spent ~90% of the spin phase in
//    MPI for no faster service (requests that follow one another: 2.3-2.4 us every spin, 2.3-2.7
//    us every 8, 4.2 us every 64: the request waits for the next step);
//  - yielding and sleeping: a step at every look (a look there costs a syscall anyway);
//  - a step that served something sends the wait back to spinning: the next request of a burst is
//    a round trip away;
//  - naps grow from kFirstNap to kLongestNap = 200 us while MPI is polled (1 ms before). Long naps
//    were the cause of the 6x: a request that finds the target asleep waits for the end of its
//    nap (plus the kernel's 50 us timer slack), and nothing can wake it, as MPI rings nothing. The
//    first request of a burst finds it asleep, and so does every request after a hiccup longer
//    than the spin phase (frequent on a loaded machine). Measured mean of a 100-request burst to a
//    target long in notify_waitsome, against a stream to a target in a barrier: 1 ms naps 2.4-3.1x
//    (before this engine as with it), 500 us 2.4-2.7x, 200 us 0.95-1.09x, 50 us 0.98-1.09x. The
//    price is CPU while blocked: a receive blocked 500 ms over MPI used 7.6 ms of CPU with 1 ms
//    naps, 15 ms with 500 us, 24 ms with 200 us, 36-52 ms with 100-50 us (mr_passive allows 150).
//  - a nap ends on time: the thread's timer slack (50 us by default) is 1 us during it (NapSlack).
//    The first request to a target long in notify_waitsome took 130-260 us, 75-134 us on time;
//    the CPU of the blocked receive above rose from 26-28 ms to 34-41 ms (the naps no longer
//    overrun);
//  - a rank that served a request within the last kBusyWindow (100 ms) naps at most kBusyNap
//    (50 us): requests come to ranks that were asked before. bench_mpi's burst to a target 20 ms in
//    notify_waitsome against a stream to one in a barrier went from 3.3x to 1.7-1.9x, and a target
//    nobody asked for anything (the blocked receive) costs what it did.
// The health check stays on its clock meanwhile, so a stream of requests cannot keep a wait alive
// past a partner's death or a term.
#pragma once
#include <GASPI.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <sched.h>
#include <sys/prctl.h>
#include <type_traits>
#include <unistd.h>
#include <utility>

#include "core/deadline.hpp"

namespace hygaspi {

inline constexpr std::chrono::microseconds kFirstNap{20};
inline constexpr std::chrono::microseconds kLongestNap{200};
// A rank that has served another rank's request lately (a progress step that served something)
// is likely to get more: within kBusyWindow of the last one its naps stay under kBusyNap, so a
// request that finds it asleep waits a quarter as long. A rank nobody asks for anything naps as
// long as ever, and costs no more CPU.
inline constexpr std::chrono::microseconds kBusyNap{50};
inline constexpr std::chrono::milliseconds kBusyWindow{100};

// When a rank's waits last served a request, for the rule of kBusyNap: one record for all of the
// rank's waits, owned by the engine. A step that serves only raises `since_nap` (no clock: on a
// node a step serves an active message every ~100 ns); the next nap reads the clock and keeps it
// in `at` (steady clock, ns since its epoch), a few microseconds of spinning after the serve.
struct ServedRecord {
  std::atomic<bool> since_nap{false};
  std::atomic<std::int64_t> at{0};
};

// HYGASPI_SPIN, HYGASPI_YIELDS (core/knobs.hpp).
struct WaitPolicy {
  std::int64_t spin = 2000;       // looks with a pause between them, before the first yield
  std::int64_t yields = 50;       // looks with a sched_yield between them, before the first sleep
  ServedRecord *served = nullptr; // nullptr: none kept, naps up to kLongestNap
};

inline constexpr std::int64_t kSpinsPerProgress = 8;
inline constexpr std::chrono::milliseconds kHealthEvery{10};
inline void cpu_relax() noexcept { __builtin_ia32_pause(); }

// A step served a request: noted for the rule of kBusyNap (one load, and a store once per nap).
inline void note_served(const WaitPolicy &policy) noexcept {
  if (policy.served != nullptr && !policy.served->since_nap.load(std::memory_order_relaxed))
    policy.served->since_nap.store(true, std::memory_order_relaxed);
}
// The longest nap now, under the rule of kBusyNap. Called as a nap begins.
[[nodiscard]] inline std::chrono::nanoseconds longest_nap(const WaitPolicy &policy) noexcept {
  if (policy.served == nullptr)
    return kLongestNap;
  const std::int64_t now = std::chrono::steady_clock::now().time_since_epoch().count();
  if (policy.served->since_nap.exchange(false, std::memory_order_relaxed))
    policy.served->at.store(now, std::memory_order_relaxed);
  const auto since = std::chrono::steady_clock::duration(now - policy.served->at.load(std::memory_order_relaxed));
  return since < kBusyWindow ? std::chrono::nanoseconds(kBusyNap) : std::chrono::nanoseconds(kLongestNap);
}

// A nap while MPI is polled ends where a request that came meanwhile is served, so its end should
// be on time. Linux lets a timed sleep end late by the thread's timer slack, 50 us by default, a
// quarter of the longest nap; during a nap the thread's slack is kNapSlack, and then what it was.
// (Three prctl calls, well under a microsecond, per nap of 20 us or more.) `tighten` false: a
// sleep that something rings, or none at all, keeps the thread's slack.
inline constexpr std::chrono::microseconds kNapSlack{1};
class NapSlack {
public:
  explicit NapSlack(bool tighten = true) noexcept : old_(tighten ? prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0) : -1) {
    constexpr auto slack = std::chrono::nanoseconds(kNapSlack).count();
    if (old_ > slack)
      (void)prctl(PR_SET_TIMERSLACK, slack, 0, 0, 0);
    else
      old_ = -1; // not asked, or already as tight (a real-time thread has none): nothing to restore
  }
  ~NapSlack() {
    if (old_ > 0)
      (void)prctl(PR_SET_TIMERSLACK, old_, 0, 0, 0);
  }
  NapSlack(const NapSlack &) = delete;
  NapSlack &operator=(const NapSlack &) = delete;

private:
  long old_;
};

// The one wait with no end: a thread that must never return into state its process is giving up
// (another thread runs gasnet_exit, MPI_Finalize at exit has begun, a passive receive outlived
// gaspi_proc_term) sleeps here until the process ends. It touches no memory and holds no lock.
[[noreturn]] inline void wait_for_process_end() noexcept {
  for (;;)
    pause();
}

// Nothing to drive: the engine then never probes and sleeps up to kHealthEvery at a time.
struct NoProgress {
  constexpr bool operator()() const noexcept { return false; }
};

// A progress step passed down through a layer that cannot name the bridge's type (a non-owning
// reference to any `bool()` callable, which must outlive the wait), or none (Step{}: the engine
// then waits as with NoProgress). One indirect call per step, on the slow path of a wait only.
class Step;
template <class F>
concept StepCallable = !std::is_same_v<std::remove_cvref_t<F>, Step> && std::is_invocable_r_v<bool, F &>;

class Step {
public:
  Step() noexcept = default;
  template <StepCallable F>
  Step(F &f) noexcept // NOLINT(google-explicit-constructor): a Step stands for its callable
      : self_(const_cast<void *>(static_cast<const void *>(&f))),
        call_([](void *s) { return static_cast<bool>((*static_cast<F *>(s))()); }) {}
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

// wait_until's phases one look at a time, for a loop the caller owns: pause() after every look that
// found nothing. `served` (the look did something: a peer is active) sends the wait back to
// spinning, as in wait_until; past the spin and yield phases it naps `sleep(ns)`, kFirstNap doubling
// to kLongestNap, since what it waits for may ring nothing. After each nap the next pause() returns
// at once, so the caller looks twice (wait_until steps twice after a nap: see there). A new wait
// starts with restart().
class Backoff {
public:
  void restart() noexcept {
    idle_ = 0;
    naps_ = 0;
    napped_ = false;
  }
  // `relax`: a pause between spinning looks. Not needed where each look calls MPI, which takes
  // longer than the pause and leaves no tight loop on one cache line.
  template <class Sleep> void pause(const WaitPolicy &policy, bool served, Sleep &&sleep, bool relax = true) {
    if (served) {
      note_served(policy);
      restart();
      return;
    }
    ++idle_;
    if (idle_ <= policy.spin) {
      if (relax)
        cpu_relax();
    } else if (idle_ <= policy.spin + policy.yields) {
      sched_yield();
    } else if (napped_) {
      napped_ = false;
    } else {
      NapSlack on_time;
      sleep(std::min<std::chrono::nanoseconds>(longest_nap(policy),
                                               kFirstNap * (std::int64_t{1} << std::min<std::int64_t>(naps_, 4))));
      ++naps_;
      napped_ = true;
    }
  }

private:
  std::int64_t idle_ = 0;
  std::int64_t naps_ = 0;
  bool napped_ = false;
};

// Waits until ready(). Returns GASPI_SUCCESS when ready() was true, GASPI_TIMEOUT at the deadline
// (GASPI_TEST: after one progress step and one look), GASPI_ERROR when healthy() said false and a
// last look still found it not ready. healthy() should not log: the caller explains GASPI_ERROR.
// `sleep(ready, ns)` blocks at most `ns` and returns ready(); `healthy()` runs after every sleep,
// and otherwise at least every kHealthEvery once the spin phase is over.
template <class Ready, class Progress, class Sleep, class Healthy>
gaspi_return_t wait_until(Ready &&ready, const Deadline &deadline, const WaitPolicy &policy, Progress &&progress,
                          Sleep &&sleep, Healthy &&healthy) {
  const bool polls = drives(progress);
  if (polls && progress()) // GASPI_TEST: the one step; two ranks that test in turn still serve each other
    note_served(policy);
  if (ready())
    return GASPI_SUCCESS;
  if (deadline.test_only())
    return GASPI_TIMEOUT;
  using Clock = std::chrono::steady_clock;
  // The health clock starts at the first look that reads a clock: a wait that ends within its first
  // kSpinsPerProgress looks (most waits of a busy program) reads none.
  Clock::time_point next_health{};
  bool clock_started = false;
  auto nap = std::chrono::nanoseconds(kFirstNap);
  std::int64_t spins = 0;
  std::int64_t yields = 0;
  for (;;) {
    bool done = false;
    bool served = false;
    bool slept = false;
    if (spins < policy.spin) {
      ++spins;
      cpu_relax();
      const bool step = spins % kSpinsPerProgress == 0;
      if (polls && step)
        served = progress();
      done = ready();
      if (!done && !step)
        continue; // the clock, the health check and the deadline: every kSpinsPerProgress spins
    } else if (yields < policy.yields) {
      ++yields;
      sched_yield();
      if (polls)
        served = progress();
      done = ready();
    } else {
      if (polls)
        nap = std::min(nap, longest_nap(policy));
      const auto cap = polls ? nap : std::chrono::nanoseconds(kHealthEvery);
      const auto left = deadline.remaining(cap);
      {
        NapSlack on_time(polls && left.count() > 0); // a nap that nothing can cut short
        done = left.count() > 0 ? sleep(ready, left) : ready();
      }
      slept = true;
      nap = std::min<std::chrono::nanoseconds>(nap * 2, kLongestNap);
      // Two steps after a nap. A probe that finds nothing is where Open MPI (ob1) makes progress,
      // moving what arrived meanwhile into its queues: what came during the nap is found by the
      // second probe, and with one step it waited through the next nap too (bench_progress
      // waitsome over MPI: the first request of a burst took 550-690 us, two naps, with one step;
      // 190-230 us with two).
      if (polls && !done && (served = progress() || progress()))
        done = ready();
    }
    if (served)
      note_served(policy);
    if (done)
      return GASPI_SUCCESS;
    if (served) { // a peer is active: look hot again, the next request is likely a round trip away
      spins = 0;
      yields = 0;
      nap = kFirstNap;
    }
    if (!clock_started && !slept) {
      clock_started = true;
      next_health = Clock::now() + kHealthEvery;
    } else if (slept || Clock::now() >= next_health) {
      // One last look, as at the deadline: a partner may complete what this wait is for and then
      // die between the look above and the check (a barrier partner that stored its flag and left).
      if (!healthy())
        return ready() ? GASPI_SUCCESS : GASPI_ERROR;
      next_health = Clock::now() + kHealthEvery;
    }
    if (deadline.expired())
      return ready() ? GASPI_SUCCESS : GASPI_TIMEOUT; // one last look, as after a sleep
  }
}

// Without a health check: for waits whose only end besides ready() is the deadline.
inline constexpr auto kAlwaysHealthy = [] { return true; };

} // namespace hygaspi
