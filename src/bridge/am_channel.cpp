#include "bridge/am_channel.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <ctime>
#include <memory>
#include <vector>

#include "bridge/engine.hpp"
#include "bridge/progress.hpp"
#include "bridge/runtime.hpp"
#include "core/log.hpp"
#include "core/no_destroy.hpp"
#include "shm/am_ring.hpp"
#include "shm/doorbell.hpp"

namespace hygaspi::am {

namespace {

// Layout of the inbox segment: this header, the doorbell, then the rings, lane by lane, one per
// node peer (its NodeIndex) and this rank itself.
struct alignas(limits::kCacheLine) InboxHeader {
  std::atomic<std::uint64_t> ready; // 1 once the fields below are written (release)
  std::uint64_t capacity;           // frame bytes of one ring, a power of two
  std::uint32_t senders;            // rings per lane
};
static_assert(sizeof(InboxHeader) == limits::kCacheLine);

// Ring capacity: about 1 MiB per lane for the whole node, between 32 KiB (two of the largest
// messages) and 256 KiB. 32 ranks on a node use 2 MiB of /dev/shm each for their inbox.
std::uint64_t ring_capacity(std::uint32_t senders) {
  const std::uint64_t share = std::bit_floor((std::uint64_t{1} << 20) / senders);
  return std::clamp<std::uint64_t>(share, 32768, 262144);
}
static_assert(32768 >= 2 * sizeof(shm::AmFrame) + kRingMessageMax);

shm::AmRingShared *ring_in(char *inbox, Lane lane, std::uint32_t sender) {
  const auto &h = *reinterpret_cast<const InboxHeader *>(inbox);
  const std::uint64_t index = static_cast<std::uint64_t>(lane) * h.senders + sender;
  return reinterpret_cast<shm::AmRingShared *>(inbox + sizeof(InboxHeader) + sizeof(shm::Doorbell) +
                                               index * shm::am_ring_bytes(h.capacity));
}
shm::Doorbell &bell_of(char *inbox) { return *reinterpret_cast<shm::Doorbell *>(inbox + sizeof(InboxHeader)); }

// The two ends of the rings in this process. Under GASNET_PAR several threads use an end: `busy`
// makes them take turns (a sender waits for it; a poller that finds it taken looks elsewhere).
struct alignas(limits::kCacheLine) Sending { // to a node peer
  std::atomic<bool> busy{false};
  shm::AmProducer ring;
  shm::Doorbell *bell = nullptr; // the receiver's
};
struct alignas(limits::kCacheLine) Receiving { // from a node peer
  std::atomic<bool> busy{false};
  shm::AmConsumer ring;
};

struct Channel {
  bool threads = false;
  char *inbox = nullptr;              // this rank's inbox, or nullptr across nodes only
  std::uint32_t peers = 0;            // ranks of this node
  std::unique_ptr<Sending[]> out;     // [lane * peers + node index]
  std::unique_ptr<Receiving[]> in;    // likewise
  std::atomic<std::uint32_t> next{0}; // where the next poll starts (fairness among senders)
};
NoDestroy<Channel> g_channel; // never destroyed: other threads may still send as the process exits
Channel &g = g_channel.value;
std::atomic<bool> g_open{false};

bool try_take(std::atomic<bool> &busy) { return !g.threads || !busy.exchange(true, std::memory_order_acquire); }
void take(std::atomic<bool> &busy) {
  for (unsigned looks = 0; !try_take(busy); ++looks)
    if (looks > 64)
      sched_yield();
}
void give(std::atomic<bool> &busy) {
  if (g.threads)
    busy.store(false, std::memory_order_release);
}

// Finds the peer's ring for our messages once its inbox is open. False while it is not.
bool connect(Sending &e, const Peer &peer, Lane lane) {
  const shm::MappedSegment *seg = rt().node.lookup(peer.node, limits::kGasnetInbox);
  if (seg == nullptr || seg->data == nullptr)
    return false;
  const auto &h = *reinterpret_cast<const InboxHeader *>(seg->data);
  if (h.ready.load(std::memory_order_acquire) == 0)
    return false;
  e.ring.ring = ring_in(seg->data, lane, rt().peers.self_node().value());
  e.ring.capacity = h.capacity;
  e.bell = &bell_of(seg->data);
  return true;
}

// One attempt to put the message into the ring of a node peer.
bool push(const Peer &peer, Lane lane, const void *head, std::size_t head_size, const void *body,
          std::size_t body_size) {
  Sending &e = g.out[static_cast<unsigned>(lane) * g.peers + peer.node.value()];
  take(e.busy);
  bool sent = false;
  if (e.ring.ring != nullptr || connect(e, peer, lane)) {
    if (char *at = shm::am_reserve(e.ring, static_cast<std::uint32_t>(head_size + body_size))) {
      std::memcpy(at, head, head_size);
      if (body_size != 0)
        std::memcpy(at + head_size, body, body_size);
      shm::am_publish(e.ring, static_cast<std::uint32_t>(head_size + body_size));
      shm::ring(*e.bell);
      sent = true;
    }
  }
  give(e.busy);
  return sent;
}

bool any_pending() {
  for (std::uint32_t i = 0; i < 2 * g.peers; ++i)
    if (shm::am_pending(g.in[i].ring))
      return true;
  return false;
}

} // namespace

gaspi_return_t open(bool threads) {
  Runtime &r = rt();
  g.threads = threads;
  g.peers = r.peers.node_size();
  g.out = std::make_unique<Sending[]>(2 * g.peers);
  g.in = std::make_unique<Receiving[]>(2 * g.peers);
  const std::uint64_t capacity = ring_capacity(g.peers);
  const std::uint64_t bytes =
      sizeof(InboxHeader) + sizeof(shm::Doorbell) + 2 * std::uint64_t{g.peers} * shm::am_ring_bytes(capacity);
  HYGASPI_TRY(r.segments.create(limits::kGasnetInbox, bytes, 0, nullptr, 0));
  char *inbox = r.segments.local(limits::kGasnetInbox)->data;
  auto &h = *reinterpret_cast<InboxHeader *>(inbox);
  h.capacity = capacity;
  h.senders = g.peers;
  for (unsigned lane = 0; lane < 2; ++lane)
    for (std::uint32_t s = 0; s < g.peers; ++s)
      g.in[lane * g.peers + s].ring = {ring_in(inbox, static_cast<Lane>(lane), s), capacity, 0};
  g.inbox = inbox;
  h.ready.store(1, std::memory_order_release);
  if (r.mpi.active())
    r.control.messages().open_am_boxes();
  g_open.store(true, std::memory_order_release);
  return GASPI_SUCCESS;
}

void close() noexcept {
  if (g_open.exchange(false)) {
    g.inbox = nullptr;
    (void)rt().segments.remove(limits::kGasnetInbox);
  }
}

bool is_open() noexcept { return g_open.load(std::memory_order_acquire); }

gaspi_return_t send(GlobalRank to, Lane lane, const void *head, std::size_t head_size, const void *body,
                    std::size_t body_size, const Serve &serve, const Placement *place) {
  Runtime &r = rt();
  const Peer &peer = r.peers[to];
  if (place != nullptr && body_size != 0) {
    if (char *mapped = engine::mapping(to, place->segment)) { // straight into the receiver's segment
      std::memmove(mapped + place->offset, body, body_size);
      body = nullptr;
      body_size = 0;
    }
  }
  if (!peer.on_node()) {
    // One contiguous message; an eager one (most) is assembled on the stack.
    alignas(16) char small[mpi::EagerReceives::kEagerBytes];
    std::vector<char> large;
    const std::size_t size = head_size + body_size;
    char *message = small;
    if (size > sizeof small) {
      large.resize(size);
      message = large.data();
    }
    std::memcpy(message, head, head_size);
    if (body_size != 0)
      std::memcpy(message + head_size, body, body_size);
    // The wait drives the engine's progress step, which takes this rank's own incoming messages
    // out of MPI: two ranks that send to each other both complete. It ends when the peer dies.
    // A sender out of credits (mpi_rma/credits.hpp) waits as on a full ring, running `serve`.
    auto alive = [&] { return r.alive(peer); };
    auto serving = [&serve] { return serve(); };
    const gaspi_return_t rc =
        r.control.messages().send(peer.mpi, lane == Lane::request ? mpi::Box::am_request : mpi::Box::am_reply, message,
                                  size, Deadline(GASPI_BLOCK), progress(), alive, serve ? Step(serving) : Step());
    if (rc != GASPI_SUCCESS)
      log::error("rank %u: an active message to it could not be delivered", peer.global.value());
    return rc;
  }
  if (head_size + body_size > kRingMessageMax) {
    log::error("an active message of %zu bytes exceeds the node lane's %llu", head_size + body_size,
               static_cast<unsigned long long>(kRingMessageMax));
    return GASPI_ERR_INV_SIZE;
  }
  Backoff backoff;
  for (;;) {
    if (push(peer, lane, head, head_size, body, body_size))
      return GASPI_SUCCESS;
    // Full (or not open yet): serve our own lanes, so that whoever fills ours can go on.
    const bool served = serve && serve();
    if (!r.alive(peer)) {
      log::error("rank %u died: an active message to it cannot be delivered", peer.global.value());
      return GASPI_ERROR;
    }
    backoff.pause(r.node.wait_policy(), served, sleep); // the receiver rings nothing when it frees room
  }
}

gaspi_return_t try_send(GlobalRank to, Lane lane, const void *head, std::size_t head_size) {
  const Peer &peer = rt().peers[to];
  if (!peer.on_node()) {
    // Out of credits, or not taken by MPI at once: GASPI_TIMEOUT, nothing sent.
    Runtime &r = rt();
    auto alive = [&] { return r.alive(peer); };
    return r.control.messages().send(peer.mpi, lane == Lane::request ? mpi::Box::am_request : mpi::Box::am_reply, head,
                                     head_size, Deadline(GASPI_TEST), progress(), alive);
  }
  return push(peer, lane, head, head_size, nullptr, 0) ? GASPI_SUCCESS : GASPI_TIMEOUT;
}

bool poll(Lane lane, Receive fn) {
  Runtime &r = rt();
  if (g.inbox != nullptr) {
    Receiving *ends = &g.in[static_cast<unsigned>(lane) * g.peers];
    const std::uint32_t start = g.next.load(std::memory_order_relaxed);
    for (std::uint32_t k = 0; k < g.peers; ++k) {
      const std::uint32_t s = (start + k) % g.peers;
      Receiving &e = ends[s];
      if (!shm::am_pending(e.ring) || !try_take(e.busy))
        continue;
      std::uint32_t size = 0;
      const char *data = shm::am_peek(e.ring, size);
      if (data != nullptr) {
        fn(r.peers.global(NodeIndex{s}), data, size);
        shm::am_release(e.ring, size);
      }
      give(e.busy);
      if (data != nullptr) {
        g.next.store(s + 1, std::memory_order_relaxed);
        return true;
      }
    }
  }
  if (r.peers.spans_nodes()) {
    // The front end's poll ran the engine's progress step just before, which pulled from MPI.
    return r.control.messages().take_am(
        lane == Lane::request ? mpi::Box::am_request : mpi::Box::am_reply,
        [fn](MpiRank from, const char *data, std::size_t size) { fn(rt().peers.global(from), data, size); });
  }
  return false;
}

void sleep(std::chrono::nanoseconds ns) noexcept {
  if (g.inbox == nullptr) {
    timespec ts{0, static_cast<long>(std::min<std::int64_t>(ns.count(), 999'999'999))};
    nanosleep(&ts, nullptr);
    return;
  }
  auto ready = [] { return any_pending(); };
  (void)shm::DoorbellSleep{bell_of(g.inbox)}(ready, ns);
}

} // namespace hygaspi::am
