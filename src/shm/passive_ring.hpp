// The receive ring of passive communication (spec §9, docs/DESIGN.md "Passive communication"): one
// per rank, in its own shm object "hygaspi-<job>-p<rank>-<epoch>-0", created by the owner in
// gaspi_proc_init and mapped lazily by node peers that send to it.
//
// A bounded MPMC ring after D. Vyukov (as rigtorp MPMCQueue and UCX mm_ep): every slot carries a
// sequence number. For position p, slot p & mask holds sequence
//   p          free, a sender may claim position p (by CAS on tail)
//   p + 1      full, the message of position p is published
//   p + slots  consumed, free for the next lap.
// Senders claim with a CAS on `tail` (so a sender that finds the ring full takes nothing and can
// give up on timeout with nothing sent) and consumers with a CAS on `head` (several threads may
// call gaspi_passive_receive; spec §9.2.2 allows it). The ring is FIFO in order of claims.
//
// A sender that dies between its claim and its publication (a crash, a kill) would leave the head
// slot claimed forever, and every message behind it out of reach. So before each claim attempt a
// sender announces the position it is claiming in a claim line of its own: p + 1 for position p,
// 0 once it published or gave up. Each node peer (node-local index i) owns kClaimLinesPerSender
// lines, i * kClaimLinesPerSender + k, one per thread that claims at the same time
// (gaspi_passive_send hands them out). A claimed position's claimant is among the lines
// announcing it (the announcement precedes the release CAS on `tail`). A receiver that finds the
// head claimed but unpublished, and the owner of every line announcing it dead, knows the
// claimant died: it skips the position (passive_skip_dead_claim). Nothing a live sender published
// is ever skipped.
//
// Fairness (spec §9.1: "no sender should see its communication request delayed indefinitely"):
// a sender that finds the ring full takes a ticket (`tickets`) and shows it in its claim line
// (`waiting`) until it has claimed or given up. It may claim only while the free slots outnumber
// the live blocked senders with older tickets (passive_may_claim), so a freed slot goes to the
// oldest blocked sender, whichever thread the OS happens to run first. Without this, the freed
// slot went to whoever looked first: a thread already on a CPU (one that just published and came
// back) beat every sleeper, and a sleeper could lose for thousands of messages in a row. A
// blocked sender that times out clears its line; one that died leaves a stale ticket, which
// passive_may_claim ignores once the owner is dead, as passive_skip_dead_claim does.
//
// Slot count: passive_queue_size_max rounded up to a power of two, but at most kMaxPassiveSlots.
// Each slot holds a whole message of passive_transfer_size_max bytes, and the object is backed
// (fallocate) at creation, so the ring costs slots × passive_transfer_size_max per rank: with the
// defaults (1024, 65535 B) an unbounded ring would take 64 MiB of /dev/shm per rank; 64 slots take
// 4 MiB. A full ring is not an error: the sender sleeps until the receiver frees a slot.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "shm/layout.hpp"

