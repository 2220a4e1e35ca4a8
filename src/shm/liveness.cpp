#include "shm/liveness.hpp"

#include <cerrno>
#include <csignal>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/log.hpp"
#include "shm/doorbell.hpp"

namespace hygaspi::shm {

namespace {

int pidfd_open(std::int32_t pid) noexcept { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

// Without pidfds (a kernel before 5.3, or a seccomp filter): a pid that no longer exists died.
// A zombie still exists, so this sees a death only once the parent has reaped it.
bool gone_without_pidfd(std::int32_t pid) noexcept { return ::kill(pid, 0) != 0 && errno == ESRCH; }

// The first to see the death wins; a peer that reached `terminated` (or that another watcher or the
// launcher marked already) keeps its state.
void mark_dead(JobBlock &job, std::uint32_t index, std::int32_t pid) noexcept {
  auto expected = static_cast<std::uint32_t>(RankState::ready);
  // seq_cst, then the bell: the producer half of the doorbell protocol (shm/doorbell.hpp).
  if (job.slot(index).state.compare_exchange_strong(expected, static_cast<std::uint32_t>(RankState::dead),
                                                    std::memory_order_seq_cst)) {
    log::warn("failure detection: node peer %u (pid %d) ended without gaspi_proc_term: marked dead", index, pid);
    futex_wake_all(job.bell);
  }
}

} // namespace

void PeerWatch::poll(JobBlock &job, std::uint32_t self, std::uint32_t nranks) noexcept {
  const std::unique_lock lock = throttle_.enter(mutex_);
  if (!lock)
    return; // not due, or another thread is looking right now
  look(job, self, nranks);
}

void PeerWatch::look(JobBlock &job, std::uint32_t self, std::uint32_t nranks) noexcept {
  try {
    if (fds_.size() != nranks) {
      reset();
      fds_.assign(nranks, -1);
      pids_.assign(nranks, 0);
    }
  } catch (...) {
    return; // out of memory: detection waits for the next look
  }
  pollfd set[64];
  std::uint32_t index[64];
  nfds_t count = 0;
  auto flush = [&] {
    if (count == 0)
      return;
    if (::poll(set, count, 0) > 0)
      for (nfds_t i = 0; i < count; ++i)
        if (set[i].revents != 0)
          mark_dead(job, index[i], pids_[index[i]]);
    count = 0;
  };
  for (std::uint32_t r = 0; r < nranks; ++r) {
    if (r == self)
      continue;
    JobRankSlot &slot = job.slot(r);
    const std::int32_t pid = slot.pid.load(std::memory_order_acquire);
    const bool ready = slot.state.load(std::memory_order_acquire) == static_cast<std::uint32_t>(RankState::ready);
    if (fds_[r] >= 0 && (!ready || pids_[r] != pid)) { // ended, or a new process in the slot
      close(fds_[r]);
      fds_[r] = -1;
    }
    if (!ready || pid <= 0)
      continue;
    if (fds_[r] < 0) {
      const int fd = pidfd_open(pid);
      if (fd < 0) {
        if (errno == ESRCH || gone_without_pidfd(pid))
          mark_dead(job, r, pid);
        continue; // no pidfd (ENOSYS, EMFILE, ...): kill(pid, 0) above is the fallback
      }
      fds_[r] = fd;
      pids_[r] = pid;
    }
    set[count] = pollfd{fds_[r], POLLIN, 0};
    index[count] = r;
    if (++count == 64)
      flush();
  }
  flush();
}

void PeerWatch::reset() noexcept {
  for (int &fd : fds_)
    if (fd >= 0) {
      close(fd);
      fd = -1;
    }
  fds_.clear();
  pids_.clear();
  throttle_.reset();
}

} // namespace hygaspi::shm
