// The engine's life cycle, shared by the front ends (GASPI's gaspi_proc_init/term, GASNet's
// gasnet_init/exit): the first front end to start it brings up the node (shm), MPI and the peer
// table; a later one joins the running engine; the last one to leave tears it down. A program may
// so run GASPI and GASNet side by side, in alternating phases, on one set of transports.
//
// Callers hold the lifecycle lock (engine::lifecycle()).
#pragma once
#include <GASPI.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "core/deadline.hpp"
#include "core/knobs.hpp"

namespace hygaspi {

// Front ends that use the engine, one bit each (up to 32; the hooks below have a slot per bit).
// GASNet-EX runs on GASNet-1's, as GASNet's own legacy layer shares one client.
enum FrontEnd : unsigned { kFrontGaspi = 1u, kFrontGasnet = 2u };

// Starts the engine for `front` (or joins it, when another front end runs it, and `passive_max` is
// what that one chose): `passive_max` is the largest passive message this rank receives
// (bridge/am_channel.hpp sizes its inbox by it; GASNet, which sends none, passes GASPI's
// default). `knobs` are the environment's, read by the caller. GASPI_TIMEOUT: under hygaspi-run
// the node's peers have not all arrived yet and Node::resumable() says a later call continues
// (spec §5.3.1).
gaspi_return_t engine_start(unsigned front, const Knobs &knobs, const Deadline &deadline, std::uint64_t passive_max);
// A start of `front` that failed part-way: `front` leaves, and when no other front end uses the
// engine, node peers fail at once and the launcher reports the failure. Returns rc.
gaspi_return_t engine_abandon(unsigned front, gaspi_return_t rc);
// `front` leaves; the last one tears the engine down (collective over MPI: every rank's last front
// end must leave). Nothing of a segment, peer or MPI window survives into the next start.
void engine_stop(unsigned front) noexcept;
// `front` ends the whole job and the process with it, every rank together with `code` (gasnet_exit
// that every node joined; `asked`: by this rank's own call, not following another's). The code is
// recorded for the launcher (shm::Node::note_job_end). Every front end leaves with it, since a GASPI
// still initialised then is not a rank that dies without term. Nothing is torn down, since other
// threads may still be inside calls. MPI is finalized at exit (also where the client started it);
// the rank is marked cleanly terminated on its node and the progress thread stops.
void engine_leave_at_exit(unsigned front, int code, bool asked) noexcept;

// Start-up exchanges for the front ends, collective over every rank of an MPI job and trivial on
// one node without MPI (where every rank shares the launcher's environment and /dev/shm):
// rank 0's bytes to every rank, and the minimum of a value.
gaspi_return_t engine_broadcast(std::vector<char> &bytes);
gaspi_return_t engine_min(std::uint64_t &value);

// Ends the whole MPI job at once with `code` (MPI_Abort); returns only without MPI.
void engine_abort(int code) noexcept;
// Whether every rank of the MPI job arrives here within `within` (a non-blocking barrier on the
// collectives' communicator, GASNet's exit before attach): an exit that the whole job makes
// together can then end cleanly, without MPI_Abort. False without MPI.
bool engine_all_arrive(std::chrono::milliseconds within) noexcept;
// Before `front`'s term: where that term will end the engine's MPI one-sided windows, whose
// collective MPI_Win_free waits for every rank, waits for every rank to get here first (a
// non-blocking barrier on the collectives' communicator, one per session; a call after
// GASPI_TIMEOUT resumes it), driving progress, so that the term honours `deadline`. GASPI_ERROR
// (logged) when a rank is known dead: the windows' end can then never complete. GASPI_SUCCESS at
// once where no such end is ahead (no MPI, or another front end still up).
gaspi_return_t engine_ready_to_stop(unsigned front, const Deadline &deadline);
// `front`'s term begins. When no other front end keeps the engine up, this rank marks itself
// terminated on its node (shm::Node::leaving), and its node peers' collectives that wait for it fail
// from here on. While one does (GASNet), the rank stays a live member of the job, and may start
// `front` again: its groups were departed one by one (depart_group), and the next life's groups
// have tags of their own. Idempotent.
void engine_leaving(unsigned front) noexcept;

// MPI_Finalize before the front ends' term: each registers what it must do
// (GASPI: tear itself down and remember it). Run at the start of MPI_Finalize.
void engine_on_mpi_finalize(unsigned front, void (*hook)()) noexcept;
// The process exits (main returns, exit()) with `front` still up: `hook` gets the exit status and
// may end the job for its API's sake. A front end that is still up after the hooks leaves the job
// as a dead rank (lifecycle.cpp).
void engine_on_exit(unsigned front, void (*hook)(int status)) noexcept;

} // namespace hygaspi
