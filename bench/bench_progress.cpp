// Latency of a fetch_add over the MPI path, by what the target is doing (docs/DESIGN.md "Progress
// and threads": MPI makes no asynchronous progress here, so a target-side atomic is served when the
// target drives progress).
//   computing   the target computes for 20 ms without any GASPI call (with and without the progress
//               thread: HYGASPI_PROGRESS_THREAD=1)
//   waitsome    the target waits in gaspi_barrier ("idle": its leader wait drives progress), then in
//               gaspi_notify_waitsome after it has waited 20 ms already (its long-wait state);
//               the wait engine's aim: the second may cost no more than the first. Prints both, and the
//               ratio, for the first request of a burst and for the requests that follow it.
//   mpirun -np 2 -x HYGASPI_NODE_SIZE=1 bench_progress [computing|waitsome]
//   (4 ranks as 2 nodes: -np 4 -x HYGASPI_NODE_SIZE=2; rank 0 targets rank 2, on the other node)
#include "bench_median.hpp"

#include <GASPI.h>
#include <GASPI_Ext.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

using bench::median;
void ok(gaspi_return_t rc, const char *what) {
  if (rc != GASPI_SUCCESS) {
    std::fprintf(stderr, "bench_progress: %s failed: %s\n", what, gaspi_error_str(rc));
    std::exit(1);
  }
}
using Clock = std::chrono::steady_clock;
double us_since(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }

void computing(gaspi_rank_t me) {
  constexpr int kRounds = 10;
  constexpr auto kBusy = std::chrono::milliseconds(20);
  std::vector<double> us;
  for (int round = 0; round < kRounds; ++round) {
    ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
    if (me == 1) {
      // Compute without entering GASPI (or MPI).
      const auto end = Clock::now() + kBusy;
      volatile unsigned long spin = 0;
      while (Clock::now() < end)
        spin = spin + 1;
    } else if (me == 0) {
      const auto start = Clock::now();
      gaspi_atomic_value_t old = 0;
      ok(gaspi_atomic_fetch_add(0, 0, 1, 1, &old, GASPI_BLOCK), "fetch_add");
      us.push_back(us_since(start));
    }
  }
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  if (me == 0) {
    std::sort(us.begin(), us.end());
    const char *thread = std::getenv("HYGASPI_PROGRESS_THREAD");
    std::printf("fetch_add to a rank computing for %lld ms, progress thread %s: median %.1f us, max %.1f us\n",
                static_cast<long long>(kBusy.count()), thread != nullptr && thread[0] == '1' ? "on " : "off",
                us[us.size() / 2], us.back());
  }
}

// One burst of kOps fetch_adds from rank 0 to `target`, which waits in a barrier (in_waitsome
// false) or in notify_waitsome, `settle` long before the first request. Returns {first request,
// mean of the others} in us (rank 0).
constexpr int kOps = 100; // as bench_mpi's "target long in waitsome"
struct Burst {
  double first = 0, rest = 0;
};
Burst burst(gaspi_rank_t me, gaspi_rank_t target, bool in_waitsome,
            std::chrono::milliseconds settle = std::chrono::milliseconds(20)) {
  Burst b;
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  if (me == 0) {
    // Let the target settle into its long-wait state (a waitsome) or into the barrier.
    std::this_thread::sleep_for(settle);
    gaspi_atomic_value_t old = 0;
    auto t0 = Clock::now();
    ok(gaspi_atomic_fetch_add(0, 0, target, 1, &old, GASPI_BLOCK), "fetch_add");
    b.first = us_since(t0);
    t0 = Clock::now();
    for (int i = 1; i < kOps; ++i)
      ok(gaspi_atomic_fetch_add(0, 0, target, 1, &old, GASPI_BLOCK), "fetch_add");
    b.rest = us_since(t0) / (kOps - 1);
    if (in_waitsome)
      ok(gaspi_notify(0, target, 0, 1, 0, GASPI_BLOCK), "notify");
  } else if (me == target && in_waitsome) {
    gaspi_notification_id_t got = 0;
    gaspi_notification_t value = 0;
    ok(gaspi_notify_waitsome(0, 0, 1, &got, GASPI_BLOCK), "notify_waitsome");
    ok(gaspi_notify_reset(0, got, &value), "notify_reset");
  }
  ok(gaspi_wait(0, GASPI_BLOCK), "wait");
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  return b;
}

