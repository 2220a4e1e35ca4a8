#include "bridge/am_channel.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <csignal>
#include <cstring>
#include <ctime>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "bridge/engine.hpp"
#include "bridge/progress.hpp"
#include "bridge/runtime.hpp"
#include "core/log.hpp"
#include "core/no_destroy.hpp"
#include "mpi_rma/mpi_call.hpp"
#include "shm/am_ring.hpp"
#include "shm/doorbell.hpp"

namespace hygaspi::am {

namespace {

// Layout of the inbox segment: this header, the two doorbells, then the rings, lane by lane, one
// per node peer (its NodeIndex) and this rank itself.
struct alignas(limits::kCacheLine) InboxHeader {
  std::atomic<std::uint64_t> ready; // 1 once the fields below are written (release)
  std::uint64_t capacity[kLanes];   // frame bytes of one ring of each lane, a power of two
  std::uint64_t passive_max;        // the largest passive message this rank receives
  std::uint32_t senders;            // rings per lane
};
static_assert(sizeof(InboxHeader) == limits::kCacheLine);
struct Bells {
  shm::Doorbell arrived; // AM lanes: a message was published (the receiver sleeps on it)
  shm::Doorbell space;   // passive lane: a frame was freed (blocked senders sleep on it)
};
constexpr std::uint64_t kRingsAt = sizeof(InboxHeader) + sizeof(Bells);

// AM lanes: about 1 MiB per lane for the whole node, between 32 KiB (two of the largest messages)
// and 256 KiB per sender. 32 ranks on a node use 2 MiB of /dev/shm each for them.
std::uint64_t am_capacity(std::uint32_t senders) {
  const std::uint64_t share = std::bit_floor((std::uint64_t{1} << 20) / senders);
  return std::clamp<std::uint64_t>(share, 32768, 262144);
}
static_assert(32768 >= 2 * sizeof(shm::AmFrame) + kRingMessageMax);
// The passive lane: room for one message of the largest size, and at least 4 KiB (64 short
// ones). GASPI's default passive_transfer_size_max (65535 bytes) makes it 128 KiB per sender: 4 MiB
// per rank at 32 ranks on a node.
std::uint64_t passive_capacity(std::uint64_t passive_max) {
  return std::max<std::uint64_t>(4096, std::bit_ceil(shm::am_frame_bytes(passive_max)));
}

std::uint64_t lane_bytes(const std::uint64_t (&capacity)[kLanes], std::uint32_t senders, unsigned lane) {
  return std::uint64_t{senders} * shm::am_ring_bytes(capacity[lane]);
}
std::uint64_t inbox_bytes(const std::uint64_t (&capacity)[kLanes], std::uint32_t senders) {
  std::uint64_t bytes = kRingsAt;
  for (unsigned lane = 0; lane < kLanes; ++lane)
    bytes += lane_bytes(capacity, senders, lane);
  return bytes;
}
shm::AmRingShared *ring_in(char *inbox, Lane lane, std::uint32_t sender) {
  const auto &h = *reinterpret_cast<const InboxHeader *>(inbox);
  std::uint64_t at = kRingsAt;
  for (unsigned l = 0; l < static_cast<unsigned>(lane); ++l)
    at += lane_bytes(h.capacity, h.senders, l);
  return reinterpret_cast<shm::AmRingShared *>(inbox + at +
                                               sender * shm::am_ring_bytes(h.capacity[static_cast<unsigned>(lane)]));
}
Bells &bells_of(char *inbox) { return *reinterpret_cast<Bells *>(inbox + sizeof(InboxHeader)); }

// The two ends of the rings in this process. Several threads may use an end (GASNET_PAR, GASPI):
// `busy` makes them take turns (a sender waits for it; a poller that finds it taken looks
// elsewhere).
struct alignas(limits::kCacheLine) Sending { // to a node peer
  std::atomic<bool> busy{false};
  shm::AmProducer ring;
  shm::Doorbell *arrived = nullptr; // the receiver's (AM lanes)
  shm::Doorbell *space = nullptr;   // the receiver's (passive lane)
  std::uint64_t passive_max = 0;    // the receiver's
};
struct alignas(limits::kCacheLine) Receiving { // from a node peer
  std::atomic<bool> busy{false};
  shm::AmConsumer ring;
};

// The order in which this process's threads post to one node peer: first come, first served. A
// thread that gives up (its deadline) leaves the line wherever it stands.
class Turns {
public:
  std::uint64_t enter() {
    std::lock_guard lock(mutex_);
    const std::uint64_t ticket = next_++;
    line_.push_back(ticket);
    if (line_.size() == 1)
      front_.store(ticket, std::memory_order_seq_cst);
    return ticket;
  }
  [[nodiscard]] bool mine(std::uint64_t ticket) const noexcept {
    return front_.load(std::memory_order_seq_cst) == ticket;
  }
  void leave(std::uint64_t ticket) {
    {
      std::lock_guard lock(mutex_);
      line_.erase(std::find(line_.begin(), line_.end(), ticket));
      front_.store(line_.empty() ? kNobody : line_.front(), std::memory_order_seq_cst);
    }
    shm::ring(bell); // after the seq_cst store (doorbell.hpp)
  }
  shm::Doorbell bell{}; // process-local: the waiting threads sleep on it

private:
  static constexpr std::uint64_t kNobody = ~std::uint64_t{0};
  std::mutex mutex_;
  std::deque<std::uint64_t> line_;
  std::uint64_t next_ = 0;
  std::atomic<std::uint64_t> front_{kNobody};
};

struct Channel {
  std::atomic<bool> threads{false};                      // set at GASNet's attach, while GASPI threads may post
  char *inbox = nullptr;                                 // this rank's inbox
  std::uint32_t peers = 0;                               // ranks of this node
  std::unique_ptr<Sending[]> out;                        // [lane * peers + node index]
  std::unique_ptr<Receiving[]> in;                       // likewise
  std::unique_ptr<Turns[]> turns;                        // [node index], the passive lane's
  std::array<std::atomic<std::uint32_t>, kLanes> next{}; // where the next poll starts (fairness among senders)
  std::atomic<std::uint32_t> passive_turn{0};            // whether the passive lane looks at MPI first
  std::vector<std::uint64_t> passive_max;                // every rank's, by global rank (open_inbox)
};
NoDestroy<Channel> g_channel; // never destroyed: other threads may still send as the process exits
Channel &g = g_channel.value;
std::atomic<bool> g_open{false};

bool locks(Lane lane) noexcept { return lane == Lane::passive || g.threads.load(std::memory_order_relaxed); }
bool try_take(std::atomic<bool> &busy, bool locked) {
  return !locked || !busy.exchange(true, std::memory_order_acquire);
}
void take(std::atomic<bool> &busy, bool locked) {
  for (unsigned looks = 0; !try_take(busy, locked); ++looks)
    if (looks > 64)
      sched_yield();
}
void give(std::atomic<bool> &busy, bool locked) {
  if (locked)
    busy.store(false, std::memory_order_release);
}

Sending &end_to(Lane lane, NodeIndex peer) { return g.out[static_cast<unsigned>(lane) * g.peers + peer.value()]; }

// Whether a peer's inbox header describes rings that lie inside its `bytes` (another process
// wrote it): the shape open_inbox gives every inbox of this node.
bool sound(const InboxHeader &h, std::uint64_t bytes) {
  if (h.senders != g.peers || h.passive_max > limits::kMaxPassiveTransferSize)
    return false;
  for (const std::uint64_t c : h.capacity)
    if (c < 4096 || c > (std::uint64_t{1} << 33) || !std::has_single_bit(c))
      return false;
  return inbox_bytes(h.capacity, h.senders) <= bytes &&
         shm::am_frame_bytes(h.passive_max) <= h.capacity[static_cast<unsigned>(Lane::passive)];
}

// A node peer's inbox once it exists, is ready and is sound; nullptr until then (a corrupt one
// stays nullptr: as a full ring, the sender's deadline or the peer's death ends its wait).
char *inbox_of(const Peer &peer) {
  const shm::MappedSegment *seg = rt().node.lookup(peer.node, limits::kInbox);
  if (seg == nullptr || seg->data == nullptr)
    return nullptr;
  const auto &h = *reinterpret_cast<const InboxHeader *>(seg->data);
  if (h.ready.load(std::memory_order_acquire) == 0)
    return nullptr;
  if (!sound(h, seg->size)) {
    static std::atomic<bool> said{false}; // once: waits look again and again
    if (!said.exchange(true))
      log::error("rank %u's message inbox is corrupt", peer.global.value());
    return nullptr;
  }
  return seg->data;
}

// Finds the peer's ring for our messages once its inbox exists. False while it does not.
bool connect(Sending &e, const Peer &peer, Lane lane) {
  char *inbox = inbox_of(peer);
  if (inbox == nullptr)
    return false;
  const auto &h = *reinterpret_cast<const InboxHeader *>(inbox);
  e.ring.ring = ring_in(inbox, lane, rt().peers.self_node().value());
  e.ring.capacity = h.capacity[static_cast<unsigned>(lane)];
  e.arrived = &bells_of(inbox).arrived;
  e.space = &bells_of(inbox).space;
  e.passive_max = h.passive_max;
  return true;
}

// A node peer's passive_transfer_size_max, from its inbox; 0 while the inbox is not there yet.
std::uint64_t passive_max_of(const Peer &peer) {
  const char *inbox = inbox_of(peer);
  return inbox != nullptr ? reinterpret_cast<const InboxHeader *>(inbox)->passive_max : 0;
}

// One attempt to put the message into the ring of a node peer. False: full, or not created yet.
bool push(const Peer &peer, Lane lane, const void *head, std::size_t head_size, const void *body,
          std::size_t body_size) {
  Sending &e = end_to(lane, peer.node);
  const bool locked = locks(lane);
  take(e.busy, locked);
  bool sent = false;
  // After a seq_cst stamp (doorbell.hpp). A passive receiver waits on its rank doorbell.
  auto wake = [&] {
    if (lane == Lane::passive)
      rt().node.ring(peer.node);
    else
      shm::ring(*e.arrived);
  };
  if (e.ring.ring != nullptr || connect(e, peer, lane)) {
    const std::uint64_t tail = e.ring.tail;
    if (char *at = shm::am_reserve(e.ring, static_cast<std::uint32_t>(head_size + body_size))) {
      std::memcpy(at, head, head_size);
      if (body_size != 0)
        std::memcpy(at + head_size, body, body_size);
      // HYGASPI_TEST_DIE_IN_PASSIVE_SEND: a sender's death between reserving a frame and
      // publishing it, on demand.
      if (lane == Lane::passive &&
          __builtin_expect(rt().knobs.test_die_send == static_cast<std::int64_t>(rt().rank), 0))
        raise(SIGKILL);
      shm::am_publish(e.ring, static_cast<std::uint32_t>(head_size + body_size));
      wake();
      sent = true;
    } else if (e.ring.tail != tail) {
      // A skip frame went in without its message (shm/am_ring.hpp): the receiver must pass it
      // before the message fits, and may be asleep.
      wake();
    }
  }
  give(e.busy, locked);
  return sent;
}

bool any_pending() {
  for (std::uint32_t i = 0; i < 2 * g.peers; ++i) // the AM lanes
    if (shm::am_pending(g.in[i].ring))
      return true;
  return false;
}

mpi::Box box_of(Lane lane) noexcept {
  return lane == Lane::request ? mpi::Box::am_request : lane == Lane::reply ? mpi::Box::am_reply : mpi::Box::passive;
}

// The node rings of `lane`, round robin from where the last poll found a message.
bool poll_node(Lane lane, Receive fn, void *context) {
  Runtime &r = rt();
  Receiving *ends = &g.in[static_cast<unsigned>(lane) * g.peers];
  std::atomic<std::uint32_t> &next = g.next[static_cast<unsigned>(lane)];
  const bool locked = locks(lane);
  const std::uint32_t start = next.load(std::memory_order_relaxed); // < g.peers
  for (std::uint32_t k = 0, s = start; k < g.peers; ++k, s = s + 1 == g.peers ? 0 : s + 1) {
    Receiving &e = ends[s];
    if (!shm::am_pending(e.ring) || !try_take(e.busy, locked))
      continue;
    std::uint32_t size = 0;
    const std::uint64_t head = e.ring.head;
    const char *data = shm::am_peek(e.ring, size);
    if (data != nullptr) {
      fn(context, r.peers.global(NodeIndex{s}), data, size);
      shm::am_release(e.ring, size);
    }
    const bool moved = e.ring.head != head; // under `busy`: another thread may move it next
    give(e.busy, locked);
    if (lane == Lane::passive && moved) {
      // Wakes the senders asleep on a full ring, for a freed frame or a passed skip: the release
      // store, then the waiters' count (doorbell.hpp's Dekker pair, with the fence for the seq_cst
      // store).
      std::atomic_thread_fence(std::memory_order_seq_cst);
      shm::ring(bells_of(g.inbox).space);
      // Another receiving thread that found this ring busy took it for empty and may be asleep:
      // what is left in it wakes that thread, as a sender's ring would.
      if (shm::am_pending(e.ring))
        r.node.ring(r.peers.self_node());
    }
    if (data == nullptr)
      continue;
    next.store(s + 1 == g.peers ? 0 : s + 1, std::memory_order_relaxed);
    return true;
  }
  return false;
}

bool poll_mpi(Lane lane, Receive fn, void *context) {
  mpi::Messages &messages = rt().control.messages();
  if (lane != Lane::passive) {
    // The front end's poll ran the engine's progress step just before, which pulled from MPI.
    return messages.take_am(box_of(lane), [fn, context](MpiRank from, const char *data, std::size_t size) {
      fn(context, rt().peers.global(from), data, size);
    });
  }
  mpi::Message m;
  if (!messages.take_passive(m))
    return false;
  fn(context, rt().peers.global(MpiRank{m.from}), m.data.data(), m.data.size());
  return true;
}

} // namespace

gaspi_return_t open_inbox(std::uint64_t passive_max) {
  Runtime &r = rt();
  g.threads.store(false, std::memory_order_relaxed);
  g.peers = r.peers.node_size();
  g.out = std::make_unique<Sending[]>(kLanes * g.peers);
  g.in = std::make_unique<Receiving[]>(kLanes * g.peers);
  g.turns = std::make_unique<Turns[]>(g.peers);
  // Every rank's largest passive message, for the senders of other nodes (node peers read it from
  // the inbox). Collective over MPI, so before anything that may fail on one rank alone.
  g.passive_max.assign(r.nranks, passive_max);
  if (r.mpi.active()) {
    auto lock = r.mpi.lock();
    HYGASPI_TRY(
        HYGASPI_MPI(MPI_Allgather(&passive_max, 1, MPI_UINT64_T, g.passive_max.data(), 1, MPI_UINT64_T, r.mpi.comm())));
  }
  const std::uint64_t capacity[kLanes] = {am_capacity(g.peers), am_capacity(g.peers), passive_capacity(passive_max)};
  const std::uint64_t bytes = inbox_bytes(capacity, g.peers);
  // The inboxes of the node's ranks must leave the host most of its memory: /dev/shm is backed
  // when it is created, and a tmpfs larger than what is free ends the job in the OOM killer, not
  // in an error (measured: 8 ranks with passive_transfer_size_max 1 GiB, 16 GiB each).
  const std::uint64_t host =
      static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  if (bytes > host / 2 / g.peers) {
    log::error(
        "the message inboxes of this node's %u ranks would take %llu MiB of /dev/shm each, more than half of the "
        "host's %llu MiB together: passive_transfer_size_max %llu is too large for them",
        g.peers, static_cast<unsigned long long>(bytes >> 20), static_cast<unsigned long long>(host >> 20),
        static_cast<unsigned long long>(passive_max));
    return GASPI_ERR_MEMALLOC;
  }
  HYGASPI_TRY(r.segments.create(limits::kInbox, bytes, 0, nullptr, 0));
  char *inbox = r.segments.local(limits::kInbox)->data;
  auto &h = *reinterpret_cast<InboxHeader *>(inbox);
  std::copy(std::begin(capacity), std::end(capacity), h.capacity);
  h.passive_max = passive_max;
  h.senders = g.peers;
  for (unsigned lane = 0; lane < kLanes; ++lane)
    for (std::uint32_t s = 0; s < g.peers; ++s)
      g.in[lane * g.peers + s].ring = {ring_in(inbox, static_cast<Lane>(lane), s), h.capacity[lane], 0};
  g.inbox = inbox;
  h.ready.store(1, std::memory_order_release);
  return GASPI_SUCCESS;
}

void close_inbox() noexcept {
  g_open.store(false, std::memory_order_release);
  if (g.inbox != nullptr) {
    g.inbox = nullptr;
    (void)rt().segments.remove(limits::kInbox);
  }
}

gaspi_return_t open(bool threads) {
  if (g.inbox == nullptr) {
    log::error("the engine has no message inbox");
    return GASPI_ERROR;
  }
  g.threads.store(threads, std::memory_order_relaxed);
  if (rt().mpi.active())
    rt().control.messages().open_am_boxes();
  g_open.store(true, std::memory_order_release);
  return GASPI_SUCCESS;
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
    const gaspi_return_t rc = r.control.messages().send(peer.mpi, box_of(lane), message, size, Deadline(GASPI_BLOCK),
                                                        progress(), alive, serve);
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
    const bool served = serve();
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
    return r.control.messages().send(peer.mpi, box_of(lane), head, head_size, Deadline(GASPI_TEST), progress(), alive);
  }
  return push(peer, lane, head, head_size, nullptr, 0) ? GASPI_SUCCESS : GASPI_TIMEOUT;
}

