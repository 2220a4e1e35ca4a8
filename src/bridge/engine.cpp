// The front ends' view of the engine (bridge/engine.hpp), answered from the runtime.
#include "bridge/engine.hpp"
#include "bridge/fast_views.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "bridge/failures.hpp"
#include "bridge/lifecycle.hpp"
#include "bridge/progress.hpp"
#include "bridge/runtime.hpp"
#include "core/host_memory.hpp"
#include "core/log.hpp"
#include "kinds/devices.hpp"
#include "shm/doorbell.hpp"

namespace hygaspi {
// One namespace-scope instance: rt() inlines to its address, with no static-guard check on the
// data path (callgrind showed ~25 instructions per call for the function-local static). It is
// never destroyed.
NoDestroy<Runtime> g_runtime;
} // namespace hygaspi

namespace hygaspi::engine {

std::uint32_t rank() noexcept { return rt().rank; }
std::uint32_t size() noexcept { return rt().nranks; }
std::uint32_t node_rank() noexcept { return rt().peers.self_node().value(); }
const Knobs &knobs() noexcept { return rt().knobs; }
bool spans_nodes() noexcept { return rt().peers.spans_nodes(); }
std::uint32_t node_size() noexcept { return rt().peers.node_size(); }
std::uint32_t host_ranks() noexcept {
  const Runtime &r = rt();
  return r.mpi.active() ? static_cast<std::uint32_t>(std::max(1, r.mpi.host_ranks)) : r.peers.node_size();
}
bool mpi_job() noexcept { return rt().mpi.active(); }
bool alive(GlobalRank r) noexcept { return rt().alive(r); }
const WaitPolicy &wait_policy() noexcept { return rt().node.wait_policy(); }
bool doorbell_sleep(Step ready, std::chrono::nanoseconds ns) {
  return shm::DoorbellSleep{rt().node.my_block().bell}(ready, ns);
}
std::mutex &lifecycle() noexcept { return rt().lifecycle; }
bool stopping() noexcept { return rt().node.stopping(); }
void set_stopping(bool stopping) noexcept { rt().node.set_stopping(stopping); }
void refresh_liveness() noexcept {
  rt().node.refresh_liveness();
  tell_node_deaths();
  watch_ring();
}
bool start_resumable() noexcept { return rt().node.resumable(); }

std::vector<std::uint32_t> node_firsts() {
  const Runtime &r = rt();
  std::vector<std::uint32_t> out(r.nranks, 0);
  if (!r.mpi.active()) // hygaspi-run, or alone: one node
    return out;
  std::unordered_map<int, std::uint32_t> first; // node id -> its lowest rank
  for (std::uint32_t n = 0; n < r.nranks; ++n)
    out[n] = first.try_emplace(r.mpi.node_of[n], n).first->second;
  return out;
}

gaspi_return_t create_segment(std::uint32_t id, std::uint64_t size) {
  Runtime &r = rt();
  if (const gaspi_return_t rc = r.segments.create(id, size, 0, nullptr, 0); rc != GASPI_SUCCESS)
    return rc;
  for (std::uint32_t n = 0; n < r.nranks; ++n)
    if (const gaspi_return_t rc = register_segment(id, GlobalRank{n}); rc != GASPI_SUCCESS)
      return rc;
  return GASPI_SUCCESS;
}

gaspi_return_t allocate_segment(std::uint32_t id, std::uint64_t size, std::uint32_t notification_num, void *user_memory,
                                gaspi_alloc_t alloc_policy) {
  if (std::string why; user_memory != nullptr && !host_accessible(user_memory, size, why)) {
    log::error("segment %u: %lu bytes of host memory at %p: the range %s", id, static_cast<unsigned long>(size),
               user_memory, why.c_str());
    return GASPI_ERROR;
  }
  return rt().segments.create(id, size, notification_num, user_memory, alloc_policy);
}

gaspi_return_t bind_device_segment(std::uint32_t id, std::uint64_t size, std::uint32_t notification_num, void *memory,
                                   int ordinal) {
  std::string why;
  kinds::CudaDevice *dev = kinds::device(rt().knobs.cuda_library, ordinal, why);
  kinds::IpcKey key;
  if (dev == nullptr || dev->check_client(memory, size, why) != kinds::Fail::none ||
      !dev->export_key(memory, key, why)) {
    log::error("segment %u: %lu bytes at %p on CUDA device %d: %s", id, static_cast<unsigned long>(size), memory,
               ordinal, why.c_str());
    return GASPI_ERROR;
  }
  return rt().segments.create(id, size, notification_num, memory, 0, &key);
}
gaspi_return_t delete_segment(std::uint32_t id) { return rt().segments.remove(id); }
bool segment_pending(std::uint32_t id) noexcept { return rt().segments.pending_collective(id); }
void set_segment_pending(std::uint32_t id, bool pending) noexcept { rt().segments.set_pending_collective(id, pending); }

gaspi_return_t open_segment_window(std::uint32_t id, std::span<const GlobalRank> members) {
  // Every member decides alike: the same knob (set alike on every rank), members and library.
  const std::int64_t knob = rt().knobs.group_windows;
  if (members.size() < rt().peers.size() && !(knob < 0 ? mpi::group_windows_safe() : knob == 1))
    return GASPI_SUCCESS; // the dynamic window serves
  std::vector<MpiRank> ranks;
  ranks.reserve(members.size());
  bool one_node = true; // a group of one node reaches its members through shm alone
  for (const GlobalRank r : members) {
    const Peer &peer = rt().peers[r];
    one_node = one_node && peer.on_node();
    ranks.push_back(peer.mpi);
  }
  return one_node ? GASPI_SUCCESS : rt().segments.open_window(id, rt().knobs.dynamic_window, ranks);
}

gaspi_return_t register_segment(std::uint32_t id, GlobalRank with) {
  return rt().segments.register_with(id, rt().peers[with]);
}

const SegmentView *local_segment(std::uint32_t id) noexcept {
  return id < limits::kSegmentSlots ? rt().segments.local(id) : nullptr;
}

const SegmentView *direct_view(GlobalRank target, std::uint32_t id) noexcept {
  Runtime &r = rt();
  const Peer &p = r.peers[target];
  const shm::MappedSegment *m = p.kind == PeerKind::self  ? r.segments.local(id)
                                : p.kind == PeerKind::shm ? r.node.lookup(p.node, id)
                                                          : nullptr;
  return m != nullptr && m->memory != Memory::peer_host ? m : nullptr;
}

char *mapping(GlobalRank target, std::uint32_t id, std::uint64_t *size_out) noexcept {
  const SegmentView *m = direct_view(target, id);
  if (m == nullptr || !m->host_mapped())
    return nullptr;
  if (size_out != nullptr)
    *size_out = m->size;
  return m->data;
}

void release_mapping(GlobalRank target, std::uint32_t id) noexcept {
  Runtime &r = rt();
  if (const Peer &p = r.peers[target]; p.kind == PeerKind::shm)
    r.node.release(p.node, id);
}

void forget_segment_name(std::uint32_t id) noexcept { rt().node.unlink_segment_name(id); }

gaspi_return_t kill(GlobalRank target, gaspi_timeout_t timeout) {
  Runtime &r = rt();
  const Peer &peer = r.peers[target];
  if (!peer.on_node()) {
    const gaspi_return_t rc = r.control.kill(peer.mpi, Deadline(timeout), progress());
    if (rc == GASPI_SUCCESS)
      tell_death_of_killed(target);
    return rc;
  }
  if (!r.node.kill(peer.node)) {
    log::error("cannot kill rank %u (pid %d): %s", target.print(), r.node.pid_of(peer.node), std::strerror(errno));
    return GASPI_ERROR;
  }
  return GASPI_SUCCESS;
}

void abort_job(int code, const std::function<bool(std::uint32_t)> &spare) noexcept {
  Runtime &r = rt();
  r.node.end_job(code);
  if (!r.mpi.active())
    for (std::uint32_t n = 0; n < r.nranks; ++n) {
      const Peer &p = r.peers[GlobalRank{n}];
      if (p.kind == PeerKind::shm && !spare(n))
        (void)r.node.kill(p.node); // an intended death
    }
  engine_abort(code);
  std::_Exit(code);
}

} // namespace hygaspi::engine

