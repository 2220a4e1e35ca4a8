#include "shm/passive_ring.hpp"

#include <bit>
#include <cstring>

#include "core/sequence.hpp"
#include "shm/doorbell.hpp"

namespace hygaspi::shm {

std::uint32_t passive_slots(std::uint32_t queue_size_max) noexcept {
  const std::uint32_t wanted = queue_size_max < 2 ? 2 : queue_size_max; // a ring needs 2 to be a ring
  return wanted >= kMaxPassiveSlots ? kMaxPassiveSlots : std::bit_ceil(wanted);
}

namespace {
std::uint64_t slot_stride(std::uint64_t payload_max) noexcept {
  const std::uint64_t bytes = kPassivePayloadOffset + payload_max;
  return (bytes + kCacheLine - 1) / kCacheLine * kCacheLine;
}
std::size_t slots_offset(std::uint32_t senders) noexcept {
  return sizeof(PassiveRing) + std::size_t{senders} * kClaimLinesPerSender * sizeof(PassiveClaim);
}
} // namespace

std::size_t passive_ring_bytes(std::uint32_t slots, std::uint64_t payload_max, std::uint32_t senders) noexcept {
  return slots_offset(senders) + std::size_t{slots} * slot_stride(payload_max);
}

void passive_ring_init(PassiveRing &ring, std::uint32_t rank, std::int32_t pid, std::uint32_t slots,
                       std::uint64_t payload_max, std::uint32_t senders) noexcept {
  ring.header = PassiveHeader{kPassiveMagic,
                              kLayoutVersion,
                              pid,
                              rank,
                              slots,
                              payload_max,
                              slot_stride(payload_max),
                              slots_offset(senders),
                              passive_ring_bytes(slots, payload_max, senders),
                              senders,
                              0};
  for (std::uint32_t line = 0; line < ring.claim_lines(); ++line) {
    ring.claim(line).position.store(0, std::memory_order_relaxed);
    ring.claim(line).waiting.store(0, std::memory_order_relaxed);
  }
  ring.tail.store(0, std::memory_order_relaxed);
  ring.tickets.store(0, std::memory_order_relaxed);
  ring.head.store(0, std::memory_order_relaxed);
  for (std::uint32_t i = 0; i < slots; ++i)
    ring.slot(i).sequence.store(i, std::memory_order_relaxed); // slot i is free for position i
  // Published to peers by the seq_cst store of RankState::ready that follows in Node::init.
}

bool passive_claim(PassiveRing &ring, std::uint32_t line, std::uint64_t &claimed) noexcept {
  std::atomic<std::uint64_t> &announce = ring.claim(line).position;
  std::uint64_t pos = ring.tail.load(std::memory_order_relaxed);
  for (;;) {
    PassiveSlot &slot = ring.slot(pos);
    // acquire: pairs with the consumer's release of the slot, so our payload stores cannot race
    // with its copy out of the previous lap's message.
    const std::uint64_t seq = slot.sequence.load(std::memory_order_acquire);
    const std::int64_t diff = seq_distance(seq, pos);
    if (diff == 0) {
      // Announce, then claim. Release CAS: a receiver that reads tail past pos (acquire; later
      // claims extend the release sequence) sees the announcement of whoever claimed pos.
      announce.store(pos + 1, std::memory_order_relaxed);
      if (ring.tail.compare_exchange_weak(pos, pos + 1, std::memory_order_release, std::memory_order_relaxed)) {
        claimed = pos;
        return true;
      }
    } else if (diff < 0) {
      break; // the slot still holds the message of position pos - slots: full
    } else {
      // Another sender claimed pos, so tail has moved: its claim precedes the sequence we read. An
      // unmoved tail means a corrupt sequence; give up rather than spin on it forever.
      const std::uint64_t now = ring.tail.load(std::memory_order_relaxed);
      if (now == pos)
        break;
      pos = now;
    }
  }
  // Claimed nothing: withdraw a stale announcement, so no receiver waits for this live sender.
  announce.store(0, std::memory_order_relaxed);
  return false;
}

void passive_publish(PassiveRing &ring, std::uint32_t line, std::uint64_t pos, std::uint32_t rank, const void *data,
                     std::uint32_t size) noexcept {
  PassiveSlot &slot = ring.slot(pos);
  slot.sender = rank;
  slot.size = size;
  std::memcpy(ring.payload(slot), data, size);
  // seq_cst, not just release: the store is one half of the doorbell's Dekker pair
  // (doorbell.hpp); the caller rings the owner's doorbell next.
  slot.sequence.store(pos + 1, std::memory_order_seq_cst);
  // Release, after the publication: a receiver that sees the announcement withdrawn sees the
  // message published (passive_skip_dead_claim looks at both).
  ring.claim(line).position.store(0, std::memory_order_release);
}

bool passive_try_push(PassiveRing &ring, std::uint32_t line, std::uint32_t rank, const void *data,
                      std::uint32_t size) noexcept {
  std::uint64_t pos = 0;
  if (!passive_claim(ring, line, pos))
    return false;
  passive_publish(ring, line, pos, rank, data, size);
  return true;
}

void passive_wait_begin(PassiveRing &ring, std::uint32_t line) noexcept {
  const std::uint64_t ticket = ring.tickets.fetch_add(1, std::memory_order_relaxed);
  ring.claim(line).waiting.store(ticket + 1, std::memory_order_seq_cst);
}

void passive_wait_end(PassiveRing &ring, std::uint32_t line) noexcept {
  ring.claim(line).waiting.store(0, std::memory_order_seq_cst);
  // A younger sender may have deferred to this one while slots were free: let it look again.
  shm::ring(ring.space);
}

bool passive_pending(PassiveRing &ring) noexcept {
  const std::uint64_t pos = ring.head.load(std::memory_order_relaxed);
  return ring.slot(pos).sequence.load(std::memory_order_acquire) == pos + 1;
}

bool passive_try_pop(PassiveRing &ring, void *dst, std::uint64_t capacity, PassiveMessage &out) noexcept {
  std::uint64_t pos = ring.head.load(std::memory_order_relaxed);
  for (;;) {
    PassiveSlot &slot = ring.slot(pos);
    // acquire: pairs with the sender's publication, so the payload is complete.
    const std::uint64_t seq = slot.sequence.load(std::memory_order_acquire);
    const std::int64_t diff = seq_distance(seq, pos + 1);
    if (diff == 0) {
      if (ring.head.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
        out.sender = slot.sender;
        out.size = slot.size;
        const std::uint64_t n = passive_copy_size(out.size, capacity, ring.header.payload_max);
        if (n > 0)
          std::memcpy(dst, ring.payload(slot), n);
        // Free the slot for the sender of position pos + slots. seq_cst: one half of the Dekker
        // pair with senders sleeping on `space`.
        slot.sequence.store(pos + ring.header.slots, std::memory_order_seq_cst);
        shm::ring(ring.space);
        return true;
      }
    } else if (diff < 0) {
      return false; // nothing published at the head
    } else {
      // Another receiver took pos, so head has moved (as in passive_try_push); an unmoved head
      // means a corrupt sequence.
      const std::uint64_t now = ring.head.load(std::memory_order_relaxed);
      if (now == pos)
        return false;
      pos = now;
    }
  }
}

namespace detail {

bool passive_head_claimed(PassiveRing &ring, std::uint64_t &pos) noexcept {
  pos = ring.head.load(std::memory_order_acquire);
  if (ring.slot(pos).sequence.load(std::memory_order_acquire) != pos)
    return false; // published (pos + 1), or not yet freed by a receiver of the previous lap
  // acquire: pairs with the claimant's release CAS, so its announcement is visible.
  return seq_distance(ring.tail.load(std::memory_order_acquire), pos) > 0;
}

bool passive_skip(PassiveRing &ring, std::uint64_t pos) noexcept {
  PassiveSlot &slot = ring.slot(pos);
  // Published after all (the claimant withdrew its announcement after publishing, and a dead
  // sender's stale announcement matched): a message, not a skip.
  if (slot.sequence.load(std::memory_order_acquire) != pos)
    return false;
  std::uint64_t expected = pos;
  if (!ring.head.compare_exchange_strong(expected, pos + 1, std::memory_order_acq_rel))
    return false; // another receiver took or skipped it
  // Free the slot for the sender of position pos + slots (as passive_try_pop does).
  slot.sequence.store(pos + ring.header.slots, std::memory_order_seq_cst);
  shm::ring(ring.space);
  return true;
}

} // namespace detail

} // namespace hygaspi::shm
