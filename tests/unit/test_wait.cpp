// The wait engine (src/core/wait.hpp) in one process: GASPI_TEST makes exactly one step, the
// deadline, the health check, the progress schedule (every kSpinsPerProgress spins, every look
// once yielding or sleeping, two after a nap, back to spinning after a served request), Backoff,
// Step, and the futex doorbell sleep (src/shm/doorbell.hpp) woken by another thread.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "core/wait.hpp"
#include "shm/doorbell.hpp"

using namespace hygaspi;
using namespace std::chrono_literals;

namespace {
struct Counter {
  int steps = 0;
  bool serve = false;
  bool operator()() {
    ++steps;
    return serve;
  }
};
struct CountingSleep {
  int sleeps = 0;
  std::chrono::nanoseconds longest{0};
  template <class Ready> bool operator()(Ready &ready, std::chrono::nanoseconds ns) {
    ++sleeps;
    longest = std::max(longest, ns);
    return ready();
  }
};
} // namespace

TEST_CASE("GASPI_TEST: one progress step and one look") {
  Counter progress;
  int looks = 0;
  auto never = [&] {
    ++looks;
    return false;
  };
  CHECK(wait_until(never, Deadline(kTimeoutTest), WaitPolicy{}, progress, Nap{}, kAlwaysHealthy) == GASPI_TIMEOUT);
  CHECK(progress.steps == 1);
  CHECK(looks == 1);
  auto now = [] { return true; };
  CHECK(wait_until(now, Deadline(kTimeoutTest), WaitPolicy{}, progress, Nap{}, kAlwaysHealthy) == GASPI_SUCCESS);
}

TEST_CASE("a bounded deadline ends with GASPI_TIMEOUT, a failed health check with GASPI_ERROR") {
  auto never = [] { return false; };
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(wait_until(never, Deadline(20), WaitPolicy{100, 5}, NoProgress{}, Nap{}, kAlwaysHealthy) == GASPI_TIMEOUT);
  CHECK(std::chrono::steady_clock::now() - t0 >= 20ms);
  int checks = 0;
  auto sick = [&] { return ++checks < 3; };
  CHECK(wait_until(never, Deadline(kTimeoutBlock), WaitPolicy{100, 5}, NoProgress{}, Nap{}, sick) == GASPI_ERROR);
  CHECK(checks == 3);
}

TEST_CASE("Deadline: GASPI_TEST is expired from the start, GASPI_BLOCK never") {
  const Deadline test(kTimeoutTest), block(kTimeoutBlock), soon(5);
  CHECK(test.expired());
  CHECK(test.remaining(1s) == 0ns);
  CHECK_FALSE(block.expired());
  CHECK(block.remaining(1s) == 1s);
  CHECK(soon.remaining(1s) <= 5ms);
  std::this_thread::sleep_for(6ms);
  CHECK(soon.expired());
  CHECK(soon.remaining(1s) == 0ns);
}

// The health clock starts at the wait's first clock read: a wait kept spinning by a stream of
// served requests (it never yields or sleeps) still checks its health on that clock.
TEST_CASE("a wait that spins for ever, served at every step, still runs the health check") {
  Counter progress;
  progress.serve = true;
  int checks = 0;
  auto sick = [&] {
    ++checks;
    return false;
  };
  auto never = [] { return false; };
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(wait_until(never, Deadline(kTimeoutBlock), WaitPolicy{std::int64_t{1} << 40, 0}, progress, Nap{}, sick) ==
        GASPI_ERROR);
  CHECK(checks == 1);
  CHECK(std::chrono::steady_clock::now() - t0 >= kHealthEvery);
}

// The CI failure of hybrid.mr_ranks_kill.n32: rank 1 stored its barrier flag, left the barrier
// and was killed, all between rank 0's look and its health check; rank 0's barrier then failed
// with "node rank 1 of the group died" although it was complete. A failed check gets a last look.
TEST_CASE("a partner that completes the wait and then dies before the health check: GASPI_SUCCESS") {
  bool flag_stored = false;
  auto flag = [&] { return flag_stored; };
  auto dies_after_storing = [&] {
    flag_stored = true;
    return false;
  };
  CHECK(wait_until(flag, Deadline(kTimeoutBlock), WaitPolicy{0, 0}, NoProgress{}, CountingSleep{},
                   dies_after_storing) == GASPI_SUCCESS);
  int looks = 0;
  auto never = [&] {
    ++looks;
    return false;
  };
  CHECK(wait_until(never, Deadline(kTimeoutBlock), WaitPolicy{0, 0}, NoProgress{}, CountingSleep{},
                   [] { return false; }) == GASPI_ERROR);
  CHECK(looks == 3); // the first look, the one after the sleep, the last one after the check
}

