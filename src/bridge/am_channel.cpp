#include "bridge/am_channel.hpp"

#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <vector>

#include "bridge/progress.hpp"
#include "bridge/runtime.hpp"
#include "core/log.hpp"
#include "shm/passive_ring.hpp"

namespace hygaspi::am {

namespace {

// Layout of the inbox segment: this header, then the request ring, then the reply ring.
struct alignas(limits::kCacheLine) InboxHeader {
  std::atomic<std::uint64_t> ready; // 1 once both rings are formatted (release)
  std::uint64_t ring_bytes;         // bytes of one ring, a multiple of the cache line
};
static_assert(sizeof(InboxHeader) == limits::kCacheLine);

constexpr std::uint32_t kSlots = 32;

std::atomic<bool> g_open{false};
// Claim lines: this process owns kClaimLinesPerSender lines in every ring of its node peers (its
// NodeIndex selects them); a thread holds one while it claims and publishes.
std::atomic<std::uint32_t> g_lines{0};

std::uint32_t take_line() {
  for (unsigned looks = 0;; ++looks) {
    std::uint32_t used = g_lines.load(std::memory_order_relaxed);
    for (std::uint32_t k = 0; k < shm::kClaimLinesPerSender; ++k)
      if ((used & (1u << k)) == 0 && g_lines.compare_exchange_weak(used, used | (1u << k), std::memory_order_acquire))
        return k;
    if (looks > 64)
      sched_yield();
  }
}
void give_line(std::uint32_t k) { g_lines.fetch_and(~(1u << k), std::memory_order_release); }

shm::PassiveRing *ring_of(const shm::MappedSegment &inbox, Lane lane) {
  auto *h = reinterpret_cast<InboxHeader *>(inbox.data);
  if (h->ready.load(std::memory_order_acquire) == 0)
    return nullptr;
  return reinterpret_cast<shm::PassiveRing *>(inbox.data + sizeof(InboxHeader) +
                                              static_cast<std::size_t>(lane) * h->ring_bytes);
}

// The node peer's ring of `lane`, or nullptr while it has not opened its inbox yet.
shm::PassiveRing *peer_ring(const Peer &peer, Lane lane) {
  const shm::MappedSegment *inbox = rt().node.lookup(peer.node, limits::kGasnetInbox);
  return inbox == nullptr || inbox->data == nullptr ? nullptr : ring_of(*inbox, lane);
}

// Messages to self, and the scratch of a message being assembled, per thread.
thread_local std::vector<char> t_scratch;

bool push(shm::PassiveRing &ring, const void *head, std::size_t head_size, const void *body, std::size_t body_size) {
  t_scratch.resize(head_size + body_size);
  std::memcpy(t_scratch.data(), head, head_size);
  if (body_size != 0)
    std::memcpy(t_scratch.data() + head_size, body, body_size);
  const std::uint32_t line = rt().peers.self_node().value() * shm::kClaimLinesPerSender + take_line();
  const bool pushed =
      shm::passive_try_push(ring, line, rt().rank, t_scratch.data(), static_cast<std::uint32_t>(t_scratch.size()));
  give_line(line % shm::kClaimLinesPerSender);
  return pushed;
}

} // namespace

gaspi_return_t open() {
  Runtime &r = rt();
  const std::uint32_t senders = r.peers.node_size();
  const std::size_t ring_bytes = shm::passive_ring_bytes(kSlots, kRingMessageMax, senders);
  const std::size_t rounded = (ring_bytes + limits::kCacheLine - 1) / limits::kCacheLine * limits::kCacheLine;
  HYGASPI_TRY(r.segments.create(limits::kGasnetInbox, sizeof(InboxHeader) + 2 * rounded, 0, nullptr, 0));
  const shm::MappedSegment &inbox = *r.segments.local(limits::kGasnetInbox);
  auto *h = reinterpret_cast<InboxHeader *>(inbox.data);
  h->ring_bytes = rounded;
  for (unsigned lane = 0; lane < 2; ++lane)
    shm::passive_ring_init(*reinterpret_cast<shm::PassiveRing *>(inbox.data + sizeof(InboxHeader) + lane * rounded),
                           r.rank, static_cast<std::int32_t>(getpid()), kSlots, kRingMessageMax, senders);
  h->ready.store(1, std::memory_order_release);
  if (r.mpi.active())
    r.control.open_am_boxes();
  g_open.store(true, std::memory_order_release);
  return GASPI_SUCCESS;
}

void close() noexcept {
  if (g_open.exchange(false))
    (void)rt().segments.remove(limits::kGasnetInbox);
}

bool is_open() noexcept { return g_open.load(std::memory_order_acquire); }

gaspi_return_t send(const Peer &peer, Lane lane, const void *head, std::size_t head_size, const void *body,
                    std::size_t body_size, const Serve &serve) {
  Runtime &r = rt();
  if (!peer.on_node()) {
    std::vector<char> message(head_size + body_size);
    std::memcpy(message.data(), head, head_size);
    if (body_size != 0)
      std::memcpy(message.data() + head_size, body, body_size);
    // The wait drives the engine's progress step, which empties this rank's own mailboxes: two
    // ranks that send to each other both complete.
    return r.control.send(peer.mpi.value(), lane == Lane::request ? mpi::Box::am_request : mpi::Box::am_reply,
                          message.data(), message.size(), Deadline(GASPI_BLOCK), progress());
  }
  if (head_size + body_size > kRingMessageMax) {
    log::error("an active message of %zu bytes exceeds the node lane's %llu", head_size + body_size,
               static_cast<unsigned long long>(kRingMessageMax));
    return GASPI_ERR_INV_SIZE;
  }
  for (std::uint64_t looks = 0;; ++looks) {
    if (shm::PassiveRing *ring = peer_ring(peer, lane); ring != nullptr) {
      if (push(*ring, head, head_size, body, body_size))
        return GASPI_SUCCESS;
    }
    // Full (or not open yet): serve our own lanes, so that whoever fills ours can go on.
    const bool served = serve && serve();
    if (!r.alive(peer)) {
      log::error("rank %u died: an active message to it cannot be delivered", peer.global.value());
      return GASPI_ERROR;
    }
    if (!served && looks > 256)
      sched_yield();
  }
}

gaspi_return_t try_send(const Peer &peer, Lane lane, const void *head, std::size_t head_size) {
  if (!peer.on_node())
    return send(peer, lane, head, head_size, nullptr, 0, Serve{});
  shm::PassiveRing *ring = peer_ring(peer, lane);
  return ring != nullptr && push(*ring, head, head_size, nullptr, 0) ? GASPI_SUCCESS : GASPI_TIMEOUT;
}

bool poll(Lane lane, const std::function<void(GlobalRank, const char *, std::size_t)> &fn) {
  Runtime &r = rt();
  if (const shm::MappedSegment *inbox = r.segments.local(limits::kGasnetInbox)) {
    if (shm::PassiveRing *ring = ring_of(*inbox, lane); ring != nullptr && shm::passive_pending(*ring)) {
      thread_local std::vector<char> buffer(kRingMessageMax);
      shm::PassiveMessage m;
      if (shm::passive_try_pop(*ring, buffer.data(), buffer.size(), m)) {
        fn(GlobalRank{m.sender}, buffer.data(), m.size);
        return true;
      }
    }
  }
  if (r.peers.spans_nodes()) {
    mpi::Message m;
    if (r.control.take(lane == Lane::request ? mpi::Box::am_request : mpi::Box::am_reply, m)) {
      fn(GlobalRank{static_cast<std::uint32_t>(m.from)}, m.data.data(), m.data.size());
      return true;
    }
  }
  return false;
}

} // namespace hygaspi::am
