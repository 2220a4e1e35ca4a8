// The node-local transport: this rank's view of the ranks that share its host and /dev/shm.
// It owns the job block, this rank's rank block, and a cache of peers' segment mappings.
#pragma once
#include <GASPI.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/deadline.hpp"
#include "core/log.hpp"
#include "core/ranks.hpp"
#include "core/segment_view.hpp"
#include "shm/doorbell.hpp"
#include "shm/layout.hpp"
#include "shm/liveness.hpp"
#include "shm/shm_object.hpp"
#include "kinds/cuda_device.hpp"

namespace hygaspi::shm {

// One mapping of one segment of one rank. Immutable once published, so readers need no lock; a
// re-created segment gets a new MappedSegment, and old ones live until gaspi_proc_term.
struct MappedSegment : SegmentView {
  SegmentKind kind = SegmentKind::shm;
  std::uint64_t user_addr = 0; // SegmentKind::user and device: address in the owner
  kinds::IpcKey key{};         // SegmentKind::device: how a node peer opens it (its owner's copy included)
  bool imported = false;       // a node peer's device memory, opened here with `key`
  ShmObject object;
};

// Bytes of the shm object of a segment: its notification array (whole pages), then its data
// (whole pages; none for bound user memory; one page of key for device memory).
struct SegmentBytes {
  std::uint64_t notifications = 0; // offset of the data
  std::uint64_t data = 0;
  std::uint64_t object = 0; // at least one page
};
// False when `size` or `notification_num` give an object no machine can map: page rounding or the
// sum would wrap around 2^64, or it exceeds limits::kMaxObjectBytes.
[[nodiscard]] bool segment_bytes(std::uint64_t size, std::uint32_t notification_num, SegmentKind kind,
                                 SegmentBytes &out) noexcept;

struct NodeOptions {
  std::string job; // "" = standalone 1-rank job
  std::uint32_t rank = 0;
  std::uint32_t nranks = 1;
  WaitPolicy wait;
  // The job's (global) rank of each node-local index, for messages; empty: the same numbers.
  std::vector<GlobalRank> global_ranks;
  // A launcher's job: keep the job block mapped after term for a later life cycle (its name is
  // removed at the end of init). An MPI job gets a new job block for each life cycle.
  bool keep_job_block = false;
  // The CUDA driver that opens node peers' device segments (HYGASPI_CUDA_LIBRARY).
  std::string cuda_library = "libcuda.so.1";
};

class Node {
public:
  Node() = default;
  Node(const Node &) = delete;
  Node &operator=(const Node &) = delete;
  ~Node();

  // Attaches to the job, publishes this rank's rank block, maps those of every node peer, and
  // waits until every node peer has mapped this rank's (a node-wide handshake). Then it removes
  // the block's name (and the node's first rank the job block's): a peer that is done with
  // gaspi_proc_init needs no name of anyone any more, so a peer that ends early takes nothing
  // from a slower one, and a job killed later leaves fewer objects behind.
  // GASPI_TIMEOUT while waiting for peers that have not started keeps everything, and the next
  // init() resumes (spec §5.3.1: "A subsequent invocation is required"); see resumable().
  gaspi_return_t init(const NodeOptions &options, const Deadline &deadline);
  // Without a launcher (an MPI job), the node's first rank creates the job block before its node
  // peers call init(); `out` keeps it mapped.
  static gaspi_return_t create_job_block(const std::string &job, std::uint32_t nranks, ShmObject &out);
  // True when `rank` of the launcher's job `job` has never been taken (no gaspi_proc_init yet).
  static bool slot_unclaimed(const std::string &job, std::uint32_t nranks, std::uint32_t rank);
  // True after init() returned GASPI_TIMEOUT in a way the next init() can resume.
  [[nodiscard]] bool resumable() const noexcept { return resumable_; }
  void term() noexcept;
  // The end of the session has begun: node peers see this rank terminated from now on, and a
  // collective that waits for its part fails instead of waiting (shm/node_group.hpp gone_members).
  // Across nodes the rest of the end waits for every rank (MPI_Win_free is collective), so a peer
  // that waited for this rank's part while this rank waited for it would wait for ever.
  void leaving() noexcept;
  // gaspi_proc_init failed: marks this rank dead with kSlotInitFailed, so that node peers fail
  // their init at once and the launcher reports the failure, then releases all.
  void abandon() noexcept;
  // The process exits without term: marks this rank dead (node peers stop waiting for it, and the
  // launcher reports it), or `clean`ly terminated (the whole job ends: gasnet_exit), and unmaps
  // nothing, since other threads of the process may still run.
  void leave_at_exit(bool clean = false) noexcept;
  // This rank ends the whole job with `code` (gasnet_exit when not every node joins): a clean end
  // of its own, and the code the launcher reports (kSlotEndedJob). Unmaps nothing.
  void end_job(std::int32_t code) noexcept;
  // Every rank leaves the job together with `code` (a gasnet_exit that every node joined): this rank
  // records the code, as the one that asked for it (kSlotEndedJob) or as one that followed
  // (kSlotFollowedEnd), so that the launcher names the rank that ended the job.
  void note_job_end(std::int32_t code, bool asked) noexcept;
  // gaspi_proc_kill of a node peer (node-local index): an intended death (kSlotKilled), which the
  // launcher does not count as a failure (as GPI-2). Returns false if the kill failed.
  bool kill(NodeIndex rank) noexcept;