TEST_CASE("progress: every kSpinsPerProgress spins, then at every look") {
  Counter progress;
  int looks = 0;
  const WaitPolicy policy{8 * kSpinsPerProgress, 4};
  auto late = [&] { return ++looks > 1 + policy.spin + policy.yields; }; // ready at the first sleep
  CountingSleep sleep;
  CHECK(wait_until(late, Deadline(kTimeoutBlock), policy, progress, sleep, kAlwaysHealthy) == GASPI_SUCCESS);
  CHECK(progress.steps == 1 + 8 + 4); // the first step, one per 8 spins, one per yield
  CHECK(sleep.sleeps == 1);
  CHECK(sleep.longest <= kFirstNap); // with progress, sleeps are naps: MPI rings nothing
}

TEST_CASE("without progress a sleep may last until the health check; NoProgress and Step{} never step") {
  int looks = 0;
  auto late = [&] { return ++looks > 3; };
  CountingSleep sleep;
  CHECK(wait_until(late, Deadline(kTimeoutBlock), WaitPolicy{0, 0}, Step{}, sleep, kAlwaysHealthy) == GASPI_SUCCESS);
  CHECK(sleep.longest == std::chrono::nanoseconds(kHealthEvery));
}

TEST_CASE("a served request sends the wait back to spinning, with short naps") {
  Counter progress;
  int looks = 0;
  CountingSleep sleep;
  // Sleeps 3 times, serves once at the 3rd, then must spin the whole spin phase again.
  const WaitPolicy policy{2 * kSpinsPerProgress, 0};
  auto ready = [&] {
    ++looks;
    progress.serve = sleep.sleeps == 3 && progress.steps < 100;
    if (progress.serve)
      progress.steps = 100; // served exactly once
    return sleep.sleeps == 4;
  };
  Step step(progress);
  CHECK(wait_until(ready, Deadline(kTimeoutBlock), policy, step, sleep, kAlwaysHealthy) == GASPI_SUCCESS);
  // 1 + 2 spins per step before the first sleep, 2 again after the serve: 2 more steps.
  CHECK(progress.steps == 100 + 2 + 1);
}

// A progress step that models Open MPI's probe: what arrives (here: during the first nap) is only
// pulled into MPI's queues by the first probe after it, which finds nothing; the second finds it.
struct PulledThenFound {
  bool arrived = false;
  int probes_since_arrival = 0;
  bool found = false;
  bool operator()() {
    if (arrived && ++probes_since_arrival == 2)
      found = true;
    return found;
  }
};

TEST_CASE("what arrived during a nap is served after that nap, not the next one") {
  PulledThenFound progress;
  int sleeps = 0;
  auto ready = [&] { return progress.found; };
  auto sleep = [&](auto &is_ready, std::chrono::nanoseconds) {
    ++sleeps;
    progress.arrived = true;
    return is_ready();
  };
  CHECK(wait_until(ready, Deadline(kTimeoutBlock), WaitPolicy{0, 0}, progress, sleep, kAlwaysHealthy) == GASPI_SUCCESS);
  CHECK(sleeps == 1);

  // The same for a loop that its caller owns (GASNET_BLOCKUNTIL): a look, then pause().
  PulledThenFound poll;
  Backoff backoff;
  int naps = 0;
  for (int look = 0; look < 100 && !poll(); ++look)
    backoff.pause(WaitPolicy{0, 0}, false, [&](std::chrono::nanoseconds) {
      ++naps;
      poll.arrived = true;
    });
  CHECK(poll.found);
  CHECK(naps == 1);
}

