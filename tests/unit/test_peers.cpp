// The peer table (bridge/peers.hpp): kinds, node indices, MPI ranks, and the reverse map.
#include <doctest/doctest.h>

#include <vector>

#include "bridge/peers.hpp"
#include "bridge/transport.hpp"
#include "mpi_rma/transport.hpp"
#include "shm/transport.hpp"

using namespace hygaspi;

static_assert(Transport<shm::Transport>);
static_assert(Transport<mpi::Transport>);

TEST_CASE("peer table: an MPI job of 6 ranks, this rank 3 on a node with ranks 2 and 3") {
  PeerTable t;
  const std::vector<GlobalRank> node{GlobalRank{2}, GlobalRank{3}};
  t.build(GlobalRank{3}, 6, node, true);
  CHECK(t.size() == 6);
  CHECK(t.node_size() == 2);
  CHECK(t.spans_nodes());
  CHECK(t.self() == GlobalRank{3});
  CHECK(t.self_node() == NodeIndex{1});
  CHECK(t[GlobalRank{3}].kind == PeerKind::self);
  CHECK(t[GlobalRank{2}].kind == PeerKind::shm);
  CHECK(t[GlobalRank{2}].node == NodeIndex{0});
  for (std::uint32_t r : {0u, 1u, 4u, 5u}) {
    CHECK(t[GlobalRank{r}].kind == PeerKind::mpi);
    CHECK(!t[GlobalRank{r}].on_node());
  }
  for (std::uint32_t r = 0; r < 6; ++r) {
    CHECK(t[GlobalRank{r}].global == GlobalRank{r});
    CHECK(t[GlobalRank{r}].mpi == MpiRank{static_cast<int>(r)});
  }
  CHECK(t.global(NodeIndex{0}) == GlobalRank{2});
  CHECK(t.global(NodeIndex{1}) == GlobalRank{3});
  t.clear();
  CHECK(t.size() == 0);
  CHECK(t.node_size() == 0);
}

TEST_CASE("peer table: a launcher job (one node, no MPI)") {
  PeerTable t;
  std::vector<GlobalRank> node;
  for (std::uint32_t i = 0; i < 4; ++i)
    node.push_back(GlobalRank{i});
  t.build(GlobalRank{0}, 4, node, false);
  CHECK(!t.spans_nodes());
  CHECK(t[GlobalRank{0}].kind == PeerKind::self);
  for (std::uint32_t r = 1; r < 4; ++r) {
    CHECK(t[GlobalRank{r}].kind == PeerKind::shm);
    CHECK(t[GlobalRank{r}].node == NodeIndex{r});
    CHECK(t[GlobalRank{r}].mpi == MpiRank{-1});
  }
}

TEST_CASE("peer table: shm off, every rank a node of its own (HYGASPI_SHM=0)") {
  PeerTable t;
  const std::vector<GlobalRank> node{GlobalRank{1}};
  t.build(GlobalRank{1}, 3, node, true);
  CHECK(t[GlobalRank{1}].kind == PeerKind::self);
  CHECK(t[GlobalRank{1}].node == NodeIndex{0});
  CHECK(t[GlobalRank{0}].kind == PeerKind::mpi);
  CHECK(t[GlobalRank{2}].kind == PeerKind::mpi);
}
