// Layouts of the structures that live in POSIX shared memory. They are plain data: fixed-width
// fields, a magic and version, the creator's pid, offsets instead of pointers (docs/DESIGN.md "Segments").
// Every process that maps them must be built from the same version of this header; the version
// field turns a mismatch into a clear error instead of corruption.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/limits.hpp"

namespace hygaspi::shm {

using limits::kCacheLine;

inline constexpr std::uint32_t kLayoutVersion =
    10; // 2: group slots by commit tag, claim lines in the passive ring, name nonces; 3: engine segments;
        // 4: engine group slots (limits::kGroupSlots); 5: shared slots in the reduce area; 6: device segments;
        // 7: passive messages in the engine inbox (no passive ring); 8: barrier rounds carry a value;
        // 9: JobRankSlot::death_told, segment registrations after the RankBlock; 10: kSlotFollowedEnd
inline constexpr std::uint64_t kJobMagic = 0x48594741'53504a42ull;  // "HYGASPJB"
inline constexpr std::uint64_t kRankMagic = 0x48594741'53505242ull; // "HYGASPRB"

static_assert(std::atomic<std::uint32_t>::is_always_lock_free);
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

// Futex word plus waiter count. A notifier bumps `seq` and wakes only if `waiters` is non-zero,
// so the fast path of a notification costs one extra load.
struct alignas(kCacheLine) Doorbell {
  std::atomic<std::uint32_t> seq;     // futex word: bumped on every wake-worthy event
  std::atomic<std::uint32_t> waiters; // number of threads about to sleep or sleeping on seq
};
static_assert(sizeof(Doorbell) == kCacheLine);

// ---------------------------------------------------------------------------------------------
// Job block: one per job, created by the launcher (or by the process itself when it runs alone),
// named "hygaspi-<job>-job" in /dev/shm. Holds what the launcher knows about each rank.
enum class RankState : std::uint32_t {
  absent = 0,     // not started yet
  ready = 1,      // gaspi_proc_init published its rank block
  terminated = 2, // gaspi_proc_term finished
  dead = 3,       // exited without gaspi_proc_term, killed, crashed, or failed its init
};

// JobRankSlot::flags: why a rank is dead, for the launcher (a dead rank's exit code alone does not
// say whether the death was a failure).
inline constexpr std::uint32_t kSlotInitFailed = 1; // its gaspi_proc_init failed: the job failed
inline constexpr std::uint32_t kSlotKilled = 2;     // gaspi_proc_kill: an intended death
// It ended the whole job (gasnet_exit) and wrote the code it asked for to `exit_code`: the launcher
// reports that code for it, however the process then ended (a peer's exit may kill it first).
inline constexpr std::uint32_t kSlotEndedJob = 4;
// It left with the job's code of another rank's gasnet_exit (exit_code, written by the rank): the
// launcher takes the code and names the rank that ended the job, not this one.
inline constexpr std::uint32_t kSlotFollowedEnd = 8;

struct alignas(kCacheLine) JobRankSlot {
  std::atomic<std::int32_t> pid;           // written by the launcher at fork, or by the rank
  std::atomic<std::uint32_t> state;        // RankState
  std::atomic<std::uint32_t> init_epoch;   // bumped by each gaspi_proc_init of this rank
  std::atomic<std::int32_t> exit_code;     // written by the launcher when the rank exits (kSlotEndedJob: by the rank)
  std::atomic<std::uint32_t> flags;        // kSlot* bits
  std::atomic<std::uint32_t> mapped_epoch; // init_epoch once this rank has mapped every node peer
  // Random part of the rank block's name ("r"), drawn by the rank for each life cycle. Only the
  // job's user can read it (the job block is 0600), so no other user can predict the name.
  std::atomic<std::uint64_t> block_nonce;
  // 1 once a node peer has claimed the telling of this rank's death to the other nodes (a CAS from
  // 0, so one peer tells it); reset by each gaspi_proc_init of this rank.
  std::atomic<std::uint32_t> death_told;
};
static_assert(sizeof(JobRankSlot) == kCacheLine);

struct alignas(kCacheLine) JobHeader {
  std::uint64_t magic;       // kJobMagic
  std::uint32_t version;     // kLayoutVersion
  std::uint32_t nranks;      // ranks in the job
  std::int32_t launcher_pid; // 0 when the job has no launcher
  std::uint32_t reserved;
};
static_assert(sizeof(JobHeader) == kCacheLine);

struct JobBlock {
  JobHeader header;
  Doorbell bell; // rung when any rank changes state
  // nranks JobRankSlot entries follow the block; reach them through slot().

