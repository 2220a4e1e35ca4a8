#include "mpi_rma/leaders.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <variant>

#include "core/log.hpp"
#include "core/status.hpp"
#include "mpi_rma/control.hpp"
#include "mpi_rma/mpi_call.hpp"
#include "mpi_rma/notices.hpp"

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
      if (HYGASPI_MPI(MPI_Comm_get_attr(env.collective_comm(), MPI_TAG_UB, &ub, &flag)) != GASPI_SUCCESS)
        flag = 0; // logged; the guaranteed 32767 still holds
    }
    const long top = flag != 0 && ub != nullptr ? *ub : 32767;
    b = static_cast<int>(std::max<long>(1, (top - kTagGroup + 1) / kGroupTagStride));
    buckets.store(b, std::memory_order_relaxed);
  }
  return kTagGroup + static_cast<int>(group_tag % static_cast<std::uint32_t>(b)) * kGroupTagStride;
}

constexpr int kReduceOffset = 16; // within the group's tag bucket; [0, 16) are barrier rounds
constexpr int kAbortOffset = 17;
constexpr int kDepartOffset = 18;

// Tests both requests (an array of 2) once. GASPI_SUCCESS when both are done.
gaspi_return_t test_both(Env &env, MPI_Request *requests) {
  int done = 0;
  auto lock = env.lock();
  HYGASPI_TRY(HYGASPI_MPI(MPI_Testall(2, requests, &done, MPI_STATUSES_IGNORE)));
  return done != 0 ? GASPI_SUCCESS : GASPI_TIMEOUT;
}

// Ends a step that leaves with an error while its messages may still be posted (the group is
// broken for good). Its receive is cancelled, so it can neither take a later group's message nor
// write into memory we free; MPI reads or writes the step's buffers until each request completes,
// so `keep` (the buffers, or nothing when they are not heap memory of the state) goes to a
// process-lifetime store when a request is still running (a send to a leader that left, say):
// they are freed neither here nor at term. Bounded by the collectives that broke. Teardown: an
// MPI error is logged and ignored.
template <class Buffers> void abandon(Env &env, MPI_Request *requests, Buffers &&keep) noexcept {
  auto lock = env.lock();
  if (requests[0] != MPI_REQUEST_NULL)
    (void)HYGASPI_MPI(MPI_Cancel(&requests[0]));
  int done = 0;
  if (HYGASPI_MPI(MPI_Testall(2, requests, &done, MPI_STATUSES_IGNORE)) == GASPI_SUCCESS && done != 0)
    return;
  for (int i = 0; i < 2; ++i)
    if (MPI_Request &request = requests[i]; request != MPI_REQUEST_NULL)
      (void)HYGASPI_MPI(MPI_Request_free(&request)); // completes in the background; its buffer stays alive below
  (void)keep_until_exit(std::forward<Buffers>(keep));
}

} // namespace

bool abort_notice(Env &env, std::uint32_t group_tag) {
  const int tag = group_mpi_tag(env, group_tag) + kAbortOffset;
  auto lock = env.lock();
  for (bool found = false;;) {
    Probed p = env.probe(env.collective_comm(), MPI_ANY_SOURCE, tag);
    if (p.failed)
      return true; // MPI failed under this group's feet: treat it as broken (logged)
    if (!p.found)
      return found;
    std::uint32_t got = 0; // a matched probe: no other thread can take this message
    if (HYGASPI_MPI(MPI_Mrecv(&got, 1, MPI_UINT32_T, &p.handle, MPI_STATUS_IGNORE)) != GASPI_SUCCESS)
      return true;
    // A notice of another group that shares the bucket is for a group that is broken anyway.
    found = found || got == group_tag;
  }
}

void leader_abort(Env &env, std::uint32_t group_tag, std::span<const MpiRank> leaders, std::uint32_t me) {
  const int tag = group_mpi_tag(env, group_tag) + kAbortOffset;
  const std::uint32_t &notice = keep_until_exit(group_tag);
  auto lock = env.lock();
  send_notice(env.collective_comm(), tag, &notice, 1, MPI_UINT32_T, leaders, leaders[me]);
}

