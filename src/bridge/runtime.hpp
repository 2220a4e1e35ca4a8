// Process-wide state behind the C entry points, and the routing of data movement by locality. The
// bridge is the only layer that knows both transports. The front end's argument checks live in
// gaspi/checks.hpp.
#pragma once
#include <GASPI.h>
#include <GASPI_Ext.h>
#include <PGASPI.h>

#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <vector>

#include "bridge/collectives/group_record.hpp"
#include "core/knobs.hpp"
#include "core/no_destroy.hpp"
#include "core/ranks.hpp"
#include "bridge/peers.hpp"
#include "bridge/segments.hpp"
#include "bridge/target.hpp"
#include "bridge/transport.hpp"
#include "mpi_rma/control.hpp"
#include "mpi_rma/mpi_env.hpp"
#include "mpi_rma/rma.hpp"
#include "mpi_rma/transport.hpp"
#include "shm/node.hpp"
#include "shm/transport.hpp"

namespace hygaspi {

struct Runtime {
  std::mutex lifecycle; // serialises init and term
  Knobs knobs;
  std::uint32_t rank = 0;
  std::uint32_t nranks = 1;
  shm::Node node;
  mpi::Env mpi; // inactive under hygaspi-run and for a standalone process
  mpi::Rma rma;
  mpi::Control control;
  shm::ShmObject bootstrap_job; // MPI jobs: the job block the node leader created
  // How this rank reaches every rank (kind, NodeIndex, MpiRank), built once at init.
  PeerTable peers;
  shm::Transport shm_transport{node};
  mpi::Transport mpi_transport; // holds the per-queue "needs a flush" state

  // Deaths the application has acknowledged, and node deaths this rank has looked at for telling
  // the other nodes (bridge/failures.hpp). Both reset by each init.
  std::atomic<std::uint32_t> deaths_acknowledged{0};
  std::atomic<std::uint32_t> node_deaths_told{0};
  // When a wait of this rank last served a request (WaitPolicy::served; its waits nap shorter for
  // a while after one).
  ServedRecord served;

  // What this rank knows of a peer's life: a node peer's state is in the job block; of a rank on
  // another node it knows what it killed itself and what death notices told it (mpi::Control).
  [[nodiscard]] bool alive(const Peer &p) const noexcept {
    return p.on_node() ? node.alive(p.node) : !control.known_dead(p.mpi);
  }
  [[nodiscard]] bool alive(GlobalRank r) const noexcept { return alive(peers[r]); }
  SegmentTable segments; // every local segment: mapping, MPI attachment, registrations, pending
};

// The runtime outlives static destruction (core/no_destroy.hpp). What a process that never called
// term owes its peers is done by the exit handler (bridge/lifecycle.cpp).
extern NoDestroy<Runtime> g_runtime;
inline Runtime &rt() noexcept { return g_runtime.value; }

static_assert(Transport<shm::Transport>);
static_assert(Transport<mpi::Transport>);

} // namespace hygaspi
