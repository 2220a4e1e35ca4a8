#include "mpi_rma/leaders.hpp"

#include <cstring>
#include <sched.h>

#include "core/log.hpp"

namespace hygaspi::mpi {

namespace {
// Tests `requests` until all are done, driving progress; GASPI_TIMEOUT keeps them posted.
gaspi_return_t wait_all(Env& env, Control& control, MPI_Request* requests, int count, const Deadline& deadline) {
  for (bool first = true;; first = false) {
    int done = 0;
    {
      auto lock = env.lock();
      MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE);
    }
    if (done)
      return GASPI_SUCCESS;
    if (!first && (deadline.test_only() || deadline.expired()))
      return GASPI_TIMEOUT;
    control.progress();
    sched_yield();
  }
}
}  // namespace

gaspi_return_t leader_barrier(Env& env, Control& control, std::uint32_t group, std::span<const int> leaders,
                              std::uint32_t me, LeaderBarrier& state, const Deadline& deadline) {
  const auto n = static_cast<std::uint32_t>(leaders.size());
  for (; (1u << state.round) < n; ++state.round, state.posted = false) {
    const std::uint32_t dist = 1u << state.round;
    const int tag = kTagBarrier + static_cast<int>(group) * 16 + static_cast<int>(state.round);
    if (!state.posted) {
      auto lock = env.lock();
      MPI_Irecv(&state.receive_token, 1, MPI_CHAR, leaders[(me + n - dist) % n], tag, env.comm(), &state.requests[0]);
      MPI_Isend(&state.send_token, 1, MPI_CHAR, leaders[(me + dist) % n], tag, env.comm(), &state.requests[1]);
      state.posted = true;
    }
    if (gaspi_return_t rc = wait_all(env, control, state.requests, 2, deadline); rc != GASPI_SUCCESS)
      return rc;
  }
  state = LeaderBarrier{};
  return GASPI_SUCCESS;
}

gaspi_return_t leader_allreduce(Env& env, Control& control, std::uint32_t group, std::span<const int> leaders,
                                std::uint32_t me, void* acc, std::size_t bytes, CombineFn combine, void* ctx,
                                LeaderReduce& state, const Deadline& deadline) {
  const auto n = static_cast<std::uint32_t>(leaders.size());
  const int tag = kTagReduce + static_cast<int>(group);
  const int count = static_cast<int>(bytes);
  if (n == 1)
    return GASPI_SUCCESS;
  if (state.phase == 0) {
    auto lock = env.lock();
    if (me == 0) {
      state.buffers.assign(bytes * (n - 1), 0);
      state.requests.assign(n - 1, MPI_REQUEST_NULL);
      for (std::uint32_t i = 1; i < n; ++i)
        MPI_Irecv(state.buffers.data() + (i - 1) * bytes, count, MPI_BYTE, leaders[i], tag, env.comm(),
                  &state.requests[i - 1]);
    } else {
      state.buffers.assign(2 * bytes, 0);
      std::memcpy(state.buffers.data(), acc, bytes);
      state.requests.assign(2, MPI_REQUEST_NULL);
      MPI_Isend(state.buffers.data(), count, MPI_BYTE, leaders[0], tag, env.comm(), &state.requests[0]);
      MPI_Irecv(state.buffers.data() + bytes, count, MPI_BYTE, leaders[0], tag, env.comm(), &state.requests[1]);
    }
    state.phase = 1;
  }
  if (state.phase == 1) {
    gaspi_return_t rc =
        wait_all(env, control, state.requests.data(), static_cast<int>(state.requests.size()), deadline);
    if (rc != GASPI_SUCCESS)
      return rc;
    if (me != 0) {
      std::memcpy(acc, state.buffers.data() + bytes, bytes);
      state = LeaderReduce{};
      return GASPI_SUCCESS;
    }
    for (std::uint32_t i = 1; i < n; ++i)
      if ((rc = combine(ctx, acc, state.buffers.data() + (i - 1) * bytes)) != GASPI_SUCCESS) {
        state = LeaderReduce{};
        return rc;
      }
    auto lock = env.lock();
    state.buffers.assign(static_cast<const char*>(acc), static_cast<const char*>(acc) + bytes);
    for (std::uint32_t i = 1; i < n; ++i)
      MPI_Isend(state.buffers.data(), count, MPI_BYTE, leaders[i], tag, env.comm(), &state.requests[i - 1]);
    state.phase = 2;
  }
  gaspi_return_t rc = wait_all(env, control, state.requests.data(), static_cast<int>(state.requests.size()), deadline);
  if (rc == GASPI_SUCCESS)
    state = LeaderReduce{};
  return rc;
}

}  // namespace hygaspi::mpi
