// Wrap-safe sequence comparison (src/core/sequence.hpp) at the edges where a plain comparison
// breaks: 2^31 and 2^32 for the 32-bit barrier and reduce sequences, 2^63 and 2^64 for 64-bit
// counters.
#include <doctest/doctest.h>

#include <cstdint>

#include "core/sequence.hpp"

using hygaspi::seq_distance;
using hygaspi::seq_reached;

TEST_CASE_TEMPLATE("seq_distance and seq_reached across the wrap", T, std::uint32_t, std::uint64_t) {
  constexpr T kMax = static_cast<T>(~T{0});
  constexpr T kHalf = static_cast<T>(T{1} << (sizeof(T) * 8 - 1)); // 2^31 or 2^63
  struct Case {
    T now, target;
    long long distance; // now - target, read as signed
  };
  const Case cases[] = {
      {0, 0, 0},
      {1, 0, 1},
      {0, 1, -1},
      {0, kMax, 1}, // wrapped past the top: 0 is one after 2^N - 1
      {kMax, 0, -1},
      {2, kMax - 1, 4},
      {kHalf, kHalf - 1, 1}, // the sign bit's edge is an ordinary step
      {kHalf - 1, kHalf, -1},
      {static_cast<T>(kHalf - 1), 0, static_cast<long long>(kHalf - 1)}, // the farthest still ahead
  };
  for (const Case &c : cases) {
    INFO("now ", static_cast<unsigned long long>(c.now), " target ", static_cast<unsigned long long>(c.target));
    CHECK(static_cast<long long>(seq_distance(c.now, c.target)) == c.distance);
    CHECK(seq_reached(c.now, c.target) == (c.distance >= 0));
    CHECK(seq_reached(c.target, c.now) == (c.distance <= 0));
  }
  // Exactly half the circle apart the distance is the most negative number either way: neither
  // has reached the other (callers keep their counters far closer than that).
  CHECK_FALSE(seq_reached(kHalf, T{0}));
  CHECK_FALSE(seq_reached(T{0}, kHalf));
}

TEST_CASE("32-bit sequences at 2^31 and 2^32, as the node barrier and reduce count them") {
  const std::uint64_t starts[] = {0, (std::uint64_t{1} << 31) - 3, (std::uint64_t{1} << 32) - 3};
  for (std::uint64_t start : starts) {
    INFO("start ", start);
    auto seq = static_cast<std::uint32_t>(start);
    for (int step = 0; step < 6; ++step) {
      const std::uint32_t next = seq + 1; // wraps at 2^32
      CHECK(seq_reached(next, seq));
      CHECK_FALSE(seq_reached(seq, next));
      CHECK(seq_reached(static_cast<std::uint32_t>(next + 1), next)); // a partner one barrier ahead
      seq = next;
    }
  }
}

TEST_CASE("the 32-bit difference crosses 2^32 where the 64-bit one would not") {
  // The barrier keeps its 32-bit sequence in the low half of a 64-bit flag: the comparison must
  // wrap at 2^32, not 2^64.
  const std::uint64_t flag = (std::uint64_t{7} << 32) | 0x00000002u; // tag 7, sequence 2
  const std::uint32_t expected = 0xfffffffeu;                        // 4 steps earlier, before the wrap
  CHECK(seq_reached(static_cast<std::uint32_t>(flag), expected));
  CHECK_FALSE(seq_reached(expected, static_cast<std::uint32_t>(flag)));
}
