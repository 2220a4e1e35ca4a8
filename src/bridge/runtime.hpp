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
#include "core/config.hpp"
#include "core/knobs.hpp"
#include "core/queues.hpp"
#include "mpi_rma/control.hpp"
#include "mpi_rma/mpi_env.hpp"
#include "mpi_rma/rma.hpp"
#include "shm/node.hpp"

namespace hygaspi {

struct Runtime {
  std::mutex lifecycle; // serialises init and term
  std::atomic<bool> initialized{false};
  std::atomic<std::uint32_t> in_flight{0};  // blocking calls under way (InFlight); term waits for them
  bool finalized_by_mpi = false;            // MPI_Finalize ran the teardown; the next gaspi_proc_term succeeds
  gaspi_config_t config = default_config(); // proposed before init, granted after
  Knobs knobs;
  std::uint32_t rank = 0;
  std::uint32_t nranks = 1;
  std::chrono::steady_clock::time_point start{};
  shm::Node node;
  mpi::Env mpi; // inactive under hygaspi-run and for a standalone process
  mpi::Rma rma;
  mpi::Control control;
  shm::ShmObject bootstrap_job; // MPI jobs: the job block the node leader created
  // Locality: node-local index of every global rank (-1: another node), and the reverse.
  std::vector<std::int32_t> local_of;
  std::vector<std::uint32_t> global_of;
  std::array<std::atomic<bool>, limits::kMaxQueues> queue_uses_mpi{}; // gaspi_wait must flush

  // Ranks of other nodes that this rank knows to be dead (it killed them: gaspi_proc_kill).
  std::vector<std::atomic<bool>> known_dead;

  // `r` is a global rank everywhere in the bridge; shm::Node takes node-local indices, so every
  // call into it goes through local(). (The issue "One engine with typed peers" makes the two
  // rank spaces distinct types.)
  [[nodiscard]] bool on_node(std::uint32_t r) const noexcept { return local_of[r] >= 0; }
  [[nodiscard]] std::uint32_t local(std::uint32_t r) const noexcept { return static_cast<std::uint32_t>(local_of[r]); }
  // What this rank knows of global rank r's life: a node peer's state is in the job block; of a
  // rank on another node it knows only what it has seen itself.
  [[nodiscard]] bool alive(std::uint32_t r) const noexcept {
    return on_node(r) ? node.alive(local(r)) : !known_dead[r].load(std::memory_order_acquire);
  }
  QueueTable queues;
  GroupTable groups;   // one record per group (bridge/collectives/group_record.hpp)
  std::mutex segments; // serialises segment creation and deletion
};

extern Runtime g_runtime;
inline Runtime &rt() noexcept { return g_runtime; }

// A segment of another rank, reached through shm (a node peer) or MPI (another node).
struct RemoteRef {
  const shm::MappedSegment *shm = nullptr;
  const mpi::RemoteSegment *mpi = nullptr;
  std::uint32_t local = 0; // node-local index of the owner (shm)
  std::uint64_t size = 0;
  std::uint32_t notification_num = 0;
};

// ---- data movement, routed by locality (STYLE.md: "is the peer on my node?")
inline gaspi_return_t route_put(const RemoteRef &dst, std::uint32_t rank, std::uint64_t off, const void *src,
                                std::uint64_t size, std::uint32_t queue) {
  if (dst.shm != nullptr)
    return rt().node.put(*dst.shm, dst.local, off, src, size);
  rt().queue_uses_mpi[queue].store(true, std::memory_order_relaxed);
  return rt().rma.put(static_cast<int>(rank), dst.mpi->data + off, src, size);
}

inline gaspi_return_t route_get(void *dst, const RemoteRef &src, std::uint32_t rank, std::uint64_t off,
                                std::uint64_t size, std::uint32_t queue) {
  if (src.shm != nullptr)
    return rt().node.get(dst, *src.shm, src.local, off, size);
  rt().queue_uses_mpi[queue].store(true, std::memory_order_relaxed);
  return rt().rma.get(dst, static_cast<int>(rank), src.mpi->data + off, size);
}

// spec §8.3.2: never overtakes earlier writes of this queue to `rank` (shm: same thread, release;
// MPI: flush first).
inline gaspi_return_t route_notify(const RemoteRef &dst, std::uint32_t rank, std::uint32_t id, std::uint32_t value) {
  if (dst.shm != nullptr) {
    rt().node.notify(*dst.shm, dst.local, id, value);
    return GASPI_SUCCESS;
  }
  return rt().rma.notify(static_cast<int>(rank), *dst.mpi, id, value);
}

} // namespace hygaspi
