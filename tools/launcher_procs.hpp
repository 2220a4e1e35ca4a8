// Starting ranks and ending every process of the job.
#pragma once
#include <csignal>
#include <sched.h>
#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

namespace hygaspi::launcher {

struct RankSpawn {
  std::uint32_t rank;
  std::uint32_t nranks;
  const std::string *job;
  const std::vector<std::string> *command;
  const sigset_t *child_sigmask; // the mask the launcher had before it blocked its signals
  int stdout_fd = -1;            // --prefix: write ends of the rank's pipes; -1: inherit
  int stderr_fd = -1;
  const cpu_set_t *affinity = nullptr; // --bind: the CPUs the rank may run on; null: inherit
};

// Forks one rank. The child sets the job's environment, dies with the launcher
// (PR_SET_PDEATHSIG), and execs the program; when exec fails it says why and exits 127.
// Returns the pid, or -1 with errno set when fork fails.
pid_t spawn_rank(const RankSpawn &spawn);

// Every live descendant of this process, found through /proc. The launcher is a child
// subreaper (PR_SET_CHILD_SUBREAPER), so a grandchild whose parent died is re-parented to it and
// still found here. `sh -c '...; sleep 30'` (dash forks for the last command) is why killing the
// ranks' pids alone would leave orphans behind.
std::vector<pid_t> descendants();

// Sends `sig` to the listed pids and to every descendant.
void signal_job(const std::vector<pid_t> &ranks, int sig) noexcept;

} // namespace hygaspi::launcher