namespace hygaspi::shm {

inline constexpr std::uint64_t kPassiveMagic = 0x48594741'53505052ull; // "HYGASPPR"
inline constexpr std::uint32_t kMaxPassiveSlots = 64;
inline constexpr std::uint32_t kClaimLinesPerSender = 4; // threads of one sender claiming at once

// Slot header; the payload follows it. Slots are kCacheLine-aligned and a whole number of lines.
struct PassiveSlot {
  std::atomic<std::uint64_t> sequence; // Vyukov sequence (see above)
  std::uint32_t sender;                // rank that sent the message
  std::uint32_t size;                  // payload bytes
  // payload[payload_max] follows at kPassivePayloadOffset
};
inline constexpr std::size_t kPassivePayloadOffset = 64; // keeps the payload 64-byte aligned
static_assert(sizeof(PassiveSlot) <= kPassivePayloadOffset);

struct alignas(kCacheLine) PassiveHeader {
  std::uint64_t magic;        // kPassiveMagic
  std::uint32_t version;      // kLayoutVersion
  std::int32_t pid;           // creator
  std::uint32_t rank;         // owner
  std::uint32_t slots;        // power of two, <= kMaxPassiveSlots
  std::uint64_t payload_max;  // largest message a slot holds
  std::uint64_t slot_stride;  // bytes from one slot to the next (multiple of kCacheLine)
  std::uint64_t slots_offset; // offset of slot 0 from the start of the ring
  std::uint64_t total_bytes;  // size of the whole ring
  std::uint32_t senders;      // node peers; each owns kClaimLinesPerSender claim lines
  std::uint32_t reserved;
};
static_assert(sizeof(PassiveHeader) == kCacheLine);

// A sender's announcement of the position it claims (see above), and its place among the senders
// blocked on a full ring (see "Fairness" below). Only the thread holding the line writes it.
struct alignas(kCacheLine) PassiveClaim {
  std::atomic<std::uint64_t> position; // p + 1 while claiming or holding position p; 0 otherwise
  std::atomic<std::uint64_t> waiting;  // t + 1 while blocked with ticket t; 0 otherwise
};
static_assert(sizeof(PassiveClaim) == kCacheLine);

struct PassiveRing {
  PassiveHeader header;                                // line 0: written once by the owner
  alignas(kCacheLine) std::atomic<std::uint64_t> tail; // line 1: next position to claim (senders)
  std::atomic<std::uint64_t> tickets;                  // next ticket of a sender that blocks (fairness)
  alignas(kCacheLine) std::atomic<std::uint64_t> head; // line 2: next position to consume (receivers)
  Doorbell space; // line 3: senders that found the ring full sleep here; rung when a slot frees
  // claim_lines() PassiveClaim lines follow, then the slots at header.slots_offset

  [[nodiscard]] PassiveClaim &claim(std::uint32_t line) noexcept {
    return reinterpret_cast<PassiveClaim *>(reinterpret_cast<char *>(this) + sizeof(PassiveRing))[line];
  }
  [[nodiscard]] std::uint32_t claim_lines() const noexcept { return header.senders * kClaimLinesPerSender; }

