#include "mpi_rma/leaders.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <mutex>
#include <sched.h>
#include <type_traits>
#include <utility>
#include <variant>

#include "core/log.hpp"

namespace hygaspi::mpi {

namespace {
// First MPI tag of a group's leader traffic: kTagGroup + a bucket of the commit tag. MPI_TAG_UB is
// at least 32767 (about 500 buckets), and 2^31 - 1 with Open MPI's ob1 (2^26 buckets). Two
// committed groups whose leaders overlap share a bucket only by chance (the commit tags are
// hashes); their messages would then be matched in posting order.
int group_mpi_tag(Env &env, std::uint32_t group_tag) {
  static std::atomic<int> buckets{0};
  int b = buckets.load(std::memory_order_relaxed);
  if (b == 0) {
    int *ub = nullptr;
    int flag = 0;
    {
      auto lock = env.lock();
      MPI_Comm_get_attr(env.comm(), MPI_TAG_UB, &ub, &flag);
    }
    const long top = flag != 0 && ub != nullptr ? *ub : 32767;
    b = static_cast<int>(std::max<long>(1, (top - kTagGroup + 1) / kGroupTagStride));
    buckets.store(b, std::memory_order_relaxed);
  }
  return kTagGroup + static_cast<int>(group_tag % static_cast<std::uint32_t>(b)) * kGroupTagStride;
}

constexpr int kAbortOffset = 17; // within the group's tag bucket

// Takes the pending abort notices of the group's bucket; true if one was for this group. A notice
// of another group that shares the bucket is for a group that is broken anyway, and is dropped.
bool abort_notice(Env &env, std::uint32_t group_tag) {
  const int tag = group_mpi_tag(env, group_tag) + kAbortOffset;
  auto lock = env.lock();
  for (bool found = false;;) {
    int flag = 0;
    MPI_Message message = MPI_MESSAGE_NULL;
    MPI_Improbe(MPI_ANY_SOURCE, tag, env.comm(), &flag, &message, MPI_STATUS_IGNORE);
    if (flag == 0)
      return found;
    std::uint32_t got = 0; // a matched probe: no other thread can take this message
    MPI_Mrecv(&got, 1, MPI_UINT32_T, &message, MPI_STATUS_IGNORE);
    found = found || got == group_tag;
  }
}

// Tests `requests` until all are done, driving progress; GASPI_TIMEOUT keeps them posted. An abort
// (see Abort) ends it with GASPI_ERROR; the requests stay posted, as the group is broken for good.
gaspi_return_t wait_all(Env &env, Control &control, Step progress, MPI_Request *requests, int count,
                        std::uint32_t group_tag, Abort abort, const Deadline &deadline) {
  std::int64_t round = 0;
  for (bool first = true;; first = false) {
    int done = 0;
    {
      auto lock = env.lock();
      MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE);
    }
    if (done)
      return GASPI_SUCCESS;
    if ((round & 63) == 0 && ((abort.broken != nullptr && abort.broken(abort.ctx)) || abort_notice(env, group_tag))) {
      log::error("another leader or a member of this node left it with an error");
      return GASPI_ERROR;
    }
    if (!first && (deadline.test_only() || deadline.expired()))
      return GASPI_TIMEOUT;
    progress(); // the caller's step (bridge/progress.hpp): serves atomics, passive messages, kills
    if (round++ < control.wait_policy().spin)
      cpu_relax();
    else
      sched_yield();
  }
}

// Ends a step that leaves with GASPI_ERROR while its messages may still be posted (wait_all: the
// group is broken for good). Its receive is cancelled, so it can neither take a later group's
// message nor write into memory we free; MPI reads or writes the step's buffers until each request
// completes, so `keep` (the buffers, or nothing when they are not heap memory of the state) goes
// to a process-lifetime store when a request is still running (a send to a leader that left,
// say): they are freed neither here nor at term. Bounded by the collectives that broke.
template <class Buffers> void abandon(Env &env, MPI_Request (&requests)[2], Buffers &&keep) {
  auto lock = env.lock();
  if (requests[0] != MPI_REQUEST_NULL)
    MPI_Cancel(&requests[0]);
  int done = 0;
  MPI_Testall(2, requests, &done, MPI_STATUSES_IGNORE);
  if (done != 0)
    return;
  for (MPI_Request &request : requests)
    if (request != MPI_REQUEST_NULL)
      MPI_Request_free(&request); // completes in the background; its buffer stays alive below
  static std::mutex mutex;
  static std::deque<std::remove_cvref_t<Buffers>> kept;
  std::lock_guard hold(mutex);
  kept.push_back(std::forward<Buffers>(keep));
}

} // namespace

void leader_abort(Env &env, std::uint32_t group_tag, std::span<const int> leaders, std::uint32_t me) {
  // The notice is never waited for, so its buffer must outlive the send: it stays until the
  // process ends (4 bytes per group that broke on this leader; a deque never moves its elements).
  static std::mutex mutex;
  static std::deque<std::uint32_t> notices;
  const int tag = group_mpi_tag(env, group_tag) + kAbortOffset;
  std::lock_guard keep(mutex);
  const std::uint32_t &notice = notices.emplace_back(group_tag);
  auto lock = env.lock();
  for (std::uint32_t i = 0; i < leaders.size(); ++i) {
    if (i == me)
      continue;
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Isend(&notice, 1, MPI_UINT32_T, leaders[i], tag, env.comm(), &request);
    MPI_Request_free(&request);
  }
}

