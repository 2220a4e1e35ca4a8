// shm::Node's segments (shm/node.hpp): this rank's (create, delete, publish), the node peers'
// (mapped on first use, remapped after re-creation, device memory opened through CUDA IPC,
// released on request), and the host data movement between them (memmove on a mapping,
// cross-memory attach for bound memory).
#include "shm/node.hpp"

#include <cerrno>
#include <cstring>
#include <sys/mman.h>
#include <sys/uio.h>

#include "core/log.hpp"
#include "kinds/devices.hpp"
#include "shm/numa.hpp"

namespace hygaspi::shm {

namespace {
constexpr std::uint64_t kLive = 1; // SegmentEntry's generation parity: odd = live

// A mapping that may still be in use by a racing thread is not unmapped; its range is replaced
// by anonymous memory, which releases the shm pages and keeps stray accesses harmless.
void retire(const MappedSegment &m) noexcept {
  if (m.object.mapped())
    mmap(m.object.data(), m.object.size(), PROT_READ | PROT_WRITE,
         MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
}
} // namespace

bool segment_bytes(std::uint64_t size, std::uint32_t notification_num, SegmentKind kind, SegmentBytes &out) noexcept {
  // notification_num * 4 cannot wrap in 64 bits; every rounding and sum after it can.
  std::uint64_t data = 0;
  if (!page_round(std::uint64_t{notification_num} * sizeof(std::uint32_t), out.notifications))
    return false;
  if (kind == SegmentKind::shm && !page_round(size, data))
    return false;
  if (kind == SegmentKind::device && !page_round(sizeof(kinds::IpcKey), data))
    return false;
  if (__builtin_add_overflow(out.notifications, data, &out.object) || out.object > limits::kMaxObjectBytes)
    return false;
  out.data = data;
  // A bound segment without notifications still needs an object (of one page) to map.
  if (out.object == 0 && !page_round(1, out.object))
    return false;
  return true;
}

gaspi_return_t Node::segment_create(std::uint32_t seg, std::uint64_t size, std::uint32_t notification_num,
                                    void *user_memory, std::uint64_t alloc_policy, const kinds::IpcKey *device_key) {
  SegmentEntry &entry = my_block().segments[seg];
  const std::uint64_t gen = entry.generation.load(std::memory_order_relaxed) + 1;
  const bool user = user_memory != nullptr;
  const SegmentKind kind = device_key != nullptr ? SegmentKind::device : user ? SegmentKind::user : SegmentKind::shm;
  SegmentBytes bytes;
  if (!segment_bytes(size, notification_num, kind, bytes)) {
    log::error("segment %u: size %lu is beyond what this machine can map", seg, static_cast<unsigned long>(size));
    return GASPI_ERR_INV_SEGSIZE;
  }
  const std::uint64_t notif_bytes = bytes.notifications;
  auto m = std::make_unique<MappedSegment>();
  std::string error;
  // GASPI_ALLOC_NUMA_*: the data pages get their policy before fallocate creates them
  // (shm/numa.hpp). A refusal (no hwloc support, mbind filtered by seccomp) keeps the default.
  ShmObject::PlaceFn place;
  if (!user && (alloc_policy & (GASPI_ALLOC_NUMA_LOCAL | GASPI_ALLOC_NUMA_INTERLEAVE)) != 0)
    place = [&](void *base, std::size_t, std::string &) {
      std::string why;
      if (!set_numa_policy(static_cast<char *>(base) + notif_bytes, bytes.data, alloc_policy, why))
        log::warn("segment %u: NUMA policy not applied: %s", seg, why.c_str());
      return true;
    };
  std::uint64_t nonce = 0;
  std::string name;
  if (!create_object("s", seg, gen, bytes.object, m->object, nonce, name, error, place)) {
    log::error("segment %u: %s", seg, error.c_str());
    return GASPI_ERR_MEMALLOC;
  }
  char *base = static_cast<char *>(m->object.data());
  m->generation = gen;
  m->size = size;
  m->kind = kind;
  m->notification_num = notification_num;
  m->notifications = reinterpret_cast<std::uint32_t *>(base);
  m->data = user ? static_cast<char *>(user_memory) : base + notif_bytes;
  m->user_addr = reinterpret_cast<std::uint64_t>(user_memory);
  if (device_key != nullptr) {
    m->memory = Memory::cuda;
    m->device = static_cast<std::int32_t>(device_key->device_ordinal);
    m->key = *device_key;
    std::memcpy(base + notif_bytes, device_key, sizeof *device_key); // for the node peers
  }

  if (seg < limits::kMaxSegments) // registered with nobody yet: the peers of the last life lose it
    for (std::size_t w = 0; w < registration_words(nranks_); ++w)
      registration_row(my_block(), nranks_, seg)[w].store(0, std::memory_order_relaxed);
  entry.size = size;
  entry.user_addr = m->user_addr;
  entry.kind = static_cast<std::uint32_t>(m->kind);
  entry.notification_num = notification_num;
  entry.notif_bytes = notif_bytes;
  entry.nonce = nonce;
  entry.generation.store(gen, std::memory_order_release); // publish to node peers

  std::lock_guard lock(map_mutex_);
  peers_[rank_].segments[seg].store(m.get(), std::memory_order_release);
  mappings_.push_back(std::move(m));
  return GASPI_SUCCESS;
}

void Node::unlink_segment_name(std::uint32_t seg) noexcept {
  const SegmentEntry &entry = my_block().segments[seg];
  const std::uint64_t gen = entry.generation.load(std::memory_order_relaxed);
  if ((gen & kLive) != 0 && !solo_)
    ShmObject::unlink(object_name("s", rank_, seg, gen, entry.nonce));
}

gaspi_return_t Node::segment_delete(std::uint32_t seg) {
  SegmentEntry &entry = my_block().segments[seg];
  const std::uint64_t gen = entry.generation.load(std::memory_order_relaxed);
  if ((gen & kLive) == 0)
    return GASPI_ERR_INV_SEG;
  entry.generation.store(gen + 1, std::memory_order_release);
  if (!solo_)
    ShmObject::unlink(object_name("s", rank_, seg, gen, entry.nonce));
  std::lock_guard lock(map_mutex_);
  const MappedSegment *m = peers_[rank_].segments[seg].exchange(nullptr, std::memory_order_acq_rel);
  if (m != nullptr)
    retire(*m);
  return GASPI_SUCCESS;
}

void Node::drop(NodeIndex rank, std::uint32_t seg, const MappedSegment &m) noexcept {
  retire(m);
  for (const auto &owned : mappings_)
    if (owned.get() == &m && owned->imported) {
      std::string why;
      if (kinds::CudaDevice *dev = kinds::device(cuda_library_, owned->device, why); dev != nullptr)
        dev->unimport(owned->key);
      owned->imported = false; // closed: not again at term
      std::erase(imported_, std::pair{rank.value(), seg});
      imported_count_.store(imported_.size(), std::memory_order_release);
    }
}

void Node::release(NodeIndex rank, std::uint32_t seg) noexcept {
  if (rank.value() == rank_)
    return; // our own segments are deleted, not released
  std::lock_guard lock(map_mutex_);
  if (const MappedSegment *m = peers_[rank.value()].segments[seg].exchange(nullptr, std::memory_order_acq_rel))
    drop(rank, seg, *m);
}

void Node::release_stale_device_mappings() noexcept {
  if (imported_count_.load(std::memory_order_acquire) == 0)
    return;
  std::lock_guard lock(map_mutex_);
  for (std::size_t i = 0; i < imported_.size();) {
    const auto [r, seg] = imported_[i];
    const std::uint64_t gen = block(NodeIndex{r}).segments[seg].generation.load(std::memory_order_acquire);
    const MappedSegment *m = peers_[r].segments[seg].load(std::memory_order_acquire);
    if (m == nullptr || m->generation == gen) {
      ++i;
      continue;
    }
    peers_[r].segments[seg].store(nullptr, std::memory_order_release); // the next lookup maps it anew
    const std::size_t before = imported_.size();
    drop(NodeIndex{r}, seg, *m); // erases entry i
    if (imported_.size() == before)
      ++i;
  }
}

void Node::register_segment(std::uint32_t seg, NodeIndex peer) noexcept {
  if (seg < limits::kMaxSegments)
    registration_row(my_block(), nranks_, seg)[peer.value() / 64].fetch_or(std::uint64_t{1} << (peer.value() % 64),
                                                                           std::memory_order_release);
}

bool Node::published(NodeIndex owner, std::uint32_t seg) const noexcept {
  return (block(owner).segments[seg].generation.load(std::memory_order_acquire) & kLive) != 0;
}

bool Node::registered_here(NodeIndex owner, std::uint32_t seg) const noexcept {
  if (seg >= limits::kMaxSegments || owner.value() == rank_)
    return true;
  const std::uint64_t word = registration_row(block(owner), nranks_, seg)[rank_ / 64].load(std::memory_order_acquire);
  return ((word >> (rank_ % 64)) & 1) != 0;
}

const MappedSegment *Node::map_segment(NodeIndex rank, std::uint32_t seg, std::uint64_t gen) {
  const SegmentEntry &entry = block(rank).segments[seg];
  if ((gen & kLive) == 0)
    return nullptr;
  const MappedSegment *cached = peers_[rank.value()].segments[seg].load(std::memory_order_acquire);
  if (rank.value() == rank_)
    return nullptr; // our own segments are published at creation
  if (!registered_here(rank, seg))
    return nullptr; // not for this rank (yet): nothing is mapped or cached

  std::lock_guard lock(map_mutex_);
  cached = peers_[rank.value()].segments[seg].load(std::memory_order_acquire);
  if (cached != nullptr && cached->generation == gen)
    return cached;
  auto m = std::make_unique<MappedSegment>();
  m->generation = gen;
  m->size = entry.size;
  m->kind = static_cast<SegmentKind>(entry.kind);
  m->notification_num = entry.notification_num;
  m->user_addr = entry.user_addr;
  std::string error;
  // The entry was written by another process: its sizes are checked like a caller's, and the
  // notification array must lie inside the space before the data.
  SegmentBytes bytes;
  if (entry.kind > static_cast<std::uint32_t>(SegmentKind::device) ||
      !segment_bytes(m->size, m->notification_num, m->kind, bytes) || entry.notif_bytes != bytes.notifications) {
    log::error("segment lookup: rank %u segment %u: inconsistent size entry", global_rank(rank).print(), seg);
    return nullptr;
  }
  if (!ShmObject::open(object_name("s", rank.value(), seg, gen, entry.nonce), bytes.object, m->object, error)) {
    log::error("segment lookup: rank %u segment %u: %s", global_rank(rank).print(), seg, error.c_str());
    return nullptr;
  }
  char *base = static_cast<char *>(m->object.data());
  m->notifications = reinterpret_cast<std::uint32_t *>(base);
  switch (m->kind) {
  case SegmentKind::shm:
    m->data = base + entry.notif_bytes;
    break;
  case SegmentKind::user:
    m->memory = Memory::peer_host;
    break;
  case SegmentKind::device:
    if (!open_device_segment(rank, seg, base + entry.notif_bytes, *m))
      return nullptr;
    break;
  }
  if (cached != nullptr)
    drop(rank, seg, *cached);
  if (m->imported) {
    imported_.emplace_back(rank.value(), seg);
    imported_count_.store(imported_.size(), std::memory_order_release);
  }
  peers_[rank.value()].segments[seg].store(m.get(), std::memory_order_release);
  mappings_.push_back(std::move(m));
  return mappings_.back().get();
}

// A node peer's device segment: the key its owner wrote (checked: the owner's pid, the address
// the entry names), opened through this process's device of the same ordinal. The allocation stays
// open until the owner deletes the segment and this rank next enters a barrier or collective
// (release_stale_device_mappings), until the owner binds a new allocation at the same address
// (CudaDevice::import closes the old one then: a copy that races with that through an older
// mapping fails with the driver's error), or until this rank's term.
bool Node::open_device_segment(NodeIndex rank, std::uint32_t seg, const char *key_bytes, MappedSegment &m) {
  std::memcpy(&m.key, key_bytes, sizeof m.key);
  const GlobalRank owner = global_rank(rank);
  if (m.key.owner_pid != pid_of(rank) || m.key.owner_base + m.key.offset != m.user_addr ||
      m.key.offset > m.key.alloc_size || m.size > m.key.alloc_size - m.key.offset) {
    log::error("segment lookup: rank %u segment %u: inconsistent device key", owner.print(), seg);
    return false;
  }
  std::string why;
  kinds::CudaDevice *dev = kinds::device(cuda_library_, static_cast<int>(m.key.device_ordinal), why);
  void *at = dev != nullptr ? dev->import(m.key, why) : nullptr;
  if (at == nullptr) {
    log::error("segment lookup: rank %u segment %u is device memory that this process cannot open: %s", owner.print(),
               seg, why.c_str());
    return false;
  }
  m.data = static_cast<char *>(at);
  m.memory = Memory::cuda;
  m.device = dev->ordinal();
  m.imported = true;
  return true;
}

namespace {
// Cross-memory attach: bound user memory of a node peer is reached with process_vm_*
// (docs/DESIGN.md "Segments"). Both calls may move fewer bytes than asked; loop until done.
template <class Fn>
gaspi_return_t cma_loop(Fn &&fn, char *local, std::uint64_t remote, std::uint64_t size, const char *what,
                        GlobalRank rank /* for the message */) {
  while (size > 0) {
    iovec l{local, size};
    iovec r{reinterpret_cast<void *>(remote), size};
    ssize_t n = fn(&l, &r);
    if (n <= 0) {
      if (n < 0 && errno == EINTR)
        continue;
      log::error("cross-memory access to bound memory of rank %u failed (%s): %s", rank.print(), what,
                 std::strerror(errno));
      return GASPI_ERROR;
    }
    local += n;
    remote += static_cast<std::uint64_t>(n);
    size -= static_cast<std::uint64_t>(n);
  }
  return GASPI_SUCCESS;
}
} // namespace

gaspi_return_t Node::put(const MappedSegment &dst, NodeIndex dst_rank, std::uint64_t dst_offset, const void *src,
                         std::uint64_t size) {
  if (dst.host_mapped()) {
    std::memmove(dst.data + dst_offset, src, size); // memmove: loopback writes may overlap
    return GASPI_SUCCESS;
  }
  const pid_t pid = pid_of(dst_rank);
  return cma_loop([pid](iovec *l, iovec *r) { return process_vm_writev(pid, l, 1, r, 1, 0); },
                  const_cast<char *>(static_cast<const char *>(src)), dst.user_addr + dst_offset, size,
                  "process_vm_writev", global_rank(dst_rank));
}

gaspi_return_t Node::get(void *dst, const MappedSegment &src, NodeIndex src_rank, std::uint64_t src_offset,
                         std::uint64_t size) {
  if (src.host_mapped()) {
    std::memmove(dst, src.data + src_offset, size);
    return GASPI_SUCCESS;
  }
  const pid_t pid = pid_of(src_rank);
  return cma_loop([pid](iovec *l, iovec *r) { return process_vm_readv(pid, l, 1, r, 1, 0); }, static_cast<char *>(dst),
                  src.user_addr + src_offset, size, "process_vm_readv", global_rank(src_rank));
}

} // namespace hygaspi::shm
