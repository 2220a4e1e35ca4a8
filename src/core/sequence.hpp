// Wrap-safe order of sequence numbers (serial-number arithmetic, RFC 1982): counters that only
// grow and wrap at 2^N, compared by their distance modulo 2^N read as a signed number. `a` is at
// or after `b` while it is less than 2^(N-1) ahead. Used by the node barrier's and the node
// reduce's sequence numbers (32 bits); tests/unit/test_sequence.cpp covers the edges at 2^31, 2^32
// and 2^64.
#pragma once
#include <concepts>
#include <type_traits>

namespace hygaspi {

// How far `a` is ahead of `b` (negative: behind), modulo 2^N.
template <std::unsigned_integral T> [[nodiscard]] constexpr std::make_signed_t<T> seq_distance(T a, T b) noexcept {
  return static_cast<std::make_signed_t<T>>(static_cast<T>(a - b)); // modular since C++20
}

// True when `now` has reached `target`: equal to it or (less than 2^(N-1)) past it.
template <std::unsigned_integral T> [[nodiscard]] constexpr bool seq_reached(T now, T target) noexcept {
  return seq_distance(now, target) >= 0;
}

} // namespace hygaspi
