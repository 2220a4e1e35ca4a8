// Group handles are local (spec §6.3): ranks build the same groups under different handles and
// must still commit and use them together. Each of 50 rounds:
//   - every rank creates a rank- and round-dependent number of extra groups first (rank 0 always
//     at least one), so the same membership lands on different handles on different ranks;
//   - every rank creates and fills its groups in its own order, and commits them in one order
//     common to all (a collective order; handles play no part in it);
//   - barrier and allreduce on each group, results checked;
//   - two groups are deleted and re-created, in rank-dependent orders, and committed again (their
//     second commit of the same membership), then used again;
//   - everything is deleted in a rank-dependent order.
// Every call has a timeout, so a mismatch shows as GASPI_TIMEOUT, not as a hang.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "mr_util.hpp"

namespace {

constexpr int kRounds = 50;
constexpr gaspi_timeout_t kTimeout = 30000;

gaspi_rank_t me = 0, n = 0;

struct Spec {
  std::vector<gaspi_rank_t> members;
  gaspi_group_t handle = 0;
  bool mine = false;
};

std::vector<Spec> make_specs() {
  std::vector<std::vector<gaspi_rank_t>> sets(5);
  for (gaspi_rank_t r = 0; r < n; ++r) {
    sets[0].push_back(r); // everybody
    if (r % 2 == 0)
      sets[1].push_back(r); // even ranks
    if (r == 0 || r == n - 1)
      sets[2].push_back(r); // the ends
    if (r >= 1)
      sets[3].push_back(r); // all but rank 0
    if (r % 2 == 1 || r == n - 1)
      sets[4].push_back(r); // odd ranks and the last one
  }
  std::vector<Spec> specs;
  for (auto &s : sets) {
    if (s.size() < 2)
      continue;
    Spec spec;
    spec.members = s;
    spec.mine = std::find(s.begin(), s.end(), me) != s.end();
    specs.push_back(spec);
  }
  return specs;
}

void build(Spec &s, int round) {
  MR_OK(gaspi_group_create(&s.handle));
  std::vector<gaspi_rank_t> order = s.members; // add in a rank- and round-dependent order
  std::rotate(order.begin(), order.begin() + static_cast<long>((me + round) % order.size()), order.end());
  if ((me + round) % 2)
    std::reverse(order.begin(), order.end());
  for (gaspi_rank_t r : order)
    MR_OK(gaspi_group_add(s.handle, r));
}

void use(const Spec &s) {
  MR_OK(gaspi_barrier(s.handle, kTimeout));
  unsigned long in[2] = {me + 1ul, 1}, out[2] = {0, 0};
  MR_OK(gaspi_allreduce(in, out, 2, GASPI_OP_SUM, GASPI_TYPE_ULONG, s.handle, kTimeout));
  unsigned long sum = 0;
  for (gaspi_rank_t r : s.members)
    sum += r + 1ul;
  MR_CHECK(out[0] == sum && out[1] == s.members.size());
  gaspi_number_t size = 0;
  MR_OK(gaspi_group_size(s.handle, &size));
  MR_CHECK(size == s.members.size());
}

// The positions 0..k-1 in a rank- and round-dependent order.
std::vector<std::size_t> shuffled(std::size_t k, int round, unsigned salt) {
  std::vector<std::size_t> order(k);
  for (std::size_t i = 0; i < k; ++i)
    order[i] = i;
  std::rotate(order.begin(), order.begin() + static_cast<long>((me * 3 + round + salt) % k), order.end());
  if ((me + round + salt) % 3 == 1)
    std::reverse(order.begin(), order.end());
  return order;
}

} // namespace

int main() {
  mr_init(me, n);
  if (n < 3) { // the groups need three ranks to differ
    mr_finish("mr_group_order");
    return 0;
  }
  std::vector<Spec> specs = make_specs();
  const std::size_t k = specs.size();
  for (int round = 0; round < kRounds; ++round) {
    std::vector<gaspi_group_t> extras((me + round) % 3 + (me == 0 ? 1 : 0));
    for (auto &e : extras)
      MR_OK(gaspi_group_create(&e));
    if (!extras.empty() && round % 2) // an extra group gets members too; it is never committed
      MR_OK(gaspi_group_add(extras[0], me));

    for (std::size_t i : shuffled(k, round, 0))
      if (specs[i].mine)
        build(specs[i], round);
    for (auto &s : specs) // the collective order: the same on every rank
      if (s.mine)
        MR_OK(gaspi_group_commit(s.handle, kTimeout));
    for (auto &s : specs)
      if (s.mine)
        use(s);

    // Delete two groups and one extra, re-create them in another order, commit them again.
    const std::size_t redo[2] = {1, k - 1};
    for (std::size_t j : shuffled(2, round, 1))
      if (specs[redo[j]].mine)
        MR_OK(gaspi_group_delete(specs[redo[j]].handle));
    if (!extras.empty()) {
      MR_OK(gaspi_group_delete(extras.back()));
      extras.pop_back();
    }
    for (std::size_t j : shuffled(2, round, 2))
      if (specs[redo[j]].mine)
        build(specs[redo[j]], round + 1);
    for (std::size_t j = 0; j < 2; ++j)
      if (specs[redo[j]].mine)
        MR_OK(gaspi_group_commit(specs[redo[j]].handle, kTimeout));
    for (auto &s : specs)
      if (s.mine)
        use(s);

    for (std::size_t i : shuffled(k, round, 3))
      if (specs[i].mine)
        MR_OK(gaspi_group_delete(specs[i].handle));
    for (auto e : extras)
      MR_OK(gaspi_group_delete(e));
    gaspi_number_t groups = 0;
    MR_OK(gaspi_group_num(&groups));
    MR_CHECK(groups == 1); // GASPI_GROUP_ALL
  }
  mr_finish("mr_group_order");
  return 0;
}
