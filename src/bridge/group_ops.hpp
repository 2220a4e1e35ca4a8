// Group helpers shared by the group calls, gaspi_barrier and the collective segment calls.
#pragma once
#include <GASPI.h>

#include "mpi_rma/leaders.hpp"

namespace hygaspi {

// Checks that `group` is committed and contains this rank.
gaspi_return_t check_committed_group(gaspi_group_t group) noexcept;

// The barrier of `group`; resumable after GASPI_TIMEOUT (spec §11.2.1).
gaspi_return_t group_barrier(gaspi_group_t group, gaspi_timeout_t timeout);

// Works out how this rank reaches the members of a newly committed group (node part, leaders).
void compute_route(gaspi_group_t group);

// Creates the node-local reduce area of a newly committed group when this rank leads it.
gaspi_return_t publish_reduce_area(gaspi_group_t group);

// Makes a newly committed group (after compute_route) findable by its node peers: its reduce
// area, then its slot under its commit tag (shm/node_group.hpp).
gaspi_return_t publish_commit(gaspi_group_t group);

// Ends a collective of `group` with `rc`. An error (not a timeout) means the collective can no
// longer complete, so the group is marked broken for the members that still wait on this rank.
// Over MPI, the other nodes' leaders get an abort notice (mpi_rma/leaders.hpp).
gaspi_return_t end_collective(gaspi_group_t group, gaspi_return_t rc);

// A collective of a broken group fails at once with GASPI_ERROR.
gaspi_return_t check_not_broken(gaspi_group_t group);

// What a leader step of `group` asks between its looks at MPI: is the group broken on this node, or
// is gaspi_proc_term tearing this rank down?
mpi::Abort leader_abort_check(gaspi_group_t group);

} // namespace hygaspi
