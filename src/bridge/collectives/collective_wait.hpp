// The one wait of the hierarchical collectives, and the one place where a failed collective
// releases the other members. Internal to bridge/collectives/.
//
// A group on one node waits as every shm wait does (Node::wait_while: spin, yield, futex doorbell;
// polling MPI progress in an MPI job). A group that spans nodes waits in the wait engine
// (core/wait.hpp) the way MPI's own collectives do, for a bounded time (kSpanningPolicy): while
// the machine waits on MPI (a leader phase) it busy-polls its MPI_Testall; while it waits on a
// node peer (a shm flag) it yields at each look, as that peer may need this core. MPI progress
// runs every 64th look, health and abort notices (an MPI_Improbe each) on the engine's clock.
// Then it yields, then sleeps with a growing nap. Measured on 4 ranks on 2 cores, Open MPI
// ob1/vader:
//  - a raw dissemination barrier: Testall + sched_yield at each look 64-80 us, Testall + 3
//    Improbes + yield 155-175 us, Testall alone 12-27 us, MPI_Barrier 11-25 us;
//  - gaspi_barrier on 2 nodes of 2 (ratio to MPI_Barrier in the same run): everyone spinning
//    6.8-18x, everyone yielding 1.8-2.9x, spin on MPI + yield on shm 1.6-1.8x; on 4 nodes of 1,
//    spinning 1.3-2.3x, yielding 3.3-5x;
//  - in the wait engine, a progress step at the wait's first look too: 3.5-7.8x (nodes of 1) and
//    2.8-6.8x (nodes of 2); without it 1.7-1.9x and 1.2-2.0x, as the loop above;
//  - what is left on nodes of 1 was mostly the MPI progress thread (HYGASPI_PROGRESS_THREAD: four
//    threads waking every 50 us on 2 cores, as it did then): without it 0.93-1.23x (MPI_Barrier
//    6 us instead of 12). Skipping a look while that thread holds the MPI lock (try_lock) did not
//    help (3-6x). Its nap now grows while it finds nothing to serve (bridge/progress.hpp).
#pragma once
#include <GASPI.h>

#include <sched.h>

#include <string>
#include <utility>

#include "bridge/collectives/group_record.hpp"
#include "bridge/progress.hpp"
#include "bridge/runtime.hpp"
#include "core/deadline.hpp"
#include "core/log.hpp"
#include "core/wait.hpp"
#include "shm/doorbell.hpp"

namespace hygaspi::collectives {

// How long a spanning collective polls before it yields, then sleeps (core/wait.hpp): 4096 looks
// of an MPI_Testall are about 1-2 ms, a few message latencies of the slowest path (TCP across
// hosts, ~50 us), so a collective that is merely late by a round trip never gives up its core.
// Then it yields, driving MPI at each look, for up to 100000 looks (0.1-1 s) before it naps: a
// rank in a barrier is often the target of another node's puts (write, then wait, then barrier),
// and over TCP (osc/pt2pt) each of them completes only at the target's next MPI call. With 50
// yields the barrier was napping (200 us) within a few ms, and an 8 B write + wait across two
// hosts took 283 us against 19.6 us raw (14x, scripts/multihost.sh --bench); yielding, 22.6 us
// against 27.9 us. A yield gives the core away whenever another process wants it, as
// MPI_Barrier's busy poll does not.
inline constexpr WaitPolicy kSpanningPolicy{4096, 100000};

// Why the collective `which` can no longer complete, or empty: gaspi_proc_term in another thread,
// a dead or terminated member among the `awaited` (shm/node_group.hpp), the group marked broken by
// a node member, or (leaders) an abort notice from another node's leader, or another node's leader
// that ended its session before this collective (mpi::leader_departs). Not logged here: the wait's
// last look may still find it complete.
[[nodiscard]] std::string failure(GroupRecord &g, Collective which, std::int32_t awaited);
inline constexpr const char *kTermWhileWaiting = "gaspi_proc_term was called while this call waited";

// Ends a collective with `rc`. An error (not a timeout) means the collective can no longer
// complete: the machines' state is abandoned, the group is marked broken for the node members
// that still wait on this rank, and the other nodes' leaders get an abort notice.
gaspi_return_t end_collective(GroupRecord &g, gaspi_return_t rc);

// Runs `step` (one look, as with GASPI_TEST) until it returns something other than GASPI_TIMEOUT,
// until the deadline (GASPI_TIMEOUT), or until the group fails (GASPI_ERROR). `awaited()`: the
// node member(s) the machine's last look waited for (shm::kAllMembers, a member's position), or
// shm::kNoMember in a leader phase, which waits on MPI.
template <class Step, class Awaited>
gaspi_return_t wait_steps(GroupRecord &g, Collective which, Step &&step, Awaited &&awaited, const Deadline &deadline) {
  gaspi_return_t rc = step();
  if (rc != GASPI_TIMEOUT || deadline.test_only())
    return rc;
  std::string why;
  auto healthy = [&] {
    why = failure(g, which, awaited());
    return why.empty();
  };
  gaspi_return_t waited = GASPI_SUCCESS;
  if (!g.spans_nodes()) {
    waited =
        rt().node.wait_while([&] { return (rc = step()) != GASPI_TIMEOUT; }, deadline, healthy, hygaspi::progress());
  } else {
    // Waiting on a node peer, a look ends with a yield: that peer may need this core.
    auto ready = [&] {
      if ((rc = step()) != GASPI_TIMEOUT)
        return true;
      if (awaited() != shm::kNoMember)
        sched_yield();
      return false;
    };
    // Serves ranks that wait on this one. Not at the wait's first look: the step just looked, and
    // one progress step (three MPI_Improbe) costs about a third of a whole barrier here.
    auto progress = [first = true]() mutable { return std::exchange(first, false) ? false : progress_step(); };
    waited = wait_until(ready, deadline, kSpanningPolicy, progress, Nap{}, healthy);
  }
  if (waited == GASPI_ERROR)
    log::error("%s", why.empty() ? kTermWhileWaiting : why.c_str()); // wait_while checks the term itself
  return waited == GASPI_SUCCESS ? rc : waited;
}

} // namespace hygaspi::collectives
