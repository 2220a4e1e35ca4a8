// The engine's one atomic operation (docs/DESIGN.md "Atomicity"): what a front end asks of a word
// in a segment, in a form that travels unchanged to another node. GASPI's fetch_add and
// compare_swap are two cases of it (u64 add, u64 cas); GASNet-EX's gex_AD_Op* map every opcode of
// every built-in data type onto it (INC/DEC as add/sub of 1, each F-form as its non-fetching one:
// every operation yields the word's old value, and the front end decides whether to hand it out).
//
// Operands and the old value are the type's bits in the low bytes of a 64-bit word (a float is
// its IEEE bits, a 32-bit integer zero-extended). The word is aligned to its width.
//
// apply_atomic() is the operation on a word this process maps, written once: node peers use it on the
// owner's mapping (shm transport, the node fast paths of both front ends), and a rank of another
// node sends a request that the owner's progress applies with it (bridge/progress.cpp), so every
// initiator shares one atomicity domain (docs/DESIGN.md "Atomicity": CPU and MPI atomics do not
// compose). Every operation is one seq_cst read-modify-write of the word (as GPI-2's __sync
// builtins: a fetch_add is also a full barrier for the caller), so GASNet-EX's GEX_FLAG_AD_ACQ and
// _REL hold whether asked for or not. Integer add, sub, and, or, xor, swap and cas are the CPU's
// own instructions; mult, min, max and every float operation but swap and cas are a
// compare-exchange loop on the word's bits. cas compares bits, also for floats (GASNet-EX allows it).
#pragma once
#include <atomic>
#include <bit>
#include <cstdint>
#include <type_traits>

namespace hygaspi {

enum class AtomicType : std::uint8_t { i32 = 0, u32 = 1, i64 = 2, u64 = 3, f32 = 4, f64 = 5 };
inline constexpr unsigned kAtomicTypes = 6;

// set: op1 is the new value; get: no change; swap: as set (its old value is the point); cas: op1
// the comparator, op2 the new value (bitwise, also for floats, as GASNet-EX allows); the rest:
// word = word OP op1, with min and max by the type's `<` (C rules).
enum class AtomicCode : std::uint8_t {
  set = 0,
  get = 1,
  swap = 2,
  cas = 3,
  add = 4,
  sub = 5,
  mult = 6,
  min = 7,
  max = 8,
  bit_and = 9,
  bit_or = 10,
  bit_xor = 11,
};
inline constexpr unsigned kAtomicCodes = 12;

struct AtomicOp {
  AtomicType type;
  AtomicCode code;
  std::uint64_t op1;
  std::uint64_t op2;

  friend bool operator==(const AtomicOp &, const AtomicOp &) = default;
};

[[nodiscard]] constexpr bool is_float(AtomicType t) noexcept { return t == AtomicType::f32 || t == AtomicType::f64; }
// The width of the word, in bytes.
[[nodiscard]] constexpr std::uint64_t width(AtomicType t) noexcept {
  return t == AtomicType::i32 || t == AtomicType::u32 || t == AtomicType::f32 ? 4 : 8;
}
// A known type and code, and bitwise codes on integers only. Checked at the target for a request
// that another process sent (mpi_rma/remote_atomics.hpp), and by the front ends before they ask.
[[nodiscard]] constexpr bool valid(const AtomicOp &op) noexcept {
  const auto t = static_cast<unsigned>(op.type), c = static_cast<unsigned>(op.code);
  if (t >= kAtomicTypes || c >= kAtomicCodes)
    return false;
  return !is_float(op.type) || c < static_cast<unsigned>(AtomicCode::bit_and);
}

// GASPI's two atomics (spec §10) as engine operations.
[[nodiscard]] constexpr AtomicOp fetch_add_op(std::uint64_t add) noexcept {
  return AtomicOp{AtomicType::u64, AtomicCode::add, add, 0};
}
[[nodiscard]] constexpr AtomicOp compare_swap_op(std::uint64_t comparator, std::uint64_t replacement) noexcept {
  return AtomicOp{AtomicType::u64, AtomicCode::cas, comparator, replacement};
}

static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free);
static_assert(std::atomic_ref<std::uint32_t>::is_always_lock_free);

namespace atomic_detail {

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

} // namespace atomic_detail

// Applies `op` (valid(op)) to the word at `at`, aligned to width(op.type) in a segment mapping;
// returns the word's value before it, as bits.
inline std::uint64_t apply_atomic(void *at, const AtomicOp &op) noexcept {
  switch (op.type) {
  case AtomicType::i32:
    return atomic_detail::apply<std::int32_t>(at, op);
  case AtomicType::u32:
    return atomic_detail::apply<std::uint32_t>(at, op);
  case AtomicType::i64:
    return atomic_detail::apply<std::int64_t>(at, op);
  case AtomicType::u64:
    return atomic_detail::apply<std::uint64_t>(at, op);
  case AtomicType::f32:
    return atomic_detail::apply<float>(at, op);
  case AtomicType::f64:
    return atomic_detail::apply<double>(at, op);
  }
  return 0; // not reached: the op was checked
}

} // namespace hygaspi