  [[nodiscard]] NodeIndex rank() const noexcept { return NodeIndex{rank_}; }
  [[nodiscard]] std::uint32_t nranks() const noexcept { return nranks_; }
  [[nodiscard]] const WaitPolicy &wait_policy() const noexcept { return wait_; }
  // Every `rank` parameter of Node is a NodeIndex (0 .. nranks()-1): a global rank does not compile.
  [[nodiscard]] bool alive(NodeIndex rank) const noexcept {
    return job_block_->slot(rank.value()).state.load(std::memory_order_acquire) !=
           static_cast<std::uint32_t>(RankState::dead);
  }
  // Whether `rank` ends the whole job (end_job: gasnet_exit), which its peers follow by the job's
  // own protocol rather than as a rank that left.
  [[nodiscard]] bool ends_job(NodeIndex rank) const noexcept {
    return (job_block_->slot(rank.value()).flags.load(std::memory_order_acquire) & kSlotEndedJob) != 0;
  }
  // The word alive() reads, for a cache that reads it again on every use (gaspi/fast_path.hpp).
  [[nodiscard]] const std::atomic<std::uint32_t> &state_word(NodeIndex rank) const noexcept {
    return job_block_->slot(rank.value()).state;
  }
  // The global rank of node-local index `rank`, to name a peer in messages.
  [[nodiscard]] GlobalRank global_rank(NodeIndex rank) const noexcept {
    return rank.value() < global_ranks_.size() ? global_ranks_[rank.value()] : GlobalRank{rank.value()};
  }
  // Every other rank of the node (node-local indices).
  [[nodiscard]] std::span<const NodeIndex> peers() const noexcept { return others_; }
  [[nodiscard]] std::int32_t pid_of(NodeIndex rank) const noexcept;
  [[nodiscard]] RankBlock &block(NodeIndex rank) const noexcept { return *peers_[rank.value()].block; }
  [[nodiscard]] RankBlock &my_block() const noexcept { return *peers_[rank_].block; }

  // ---- segments of this rank
  // `alloc_policy`: GASPI_ALLOC_* bits; the NUMA ones place the data of an allocated segment.
  // Removes the name of local segment `seg`'s shm object once every node peer that will ever map
  // it has (the engine's own segments, mapped at start-up): a crash then leaves nothing in
  // /dev/shm. The mappings stay valid.
  void unlink_segment_name(std::uint32_t seg) noexcept;
  // `device_key`: user_memory is CUDA device memory, which node peers open with this key.
  gaspi_return_t segment_create(std::uint32_t seg, std::uint64_t size, std::uint32_t notification_num,
                                void *user_memory, std::uint64_t alloc_policy = 0,
                                const kinds::IpcKey *device_key = nullptr);
  gaspi_return_t segment_delete(std::uint32_t seg);
  // The published mapping of a segment of this rank, or nullptr.
  [[nodiscard]] const MappedSegment *local(std::uint32_t seg) const noexcept {
    const MappedSegment *m = peers_[rank_].segments[seg].load(std::memory_order_acquire);
    return m;
  }

  // ---- registration of this rank's segments with node peers (shm/layout.hpp registration_row)
  // A node peer maps one of this rank's GASPI segments only once it is registered with it, as a
  // rank of another node reaches it only once registered (the MPI transport's table). Registration
  // lasts until the segment is deleted; making it anew starts with no peer.
  void register_segment(std::uint32_t seg, NodeIndex peer) noexcept;
  // Whether `owner` registered its segment `seg` with this rank (the engine's own ids: always).
  [[nodiscard]] bool registered_here(NodeIndex owner, std::uint32_t seg) const noexcept;
  // Whether `owner` has a live segment `seg` now.
  [[nodiscard]] bool published(NodeIndex owner, std::uint32_t seg) const noexcept;

