// libFuzzer target: the receive side of the passive ring (src/shm/passive_ring.cpp). A ring's
// slots are written by other processes (node peers that send to this rank), so a receiver must
// survive any slot contents: a size field larger than the slot (it is clamped by
// passive_copy_size), any sender, and any sequence number (a corrupt one must not make a pop or
// a push spin forever).
//
// Input (FuzzedDataProvider): ring geometry (slots, payload_max, senders), head and tail, then for
// every slot its sequence (near the head, or raw), sender, size and payload bytes, then every
// sender's claim announcement (near the head, or raw), then up to 32 operations: pop into a heap
// buffer of exactly `capacity` bytes, push of <= payload_max bytes by a claim line, pending, and
// the skip of a dead sender's claim with a set of live senders. Checks: no crash, no over-read
// (ASan: the ring is one heap block), a pop copies exactly min(size, capacity, payload_max) bytes
// of the slot's payload and leaves the rest of the buffer alone, reports the slot's size and
// sender, and advances the head by one; a push advances the tail by one, stores the message and
// withdraws its announcement; a skip happens only at a claimed (tail past it), unpublished head
// announced by at least one sender and by no live one, advances the head by one and frees the
// slot for the next lap.
#include "fuzz_check.hpp"
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "shm/passive_ring.hpp"

using namespace hygaspi::shm;

namespace {

struct AlignedFree {
  void operator()(char *p) const noexcept { ::operator delete[](p, std::align_val_t{kCacheLine}); }
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::uint32_t slots = passive_slots(in.ConsumeIntegralInRange<std::uint32_t>(0, 80));
  const std::uint64_t payload_max = in.ConsumeIntegralInRange<std::uint64_t>(0, 300);
  const std::uint32_t senders = in.ConsumeIntegralInRange<std::uint32_t>(1, 8);
  const std::size_t bytes = passive_ring_bytes(slots, payload_max, senders);
  std::unique_ptr<char[], AlignedFree> memory(
      static_cast<char *>(::operator new[](bytes, std::align_val_t{kCacheLine})));
  std::memset(memory.get(), 0, bytes); // as a fresh shm object
  auto &ring = *reinterpret_cast<PassiveRing *>(memory.get());
  passive_ring_init(ring, 0, 1, slots, payload_max, senders);
  FUZZ_CHECK(ring.header.total_bytes == bytes);

  // Positions near 0 or near the wrap of the 64-bit counters.
  const std::uint64_t head =
      in.ConsumeBool() ? in.ConsumeIntegral<std::uint64_t>() : in.ConsumeIntegralInRange<std::uint64_t>(0, 4 * slots);
  const std::uint64_t tail = head + in.ConsumeIntegralInRange<std::uint64_t>(0, slots);
  ring.head.store(head);
  ring.tail.store(tail);
  for (std::uint64_t i = 0; i < slots; ++i) {
    PassiveSlot &slot = ring.slot(head + i);
    const std::uint64_t seq =
        in.ConsumeBool()
            ? in.ConsumeIntegral<std::uint64_t>()
            : head + i + in.ConsumeIntegralInRange<std::int64_t>(-2 * std::int64_t{slots}, 2 * std::int64_t{slots});
    slot.sequence.store(seq);
    slot.sender = in.ConsumeIntegral<std::uint32_t>();
    slot.size = in.ConsumeBool() ? in.ConsumeIntegral<std::uint32_t>()
                                 : in.ConsumeIntegralInRange<std::uint32_t>(0, static_cast<std::uint32_t>(payload_max));
    const auto payload = in.ConsumeBytes<char>(payload_max);
    if (!payload.empty())
      std::memcpy(ring.payload(slot), payload.data(), payload.size());
  }

  for (std::uint32_t k = 0; k < ring.claim_lines(); ++k)
    ring.claim(k).position.store(in.ConsumeBool() ? in.ConsumeIntegral<std::uint64_t>()
                                                  : head + in.ConsumeIntegralInRange<std::uint64_t>(0, 2 * slots));

