// Mixing the rank spaces must not compile (core/ranks.hpp). tests/CMakeLists.txt compiles this file
// with -fsyntax-only once per CASE: CASE 0 is valid code and must compile (so the other cases fail
// for their own reason, not for a broken include); every other case must fail (WILL_FAIL).
#include "bridge/peers.hpp"
#include "core/ranks.hpp"
#include "mpi_rma/control.hpp"
#include "mpi_rma/rma.hpp"
#include "shm/node.hpp"
#include "shm/node_group.hpp"

namespace hygaspi {

[[maybe_unused]] void takes_node_index(NodeIndex) {}
[[maybe_unused]] void takes_global(GlobalRank) {}

[[maybe_unused]] void cases(shm::Node &node, const PeerTable &peers, mpi::Rma &rma, mpi::Control &control) {
  const GlobalRank g{3};
  const NodeIndex n{1};
  const MpiRank m{2};
  (void)node;
  (void)peers;
  (void)g;
  (void)n;
  (void)m;
  (void)rma;
  (void)control;
#if CASE == 0
  // Valid: each space with itself, and conversions only through the peer table.
  takes_node_index(n);
  takes_global(g);
  (void)(g == GlobalRank{3});
  (void)(n < NodeIndex{2});
  (void)node.alive(peers[g].node);
  (void)peers.global(n);
  (void)(peers[g].mpi == m);
  (void)rma.flush(m);
  (void)peers.global(m);
  shm::NodeGroup group;
  group.members.push_back(peers[g].node);
#elif CASE == 1
  takes_node_index(g); // a GlobalRank where a NodeIndex is expected
#elif CASE == 2
  (void)(g == n); // comparing a GlobalRank with a NodeIndex
#elif CASE == 3
  takes_global(3u); // an implicit integer -> GlobalRank
#elif CASE == 4
  GlobalRank x = 3u; // copy-initialisation from an integer
  (void)x;
#elif CASE == 5
  (void)node.alive(g); // the shm transport accepts only NodeIndex
#elif CASE == 6
  (void)node.alive(1u); // ... not a plain integer either
#elif CASE == 7
  (void)peers[n]; // the peer table is indexed by GlobalRank
#elif CASE == 8
  MpiRank y = m;
  y = MpiRank{static_cast<int>(g)}; // no explicit cast from a rank to an integer either
#elif CASE == 9
  (void)(g < m); // ordering across spaces
#elif CASE == 10
  std::uint32_t i = n; // a rank does not decay to its integer (value() is explicit)
  (void)i;
#elif CASE == 11
  (void)rma.flush(2); // the MPI transport takes an MpiRank, not an integer
#elif CASE == 12
  (void)rma.flush(g); // ... nor a GlobalRank
#elif CASE == 13
  (void)control.kill(peers[g].mpi.value(), Deadline(0), Step()); // an MpiRank's value is no MpiRank
#elif CASE == 14
  shm::NodeGroup group;
  group.members.push_back(g); // a node group's members are node indices
#elif CASE == 15
  shm::NodeGroup group;
  group.members.push_back(1u); // ... not integers
#else
#error unknown CASE
#endif
}

} // namespace hygaspi
