// What a wait does after a death (docs/DESIGN.md "Failures").
//
// GASPI_BLOCK means "until done, or until the peers the call needs have died", in every call. A
// call that knows its partners (a barrier, a passive send) fails once one of them is dead. Two
// calls cannot know theirs, since any rank may notify or send: gaspi_notify_waitsome and
// gaspi_passive_receive. For them, with GASPI_BLOCK:
//  - they fail while a death on the node is unacknowledged (deaths observed > deaths the
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
#include <vector>

#include "core/log.hpp"
#include "bridge/progress.hpp"
#include "bridge/runtime.hpp"

namespace hygaspi {

// The deaths a state vector showed, a purge, or a committed group without the dead ranks.
inline void acknowledge_deaths() noexcept { rt().node.acknowledge_deaths(rt().node.deaths()); }
// After a successful commit of a group with these (global) members: the deaths of node peers
// outside it are acknowledged (a dead member would have failed the commit).
void acknowledge_deaths_outside(const std::vector<gaspi_rank_t> &members) noexcept;

// True when a node peer died and no rank is left that could send to this one.
[[nodiscard]] bool no_sender_left() noexcept;

// Waits for ready() under the rule above (`passive`: the gaspi_passive_receive variant).
// `slow()` runs at every slow-path look, whatever the timeout.
template <class Ready, class Slow>
gaspi_return_t await_any_partner(Ready &&ready, gaspi_timeout_t timeout, bool passive, Slow &&slow) {
  shm::Node &node = rt().node;
  const bool block = timeout == GASPI_BLOCK;
  enum class Why { none, death, no_sender } why = Why::none;
  auto healthy = [&] {
    slow();
    if (block && node.unacknowledged_death())
      why = Why::death;
    else if (block && passive && no_sender_left())
      why = Why::no_sender;
    return why == Why::none;
  };
  if (const gaspi_return_t rc = node.wait_while(ready, Deadline(timeout), healthy, progress()); rc != GASPI_ERROR)
    return rc;
  if (node.stopping())
    log::error("gaspi_proc_term was called while this call waited");
  else if (why == Why::death)
    log::error("a node peer died; GASPI_BLOCK waits that any rank may end fail until the application "
               "acknowledges the death (gaspi_state_vec_get, a purge, or a group without the dead rank)");
  else
    log::error("every rank that could send has died or terminated");
  return GASPI_ERROR;
}

} // namespace hygaspi
