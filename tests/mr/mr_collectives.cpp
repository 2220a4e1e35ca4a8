// Collectives (spec §11): every op/type combination of gaspi_allreduce checked exactly, a user
// reduction on a struct with state, allreduce resumed after GASPI_TIMEOUT without re-reading the
// send buffer, every collective driven one GASPI_TEST step at a time, allreduces that alternate
// between the node's two ways, a barrier and an allreduce in
// flight on one group at once, and collectives on two
// overlapping groups.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "mr_util.hpp"

namespace {

gaspi_rank_t me = 0, n = 0;

// Element i of rank r: distinct per rank, negative for half the ranks where the type allows.
template <class T> T value(gaspi_rank_t r, gaspi_number_t i, bool is_signed) {
  long v = static_cast<long>((r * 7 + i * 3) % 23) + static_cast<long>(i);
  if (is_signed && (r + i) % 2)
    v = -v;
  return static_cast<T>(v);
}

template <class T>
void check_type(gaspi_datatype_t type, bool is_signed, gaspi_group_t group, const std::vector<gaspi_rank_t> &members) {
  gaspi_number_t elem_max = 0;
  MR_OK(gaspi_allreduce_elem_max(&elem_max));
  for (gaspi_number_t num : {gaspi_number_t{1}, gaspi_number_t{7}, elem_max}) {
    std::vector<T> send(num), recv(num);
    for (gaspi_number_t i = 0; i < num; ++i)
      send[i] = value<T>(me, i, is_signed);
    for (gaspi_operation_t op : {GASPI_OP_MIN, GASPI_OP_MAX, GASPI_OP_SUM}) {
      MR_OK(gaspi_allreduce(send.data(), recv.data(), num, op, type, group, GASPI_BLOCK));
      for (gaspi_number_t i = 0; i < num; ++i) {
        T expect = value<T>(members[0], i, is_signed);
        for (std::size_t k = 1; k < members.size(); ++k) {
          T v = value<T>(members[k], i, is_signed);
          expect = op == GASPI_OP_MIN ? std::min(expect, v) : op == GASPI_OP_MAX ? std::max(expect, v) : expect + v;
        }
        MR_CHECK(recv[i] == expect);
      }
    }
  }
}

void all_builtins(gaspi_group_t group, const std::vector<gaspi_rank_t> &members) {
  check_type<int>(GASPI_TYPE_INT, true, group, members);
  check_type<unsigned int>(GASPI_TYPE_UINT, false, group, members);
  check_type<float>(GASPI_TYPE_FLOAT, true, group, members);
  check_type<double>(GASPI_TYPE_DOUBLE, true, group, members);
  check_type<long>(GASPI_TYPE_LONG, true, group, members);
  check_type<unsigned long>(GASPI_TYPE_ULONG, false, group, members);
}

// A user reduction on a struct: keep the minimum of `value`, with the rank that holds it
// (ties to the lower rank), and count calls in the state.
struct MinLoc {
  double value;
  int rank;
  int pad;
};

gaspi_return_t minloc(gaspi_pointer_t op1, gaspi_pointer_t op2, gaspi_pointer_t res, gaspi_reduce_state_t state,
                      gaspi_number_t num, gaspi_size_t element_size, gaspi_timeout_t) {
  if (element_size != sizeof(MinLoc))
    return GASPI_ERROR;
  auto *a = static_cast<MinLoc *>(op1);
  auto *b = static_cast<MinLoc *>(op2);
  auto *r = static_cast<MinLoc *>(res);
  for (gaspi_number_t i = 0; i < num; ++i)
    r[i] = (b[i].value < a[i].value || (b[i].value == a[i].value && b[i].rank < a[i].rank)) ? b[i] : a[i];
  ++*static_cast<int *>(state);
  return GASPI_SUCCESS;
}

void user_reduction() {
  constexpr gaspi_number_t kNum = 5;
  MinLoc send[kNum], recv[kNum];
  for (gaspi_number_t i = 0; i < kNum; ++i)
    send[i] = MinLoc{static_cast<double>((me * 5 + i * 3) % (n + 2)), me, 0};
  int calls = 0;
  MR_OK(gaspi_allreduce_user(send, recv, kNum, sizeof(MinLoc), minloc, &calls, GASPI_GROUP_ALL, GASPI_BLOCK));
  for (gaspi_number_t i = 0; i < kNum; ++i) {
    MinLoc best{1e300, 0, 0};
    for (gaspi_rank_t r = 0; r < n; ++r) {
      double v = static_cast<double>((r * 5 + i * 3) % (n + 2));
      if (v < best.value)
        best = MinLoc{v, r, 0};
    }
    MR_CHECK(recv[i].value == best.value);
    MR_CHECK(recv[i].rank == best.rank);
  }
  // n contributions take at least n - 1 combines, wherever the runtime performs them (recursive
  // doubling between nodes does more, redundantly, to save messages); the state reached them.
  long my_calls = calls, all_calls = 0;
  MR_OK(gaspi_allreduce(&my_calls, &all_calls, 1, GASPI_OP_SUM, GASPI_TYPE_LONG, GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_CHECK(all_calls >= n - 1);
  gaspi_size_t buf = 0;
  MR_OK(gaspi_allreduce_buf_size(&buf));
  std::vector<char> big(buf + sizeof(MinLoc));
  MR_EXPECT(GASPI_ERR_INV_SIZE,
            gaspi_allreduce_user(big.data(), big.data(), static_cast<gaspi_number_t>(buf / sizeof(MinLoc) + 1),
                                 sizeof(MinLoc), minloc, &calls, GASPI_GROUP_ALL, GASPI_BLOCK));
}

// Rank n-1 joins late; the others poll with GASPI_TEST and must see GASPI_TIMEOUT first. Their
// send buffers are overwritten after the first call: a resumed call must not read them again.
void resumed_allreduce() {
  if (n == 1)
    return;
  long send = me + 1, recv = 0;
  gaspi_segment_id_t seg = 0;
  MR_OK(gaspi_segment_create(seg, 64, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  if (me != n - 1) {
    gaspi_return_t rc = gaspi_allreduce(&send, &recv, 1, GASPI_OP_SUM, GASPI_TYPE_LONG, GASPI_GROUP_ALL, GASPI_TEST);
    MR_CHECK(rc == GASPI_TIMEOUT);
    send = 1000000;                                         // must not be seen
    MR_OK(gaspi_notify(seg, n - 1, me, 1, 0, GASPI_BLOCK)); // "I have timed out once"
    while ((rc = gaspi_allreduce(&send, &recv, 1, GASPI_OP_SUM, GASPI_TYPE_LONG, GASPI_GROUP_ALL, 5)) ==
           GASPI_TIMEOUT) {
    }
    MR_OK(rc);
  } else {
    for (gaspi_rank_t r = 0; r + 1 < n; ++r) {
      gaspi_notification_id_t id = 0;
      MR_OK(gaspi_notify_waitsome(seg, r, 1, &id, GASPI_BLOCK));
    }
    MR_OK(gaspi_allreduce(&send, &recv, 1, GASPI_OP_SUM, GASPI_TYPE_LONG, GASPI_GROUP_ALL, GASPI_BLOCK));
  }
  MR_CHECK(recv == static_cast<long>(n) * (n + 1) / 2);
  MR_OK(gaspi_wait(0, GASPI_BLOCK));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  MR_OK(gaspi_segment_delete(seg));
}

// Every collective driven one step at a time (GASPI_TEST, spec §11: "GASPI_TEST makes one step")
// by half of the ranks, blocking on the others, so that calls return GASPI_TIMEOUT in every phase
// of the hierarchical machines (node arrive, leaders, node release; contribute, combine, exchange,
// collect) and resume there. Each allreduce's value changes with the round, so a resumed call that
// mixed two rounds, or re-read its send buffer, gives a wrong sum.
void polled_collectives() {
  for (long round = 0; round < 40; ++round) {
    const bool poll = (me + round) % 2 == 0;
    gaspi_return_t rc = GASPI_TIMEOUT;
    if (poll) {
      while ((rc = gaspi_barrier(GASPI_GROUP_ALL, GASPI_TEST)) == GASPI_TIMEOUT) {
      }
      MR_OK(rc);
    } else {
      MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
    }
    long send = (me + 1) * (round + 1), recv = -1;
    if (poll) {
      rc = gaspi_allreduce(&send, &recv, 1, GASPI_OP_SUM, GASPI_TYPE_LONG, GASPI_GROUP_ALL, GASPI_TEST);
      send = -1000000; // read at the first call only
      while (rc == GASPI_TIMEOUT)
        rc = gaspi_allreduce(&send, &recv, 1, GASPI_OP_SUM, GASPI_TYPE_LONG, GASPI_GROUP_ALL, GASPI_TEST);
      MR_OK(rc);
    } else {
      MR_OK(gaspi_allreduce(&send, &recv, 1, GASPI_OP_SUM, GASPI_TYPE_LONG, GASPI_GROUP_ALL, GASPI_BLOCK));
    }
    MR_CHECK(recv == static_cast<long>(n) * (n + 1) / 2 * (round + 1));
  }
}

// Allreduces of sizes on both sides of the node's shared way (at most 240 bytes: every member
// folds every contribution; beyond: through the leader), alternating on one group, with values that
// change every round: a member that read a contribution of an earlier round (a reused slot, or a
// sequence of the other way) gives a wrong sum.
void alternating_ways() {
  for (long round = 0; round < 300; ++round) {
    const gaspi_number_t sizes[] = {1, 30, 31, 1, 2, 255};
    const gaspi_number_t num = sizes[round % 6];
    std::vector<long> send(num), recv(num, -1);
    for (gaspi_number_t i = 0; i < num; ++i)
      send[i] = (me + 1) * (round + 1) + static_cast<long>(i);
    MR_OK(gaspi_allreduce(send.data(), recv.data(), num, GASPI_OP_SUM, GASPI_TYPE_LONG, GASPI_GROUP_ALL, GASPI_BLOCK));
    for (gaspi_number_t i = 0; i < num; ++i)
      MR_CHECK(recv[i] == static_cast<long>(n) * (n + 1) / 2 * (round + 1) + static_cast<long>(n) * i);
  }
}

// One thread runs barriers while another runs allreduces on the same group.
void barrier_beside_allreduce() {
  std::thread barriers([] {
    for (int i = 0; i < 200; ++i)
      MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  });
  for (int i = 0; i < 200; ++i) {
    unsigned long send = static_cast<unsigned long>(i + me), recv = 0;
    MR_OK(gaspi_allreduce(&send, &recv, 1, GASPI_OP_MAX, GASPI_TYPE_ULONG, GASPI_GROUP_ALL, GASPI_BLOCK));
    MR_CHECK(recv == static_cast<unsigned long>(i + n - 1));
  }
  barriers.join();
}

} // namespace

int main() {
  mr_init(me, n);
  std::vector<gaspi_rank_t> all(n);
  for (gaspi_rank_t r = 0; r < n; ++r)
    all[r] = r;
  all_builtins(GASPI_GROUP_ALL, all);
  user_reduction();
  resumed_allreduce();
  polled_collectives();
  alternating_ways();
  barrier_beside_allreduce();

  // Two overlapping groups: the lower half plus rank n-1, and the upper half plus rank 0.
  std::vector<gaspi_rank_t> lower, upper;
  for (gaspi_rank_t r = 0; r < n; ++r) {
    if (r < (n + 1) / 2 || r == n - 1)
      lower.push_back(r);
    if (r >= n / 2 || r == 0)
      upper.push_back(r);
  }
  gaspi_group_t g_lower = 0, g_upper = 0;
  MR_OK(gaspi_group_create(&g_lower));
  MR_OK(gaspi_group_create(&g_upper));
  for (auto r : lower)
    MR_OK(gaspi_group_add(g_lower, r));
  for (auto r : upper)
    MR_OK(gaspi_group_add(g_upper, r));
  const bool in_lower = std::find(lower.begin(), lower.end(), me) != lower.end();
  const bool in_upper = std::find(upper.begin(), upper.end(), me) != upper.end();
  for (int round = 0; round < 3; ++round) {
    if (in_lower)
      MR_OK(gaspi_group_commit(g_lower, GASPI_BLOCK));
    if (in_upper)
      MR_OK(gaspi_group_commit(g_upper, GASPI_BLOCK));
    for (int i = 0; i < 20; ++i) {
      if (in_lower) {
        MR_OK(gaspi_barrier(g_lower, GASPI_BLOCK));
        all_builtins(g_lower, lower);
      }
      if (in_upper) {
        MR_OK(gaspi_barrier(g_upper, GASPI_BLOCK));
        long send = me, recv = 0, expect = 0;
        for (auto r : upper)
          expect += r;
        MR_OK(gaspi_allreduce(&send, &recv, 1, GASPI_OP_SUM, GASPI_TYPE_LONG, g_upper, GASPI_BLOCK));
        MR_CHECK(recv == expect);
      }
    }
    // Delete and re-create with the same members: the re-commit must start afresh.
    MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
    MR_OK(gaspi_group_delete(g_lower));
    MR_OK(gaspi_group_delete(g_upper));
    MR_OK(gaspi_group_create(&g_lower));
    MR_OK(gaspi_group_create(&g_upper));
    for (auto r : lower)
      MR_OK(gaspi_group_add(g_lower, r));
    for (auto r : upper)
      MR_OK(gaspi_group_add(g_upper, r));
  }
  mr_finish("mr_collectives");
  return 0;
}
