// The one wait of the hierarchical collectives, and the one place where a failed collective
// releases the other members. Internal to bridge/collectives/.
//
// A group on one node waits as every shm wait does (Node::wait_while: spin, yield, futex doorbell;
// polling MPI progress in an MPI job). A group that spans nodes waits the way MPI's own
// collectives do, for a bounded time (kSpanningSpin): while the machine waits on MPI (a leader
// phase) it busy-polls its MPI_Testall; while it waits on a node peer (a shm flag) it yields at
// each look, as that peer may need this core. It looks at MPI progress, health and abort notices
// only every 64th look (each of those is an MPI_Improbe, which costs several polls). Then it
// yields, then sleeps with a growing nap. Measured on 4 ranks on 2 cores, Open MPI ob1/vader:
//  - a raw dissemination barrier: Testall + sched_yield at each look 64-80 us, Testall + 3
//    Improbes + yield 155-175 us, Testall alone 12-27 us, MPI_Barrier 11-25 us;
//  - gaspi_barrier on 2 nodes of 2 (ratio to MPI_Barrier in the same run): everyone spinning
//    6.8-18x, everyone yielding 1.8-2.9x, spin on MPI + yield on shm 1.6-1.8x; on 4 nodes of 1,
//    spinning 1.3-2.3x, yielding 3.3-5x.
// (To be replaced by the wait engine, core/wait.hpp, once it lands.)
#pragma once
#include <GASPI.h>

#include <chrono>
#include <ctime>
#include <sched.h>

#include "bridge/collectives/group_record.hpp"
#include "bridge/runtime.hpp"
#include "core/deadline.hpp"
#include "shm/doorbell.hpp"

namespace hygaspi::collectives {

// How long a spanning collective busy-polls before it yields (then sleeps): a few message
// latencies of the slowest path (TCP across hosts, ~50 us), so a collective that is merely late
// by a round trip never gives up its core, while an application imbalance does not burn one.
inline constexpr std::chrono::microseconds kSpanningSpin{1000};
inline constexpr std::chrono::microseconds kSpanningYield{1000};

// False when the collective can no longer complete (logged): gaspi_proc_term in another thread,
// a dead member on the node, the group marked broken by a node member, or (leaders) an abort
// notice from another node's leader.
[[nodiscard]] bool healthy(GroupRecord &g);

// Ends a collective with `rc`. An error (not a timeout) means the collective can no longer
// complete: the machines' state is abandoned, the group is marked broken for the node members
// that still wait on this rank, and the other nodes' leaders get an abort notice.
gaspi_return_t end_collective(GroupRecord &g, gaspi_return_t rc);

// Runs `step` (one look, as with GASPI_TEST) until it returns something other than GASPI_TIMEOUT,
// until the deadline (GASPI_TIMEOUT), or until the group fails (GASPI_ERROR).
template <class Step, class Across>
gaspi_return_t wait_steps(GroupRecord &g, Step &&step, Across &&across, const Deadline &deadline) {
  gaspi_return_t rc = step();
  if (rc != GASPI_TIMEOUT || deadline.test_only())
    return rc;
  if (!g.spans_nodes()) {
    const gaspi_return_t waited = shm::await_group(
        rt().node, g.node, [&] { return (rc = step()) != GASPI_TIMEOUT; }, deadline);
    return waited == GASPI_SUCCESS ? rc : waited;
  }
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  auto nap = std::chrono::microseconds(20);
  bool spinning = true;
  for (std::uint64_t look = 1;; ++look) {
    if ((rc = step()) != GASPI_TIMEOUT)
      return rc;
    if (spinning && (look & 63) != 0) {
      if (across())
        shm::cpu_relax();
      else
        sched_yield(); // the node peer we wait for may need this core
      continue;
    }
    if (!healthy(g))
      return GASPI_ERROR;
    if (deadline.expired())
      return GASPI_TIMEOUT;
    rt().control.progress(); // serve the atomics and messages of ranks that wait on this one
    const auto spent = Clock::now() - start;
    spinning = spent < kSpanningSpin;
    if (spinning)
      continue;
    if (spent < kSpanningSpin + kSpanningYield) {
      sched_yield();
      continue;
    }
    timespec ts{0, static_cast<long>(std::chrono::nanoseconds(nap).count())};
    nanosleep(&ts, nullptr);
    nap = std::min<std::chrono::microseconds>(nap * 2, std::chrono::milliseconds(1));
  }
}

} // namespace hygaspi::collectives
