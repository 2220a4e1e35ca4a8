// The engine's one atomic operation (docs/DESIGN.md "Atomicity"): what a front end asks of a word
// in a segment, in a form that travels unchanged to another node. GASPI's fetch_add and
// compare_swap are two cases of it (u64 add, u64 cas); GASNet-EX's gex_AD_Op* map every opcode of
// every built-in data type onto it (INC/DEC as add/sub of 1, each F-form as its non-fetching one:
// every operation yields the word's old value, and the front end decides whether to hand it out).
//
// Operands and the old value are the type's bits in the low bytes of a 64-bit word (a float is
// its IEEE bits, a 32-bit integer zero-extended). The word is aligned to its width.
#pragma once
#include <cstdint>

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
// that another process sent (mpi_rma/control.hpp), and by the front ends before they ask.
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

} // namespace hygaspi