namespace {
// Departure notices taken for another group of the same tag bucket, by group tag.
std::mutex g_departures_mutex;
std::map<std::uint32_t, Departure> g_departures;

void lower(Departure &d, std::uint64_t barriers, std::uint64_t allreduces, int leader) {
  if (barriers < d.barriers || allreduces < d.allreduces)
    d.leader = leader;
  d.barriers = std::min(d.barriers, barriers);
  d.allreduces = std::min(d.allreduces, allreduces);
}
} // namespace

void leader_departs(Env &env, std::uint32_t group_tag, std::span<const MpiRank> leaders, std::uint32_t me,
                    std::uint64_t barriers, std::uint64_t allreduces) {
  const int tag = group_mpi_tag(env, group_tag) + kDepartOffset;
  const auto &notice = keep_until_exit(std::array<std::uint64_t, 3>{group_tag, barriers, allreduces});
  auto lock = env.lock();
  send_notice(env.collective_comm(), tag, notice.data(), 3, MPI_UINT64_T, leaders, leaders[me]);
}

void take_departures(Env &env, std::uint32_t group_tag, Departure &into) {
  const int tag = group_mpi_tag(env, group_tag) + kDepartOffset;
  std::lock_guard hold(g_departures_mutex);
  {
    auto lock = env.lock();
    for (;;) {
      Probed p = env.probe(env.collective_comm(), MPI_ANY_SOURCE, tag);
      if (p.failed || !p.found)
        break;
      std::uint64_t got[3] = {0, 0, 0}; // a matched probe: no other thread can take this message
      if (HYGASPI_MPI(MPI_Mrecv(got, 3, MPI_UINT64_T, &p.handle, MPI_STATUS_IGNORE)) != GASPI_SUCCESS)
        break; // logged
      lower(g_departures[static_cast<std::uint32_t>(got[0])], got[1], got[2], p.source);
    }
  }
  if (auto it = g_departures.find(group_tag); it != g_departures.end()) {
    lower(into, it->second.barriers, it->second.allreduces, it->second.leader);
    g_departures.erase(it);
  }
}

void forget_departures() noexcept {
  std::lock_guard hold(g_departures_mutex);
  g_departures.clear();
}

gaspi_return_t leader_barrier_step(Env &env, std::uint32_t group_tag, std::span<const MpiRank> leaders,
                                   std::uint32_t me, LeaderBarrier &state, ValueFold fold) {
  const auto n = static_cast<std::uint32_t>(leaders.size());
  const int base = group_mpi_tag(env, group_tag);
  for (; (1u << state.round) < n; ++state.round, state.posted = false) {
    const std::uint32_t dist = 1u << state.round;
    const int tag = base + static_cast<int>(state.round);
    if (!state.posted) {
      auto lock = env.lock();
      state.sent = state.value;
      HYGASPI_TRY(HYGASPI_MPI(MPI_Irecv(&state.received, 1, MPI_UINT64_T, leaders[(me + n - dist) % n].value(), tag,
                                        env.collective_comm(), &state.requests[0])));
      HYGASPI_TRY(HYGASPI_MPI(MPI_Isend(&state.sent, 1, MPI_UINT64_T, leaders[(me + dist) % n].value(), tag,
                                        env.collective_comm(), &state.requests[1])));
      state.posted = true;
    }
    HYGASPI_TRY(test_both(env, state.requests));
    if (fold != nullptr)
      state.value = fold(state.value, state.received);
  }
  state = LeaderBarrier{.value = state.value};
  return GASPI_SUCCESS;
}

void leader_barrier_abandon(Env &env, LeaderBarrier &state) noexcept {
  if (state.posted) // the tokens live in the group's record, which the runtime keeps
    abandon(env, state.requests, std::monostate{});
  state = LeaderBarrier{};
}

