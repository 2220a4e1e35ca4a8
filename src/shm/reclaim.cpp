#include "shm/reclaim.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.hpp"
#include "shm/layout.hpp"

namespace hygaspi::shm {

namespace {

// A zombie (state Z or X in /proc/<pid>/stat) has ended: it maps nothing and never will; only its
// parent has not reaped it yet. Ranks orphaned by kill -9 of mpirun wait for init, which here
// reaped them 1-2 s late, and a start in between kept their objects. Without /proc: not a zombie.
bool zombie(long pid) noexcept {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  char buf[512];
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return false;
  buf[n] = '\0';
  // "pid (comm) state ...": comm may hold spaces and parentheses, so the state follows the last ')'.
  const char *end = std::strrchr(buf, ')');
  return end != nullptr && end[1] == ' ' && (end[2] == 'Z' || end[2] == 'X');
}

bool process_exists(long pid) noexcept {
  return pid > 0 && (kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM) && !zombie(pid);
}

// The pid after the last "-p" of the name, or -1.
long owner_pid(const std::string &name) {
  const auto at = name.rfind("-p");
  if (at == std::string::npos || at + 2 >= name.size())
    return -1;
  char *end = nullptr;
  const long pid = std::strtol(name.c_str() + at + 2, &end, 10);
  return *end == '\0' ? pid : -1;
}

// A job block is stale when neither its launcher nor any of its ranks exists any more.
bool job_block_stale(const std::string &name) {
  const int fd = shm_open(("/" + name).c_str(), O_RDONLY, 0);
  if (fd < 0)
    return false;
  struct stat st {};
  bool stale = false;
  if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && static_cast<std::size_t>(st.st_size) >= sizeof(JobBlock)) {
    void *map = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
    if (map != MAP_FAILED) {
      auto *block = static_cast<JobBlock *>(map);
      const std::uint32_t n = block->header.nranks;
      // A block of another layout version is not ours to judge.
      if (block->header.magic == kJobMagic && block->header.version == kLayoutVersion &&
          JobBlock::bytes(n) <= static_cast<std::size_t>(st.st_size)) {
        stale = !process_exists(block->header.launcher_pid);
        for (std::uint32_t r = 0; stale && r < n; ++r)
          stale = !process_exists(block->slot(r).pid.load(std::memory_order_relaxed));
      }
      munmap(map, static_cast<std::size_t>(st.st_size));
    }
  }
  close(fd);
  return stale;
}

} // namespace

std::size_t reclaim_stale_objects() noexcept {
  DIR *dir = opendir("/dev/shm");
  if (dir == nullptr)
    return 0;
  std::size_t removed = 0;
  while (dirent *entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.rfind("hygaspi-", 0) != 0)
      continue;
    struct stat st {};
    if (fstatat(dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != geteuid())
      continue;
    const bool job = name.size() > 4 && name.compare(name.size() - 4, 4, "-job") == 0;
    const long pid = owner_pid(name);
    const bool stale = job ? job_block_stale(name) : (pid > 0 && !process_exists(pid));
    if (stale && shm_unlink(("/" + name).c_str()) == 0) {
      ++removed;
      log::debug("removed %s, left behind by a process that no longer exists", name.c_str());
    }
  }
  closedir(dir);
  return removed;
}

} // namespace hygaspi::shm
