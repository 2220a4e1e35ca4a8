// What a wait does after a death (docs/DESIGN.md "Failures"), and how a death becomes known.
//
// Node peers watch each other's processes (shm/liveness.hpp); nobody else sees a death, since Open
// MPI 4.1 reports none to the survivors (docs/mpi-failures.md). So the node peer that first
// claims a death (Node::claim_death_telling) sends a death notice to every rank of the other nodes,
// the killer of a rank of another node sends one to every other rank, and a process that exits
// without term sends its own. Each rank's progress takes them (mpi::Control::known_dead). The last
// live rank of a node, dying by a signal or a crash, leaves nobody to tell.
//
// GASPI_BLOCK means "until done, or until the peers the call needs have died", in every call. A
// call that knows its partners (a barrier, a passive send) fails once one of them is dead. Two
// calls cannot know theirs, since any rank may notify or send: gaspi_notify_waitsome and
// gaspi_passive_receive. For them, with GASPI_BLOCK:
//  - they fail while a death in the job is unacknowledged (deaths known > deaths the
//    application acknowledged). The application acknowledges deaths by reading the state vector
//    (gaspi_state_vec_get: spec §5.5 is how it learns of failures), by purging a queue
//    (gaspi_queue_purge, gaspi_passive_queue_purge: spec §8.5.3 / §9.3.1, "in the situation in
//    which a node failure is detected"), or by committing a group that leaves the dead ranks out.
//    From then on, survivors block among themselves again; a later death fails them again until
//    it is acknowledged too;
//  - gaspi_passive_receive also fails when nobody is left to send: a node peer died, and every
//    node peer is dead or terminated, and the job has no other node (a 1-rank job, or one whose
//    peers all terminated cleanly, keeps waiting as before: a thread of this rank may still send).
// With a bounded timeout the calls keep returning GASPI_TIMEOUT: the caller chose how long to wait.
// Whatever the state, a notification or message that is there is returned first.
#pragma once
#include <GASPI.h>

#include <vector>

#include "bridge/engine.hpp"
#include "bridge/progress.hpp"
#include "core/wait.hpp"

namespace hygaspi {

// Tells the other nodes of the node peers that died since the last look (at most once per death
// across the node). engine::refresh_liveness calls it after each look for dead node peers.
void tell_node_deaths() noexcept;
// Looks at this rank's successor in the ring of TCP connections (mpi_rma/ring_watch.hpp): a rank
// of another node found dead is known dead here from now on, and every other rank is told.
// engine::refresh_liveness calls it after tell_node_deaths.
void watch_ring() noexcept;
// gaspi_proc_kill of a rank of another node succeeded: tells every other rank.
void tell_death_of_killed(GlobalRank killed) noexcept;
// This process exits without term (an exit handler): tells the ranks of the other nodes.
void tell_own_death() noexcept;

// Ranks of the job this rank knows to be dead.
[[nodiscard]] std::uint32_t deaths() noexcept;
// The deaths a state vector showed, a purge, or a committed group without the dead ranks.
void acknowledge_deaths() noexcept;
// After a successful commit of a group with these (global) members: the deaths of node peers
// outside it are acknowledged (a dead member would have failed the commit).
void acknowledge_deaths_outside(const std::vector<gaspi_rank_t> &members) noexcept;

// True when a node peer died and no rank is left that could send to this one.
[[nodiscard]] bool no_sender_left() noexcept;

// What a wait under the rule above has found at its health checks (out of line: they run at a
// bounded interval, not at every look).
struct AnyPartnerWait {
  bool block = false;   // GASPI_BLOCK
  bool passive = false; // the gaspi_passive_receive variant
  enum class Why { none, death, no_sender } why = Why::none;
};
// After the liveness refresh and the slow-path look: no reason of the rule above to end.
[[nodiscard]] bool any_partner_healthy(AnyPartnerWait &w) noexcept;
// Says why a wait under the rule ended with GASPI_ERROR.
void any_partner_failed(const AnyPartnerWait &w) noexcept;

// Waits for ready() under the rule above (`passive`: the gaspi_passive_receive variant), on this
// rank's doorbell, driving progress() while the job spans nodes. `slow()` runs at every slow-path
// look, whatever the timeout. Inline, so that ready() is inlined into the spin.
template <class Ready, class Slow>
gaspi_return_t await_any_partner(Ready &&ready, gaspi_timeout_t timeout, bool passive, Slow &&slow) {
  AnyPartnerWait w{timeout == GASPI_BLOCK, passive};
  auto healthy = [&] {
    engine::refresh_liveness();
    if (engine::stopping())
      return false;
    slow();
    return any_partner_healthy(w);
  };
  const gaspi_return_t rc =
      wait_until(ready, Deadline(timeout), engine::wait_policy(), progress(), engine::DoorbellSleep{}, healthy);
  if (rc == GASPI_ERROR)
    any_partner_failed(w);
  return rc;
}

} // namespace hygaspi