  for (int op = 0; op < 32 && in.remaining_bytes() > 0; ++op) {
    switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: { // pop
      const auto capacity = in.ConsumeIntegralInRange<std::uint64_t>(0, 600);
      std::unique_ptr<char[]> dst(capacity ? new char[capacity] : nullptr);
      if (capacity)
        std::memset(dst.get(), 0xA5, capacity);
      const std::uint64_t pos = ring.head.load();
      PassiveSlot &slot = ring.slot(pos);
      const std::uint32_t sent = slot.size;
      const std::uint32_t sender = slot.sender;
      std::vector<char> payload(ring.payload(slot), ring.payload(slot) + payload_max);
      PassiveMessage msg;
      if (!passive_try_pop(ring, dst.get(), capacity, msg)) {
        FUZZ_CHECK(ring.head.load() == pos);
        break;
      }
      FUZZ_CHECK(ring.head.load() == pos + 1);
      FUZZ_CHECK(msg.size == sent && msg.sender == sender);
      const std::uint64_t n = passive_copy_size(sent, capacity, payload_max);
      FUZZ_CHECK(n <= capacity && n <= payload_max && n <= sent);
      FUZZ_CHECK(n == 0 || std::memcmp(dst.get(), payload.data(), n) == 0);
      for (std::uint64_t k = n; k < capacity; ++k)
        FUZZ_CHECK(static_cast<unsigned char>(dst[k]) == 0xA5);
      break;
    }
    case 1: { // push
      // gaspi_passive_send takes 1..payload_max bytes (api_passive.cpp checks both bounds).
      if (payload_max == 0)
        break;
      const auto n = in.ConsumeIntegralInRange<std::uint32_t>(1, static_cast<std::uint32_t>(payload_max));
      const auto message = in.ConsumeBytes<char>(n);
      if (message.empty())
        break;
      std::unique_ptr<char[]> src(new char[message.size()]);
      std::memcpy(src.get(), message.data(), message.size());
      const std::uint64_t pos = ring.tail.load();
      const auto line = in.ConsumeIntegralInRange<std::uint32_t>(0, ring.claim_lines() - 1);
      const bool pushed = passive_try_push(ring, line, 7, src.get(), static_cast<std::uint32_t>(message.size()));
      FUZZ_CHECK(ring.claim(line).position.load() == 0); // withdrawn either way
      if (!pushed) {
        FUZZ_CHECK(ring.tail.load() == pos);
        break;
      }
      FUZZ_CHECK(ring.tail.load() == pos + 1);
      PassiveSlot &slot = ring.slot(pos);
      FUZZ_CHECK(slot.sequence.load() == pos + 1 && slot.sender == 7 && slot.size == message.size());
      FUZZ_CHECK(std::memcmp(ring.payload(slot), message.data(), message.size()) == 0);
      break;
    }
    case 2: {                                               // skip a dead sender's claim
      const auto live = in.ConsumeIntegral<std::uint8_t>(); // bit k: sender k lives
      const std::uint64_t pos = ring.head.load();
      const bool claimed =
          ring.slot(pos).sequence.load() == pos && static_cast<std::int64_t>(ring.tail.load() - pos) > 0;
      bool announced = false, announced_live = false;
      for (std::uint32_t k = 0; k < ring.claim_lines(); ++k)
        if (ring.claim(k).position.load() == pos + 1) {
          announced = true;
          announced_live = announced_live || ((live >> (k / kClaimLinesPerSender)) & 1) != 0;
        }
      const bool skipped = passive_skip_dead_claim(ring, [&](std::uint32_t k) {
        FUZZ_CHECK(k < senders);
        return ((live >> k) & 1) != 0;
      });
      FUZZ_CHECK(skipped == (claimed && announced && !announced_live));
      if (skipped) {
        FUZZ_CHECK(ring.head.load() == pos + 1);
        FUZZ_CHECK(ring.slot(pos).sequence.load() == pos + slots);
      } else {
        FUZZ_CHECK(ring.head.load() == pos);
      }
      break;
    }
    default:
      (void)passive_pending(ring);
      break;
    }
  }
  return 0;
}
