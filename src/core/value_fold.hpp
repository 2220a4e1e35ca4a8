// What a barrier that carries one 64-bit value folds it with (engine::barrier_fold, and the node
// and leader barrier steps under it): acc (op) other. It must be idempotent as well as commutative
// and associative: a dissemination over a count that is not a power of two brings some values in
// twice (a mismatch check, a maximum, a bitwise or).
#pragma once
#include <cstdint>

namespace hygaspi {

using ValueFold = std::uint64_t (*)(std::uint64_t acc, std::uint64_t other) noexcept;

} // namespace hygaspi
