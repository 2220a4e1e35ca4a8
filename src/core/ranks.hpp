// The three rank spaces of a job, as distinct types: mixing them does not compile.
//   GlobalRank  the application's rank: 0 .. nranks-1, what the front ends see (gaspi_rank_t,
//               gasnet_node_t)
//   NodeIndex   a rank's position among the ranks of its node (shm objects, the job block)
//   MpiRank     a rank of the runtime's private MPI communicator
// Today a global rank and an MPI rank have the same value, and a node index is a global rank
// minus the node's first; the peer table (bridge/peers.hpp) is the one place that converts. Mixing
// the spaces does not compile: there is no implicit conversion between them or from an integer,
// and comparisons work only within one space (tests/unit/ranks_mix.cpp must fail to compile).
#pragma once
#include <compare>
#include <cstdint>
#include <functional>

namespace hygaspi {

template <class Space, class Int> class RankOf {
public:
  using value_type = Int;
  constexpr RankOf() noexcept = default;
  constexpr explicit RankOf(Int value) noexcept : value_(value) {}
  [[nodiscard]] constexpr Int value() const noexcept { return value_; }
  // For printf-style messages.
  [[nodiscard]] constexpr unsigned print() const noexcept { return static_cast<unsigned>(value_); }
  friend constexpr auto operator<=>(RankOf, RankOf) noexcept = default;

private:
  Int value_{};
};

using GlobalRank = RankOf<struct GlobalRankSpace, std::uint32_t>;
using NodeIndex = RankOf<struct NodeIndexSpace, std::uint32_t>;
using MpiRank = RankOf<struct MpiRankSpace, int>;

} // namespace hygaspi

template <class Space, class Int> struct std::hash<hygaspi::RankOf<Space, Int>> {
  std::size_t operator()(hygaspi::RankOf<Space, Int> r) const noexcept { return std::hash<Int>{}(r.value()); }
};
