#include "launcher_procs.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <unordered_map>

namespace hygaspi::launcher {

namespace {

// Only for the child between fork and exec: the message goes straight to fd 2. The exit code is
// the shell's: 127 for a program that is not there, 126 for one that cannot run (not executable, a
// directory, no valid binary), so that a job script tells the two apart as it does without us.
[[noreturn]] void child_fail(const char *what, const std::string &prog, int err) {
  std::string msg = std::string("hygaspi-run: ") + what + " " + prog + ": " + std::strerror(err) + "\n";
  (void)!write(STDERR_FILENO, msg.data(), msg.size());
  _exit(err == ENOENT || err == ENOTDIR ? 127 : 126);
}

} // namespace

pid_t spawn_rank(const RankSpawn &spawn) {
  const pid_t launcher = getpid();
  pid_t pid = fork();
  if (pid != 0)
    return pid; // the launcher (or -1)

  // --- child. The launcher is single-threaded, so the C library is usable here.
  // Die with the launcher, even if it is SIGKILLed. The launcher may already have died between
  // fork and prctl; then nobody will deliver the signal, so check the parent afterwards.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != launcher)
    _exit(127);
  // Ignored signals and the signal mask survive exec: give the program the defaults back.
  std::signal(SIGPIPE, SIG_DFL);
  sigprocmask(SIG_SETMASK, spawn.child_sigmask, nullptr);

  const std::string rank = std::to_string(spawn.rank);
  const std::string nranks = std::to_string(spawn.nranks);
  setenv("HYGASPI_JOB", spawn.job->c_str(), 1);
  setenv("HYGASPI_RANK", rank.c_str(), 1);
  setenv("HYGASPI_NRANKS", nranks.c_str(), 1);
  // Only this process takes the rank; a program it starts inherits the rest and runs as a standalone job.
  setenv("HYGASPI_PID", std::to_string(getpid()).c_str(), 1);
  setenv("GASPI_RANK", rank.c_str(), 1); // GPI-2's names, for code that reads them directly
  setenv("GASPI_NRANKS", nranks.c_str(), 1);

  const std::string &prog = spawn.command->front();
  if (spawn.affinity != nullptr && sched_setaffinity(0, sizeof(cpu_set_t), spawn.affinity) != 0)
    child_fail("cannot bind", prog, errno);
  if (spawn.stdout_fd >= 0 && dup2(spawn.stdout_fd, STDOUT_FILENO) < 0)
    child_fail("cannot redirect the output of", prog, errno);
  if (spawn.stderr_fd >= 0 && dup2(spawn.stderr_fd, STDERR_FILENO) < 0)
    child_fail("cannot redirect the output of", prog, errno);
  // Every other launcher descriptor (pipes of other ranks, signalfd, shm) is O_CLOEXEC.

  std::vector<char *> argv;
  for (const std::string &word : *spawn.command)
    argv.push_back(const_cast<char *>(word.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  child_fail("cannot execute", prog, errno);
}

std::vector<pid_t> descendants() {
  // pid -> parent pid of every process we may see. A process that exits during the walk just
  // drops out; one created during it is caught by the next call (the kill sequence repeats).
  std::unordered_map<pid_t, std::vector<pid_t>> children;
  if (DIR *dir = opendir("/proc")) {
    while (dirent *entry = readdir(dir)) {
      char *end = nullptr;
      long pid = std::strtol(entry->d_name, &end, 10);
      if (end == entry->d_name || *end != '\0')
        continue;
      char path[64];
      std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
      int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        continue;
      char buffer[512];
      ssize_t n = read(fd, buffer, sizeof buffer - 1);
      close(fd);
      if (n <= 0)
        continue;
      buffer[n] = '\0';
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so parse after the
      // last ')'.
      const char *paren = std::strrchr(buffer, ')');
      char state = 0;
      long ppid = 0;
      if (paren == nullptr || std::sscanf(paren + 1, " %c %ld", &state, &ppid) != 2)
        continue;
      if (state == 'Z') // already dead; its parent reaps it
        continue;
      children[static_cast<pid_t>(ppid)].push_back(static_cast<pid_t>(pid));
    }
    closedir(dir);
  }
  std::vector<pid_t> found;
  std::vector<pid_t> todo{getpid()};
  while (!todo.empty()) {
    pid_t parent = todo.back();
    todo.pop_back();
    auto it = children.find(parent);
    if (it == children.end())
      continue;
    for (pid_t child : it->second) {
      found.push_back(child);
      todo.push_back(child);
    }
  }
  return found;
}

void signal_job(const std::vector<pid_t> &ranks, int sig) noexcept {
  for (pid_t pid : ranks)
    if (pid > 0)
      kill(pid, sig);
  try {
    for (pid_t pid : descendants())
      kill(pid, sig);
  } catch (...) { // out of memory: the ranks at least were signalled
  }
}

} // namespace hygaspi::launcher
