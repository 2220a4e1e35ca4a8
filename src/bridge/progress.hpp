// The engine's one progress step. Progress is passed in, not installed as a callback: waits are
// core/wait.hpp's engine, and the transports below the bridge never call up. A wait that must
// drive MPI is handed progress() by its caller, and the step composes what each transport needs.
// shm needs none (every producer rings the doorbell); MPI has no asynchronous progress here
// (docs/PLATFORM.md "Progress"), so a rank with other nodes serves them from its waits:
//  - kill requests, passive messages (the mailbox of gaspi_passive_receive), credit messages and
//    the eager receives of active messages (mpi::Control::progress, Messages::test_eager);
//  - atomic requests of other nodes, pulled from MPI (mpi::RemoteAtomics::take) and applied to
//    this rank's segment with the CPU atomics of core/atomic_op.hpp, the same code node peers use;
//  - other nodes' transfers with this rank's device segments, and this rank's own transfers with
//    theirs (bridge/remote_device.hpp), which move on a piece at each step.
#pragma once
#include <chrono>

#include "core/wait.hpp"

namespace hygaspi {

// One step; true when it served or took anything. Only while the job spans nodes (rt().rma).
bool progress_step();

// What a wait of this rank drives: progress_step while the job spans nodes, nothing otherwise (one
// node: MPI carries nothing after init, and waits sleep on the doorbell alone).
[[nodiscard]] Step progress() noexcept;
// progress_step itself, for what the bridge hands the MPI transport when it binds it (its atomics
// wait for replies while serving requests, so two ranks that target each other cannot deadlock).
[[nodiscard]] Step mpi_progress() noexcept;
// What the MPI transport's atomics ask while they wait for a reply: false once gaspi_proc_term in
// another thread of this rank began (it waits for that call to return).
[[nodiscard]] Step mpi_health() noexcept;

// The progress thread (HYGASPI_PROGRESS_THREAD): serves the step while the application computes
// outside GASPI, so that a target-side atomic or a passive-target put does not wait for the
// target's next GASPI call. Started only across nodes, and only where it may call MPI beside the
// application: when the library started MPI itself (every MPI call then goes through its lock),
// or when MPI granted MPI_THREAD_MULTIPLE (mpi::Env::progress_thread_allowed). Named
// "hyg-progress". Naps 500 us while waiters drive the step themselves; otherwise 50 us after a
// step that served something, and twice the last nap after one that served nothing, up to
// `longest_nap` (HYGASPI_PROGRESS_NAP_US).
void start_progress_thread(std::chrono::microseconds longest_nap);
void stop_progress_thread() noexcept;

} // namespace hygaspi