gaspi_return_t leader_barrier(Env &env, Control &control, Step progress, std::uint32_t group_tag,
                              std::span<const int> leaders, std::uint32_t me, LeaderBarrier &state, Abort abort,
                              const Deadline &deadline) {
  const auto n = static_cast<std::uint32_t>(leaders.size());
  const int base = group_mpi_tag(env, group_tag);
  for (; (1u << state.round) < n; ++state.round, state.posted = false) {
    const std::uint32_t dist = 1u << state.round;
    const int tag = base + static_cast<int>(state.round);
    if (!state.posted) {
      auto lock = env.lock();
      MPI_Irecv(&state.receive_token, 1, MPI_CHAR, leaders[(me + n - dist) % n], tag, env.comm(), &state.requests[0]);
      MPI_Isend(&state.send_token, 1, MPI_CHAR, leaders[(me + dist) % n], tag, env.comm(), &state.requests[1]);
      state.posted = true;
    }
    if (gaspi_return_t rc = wait_all(env, control, progress, state.requests, 2, group_tag, abort, deadline);
        rc != GASPI_SUCCESS) {
      if (rc != GASPI_TIMEOUT) { // the tokens live in the group's route, which the runtime keeps
        abandon(env, state.requests, std::monostate{});
        state = LeaderBarrier{};
      }
      return rc;
    }
  }
  state = LeaderBarrier{};
  return GASPI_SUCCESS;
}

gaspi_return_t leader_allreduce(Env &env, Control &control, Step progress, std::uint32_t group_tag,
                                std::span<const int> leaders, std::uint32_t me, void *acc, std::size_t bytes,
                                CombineFn combine, void *ctx, LeaderReduce &state, Abort abort,
                                const Deadline &deadline) {
  const auto n = static_cast<std::uint32_t>(leaders.size());
  if (n == 1)
    return GASPI_SUCCESS;
  const int tag = group_mpi_tag(env, group_tag) + 16;
  const int count = static_cast<int>(bytes);
  std::uint32_t p = 1;
  while (p * 2 <= n)
    p *= 2;
  std::uint32_t rounds = 0;
  while ((1u << rounds) < p)
    ++rounds;
  char *const value = static_cast<char *>(acc);
  state.send.resize(bytes);
  state.receive.resize(bytes);

  // Posts this step's messages once; GASPI_TIMEOUT leaves them posted for the next call.
  auto exchange = [&](int send_to, int receive_from) -> gaspi_return_t {
    if (!state.posted) {
      auto lock = env.lock();
      state.requests[0] = state.requests[1] = MPI_REQUEST_NULL;
      if (receive_from >= 0)
        MPI_Irecv(state.receive.data(), count, MPI_BYTE, receive_from, tag, env.comm(), &state.requests[0]);
      if (send_to >= 0) {
        std::memcpy(state.send.data(), value, bytes);
        MPI_Isend(state.send.data(), count, MPI_BYTE, send_to, tag, env.comm(), &state.requests[1]);
      }
      state.posted = true;
    }
    gaspi_return_t rc = wait_all(env, control, progress, state.requests, 2, group_tag, abort, deadline);
    if (rc == GASPI_SUCCESS)
      state.posted = false;
    return rc;
  };
  // A step that failed with its messages still posted (an abort notice, a broken group) must not
  // free the buffers under them: abandon() keeps them alive until MPI is done with them.
  auto fail = [&](gaspi_return_t rc) {
    if (rc != GASPI_TIMEOUT) {
      if (state.posted)
        abandon(env, state.requests, std::pair{std::move(state.send), std::move(state.receive)});
      state = LeaderReduce{};
    }
    return rc;
  };

  const std::uint32_t last = rounds + 1; // step index of the unfold
  for (; state.step <= static_cast<int>(last); ++state.step) {
    const auto step = static_cast<std::uint32_t>(state.step);
    if (step == 0) { // fold: leader p + i sends to leader i
      if (me >= p) {
        if (gaspi_return_t rc = exchange(leaders[me - p], -1); rc != GASPI_SUCCESS)
          return fail(rc);
      } else if (me + p < n) {
        if (gaspi_return_t rc = exchange(-1, leaders[me + p]); rc != GASPI_SUCCESS)
          return fail(rc);
        if (gaspi_return_t rc = combine(ctx, value, state.receive.data()); rc != GASPI_SUCCESS)
          return fail(rc);
      }
    } else if (step < last) { // doubling among the first p leaders
      if (me >= p)
        continue;
      const std::uint32_t partner = me ^ (1u << (step - 1));
      if (gaspi_return_t rc = exchange(leaders[partner], leaders[partner]); rc != GASPI_SUCCESS)
        return fail(rc);
      if (me < partner) {
        if (gaspi_return_t rc = combine(ctx, value, state.receive.data()); rc != GASPI_SUCCESS)
          return fail(rc);
      } else { // partner's part first: result = received (op) mine
        if (gaspi_return_t rc = combine(ctx, state.receive.data(), value); rc != GASPI_SUCCESS)
          return fail(rc);
        std::memcpy(value, state.receive.data(), bytes);
      }
    } else { // unfold: leader i returns the result to leader p + i
      if (me >= p) {
        if (gaspi_return_t rc = exchange(-1, leaders[me - p]); rc != GASPI_SUCCESS)
          return fail(rc);
        std::memcpy(value, state.receive.data(), bytes);
      } else if (me + p < n) {
        if (gaspi_return_t rc = exchange(leaders[me + p], -1); rc != GASPI_SUCCESS)
          return fail(rc);
      }
    }
  }
  state = LeaderReduce{};
  return GASPI_SUCCESS;
}

} // namespace hygaspi::mpi
