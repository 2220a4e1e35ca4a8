// The active-message byte ring (src/shm/am_ring.hpp) in this process, on heap memory: messages of
// every size from 0 up fill it, the next one is refused, they come out in order with their bytes,
// over many laps (so every way of wrapping, skip frames included); and one producer thread against
// one consumer thread; and what another process may write into the ring (a head past the tail, a
// size past the buffer) never makes either side leave the buffer.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "shm/am_ring.hpp"

using namespace hygaspi::shm;

namespace {

struct FreeDeleter {
  void operator()(void *p) const noexcept { std::free(p); }
};

struct TestRing {
  std::unique_ptr<void, FreeDeleter> memory;
  AmProducer producer;
  AmConsumer consumer;

  explicit TestRing(std::uint64_t capacity) {
    const std::uint64_t bytes = am_ring_bytes(capacity);
    memory.reset(std::aligned_alloc(kCacheLine, bytes));
    REQUIRE(memory != nullptr);
    std::memset(memory.get(), 0, bytes);
    auto *ring = static_cast<AmRingShared *>(memory.get());
    producer = {ring, capacity, 0, 0};
    consumer = {ring, capacity, 0};
  }
};

// The bytes of message `n`, of `size` bytes.
char byte_of(std::uint64_t n, std::uint32_t i) { return static_cast<char>((n * 131 + i * 7) & 0xff); }
std::uint32_t size_of(std::uint64_t n, std::uint32_t max) { return static_cast<std::uint32_t>((n * 37) % (max + 1)); }

bool push(AmProducer &p, std::uint64_t n, std::uint32_t size) {
  char *at = am_reserve(p, size);
  if (at == nullptr)
    return false;
  for (std::uint32_t i = 0; i < size; ++i)
    at[i] = byte_of(n, i);
  am_publish(p, size);
  return true;
}

// Pops message `n`; false when none is published. Checks its size and bytes.
bool pop(AmConsumer &c, std::uint64_t n, std::uint32_t size) {
  std::uint32_t got = 0;
  const char *data = am_peek(c, got);
  if (data == nullptr)
    return false;
  REQUIRE(got == size);
  for (std::uint32_t i = 0; i < size; ++i)
    if (data[i] != byte_of(n, i))
      FAIL("message " << n << " byte " << i << " differs");
  am_release(c, got);
  return true;
}

} // namespace

TEST_CASE("am ring: fill, refuse, drain in order, over many laps") {
  constexpr std::uint64_t kCapacity = 1024;
  constexpr std::uint32_t kMax = 300; // frames of 64 to 320 bytes: wraps land everywhere
  TestRing t(kCapacity);
  CHECK_FALSE(am_pending(t.consumer)); // zeroed memory is never a message
  std::uint64_t sent = 0, received = 0;
  for (int round = 0; round < 500; ++round) {
    // Fill until refused; a refusal leaves nothing half-written behind.
    while (push(t.producer, sent, size_of(sent, kMax)))
      ++sent;
    CHECK(sent - received >= 1);
    // Room for at most the capacity: what is in flight fits in it.
    std::uint64_t in_flight = 0;
    for (std::uint64_t n = received; n < sent; ++n)
      in_flight += am_frame_bytes(size_of(n, kMax));
    CHECK(in_flight <= kCapacity);
    // Drain part (a different amount each round), so the next fill starts mid-lap.
    const std::uint64_t take = 1 + static_cast<std::uint64_t>(round) % (sent - received);
    for (std::uint64_t k = 0; k < take; ++k, ++received)
      REQUIRE(pop(t.consumer, received, size_of(received, kMax)));
  }
  while (received < sent) {
    REQUIRE(pop(t.consumer, received, size_of(received, kMax)));
    ++received;
  }
  CHECK_FALSE(am_pending(t.consumer));
  CHECK(sent > 1000);
}

TEST_CASE("am ring: a message as large as the ring allows, after a wrap") {
  constexpr std::uint64_t kCapacity = 1024;
  TestRing t(kCapacity);
  // Leave the tail one frame before the end of the lap, empty the ring, then send the largest
  // message: a skip frame fills the lap's end, and the message fits once the consumer has passed
  // the skip (a look that finds no message), at the start of the next lap.
  for (std::uint64_t n = 0; n < 15; ++n)
    REQUIRE(push(t.producer, n, 40));
  for (std::uint64_t n = 0; n < 15; ++n)
    REQUIRE(pop(t.consumer, n, 40));
  const auto largest = static_cast<std::uint32_t>(kCapacity - sizeof(AmFrame));
  CHECK_FALSE(push(t.producer, 99, largest));
  CHECK(am_pending(t.consumer)); // the skip frame
  std::uint32_t size = 0;
  CHECK(am_peek(t.consumer, size) == nullptr);
  REQUIRE(push(t.producer, 99, largest));
  CHECK(am_reserve(t.producer, 0) == nullptr); // full
  REQUIRE(pop(t.consumer, 99, largest));
  CHECK(am_reserve(t.producer, 0) != nullptr);
}

TEST_CASE("am ring: one producer thread, one consumer thread") {
  constexpr std::uint64_t kCapacity = 4096;
  constexpr std::uint32_t kMax = 500;
  constexpr std::uint64_t kMessages = 100000;
  TestRing t(kCapacity);
  std::thread producer([&] {
    for (std::uint64_t n = 0; n < kMessages; ++n)
      while (!push(t.producer, n, size_of(n, kMax)))
        std::this_thread::yield();
  });
  for (std::uint64_t n = 0; n < kMessages; ++n)
    while (!pop(t.consumer, n, size_of(n, kMax)))
      std::this_thread::yield();
  producer.join();
  CHECK_FALSE(am_pending(t.consumer));
}

// The ring lies in the receiver's memory, which another process writes: a producer must not trust
// what it reads there to stay inside the buffer.
TEST_CASE("am ring: a consumer's head past the producer's tail leaves no room") {
  TestRing t(4096);
  std::uint64_t n = 0;
  while (push(t.producer, n, 8)) // full: the producer's cached head is the consumer's, 0
    ++n;
  // The consumer claims to have freed half a lap more than was ever written. Before the check,
  // the producer took that for room, even for a message larger than the whole ring, and handed
  // out a frame running past the buffer's end.
  t.producer.ring->consumed.store(t.producer.tail + 2048);
  CHECK(am_reserve(t.producer, 4096) == nullptr);
  CHECK(am_reserve(t.producer, 8) == nullptr);
}

TEST_CASE("am ring: a frame whose size runs past the buffer is never handed out") {
  TestRing t(4096);
  REQUIRE(push(t.producer, 0, 8));
  // Another process overwrites the published frame's size.
  auto *frame = reinterpret_cast<AmFrame *>(reinterpret_cast<char *>(t.producer.ring) + sizeof(AmRingShared));
  frame->size = 4096;
  std::uint32_t size = 0;
  CHECK(am_peek(t.consumer, size) == nullptr);
  frame->size = 4096 - sizeof(AmFrame);
  CHECK(am_peek(t.consumer, size) != nullptr);
  CHECK(size == 4096 - sizeof(AmFrame));
}
