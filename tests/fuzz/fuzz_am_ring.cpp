// libFuzzer target: the node message ring (src/shm/am_ring.cpp), which carries active and passive
// messages between the processes of a node. Its frames are written by another process, so the
// consumer must survive any frame contents; and its producer and consumer, driven in any order
// and with any message sizes, must hand over every message whole and in order.
//
// Input (FuzzedDataProvider): the capacity (a power of two, 128 B to 8 KiB), a start position
// (near 0 or near the wrap of the 64-bit counters), whether the buffer starts as garbage, then up
// to 64 operations: reserve + publish of a message of some size (its bytes derive from its number),
// peek + release, pending, or a corrupting write of a stamp and size at the head.
// Checks: no crash and no read or write outside the ring (ASan: the ring is one heap block); a
// peek returns a pointer and size inside the buffer; on an uncorrupted ring, the messages come out
// in the order they went in, with their size and bytes, pending() agrees with peek(), a reserve
// fails only when the bytes would not fit behind the consumer's head, and a published message is
// never lost.
#include "fuzz_check.hpp"
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <new>

#include "shm/am_ring.hpp"

using namespace hygaspi::shm;

namespace {

struct AlignedFree {
  void operator()(char *p) const noexcept { ::operator delete[](p, std::align_val_t{kCacheLine}); }
};

std::uint8_t byte_of(std::uint32_t message, std::uint32_t j) {
  return static_cast<std::uint8_t>(message * 131u + j * 7u + 1u);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::uint64_t capacity = std::uint64_t{128} << in.ConsumeIntegralInRange<unsigned>(0, 6);
  const std::uint64_t start = in.ConsumeBool() ? ~std::uint64_t{0} - in.ConsumeIntegralInRange<std::uint64_t>(0, 4096)
                                               : in.ConsumeIntegralInRange<std::uint64_t>(0, 4096);
  const std::uint64_t position = start / kAmFrameAlign * kAmFrameAlign;
  const bool garbage = in.ConsumeBool();

  const std::size_t bytes = am_ring_bytes(capacity);
  std::unique_ptr<char[], AlignedFree> memory(
      static_cast<char *>(::operator new[](bytes, std::align_val_t{kCacheLine})));
  std::memset(memory.get(), 0, bytes); // as a fresh shm object
  auto *ring = reinterpret_cast<AmRingShared *>(memory.get());
  char *buffer = memory.get() + sizeof(AmRingShared);
  if (garbage)
    for (std::size_t i = 0; i < capacity && in.remaining_bytes() > 0; ++i)
      buffer[i] = static_cast<char>(in.ConsumeIntegral<std::uint8_t>());
  ring->consumed.store(position);
  AmProducer producer{ring, capacity, position, position};
  AmConsumer consumer{ring, capacity, position};

  struct Sent {
    std::uint32_t number, size;
  };
  std::deque<Sent> in_flight;
  std::uint32_t next_number = 0;
  bool corrupted = garbage;
  for (int op = 0; op < 64 && in.remaining_bytes() > 0; ++op) {
    switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: { // produce
      const auto n = in.ConsumeIntegralInRange<std::uint32_t>(0, static_cast<std::uint32_t>(capacity));
      const std::uint64_t used = producer.tail - ring->consumed.load();
      const std::uint64_t to_end = capacity - (producer.tail & (capacity - 1));
      const std::uint64_t need = am_frame_bytes(n);
      char *at = am_reserve(producer, n);
      if (at == nullptr) {
        // Only when the frame (and a skip frame to the end of the lap, if it wraps) cannot fit.
        FUZZ_CHECK(used + need + (need > to_end ? to_end : 0) > capacity || corrupted);
        break;
      }
      FUZZ_CHECK(at >= buffer && at + n <= buffer + capacity);
      for (std::uint32_t j = 0; j < n; ++j)
        at[j] = static_cast<char>(byte_of(next_number, j));
      am_publish(producer, n);
      in_flight.push_back({next_number++, n});
      break;
    }
    case 1: { // consume
      const bool pending = am_pending(consumer);
      std::uint32_t got = 0;
      const char *message = am_peek(consumer, got);
      if (message == nullptr) {
        FUZZ_CHECK(corrupted || in_flight.empty());
        break;
      }
      FUZZ_CHECK(message >= buffer && message + got <= buffer + capacity);
      if (!corrupted) {
        FUZZ_CHECK(pending);
        FUZZ_CHECK(!in_flight.empty());
        const Sent s = in_flight.front();
        in_flight.pop_front();
        FUZZ_CHECK(got == s.size);
        for (std::uint32_t j = 0; j < got; ++j)
          FUZZ_CHECK(static_cast<std::uint8_t>(message[j]) == byte_of(s.number, j));
      }
      am_release(consumer, got);
      break;
    }
    case 2: // a look that changes nothing
      (void)am_pending(consumer);
      break;
    default: { // another process writes rubbish at the head
      auto *frame = reinterpret_cast<AmFrame *>(buffer + (consumer.head & (capacity - 1)));
      frame->size = in.ConsumeIntegral<std::uint32_t>();
      frame->stamp.store(in.ConsumeBool() ? consumer.head + 1 : in.ConsumeIntegral<std::uint64_t>());
      corrupted = true;
      break;
    }
    }
  }
  return 0;
}