// ---- the fast paths' views (bridge/fast_views.hpp)
namespace hygaspi::engine {

const SegmentView *mapped_segment(std::uint32_t rank, std::uint32_t seg) noexcept {
  const Runtime &r = rt();
  if (rank >= r.nranks || seg >= limits::kSegmentSlots)
    return nullptr;
  const Peer &peer = r.peers[GlobalRank{rank}];
  if (!peer.on_node() || !r.node.alive(peer.node))
    return nullptr;
  return r.node.cached(peer.node, seg);
}

const SegmentView *mapped_pair(std::uint32_t rank, std::uint32_t seg, std::uint32_t local_seg,
                               const SegmentView *&local) noexcept {
  local = local_segment(local_seg);
  return mapped_segment(rank, seg);
}

static_assert(kDeadOwner == static_cast<std::uint32_t>(shm::RankState::dead));

void notify_mapped(std::uint32_t rank, const SegmentView &seg, std::uint32_t id, std::uint32_t value) noexcept {
  // Every view this engine hands out is a shm::MappedSegment's.
  rt().node.notify(static_cast<const shm::MappedSegment &>(seg), rt().peers[GlobalRank{rank}].node, id, value);
}

bool fill_atomic_target(std::uint32_t rank, std::uint32_t seg, AtomicTarget &t) noexcept {
  const SegmentView *m = mapped_segment(rank, seg);
  if (m == nullptr || !m->host_mapped() || m->size < sizeof(std::uint64_t))
    return false;
  Runtime &r = rt();
  const NodeIndex owner = r.peers[GlobalRank{rank}].node;
  t.data = m->data;
  t.last = m->size - sizeof(std::uint64_t);
  t.mapped_generation = m->generation;
  t.generation = &r.node.block(owner).segments[seg].generation;
  t.state = &r.node.state_word(owner);
  return true;
}

} // namespace hygaspi::engine
