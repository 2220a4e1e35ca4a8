// Death detection among node peers without a launcher (docs/DESIGN.md "Failures"). hygaspi-run marks a rank
// dead in the job block when it reaps it; under mpirun nobody does (Open MPI's own reaction is to
// end the whole job about a second later). So every rank watches its node peers itself: a pidfd
// (pidfd_open) polls readable once its process has exited, whether it is still a zombie of its
// parent (orted reaps late) or already reaped, and unlike a pid it cannot be reused. A peer whose
// process is gone while its job slot still says RankState::ready died without gaspi_proc_term: the
// first watcher to see it marks it dead with a CAS (ready -> dead), so every watcher and the
// launcher agree on one transition, and a rank that finished gaspi_proc_term (state terminated)
// is never marked.
//
// Cost: poll() runs on the slow path of waits only (a wait that already slept, or a state vector
// read), and at most once per kInterval per process; other calls cost one clock read.
#pragma once
#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

#include "core/throttle.hpp"
#include "shm/layout.hpp"

namespace hygaspi::shm {

class PeerWatch {
public:
  static constexpr std::chrono::milliseconds kInterval{10};

  PeerWatch() = default;
  PeerWatch(const PeerWatch &) = delete;
  PeerWatch &operator=(const PeerWatch &) = delete;
  ~PeerWatch() { reset(); }

  // Marks dead every node peer (index != self) whose process has exited; rate-limited to one
  // look per kInterval. Thread-safe: a thread that finds another one looking returns at once.
  void poll(JobBlock &job, std::uint32_t self, std::uint32_t nranks) noexcept;
  // Forgets every peer (closes the pidfds); the next poll starts afresh.
  void reset() noexcept;

private:
  void look(JobBlock &job, std::uint32_t self, std::uint32_t nranks) noexcept;

  std::mutex mutex_;
  Throttle throttle_{kInterval};
  std::vector<int> fds_;           // per node index: pidfd, or -1
  std::vector<std::int32_t> pids_; // the pid each pidfd refers to
};

} // namespace hygaspi::shm