void waitsome(gaspi_rank_t me, gaspi_rank_t n) {
  const auto target = static_cast<gaspi_rank_t>(n / 2); // on another node for NODE_SIZE 1 and n/2
  constexpr int kRounds = 15;
  std::vector<double> idle_first, idle_rest, wait_first, wait_rest, cold_first, cold_rest;
  for (int round = 0; round < kRounds; ++round) {
    const Burst idle = burst(me, target, false);
    const Burst waiting = burst(me, target, true);
    // A target that has served nothing for longer than the wait engine's busy window (kBusyWindow
    // in core/wait.hpp): its naps have grown to the longest.
    const Burst cold = burst(me, target, true, std::chrono::milliseconds(150));
    idle_first.push_back(idle.first);
    idle_rest.push_back(idle.rest);
    wait_first.push_back(waiting.first);
    wait_rest.push_back(waiting.rest);
    cold_first.push_back(cold.first);
    cold_rest.push_back(cold.rest);
  }
  // The price of one progress step: a GASPI_TEST waitsome is one step and one look.
  double test_us = 0;
  if (me == 0) {
    constexpr int kTests = 20000;
    gaspi_notification_id_t got = 0;
    const auto t0 = Clock::now();
    for (int i = 0; i < kTests; ++i)
      if (gaspi_notify_waitsome(0, 1, 1, &got, GASPI_TEST) != GASPI_TIMEOUT)
        ok(GASPI_ERROR, "notify_waitsome(GASPI_TEST)");
    test_us = us_since(t0) / kTests;
  }
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  if (me != 0)
    return;
  std::printf("one GASPI_TEST notify_waitsome (one progress step and one look): %.2f us\n", test_us);
  const double i1 = median(idle_first), ir = median(idle_rest), w1 = median(wait_first), wr = median(wait_rest);
  const double c1 = median(cold_first), cr = median(cold_rest);
  const double idle_mean = (i1 + (kOps - 1) * ir) / kOps, wait_mean = (w1 + (kOps - 1) * wr) / kOps;
  const double cold_mean = (c1 + (kOps - 1) * cr) / kOps;
  std::printf("fetch_add from rank 0 to rank %u, %d ranks, median of %d bursts of %d; \"in waitsome\": 20 ms there, "
              "\"cold\": 150 ms, and nothing served for longer than the wait engine's busy window\n",
              target, n, kRounds, kOps);
  std::printf("%-34s %12s %12s %7s %12s %7s\n", "", "target idle", "in waitsome", "ratio", "cold", "ratio");
  auto line = [](const char *what, double idle, double waiting, double cold) {
    std::printf("%-34s %9.1f us %9.1f us %7.2f %9.1f us %7.2f\n", what, idle, waiting, waiting / idle, cold,
                cold / idle);
  };
  line("first request of a burst", i1, w1, c1);
  line("the requests that follow", ir, wr, cr);
  line("mean over the burst", idle_mean, wait_mean, cold_mean);
  // bench_mpi's pair of rows: a burst to a target long in waitsome against a stream to one in a barrier.
  line("bench_mpi's ratio (burst / stream)", ir, wait_mean, cold_mean);
}
} // namespace

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "computing";
  if (std::strcmp(what, "computing") != 0 && std::strcmp(what, "waitsome") != 0) {
    std::fprintf(stderr, "usage: %s [computing|waitsome]\n", argv[0]);
    return 2;
  }
  ok(gaspi_proc_init(GASPI_BLOCK), "proc_init");
  gaspi_rank_t me = 0, n = 0;
  ok(gaspi_proc_rank(&me), "rank");
  ok(gaspi_proc_num(&n), "num");
  ok(gaspi_segment_create(0, 4096, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED), "segment_create");
  if (std::strcmp(what, "computing") == 0)
    computing(me);
  else
    waitsome(me, n);
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  ok(gaspi_proc_term(GASPI_BLOCK), "proc_term");
  return 0;
}
