// The passive ring (src/shm/passive_ring.hpp) in this process, on heap memory, with its positions
// started just before the edges where 32- and 64-bit arithmetic wrap: 2^31, 2^32, 2^63 and 2^64.
// Each start fills the ring, refuses one more, drains it in FIFO order, runs laps across the edge,
// and skips a dead sender's claim there.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "shm/passive_ring.hpp"

using namespace hygaspi::shm;

namespace {

constexpr std::uint32_t kSlots = 4;
constexpr std::uint64_t kPayload = 64;
constexpr std::uint32_t kSenders = 2;

struct FreeDeleter {
  void operator()(void *p) const noexcept { std::free(p); }
};

// A fresh ring whose next position (head and tail) is `start`, as if `start` messages had passed.
struct TestRing {
  std::unique_ptr<void, FreeDeleter> memory;
  PassiveRing *ring = nullptr;

  explicit TestRing(std::uint64_t start) {
    const std::size_t bytes = passive_ring_bytes(kSlots, kPayload, kSenders);
    memory.reset(std::aligned_alloc(kCacheLine, (bytes + kCacheLine - 1) / kCacheLine * kCacheLine));
    REQUIRE(memory != nullptr);
    std::memset(memory.get(), 0, bytes);
    ring = static_cast<PassiveRing *>(memory.get());
    passive_ring_init(*ring, 0, 1, kSlots, kPayload, kSenders);
    ring->tail.store(start);
    ring->head.store(start);
    for (std::uint64_t p = start; p != start + kSlots; ++p) // the 4 positions may wrap past 2^64
      ring->slot(p).sequence.store(p);                      // free for position p
  }
};

bool push(PassiveRing &ring, std::uint32_t sender, const std::string &text) {
  return passive_try_push(ring, 0, sender, text.data(), static_cast<std::uint32_t>(text.size()));
}

std::string pop(PassiveRing &ring, PassiveMessage &message) {
  char buffer[kPayload] = {};
  if (!passive_try_pop(ring, buffer, sizeof buffer, message))
    return "<empty>";
  return std::string(buffer, message.size);
}

const std::uint64_t kStarts[] = {
    0,
    (std::uint64_t{1} << 31) - 2,
    (std::uint64_t{1} << 32) - 2,
    (std::uint64_t{1} << 63) - 2,
    ~std::uint64_t{0} - 1, // 2^64 - 2
};

} // namespace

TEST_CASE("passive ring: full, FIFO and laps across the wrap edges") {
  for (std::uint64_t start : kStarts) {
    INFO("start position ", start);
    TestRing t(start);
    PassiveRing &ring = *t.ring;
    PassiveMessage m;
    CHECK_FALSE(passive_pending(ring));
    CHECK(pop(ring, m) == "<empty>");

    for (std::uint32_t i = 0; i < kSlots; ++i)
      CHECK(push(ring, i, "message " + std::to_string(i)));
    CHECK_FALSE(push(ring, 9, "one too many")); // full, across the edge: nothing claimed
    CHECK(ring.tail.load() == start + kSlots);  // (modulo 2^64)
    CHECK(ring.claim(0).position.load() == 0);  // no stale announcement
    CHECK(passive_pending(ring));
    // Every slot is taken, so the fairness rule leaves no room for a blocked sender either.
    CHECK_FALSE(passive_may_claim(ring, 1, [](std::uint32_t) { return true; }));

    for (std::uint32_t i = 0; i < kSlots; ++i) {
      CHECK(pop(ring, m) == "message " + std::to_string(i));
      CHECK(m.sender == i);
    }
    CHECK(pop(ring, m) == "<empty>");
    CHECK(passive_may_claim(ring, 1, [](std::uint32_t) { return true; }));

    // Three more laps, one message at a time and in pairs, so every slot crosses the edge.
    for (std::uint32_t i = 0; i < 3 * kSlots; ++i) {
      CHECK(push(ring, 1, "a" + std::to_string(i)));
      CHECK(push(ring, 1, "b" + std::to_string(i)));
      CHECK(pop(ring, m) == "a" + std::to_string(i));
      CHECK(pop(ring, m) == "b" + std::to_string(i));
    }
    CHECK(ring.head.load() == ring.tail.load());
  }
}

TEST_CASE("passive ring: a dead sender's claim at the wrap edge is skipped, a live one's is not") {
  // The claim sits at start + 1. Position 2^64 - 1 is the one whose announcement (p + 1) reads as
  // "no claim" (0), so a sender dead there is never skipped; 2^64 messages cannot pass through a
  // ring, so the last start stops one short of it and claims 2^64 - 2, its messages crossing 2^64.
  const std::uint64_t starts[] = {0, (std::uint64_t{1} << 31) - 2, (std::uint64_t{1} << 32) - 2,
                                  (std::uint64_t{1} << 63) - 2, ~std::uint64_t{0} - 2};
  for (std::uint64_t start : starts) {
    INFO("start position ", start);
    TestRing t(start);
    PassiveRing &ring = *t.ring;
    // Advance to one position before the edge of this start, so the claim sits on it.
    PassiveMessage m;
    CHECK(push(ring, 0, "first"));
    CHECK(pop(ring, m) == "first");

    // Sender 1 (claim line kClaimLinesPerSender) claims and never publishes.
    std::uint64_t pos = 0;
    const std::uint32_t line = kClaimLinesPerSender;
    REQUIRE(passive_claim(ring, line, pos));
    CHECK(pos == start + 1);
    CHECK(push(ring, 0, "behind the claim")); // sender 0 publishes the next position
    CHECK(pop(ring, m) == "<empty>");         // the head is claimed, not published

    CHECK_FALSE(passive_skip_dead_claim(ring, [](std::uint32_t) { return true; })); // alive: wait
    CHECK(pop(ring, m) == "<empty>");
    CHECK(passive_skip_dead_claim(ring, [](std::uint32_t sender) { return sender != 1; })); // dead: skip
    CHECK(pop(ring, m) == "behind the claim");
    CHECK(m.sender == 0);
    CHECK(pop(ring, m) == "<empty>");
    CHECK_FALSE(passive_skip_dead_claim(ring, [](std::uint32_t) { return false; })); // nothing claimed
    // The skipped slot is free again for the next lap.
    for (std::uint32_t i = 0; i < kSlots; ++i)
      CHECK(push(ring, 0, std::to_string(i)));
    CHECK_FALSE(push(ring, 0, "full"));
  }
}

TEST_CASE("passive ring: blocked senders go in ticket order across the wrap") {
  TestRing t((std::uint64_t{1} << 32) - 2);
  PassiveRing &ring = *t.ring;
  auto alive = [](std::uint32_t) { return true; };
  for (std::uint32_t i = 0; i < kSlots; ++i)
    REQUIRE(push(ring, 0, "x"));
  passive_wait_begin(ring, 0);                    // oldest ticket
  passive_wait_begin(ring, kClaimLinesPerSender); // younger
  PassiveMessage m;
  CHECK(pop(ring, m) == "x"); // one slot frees
  CHECK(passive_may_claim(ring, 0, alive));
  CHECK_FALSE(passive_may_claim(ring, kClaimLinesPerSender, alive)); // the older one goes first
  // A dead older sender does not hold the younger one back.
  CHECK(passive_may_claim(ring, kClaimLinesPerSender, [](std::uint32_t sender) { return sender != 0; }));
  passive_wait_end(ring, 0);
  CHECK(passive_may_claim(ring, kClaimLinesPerSender, alive));
  passive_wait_end(ring, kClaimLinesPerSender);
}
