// Notices: small messages that are sent and never waited for (a leader's abort or departure, a
// rank's death). A receiver that died may never take one, so its send may never complete, and MPI
// may read the buffer until then: the buffer is kept until the process ends.
#pragma once
#include <mpi.h>

#include <deque>
#include <mutex>
#include <span>
#include <type_traits>
#include <utility>

#include "core/ranks.hpp"
#include "mpi_rma/mpi_call.hpp"

namespace hygaspi::mpi {

// `value`, moved to a store that lives until the process ends (a deque never moves its elements):
// the buffers of sends never waited for, and of requests given up. Bounded by what was sent or
// given up: a few bytes per broken collective, departure or death.
template <class T> const std::remove_cvref_t<T> &keep_until_exit(T &&value) {
  static std::mutex mutex;
  static std::deque<std::remove_cvref_t<T>> kept;
  std::lock_guard hold(mutex);
  return kept.emplace_back(std::forward<T>(value));
}

// Sends `count` items of `type` at `buffer` (from keep_until_exit) on `comm` and `tag` to every
// rank of `to` but `skip`. Best effort: a failed send is logged, and a rank that misses the notice
// goes on as it would without it. The caller holds the Env's lock.
inline void send_notice(MPI_Comm comm, int tag, const void *buffer, int count, MPI_Datatype type,
                        std::span<const MpiRank> to, MpiRank skip) {
  for (const MpiRank rank : to) {
    if (rank == skip)
      continue;
    MPI_Request request = MPI_REQUEST_NULL;
    if (HYGASPI_MPI(MPI_Isend(buffer, count, type, rank.value(), tag, comm, &request)) == GASPI_SUCCESS)
      (void)HYGASPI_MPI(MPI_Request_free(&request));
  }
}

} // namespace hygaspi::mpi