  // ---- segments of any rank on the node (maps on first use, remaps after re-creation)
  // Returns nullptr if the owner has no live segment `seg`, or has not registered it with this
  // rank. Inline: the data path's fast case is
  // two loads (the owner's generation, our cached mapping) and a compare; mapping is out of line.
  const MappedSegment *lookup(NodeIndex rank, std::uint32_t seg) {
    const std::uint64_t gen = block(rank).segments[seg].generation.load(std::memory_order_acquire);
    const MappedSegment *cached = peers_[rank.value()].segments[seg].load(std::memory_order_acquire);
    if (__builtin_expect(cached != nullptr && cached->generation == gen, 1))
      return cached; // a cached generation is always odd (live)
    return map_segment(rank, seg, gen);
  }
  // Drops this process's mapping of `rank`'s segment `seg` (closing a device segment's IPC mapping
  // now, not at term), for an owner about to free the memory; the next lookup maps it anew.
  void release(NodeIndex rank, std::uint32_t seg) noexcept;
  // Releases the node peers' device segments opened here whose owners have deleted (or made
  // anew) them since. A GASPI segment_delete is local to its owner, and CUDA keeps memory that
  // another process has open allocated until it closes it: the engine calls this as every
  // barrier and collective begins. A peer's first collective that begins after the delete closes
  // its mapping; so after two barriers that follow the delete, no node peer has the memory open.
  // One atomic load while no node peer's device memory is open here.
  void release_stale_device_mappings() noexcept;
  // lookup() without its slow path: nullptr when the mapping is not cached or is stale.
  [[nodiscard]] const MappedSegment *cached(NodeIndex rank, std::uint32_t seg) const noexcept {
    const std::uint64_t gen = block(rank).segments[seg].generation.load(std::memory_order_acquire);
    const MappedSegment *m = peers_[rank.value()].segments[seg].load(std::memory_order_acquire);
    return m != nullptr && m->generation == gen ? m : nullptr;
  }

  // ---- data movement between host memory (the bridge routes device memory: bridge/device_rma.cpp);
  // all complete before they return (docs/DESIGN.md "Ordering")
  gaspi_return_t put(const MappedSegment &dst, NodeIndex dst_rank, std::uint64_t dst_offset, const void *src,
                     std::uint64_t size);
  gaspi_return_t get(void *dst, const MappedSegment &src, NodeIndex src_rank, std::uint64_t src_offset,
                     std::uint64_t size);
  // spec §8.3.2: a release of every earlier store of this thread, then the notification value.
  // seq_cst, not just release: the store is one half of the doorbell's Dekker pair (doorbell.hpp).
  void notify(const MappedSegment &seg, NodeIndex rank, std::uint32_t id, std::uint32_t value) noexcept {
    std::atomic_ref<std::uint32_t>(seg.notifications[id]).store(value, std::memory_order_seq_cst);
    Doorbell &bell = block(rank).bell;
    if (bell.waiters.load(std::memory_order_seq_cst) != 0) // shm::ring's test, inline: no call when nobody sleeps
      shm::ring(bell);
  }

  // ---- waiting
  // Waits with the engine (core/wait.hpp) until ready(), sleeping on this rank's doorbell, which
  // every node peer rings. `progress` is one step of the transport that rings nothing (the bridge
  // passes MPI's; NoProgress when this rank has no other node). On the slow path it looks for dead
  // peers, then asks healthy(): false, or a gaspi_proc_term in another thread (stopping()), ends
  // the wait with GASPI_ERROR, which the caller explains. GASPI_TIMEOUT at the deadline.
  template <class Ready, class Healthy, class Progress = NoProgress>
  gaspi_return_t wait_while(Ready &&ready, const Deadline &deadline, Healthy &&healthy, Progress &&progress = {}) {
    auto ok = [&] {
      refresh_liveness();
      return !stopping() && healthy();
    };
    return wait_until(ready, deadline, wait_, progress, DoorbellSleep{my_block().bell}, ok);
  }
  void ring(NodeIndex rank) noexcept { shm::ring(block(rank).bell); }