gaspi_return_t post(GlobalRank to, const char *data, std::uint64_t size, const Deadline &deadline) {
  Runtime &r = rt();
  const Peer &peer = r.peers[to];
  shm::Node &node = r.node;
  auto left = [&] {
    return peer.on_node() && node.state_word(peer.node).load(std::memory_order_acquire) ==
                                 static_cast<std::uint32_t>(shm::RankState::terminated);
  };
  auto healthy = [&] {
    engine::refresh_liveness();
    return r.alive(peer) && !left() && !node.stopping();
  };
  auto failed = [&](gaspi_return_t rc) {
    if (rc == GASPI_ERROR) {
      if (node.stopping())
        log::error("gaspi_proc_term was called while this call waited");
      else if (left())
        log::error("rank %u has left the job (gaspi_proc_term)", to.value());
      else
        log::error("rank %u died before it took the message", to.value());
    }
    return rc; // GASPI_TIMEOUT: nothing was sent
  };
  auto too_large = [&](std::uint64_t max) {
    log::error("size %lu exceeds rank %u's passive_transfer_size_max %lu", static_cast<unsigned long>(size), to.value(),
               static_cast<unsigned long>(max));
    return GASPI_ERR_INV_COMMSIZE;
  };
  if (!peer.on_node()) { // an MPI message, delivered once matched
    if (size > g.passive_max[to.value()])
      return too_large(g.passive_max[to.value()]);
    return failed(r.control.messages().send(peer.mpi, mpi::Box::passive, data, size, deadline, progress(), healthy));
  }
  // Before the turn: a message the target never takes must not wait behind this process's others.
  if (const std::uint64_t max = passive_max_of(peer); max != 0 && size > max)
    return too_large(max);
  Turns &turns = g.turns[peer.node.value()];
  const std::uint64_t ticket = turns.enter();
  struct Leave {
    Turns &turns;
    std::uint64_t ticket;
    ~Leave() { turns.leave(ticket); }
  } leave{turns, ticket};
  // Straight to the futex (no spin): the thread before us leaves when its message is in.
  HYGASPI_TRY(failed(wait_until([&] { return turns.mine(ticket); }, deadline, WaitPolicy{0, 0}, NoProgress{},
                                shm::DoorbellSleep{turns.bell}, healthy)));
  // Only post() uses the passive lane's end to this peer, and it holds the turn: nothing below races.
  Sending &e = end_to(Lane::passive, peer.node);
  bool refused = false;
  auto pushed = [&] {
    if (e.ring.ring == nullptr && !connect(e, peer, Lane::passive))
      return false; // the peer has not created its inbox yet (it has not finished its start)
    if (size > e.passive_max)
      return refused = true;
    return push(peer, Lane::passive, data, size, nullptr, 0);
  };
  // Full, or no inbox yet: sleep on the peer's `space` doorbell once known, nap until then. The
  // health check (every 10 ms at most) notices a dead or departed target.
  Nap nap;
  auto sleep = [&](auto &ready, std::chrono::nanoseconds ns) {
    return e.space != nullptr ? shm::DoorbellSleep{*e.space}(ready, ns) : nap(ready, ns);
  };
  HYGASPI_TRY(failed(wait_until(pushed, deadline, WaitPolicy{0, 0}, NoProgress{}, sleep, healthy)));
  return refused ? too_large(e.passive_max) : GASPI_SUCCESS;
}