  [[nodiscard]] JobRankSlot &slot(std::uint32_t rank) noexcept {
    return reinterpret_cast<JobRankSlot *>(reinterpret_cast<char *>(this) + sizeof(JobBlock))[rank];
  }
  static std::size_t bytes(std::uint32_t nranks) noexcept { return sizeof(JobBlock) + sizeof(JobRankSlot) * nranks; }
};
static_assert(offsetof(JobBlock, bell) == kCacheLine);
static_assert(sizeof(JobBlock) == 2 * kCacheLine);

// ---------------------------------------------------------------------------------------------
// Rank block: one per rank, created by that rank in gaspi_proc_init, named
// "hygaspi-<job>-r<rank>-<epoch>-0-<nonce>-p<pid>" (Node::object_name). Node peers map it in their
// gaspi_proc_init to find the rank's segments, ring its doorbell and signal its collectives; the
// name is removed once every node peer has mapped it.
enum class SegmentKind : std::uint32_t {
  shm = 0,    // data follows the notification array in the segment's shm object
  user = 1,   // data is user memory (gaspi_segment_bind/use); peers reach it with CMA
  device = 2, // data is CUDA device memory; the object holds, where shm data would be, the kinds::IpcKey
              // that a node peer opens it with
};

// Published by the owner, read by any peer without a lock. The owner writes `size`, `kind` and
// `user_addr` first and then publishes `generation` (odd = live) with a release store; a peer
// acquires `generation` first. A generation that changes means the segment was deleted or
// re-created, and the peer remaps. Entries are read-mostly, so 64-byte packing is enough.
struct alignas(64) SegmentEntry {
  std::atomic<std::uint64_t> generation; // odd: live; even: free
  std::uint64_t size;                    // bytes of data
  std::uint64_t user_addr;               // SegmentKind::user and device: the address in the owner
  std::uint32_t kind;                    // SegmentKind
  std::uint32_t notification_num;        // entries in the notification array
  std::uint64_t notif_bytes;             // offset of data in the shm object (page multiple)
  std::uint64_t nonce;                   // random part of the segment's object name
  std::uint64_t reserved[2];
};
static_assert(sizeof(SegmentEntry) == 64);

// One round of a group's dissemination barrier (shm/node_barrier.hpp), written by that round's one
// partner: the value its barrier carries, then the flag that publishes it. The value sits in the
// flag's cache line, so it crosses with the flag, and there is one per parity of the sequence: a
// partner may already be one barrier ahead while this rank has yet to read the value of the last.
struct BarrierRound {
  std::atomic<std::uint64_t> flag; // (tag << 32) | sequence
  std::atomic<std::uint64_t> value[2];
  std::uint64_t reserved;
};
static_assert(sizeof(BarrierRound) == 32 && kCacheLine % sizeof(BarrierRound) == 0);
struct alignas(kCacheLine) GroupFlags {
  BarrierRound round[limits::kBarrierRounds];
};
static_assert(sizeof(GroupFlags) == limits::kBarrierRounds * sizeof(BarrierRound));

struct alignas(kCacheLine) RankHeader {
  std::uint64_t magic;   // kRankMagic
  std::uint32_t version; // kLayoutVersion
  std::int32_t pid;      // creator
  std::uint32_t rank;
  std::uint32_t reserved;
  std::uint64_t spare[1];
};
static_assert(sizeof(RankHeader) == kCacheLine);

// What a rank publishes about the committed group in one of its group slots. Group handles are
// local (spec §6.3: two ranks may hold the same group under different handles), so a peer finds a
// group by its commit tag, which every member computes alike from the membership
// (bridge/collectives/group_record.hpp), never by its handle.
struct GroupSlot {
  // Tag of the committed group in this slot (0: none). Published once everything its node peers
  // need is in place (the leader's reduce area), withdrawn when the group is deleted.
  std::atomic<std::uint32_t> tag;
  // Tag of a group whose collectives can no longer complete: a member left one with an error (a
  // dead member, a failed reduce operation, a leader of another node that gave up). Written by any
  // member of the node; a collective of that group then ends with GASPI_ERROR at once.
  std::atomic<std::uint32_t> broken;
  // Random part of the name of the group's reduce area (Node::object_name), written by the node's
  // leader before it publishes `tag`: a member that acquires the tag finds the nonce.
  std::atomic<std::uint64_t> reduce_nonce;
};
static_assert(sizeof(GroupSlot) == 16);

struct RankBlock {
  RankHeader header;
  Doorbell bell; // rung by notifications and collective signals aimed at this rank
  SegmentEntry segments[limits::kSegmentSlots];
  GroupFlags groups[limits::kGroupSlots]; // indexed by this rank's slot of the group
  GroupSlot group_slots[limits::kGroupSlots];
};
static_assert(offsetof(RankBlock, bell) == kCacheLine);
static_assert(offsetof(RankBlock, segments) % kCacheLine == 0);
static_assert(offsetof(RankBlock, groups) % kCacheLine == 0);

// After the RankBlock, in the same object: with whom the owner registered each of its segments
// (gaspi_segment_register, or the group of a collective creation). A row of
// registration_words(node ranks) words per GASPI segment id; bit i of a row: registered with the
// node peer of index i. Written by the owner only (set at registration, cleared when the segment
// is made), read by a peer before it maps the segment. The engine's own segment ids (from
// limits::kMaxSegments on) are open to every node peer and have no row.
[[nodiscard]] constexpr std::size_t registration_words(std::uint32_t node_ranks) noexcept {
  return (std::size_t{node_ranks} + 63) / 64;
}
[[nodiscard]] constexpr std::size_t rank_block_bytes(std::uint32_t node_ranks) noexcept {
  return sizeof(RankBlock) + limits::kMaxSegments * registration_words(node_ranks) * sizeof(std::uint64_t);
}
// The row of segment `seg` (< limits::kMaxSegments) in `block`, a rank block of a node of `node_ranks`.
[[nodiscard]] inline std::atomic<std::uint64_t> *registration_row(RankBlock &block, std::uint32_t node_ranks,
                                                                  std::uint32_t seg) noexcept {
  auto *rows = reinterpret_cast<std::atomic<std::uint64_t> *>(reinterpret_cast<char *>(&block) + sizeof(RankBlock));
  return rows + seg * registration_words(node_ranks);
}
static_assert(sizeof(RankBlock) % alignof(std::atomic<std::uint64_t>) == 0);

// Reduce area of a group: one shm object owned by the group's leader (its first member), named
// "hygaspi-<job>-c<leader>-<tag>-0". Two ways through it (shm/node_reduce.hpp):
//  - through the leader: member i copies its contribution into slot i and raises arrived[i]; the
//    leader combines the slots into `result` and raises result_seq;
//  - shared (a small allreduce of a group on one node): member i copies its contribution into
//    shared[s % 2][i] and raises that slot's own sequence (in its first cache line, so a small
//    contribution travels with its flag in one line); every member folds every shared slot itself.
struct alignas(kCacheLine) ReduceHeader {
  std::uint64_t magic;      // kReduceMagic
  std::uint32_t version;    // kLayoutVersion
  std::uint32_t members;    // n
  std::uint64_t slot_bytes; // bytes per slot, a multiple of kCacheLine
};
static_assert(sizeof(ReduceHeader) == kCacheLine);

struct alignas(kCacheLine) ReduceFlag {
  std::atomic<std::uint32_t> seq;
};
static_assert(sizeof(ReduceFlag) == kCacheLine);
inline constexpr std::uint64_t kReduceMagic = 0x48594741'53505244ull; // "HYGASPRD"
// A shared slot: its sequence, then (at kSharedDataOffset, aligned for any type) the contribution.
inline constexpr std::uint64_t kSharedSlotBytes = 4 * kCacheLine;
inline constexpr std::uint64_t kSharedDataOffset = 16;
// The largest allreduce that takes the shared way.
inline constexpr std::uint64_t kSharedMaxBytes = kSharedSlotBytes - kSharedDataOffset;
struct SharedSlotHead {
  std::atomic<std::uint32_t> seq;
};

// Layout: header | arrived[n] | result_seq | slot[0..n-1] | result | shared[2][n].
struct ReduceLayout {
  std::uint32_t members;
  std::uint64_t slot_bytes;
  [[nodiscard]] std::size_t arrived_offset() const noexcept { return sizeof(ReduceHeader); }
  [[nodiscard]] std::size_t result_seq_offset() const noexcept {
    return arrived_offset() + members * sizeof(ReduceFlag);
  }
  [[nodiscard]] std::size_t slot_offset(std::uint32_t i) const noexcept {
    return result_seq_offset() + sizeof(ReduceFlag) + i * slot_bytes;
  }
  [[nodiscard]] std::size_t result_offset() const noexcept { return slot_offset(members); }
  [[nodiscard]] std::size_t shared_offset(std::uint32_t seq, std::uint32_t i) const noexcept {
    return result_offset() + slot_bytes + ((seq % 2) * members + i) * kSharedSlotBytes;
  }
  [[nodiscard]] std::size_t bytes() const noexcept {
    return result_offset() + slot_bytes + 2 * members * kSharedSlotBytes;
  }
};

} // namespace hygaspi::shm
