// A rank dies while the others wait in a collective with GASPI_BLOCK; every survivor must return
// GASPI_ERROR promptly (a member that left a collective with an error releases
// the members still waiting on it).
//
//   hygaspi-run --keep-going -n N mr_dead_collective MODE [VICTIM]       (N >= 3)
//
// MODE: barrier    gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)
//       allreduce  gaspi_allreduce(..., GASPI_GROUP_ALL, GASPI_BLOCK)
//       commit     gaspi_group_commit of a new group of every rank, GASPI_BLOCK
//       segment    gaspi_segment_create(..., GASPI_GROUP_ALL, GASPI_BLOCK, ...)
// VICTIM (default: the last rank) leaves the first barrier, lets the survivors enter the call
// (a head start only: the test is correct whichever comes first), prints "DEATH t_ns=<T>" and
// raise(SIGKILL)s itself. Each survivor prints "RETURN rank <r> rc=<code> t_ns=<T> stall_ms=<S>"
// (T on CLOCK_MONOTONIC, which all processes of the host share; S the longest time a watchdog
// thread of this process overslept while the call ran, i.e. how long the machine did not run it),
// and tests/failure/run_dead_collective.sh checks that every survivor returned GASPI_ERROR and
// how long after the death.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <thread>
#include <unistd.h>

#include "mr_util.hpp"

namespace {
long long now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// A loaded machine can leave a process unscheduled for long (load 18 on 2 cores measured here):
// such a stall is no wait that missed the death. A thread sleeps 5 ms at a time and records the
// largest lateness it saw.
class StallWatch {
public:
  StallWatch() : thread_([this] { run(); }) {}
  ~StallWatch() {
    stop_.store(true);
    thread_.join();
  }
  [[nodiscard]] double max_ms() const { return static_cast<double>(max_ns_.load()) / 1e6; }

private:
  void run() {
    while (!stop_.load()) {
      const long long t0 = now_ns();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      const long long late = now_ns() - t0 - 5000000;
      long long cur = max_ns_.load();
      while (late > cur && !max_ns_.compare_exchange_weak(cur, late)) {
      }
    }
  }
  std::atomic<bool> stop_{false};
  std::atomic<long long> max_ns_{0};
  std::thread thread_;
};
} // namespace

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "barrier" && mode != "allreduce" && mode != "commit" && mode != "segment") {
    std::fprintf(stderr, "usage: %s barrier|allreduce|commit|segment [victim]\n", argv[0]);
    return 2;
  }
  gaspi_rank_t me = 0, n = 0;
  mr_init(me, n);
  MR_CHECK(n >= 3);
  const auto victim = static_cast<gaspi_rank_t>(argc > 2 ? std::atoi(argv[2]) : n - 1);
  MR_CHECK(victim < n);

  gaspi_group_t group = 0;
  if (mode == "commit") {
    MR_OK(gaspi_group_create(&group));
    for (gaspi_rank_t r = 0; r < n; ++r)
      MR_OK(gaspi_group_add(group, r));
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));

  if (me == victim) {
    usleep(300 * 1000); // a head start for the survivors, not a synchronisation
    std::printf("DEATH t_ns=%lld\n", now_ns());
    std::fflush(stdout);
    raise(SIGKILL);
  }

  gaspi_return_t rc = GASPI_SUCCESS;
  auto watch = std::make_unique<StallWatch>();
  if (mode == "barrier") {
    rc = gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK);
  } else if (mode == "allreduce") {
    unsigned long in = me + 1ul, out = 0;
    rc = gaspi_allreduce(&in, &out, 1, GASPI_OP_SUM, GASPI_TYPE_ULONG, GASPI_GROUP_ALL, GASPI_BLOCK);
  } else if (mode == "commit") {
    rc = gaspi_group_commit(group, GASPI_BLOCK);
  } else {
    rc = gaspi_segment_create(0, 1 << 16, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED);
  }
  const long long t_return = now_ns();
  const double stall = watch->max_ms();
  watch.reset();
  std::printf("RETURN rank %u rc=%d t_ns=%lld stall_ms=%.1f\n", me, static_cast<int>(rc), t_return, stall);
  std::fflush(stdout);
  MR_EXPECT(GASPI_ERROR, rc);
  MR_OK(gaspi_proc_term(GASPI_BLOCK));
  std::printf("rank %u: gaspi_proc_term -> GASPI_SUCCESS\n", me);
  return 0;
}