bool poll(Lane lane, Receive fn, void *context) {
  const bool remote = rt().peers.spans_nodes();
  const bool mpi_first =
      remote && lane == Lane::passive && (g.passive_turn.fetch_add(1, std::memory_order_relaxed) & 1) != 0;
  if (mpi_first && poll_mpi(lane, fn, context))
    return true;
  if (g.inbox != nullptr && poll_node(lane, fn, context))
    return true;
  return remote && !mpi_first && poll_mpi(lane, fn, context);
}

bool waiting(Lane lane) noexcept {
  if (g.inbox != nullptr) {
    const Receiving *ends = &g.in[static_cast<unsigned>(lane) * g.peers];
    for (std::uint32_t s = 0; s < g.peers; ++s)
      if (shm::am_pending(ends[s].ring))
        return true;
  }
  return rt().peers.spans_nodes() && rt().control.messages().am_queued(box_of(lane));
}

void sleep(std::chrono::nanoseconds ns) noexcept {
  if (g.inbox == nullptr) {
    timespec ts{0, static_cast<long>(std::min<std::int64_t>(ns.count(), 999'999'999))};
    nanosleep(&ts, nullptr);
    return;
  }
  auto ready = [] { return any_pending(); };
  (void)shm::DoorbellSleep{bells_of(g.inbox).arrived}(ready, ns);
}

} // namespace hygaspi::am