gaspi_return_t leader_allreduce_step(Env &env, std::uint32_t group_tag, std::span<const MpiRank> leaders,
                                     std::uint32_t me, void *acc, std::size_t bytes, CombineFn combine, void *ctx,
                                     LeaderReduce &state) {
  const auto n = static_cast<std::uint32_t>(leaders.size());
  if (n == 1)
    return GASPI_SUCCESS;
  const int tag = group_mpi_tag(env, group_tag) + kReduceOffset;
  const int count = static_cast<int>(bytes); // bytes <= allreduce_buf_size <= INT_MAX (core/limits.hpp)
  std::uint32_t p = 1;
  while (p * 2 <= n)
    p *= 2;
  std::uint32_t rounds = 0;
  while ((1u << rounds) < p)
    ++rounds;
  char *const value = static_cast<char *>(acc);
  state.send.resize(bytes);
  state.receive.resize(bytes);

  // Posts this step's messages once, then tests them once; GASPI_TIMEOUT leaves them posted.
  auto exchange = [&](const MpiRank *send_to, const MpiRank *receive_from) -> gaspi_return_t {
    if (!state.posted) {
      auto lock = env.lock();
      state.requests[0] = state.requests[1] = MPI_REQUEST_NULL;
      state.posted = true; // from here on, abandon() looks after whatever was posted
      if (receive_from != nullptr)
        HYGASPI_TRY(HYGASPI_MPI(MPI_Irecv(state.receive.data(), count, MPI_BYTE, receive_from->value(), tag,
                                          env.collective_comm(), &state.requests[0])));
      if (send_to != nullptr) {
        std::memcpy(state.send.data(), value, bytes);
        HYGASPI_TRY(HYGASPI_MPI(MPI_Isend(state.send.data(), count, MPI_BYTE, send_to->value(), tag,
                                          env.collective_comm(), &state.requests[1])));
      }
    }
    HYGASPI_TRY(test_both(env, state.requests));
    state.posted = false;
    return GASPI_SUCCESS;
  };

  const std::uint32_t last = rounds + 1; // step index of the unfold
  for (; state.step <= static_cast<int>(last); ++state.step) {
    const auto step = static_cast<std::uint32_t>(state.step);
    if (step == 0) { // fold: leader p + i sends to leader i
      if (me >= p) {
        HYGASPI_TRY(exchange(&leaders[me - p], nullptr));
      } else if (me + p < n) {
        HYGASPI_TRY(exchange(nullptr, &leaders[me + p]));
        HYGASPI_TRY(combine(ctx, value, state.receive.data()));
      }
    } else if (step < last) { // doubling among the first p leaders
      if (me >= p)
        continue;
      const std::uint32_t partner = me ^ (1u << (step - 1));
      HYGASPI_TRY(exchange(&leaders[partner], &leaders[partner]));
      if (me < partner) {
        HYGASPI_TRY(combine(ctx, value, state.receive.data()));
      } else { // partner's part first: result = received (op) mine
        HYGASPI_TRY(combine(ctx, state.receive.data(), value));
        std::memcpy(value, state.receive.data(), bytes);
      }
    } else { // unfold: leader i returns the result to leader p + i
      if (me >= p) {
        HYGASPI_TRY(exchange(nullptr, &leaders[me - p]));
        std::memcpy(value, state.receive.data(), bytes);
      } else if (me + p < n) {
        HYGASPI_TRY(exchange(&leaders[me + p], nullptr));
      }
    }
  }
  state = LeaderReduce{};
  return GASPI_SUCCESS;
}

void leader_allreduce_abandon(Env &env, LeaderReduce &state) noexcept {
  if (state.posted)
    abandon(env, state.requests, std::pair{std::move(state.send), std::move(state.receive)});
  state = LeaderReduce{};
}

} // namespace hygaspi::mpi
