// The CPU atomics of the engine's atomic operation (core/atomic_op.hpp), written once. Node peers
// apply them directly on the owner's mapping (shm transport); a rank of another node sends a
// request that the owner's progress applies with this same function (bridge/progress.cpp), so
// every initiator shares one atomicity domain (docs/DESIGN.md "Atomicity": CPU and MPI atomics do
// not compose).
//
// Every operation is one seq_cst read-modify-write of the word (as GPI-2's __sync builtins: a
// fetch_add is also a full barrier for the caller), so GASNet-EX's GEX_FLAG_AD_ACQ and _REL hold
// whether asked for or not. Integer add, sub, and, or, xor, swap and cas are the CPU's own
// instructions; mult, min, max and every float operation but swap and cas are a compare-exchange
// loop on the word's bits. cas compares bits, also for floats (GASNet-EX allows it).
#pragma once
#include <atomic>
#include <bit>
#include <cstdint>
#include <type_traits>

#include "core/atomic_op.hpp"

namespace hygaspi::shm {

static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free);
static_assert(std::atomic_ref<std::uint32_t>::is_always_lock_free);

namespace detail {

// The bits of T in the low bytes of a word, and back.
template <class T> constexpr T from_bits(std::uint64_t v) noexcept {
  if constexpr (sizeof(T) == 4)
    return std::bit_cast<T>(static_cast<std::uint32_t>(v));
  else
    return std::bit_cast<T>(v);
}
template <class T> constexpr std::uint64_t to_bits(T v) noexcept {
  if constexpr (sizeof(T) == 4)
    return std::bit_cast<std::uint32_t>(v);
  else
    return std::bit_cast<std::uint64_t>(v);
}

// `T` the value type, `Bits` the unsigned integer of its width, on which the word is accessed.
// Inlined everywhere: on a data path with a known type the switch is all that is left of it.
template <class T> [[gnu::always_inline]] inline std::uint64_t apply(void *at, const AtomicOp &op) noexcept {
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  constexpr auto order = std::memory_order_seq_cst;
  std::atomic_ref<Bits> word(*static_cast<Bits *>(at));
  const auto b1 = static_cast<Bits>(op.op1);
  // The loop for what the CPU has no instruction for: `next(old value)` is the new value.
  auto update = [&](auto next) {
    Bits old = word.load(order);
    for (;;) {
      const auto now = static_cast<Bits>(to_bits(next(from_bits<T>(old))));
      // Nothing to write: the load (or the failed exchange) that read `old` is the operation.
      if (now == old || word.compare_exchange_weak(old, now, order, order))
        return std::uint64_t{old};
    }
  };
  const T v1 = from_bits<T>(op.op1);
  switch (op.code) {
  case AtomicCode::set:
  case AtomicCode::swap:
    return word.exchange(b1, order);
  case AtomicCode::get:
    return word.load(order);
  case AtomicCode::cas: {
    Bits expected = b1;
    word.compare_exchange_strong(expected, static_cast<Bits>(op.op2), order);
    return expected; // the old value, whether or not it was swapped
  }
  case AtomicCode::add:
    if constexpr (std::is_integral_v<T>)
      return word.fetch_add(b1, order); // unsigned arithmetic: wraps, as the signed types' bits do
    else
      return update([&](T x) { return static_cast<T>(x + v1); });
  case AtomicCode::sub:
    if constexpr (std::is_integral_v<T>)
      return word.fetch_sub(b1, order);
    else
      return update([&](T x) { return static_cast<T>(x - v1); });
  case AtomicCode::mult:
    if constexpr (std::is_integral_v<T>) // on the unsigned bits: no signed overflow
      return update([&](T x) { return static_cast<T>(static_cast<Bits>(x) * static_cast<Bits>(v1)); });
    else
      return update([&](T x) { return static_cast<T>(x * v1); });
  case AtomicCode::min:
    return update([&](T x) { return x < v1 ? x : v1; });
  case AtomicCode::max:
    return update([&](T x) { return x > v1 ? x : v1; });
  case AtomicCode::bit_and:
    return word.fetch_and(b1, order);
  case AtomicCode::bit_or:
    return word.fetch_or(b1, order);
  case AtomicCode::bit_xor:
    return word.fetch_xor(b1, order);
  }
  return word.load(order); // not reached: the op was checked (valid())
}

} // namespace detail

// Applies `op` (valid(op)) to the word at `at`, aligned to width(op.type) in a segment mapping;
// returns the word's value before it, as bits.
inline std::uint64_t apply(void *at, const AtomicOp &op) noexcept {
  switch (op.type) {
  case AtomicType::i32:
    return detail::apply<std::int32_t>(at, op);
  case AtomicType::u32:
    return detail::apply<std::uint32_t>(at, op);
  case AtomicType::i64:
    return detail::apply<std::int64_t>(at, op);
  case AtomicType::u64:
    return detail::apply<std::uint64_t>(at, op);
  case AtomicType::f32:
    return detail::apply<float>(at, op);
  case AtomicType::f64:
    return detail::apply<double>(at, op);
  }
  return 0; // not reached: the op was checked
}

// GASPI's fetch_add, the hottest case, without the dispatch.
inline std::uint64_t atomic_fetch_add(std::uint64_t *word, std::uint64_t add) noexcept {
  return std::atomic_ref<std::uint64_t>(*word).fetch_add(add, std::memory_order_seq_cst);
}

} // namespace hygaspi::shm
