// The CPU atomics of global atomics (spec §10), written once. Node peers apply them directly on
// the owner's mapping (shm transport); a rank of another node sends a request that the owner's
// progress applies with these same functions (bridge), so every initiator shares one atomicity
// domain (docs/DESIGN.md "Atomicity": CPU and MPI atomics do not compose).
//
// spec §10.2: both operations are atomic with respect to each other and return the old value.
// seq_cst, as GPI-2's __sync builtins: a fetch_add is also a full barrier for the caller.
#pragma once
#include <atomic>
#include <cstdint>

namespace hygaspi::shm {

static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free);

// `word` is an 8-byte aligned word of a segment mapping.
inline std::uint64_t atomic_fetch_add(std::uint64_t *word, std::uint64_t add) noexcept {
  return std::atomic_ref<std::uint64_t>(*word).fetch_add(add, std::memory_order_seq_cst);
}

// Returns the value before the call, whether or not it was swapped (spec §10.3).
inline std::uint64_t atomic_compare_swap(std::uint64_t *word, std::uint64_t comparator,
                                         std::uint64_t replacement) noexcept {
  std::uint64_t expected = comparator;
  std::atomic_ref<std::uint64_t>(*word).compare_exchange_strong(expected, replacement, std::memory_order_seq_cst);
  return expected;
}

} // namespace hygaspi::shm