  [[nodiscard]] PassiveSlot &slot(std::uint64_t position) noexcept {
    const std::uint64_t index = position & (header.slots - 1);
    return *reinterpret_cast<PassiveSlot *>(reinterpret_cast<char *>(this) + header.slots_offset +
                                            index * header.slot_stride);
  }
  [[nodiscard]] char *payload(PassiveSlot &s) noexcept { return reinterpret_cast<char *>(&s) + kPassivePayloadOffset; }
};
static_assert(offsetof(PassiveRing, tail) == kCacheLine);
static_assert(offsetof(PassiveRing, head) == 2 * kCacheLine);
static_assert(offsetof(PassiveRing, space) == 3 * kCacheLine);
static_assert(sizeof(PassiveRing) == 4 * kCacheLine);

// Slot count for a requested passive_queue_size_max.
[[nodiscard]] std::uint32_t passive_slots(std::uint32_t queue_size_max) noexcept;
// Bytes of a ring with `slots` slots of `payload_max` bytes and the claim lines of `senders`.
[[nodiscard]] std::size_t passive_ring_bytes(std::uint32_t slots, std::uint64_t payload_max,
                                             std::uint32_t senders) noexcept;
// Formats freshly created (zeroed) memory of passive_ring_bytes() bytes as an empty ring.
void passive_ring_init(PassiveRing &ring, std::uint32_t rank, std::int32_t pid, std::uint32_t slots,
                       std::uint64_t payload_max, std::uint32_t senders) noexcept;

// Claims a free slot, announcing it in claim line `line` (< claim_lines(), owned by the caller's
// thread until it publishes), and returns its position in `pos`. Returns false, having claimed
// nothing, when the ring is full.
[[nodiscard]] bool passive_claim(PassiveRing &ring, std::uint32_t line, std::uint64_t &pos) noexcept;
// Copies `size` <= payload_max bytes into the claimed position and publishes it with a seq_cst
// store (one half of the doorbell's Dekker pair: the caller rings the owner's doorbell next).
// `rank` is the sender's global rank, which the receiver reports.
void passive_publish(PassiveRing &ring, std::uint32_t line, std::uint64_t pos, std::uint32_t rank, const void *data,
                     std::uint32_t size) noexcept;
// passive_claim + passive_publish. Returns false, having changed nothing, when the ring is full.
[[nodiscard]] bool passive_try_push(PassiveRing &ring, std::uint32_t line, std::uint32_t rank, const void *data,
                                    std::uint32_t size) noexcept;

// True when the message at the head is published (a receiver has something to take).
[[nodiscard]] bool passive_pending(PassiveRing &ring) noexcept;

struct PassiveMessage {
  std::uint32_t sender = 0;
  std::uint32_t size = 0; // size of the message as sent (may exceed what was copied)
};

// Bytes a receiver copies out of a slot: the slot's size field was written by another process, so
// it is clamped to the slot's payload as well as to the receiver's buffer. Fuzzed by
// tests/fuzz/fuzz_passive_slot.cpp.
[[nodiscard]] constexpr std::uint64_t passive_copy_size(std::uint32_t size, std::uint64_t capacity,
                                                        std::uint64_t payload_max) noexcept {
  const std::uint64_t n = size < capacity ? size : capacity;
  return n < payload_max ? n : payload_max;
}

// Takes the message at the head, copies passive_copy_size() bytes to `dst`, frees the slot and
// rings `space`. Returns false, having changed nothing, when no message is published at the head.
[[nodiscard]] bool passive_try_pop(PassiveRing &ring, void *dst, std::uint64_t capacity, PassiveMessage &out) noexcept;

namespace detail {
// True, with the head position in `pos`, when the head is claimed (tail is past it) but unpublished.
[[nodiscard]] bool passive_head_claimed(PassiveRing &ring, std::uint64_t &pos) noexcept;
// Frees position `pos` unread, if it is still the unpublished head.
[[nodiscard]] bool passive_skip(PassiveRing &ring, std::uint64_t pos) noexcept;
} // namespace detail

// Takes the next ticket of a sender that blocks on the full ring and shows it in claim line `line`.
void passive_wait_begin(PassiveRing &ring, std::uint32_t line) noexcept;
// Withdraws it (claimed, timed out or failed); wakes the senders waiting behind it.
void passive_wait_end(PassiveRing &ring, std::uint32_t line) noexcept;

// True when the blocked sender of claim line `line` may try to claim: the free slots outnumber the
// blocked senders with older tickets whose owner (node-local index) is alive.
template <class Alive> bool passive_may_claim(PassiveRing &ring, std::uint32_t line, Alive &&alive) noexcept {
  const std::uint64_t mine = ring.claim(line).waiting.load(std::memory_order_relaxed);
  const std::uint64_t used = ring.tail.load(std::memory_order_seq_cst) - ring.head.load(std::memory_order_seq_cst);
  const std::uint64_t free = used < ring.header.slots ? ring.header.slots - used : 0;
  std::uint64_t older = 0;
  for (std::uint32_t other = 0; other < ring.claim_lines() && older < free; ++other) {
    const std::uint64_t t = ring.claim(other).waiting.load(std::memory_order_seq_cst);
    if (other != line && t != 0 && (mine == 0 || t < mine) && alive(other / kClaimLinesPerSender))
      ++older;
  }
  return older < free;
}

// Skips the head position if it was claimed by a sender that died before publishing it: the owner
// of every line that announces it is dead (alive(node-local index) false). Returns true when it skipped one (the
// caller looks at the head again). A cheap no-op when the head is published or free. Fuzzed by
// tests/fuzz/fuzz_passive_slot.cpp.
template <class Alive> bool passive_skip_dead_claim(PassiveRing &ring, Alive &&alive) noexcept {
  std::uint64_t pos = 0;
  if (!detail::passive_head_claimed(ring, pos))
    return false;
  bool claimant = false;
  for (std::uint32_t line = 0; line < ring.claim_lines(); ++line) {
    if (ring.claim(line).position.load(std::memory_order_acquire) != pos + 1)
      continue;
    if (alive(line / kClaimLinesPerSender))
      return false; // the claimant, or a sender about to find its claim lost, still lives
    claimant = true;
  }
  // No announcement at all: the claimant published (and withdrew it) meanwhile, or the ring is
  // corrupt; either way there is nothing to skip.
  return claimant && detail::passive_skip(ring, pos);
}

} // namespace hygaspi::shm