  // ---- failures of node peers and gaspi_proc_term in another thread (shm/node_failures.cpp)
  // Marks dead the node peers whose process is gone (shm/liveness.hpp); rate-limited, so waits
  // may call it on every slow-path look.
  void refresh_liveness() noexcept;
  // gaspi_proc_term sets it before it tears anything down: every wait of this process fails at
  // its next look, and the waiters sleeping on this rank's doorbell are woken now.
  void set_stopping(bool stopping) noexcept;
  [[nodiscard]] bool stopping() const noexcept { return stopping_.load(std::memory_order_acquire); }
  // Node peers marked dead so far. A death is final, so the count only grows.
  [[nodiscard]] std::uint32_t deaths() const noexcept;
  // True for the one caller, of all node peers, that is to tell the other nodes of `rank`'s death
  // (JobRankSlot::death_told); false while `rank` lives.
  [[nodiscard]] bool claim_death_telling(NodeIndex rank) noexcept;
  // Some node peer may still send: it is neither dead nor terminated.
  [[nodiscard]] bool peer_may_send() const noexcept;

  // Name of a shm object of this job: "hygaspi-<job>-<kind><rank>-<a>-<b>-<nonce>-p<pid>". The
  // nonce is random, drawn per object and published only inside the job's 0600 shm, so another
  // user cannot predict (or squat) the name; the owner's pid ends the name so that
  // reclaim_stale_objects() can tell a dead owner's objects by name alone.
  [[nodiscard]] std::string object_name(const char *kind, std::uint32_t rank, std::uint64_t a, std::uint64_t b,
                                        std::uint64_t nonce) const;
  // Creates an object of this rank under a fresh nonce. A name that exists already (squatted by
  // another user, or a freak collision) is left alone and retried with a new nonce. Fills the
  // nonce, which the caller publishes for its peers, and the name.
  bool create_object(const char *kind, std::uint64_t a, std::uint64_t b, std::size_t bytes, ShmObject &out,
                     std::uint64_t &nonce, std::string &name, std::string &error, const ShmObject::PlaceFn &place = {});
  // A standalone job unlinks its objects at once: no peer will ever open them.
  [[nodiscard]] bool solo() const noexcept { return solo_; }

private:
  struct Peer {
    ShmObject block_object;
    RankBlock *block = nullptr;
    std::uint32_t epoch = 0; // the life cycle of the peer whose objects are mapped
    std::unique_ptr<std::atomic<const MappedSegment *>[]> segments; // kSegmentSlots
  };

  gaspi_return_t start(const NodeOptions &options);
  // lookup()'s slow path: the owner's generation `gen` differs from our cached mapping.
  const MappedSegment *map_segment(NodeIndex rank, std::uint32_t seg, std::uint64_t gen);
  bool open_device_segment(NodeIndex rank, std::uint32_t seg, const char *key_bytes, MappedSegment &m);
  gaspi_return_t map_peers(const Deadline &deadline);
  gaspi_return_t handshake(const Deadline &deadline);
  void release(RankState final_state) noexcept;

  std::string job_;
  bool solo_ = false;
  bool resumable_ = false;
  bool keep_job_block_ = false;
  std::vector<std::string> linked_; // names of this rank's bootstrap objects not yet removed
  std::uint32_t rank_ = 0;
  std::uint32_t nranks_ = 0;
  std::uint32_t epoch_ = 0;
  WaitPolicy wait_;
  std::string cuda_library_;
  ShmObject job_object_;
  JobBlock *job_block_ = nullptr;
  // The job block of a launcher's job stays mapped after term: its name is gone after the first
  // init, and a second life cycle (init after term) of the same job maps it from here.
  ShmObject kept_job_;
  std::string kept_job_id_;
  std::vector<Peer> peers_;
  std::vector<NodeIndex> others_;
  std::vector<GlobalRank> global_ranks_;                 // NodeOptions::global_ranks
  std::mutex map_mutex_;                                 // serialises mapping and unmapping
  std::vector<std::unique_ptr<MappedSegment>> mappings_; // owns every MappedSegment ever published
  // The (node index, segment) of the node peers' device segments opened here (under map_mutex_),
  // and how many there are.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> imported_;
  std::atomic<std::size_t> imported_count_{0};
  // Retires a node peer's mapping that is no longer published and closes the device memory it
  // opened, if any. Under map_mutex_.
  void drop(NodeIndex rank, std::uint32_t seg, const MappedSegment &m) noexcept;
  PeerWatch watch_;                   // pidfds of the node peers
  std::atomic<bool> stopping_{false}; // gaspi_proc_term is tearing down
};

} // namespace hygaspi::shm