TEST_CASE("Backoff: spins, yields, then naps that double up to kLongestNap; a served look starts over") {
  Backoff backoff;
  std::vector<std::chrono::nanoseconds> naps;
  auto nap = [&](std::chrono::nanoseconds ns) { naps.push_back(ns); };
  const WaitPolicy policy{3, 2};
  for (int look = 0; look < 5 + 2 * 8; ++look)
    backoff.pause(policy, false, nap);
  REQUIRE(naps.size() == 8); // every other look past the spins and yields
  CHECK(naps[0] == kFirstNap);
  CHECK(naps[1] == 2 * kFirstNap);
  CHECK(naps.back() == kLongestNap);
  backoff.pause(policy, true, nap);
  for (int look = 0; look < 5; ++look)
    backoff.pause(policy, false, nap);
  CHECK(naps.size() == 8); // spinning and yielding again
  backoff.pause(policy, false, nap);
  CHECK(naps.size() == 9);
  CHECK(naps.back() == kFirstNap);
}

TEST_CASE("a rank that served a request lately naps at most kBusyNap, one served nothing for long kLongestNap") {
  ServedRecord record;
  const WaitPolicy policy{0, 0, &record};
  // Never served: the naps grow to kLongestNap, as without a record.
  CHECK(longest_nap(policy) == kLongestNap);
  CHECK(longest_nap(WaitPolicy{}) == kLongestNap);
  Counter progress;
  CountingSleep sleep;
  int looks = 0;
  auto after_naps = [&] { return ++looks > 40; };
  Step step(progress);
  CHECK(wait_until(after_naps, Deadline(kTimeoutBlock), policy, step, sleep, kAlwaysHealthy) == GASPI_SUCCESS);
  CHECK(sleep.longest == kLongestNap);

  // A wait that served something: this wait and the next ones, within kBusyWindow, nap shorter.
  progress.serve = true;
  looks = 0;
  auto served_once = [&] {
    progress.serve = false; // the first step served, then nothing more
    return ++looks > 40;
  };
  sleep = CountingSleep{};
  CHECK(wait_until(served_once, Deadline(kTimeoutBlock), policy, step, sleep, kAlwaysHealthy) == GASPI_SUCCESS);
  CHECK(record.at.load() != 0);
  CHECK(longest_nap(policy) == kBusyNap);
  CHECK(sleep.longest == kBusyNap);
  looks = 0;
  sleep = CountingSleep{};
  CHECK(wait_until(after_naps, Deadline(kTimeoutBlock), policy, step, sleep, kAlwaysHealthy) == GASPI_SUCCESS);
  CHECK(sleep.longest == kBusyNap);

  // Backoff notes a served look in the same record, and naps under the same rule.
  record.at = 0;
  Backoff backoff;
  std::chrono::nanoseconds longest{0};
  auto nap = [&](std::chrono::nanoseconds ns) { longest = std::max(longest, ns); };
  backoff.pause(policy, true, nap);
  CHECK(record.since_nap.load()); // no clock yet: the first nap reads it
  CHECK(record.at.load() == 0);
  for (int look = 0; look < 20; ++look)
    backoff.pause(policy, false, nap);
  CHECK(record.at.load() != 0);
  CHECK(longest == kBusyNap);

  // Past the window, the longest nap again.
  record.at = (std::chrono::steady_clock::now() - kBusyWindow - 1ms).time_since_epoch().count();
  CHECK(longest_nap(policy) == kLongestNap);
}

TEST_CASE("a nap runs with a tight timer slack and leaves the thread's own as it was") {
  const long before = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  REQUIRE(before > std::chrono::nanoseconds(kNapSlack).count()); // Linux's default: 50 us
  long during = -1;
  {
    NapSlack on_time;
    during = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  }
  CHECK(during == std::chrono::nanoseconds(kNapSlack).count());
  CHECK(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0) == before);
}

TEST_CASE("a doorbell sleeper is woken by a ring from another thread") {
  shm::Doorbell bell{};
  std::atomic<bool> flag{false};
  auto set = [&] { return flag.load(std::memory_order_seq_cst); };
  std::thread producer([&] {
    std::this_thread::sleep_for(20ms);
    flag.store(true, std::memory_order_seq_cst);
    shm::ring(bell);
  });
  const auto t0 = std::chrono::steady_clock::now();
  // No progress: the sleep may last 10 ms at a time, so only the ring ends it sooner.
  CHECK(wait_until(set, Deadline(5000), WaitPolicy{0, 0}, NoProgress{}, shm::DoorbellSleep{bell}, kAlwaysHealthy) ==
        GASPI_SUCCESS);
  producer.join();
  CHECK(std::chrono::steady_clock::now() - t0 < 1s);
}
