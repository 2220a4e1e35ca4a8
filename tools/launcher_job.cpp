#include "launcher_job.hpp"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <unistd.h>
#include <vector>

#include "shm/doorbell.hpp"

namespace hygaspi::launcher {

std::string make_job_id(std::string &error) {
  unsigned char bytes[16];
  if (getentropy(bytes, sizeof bytes) != 0) {
    error = std::string("getentropy failed: ") + std::strerror(errno);
    return {};
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  for (unsigned char b : bytes) {
    id += kHex[b >> 4];
    id += kHex[b & 15];
  }
  return id;
}

bool JobControl::create(const std::string &job, std::uint32_t nranks, std::string &error) {
  job_ = job;
  if (!shm::ShmObject::create("hygaspi-" + job + "-job", shm::JobBlock::bytes(nranks), object_, error))
    return false;
  block_ = static_cast<shm::JobBlock *>(object_.data());
  // The header is plain data: ranks read it only after fork+exec, which orders it before them.
  block_->header = shm::JobHeader{shm::kJobMagic, shm::kLayoutVersion, nranks, static_cast<std::int32_t>(getpid()), 0};
  block_->bell.seq.store(0, std::memory_order_relaxed);
  block_->bell.waiters.store(0, std::memory_order_relaxed);
  for (std::uint32_t r = 0; r < nranks; ++r) {
    shm::JobRankSlot &slot = block_->slot(r);
    slot.pid.store(0, std::memory_order_relaxed);
    slot.state.store(static_cast<std::uint32_t>(shm::RankState::absent), std::memory_order_relaxed);
    slot.init_epoch.store(0, std::memory_order_relaxed);
    slot.exit_code.store(0, std::memory_order_relaxed);
  }
  return true;
}

void JobControl::set_pid(std::uint32_t rank, pid_t pid) noexcept {
  // Release: a peer that reads the pid (for CMA or gaspi_proc_kill) sees a complete value.
  block_->slot(rank).pid.store(static_cast<std::int32_t>(pid), std::memory_order_release);
}

ExitKind JobControl::rank_exited(std::uint32_t rank, std::int32_t &exit_code, bool clean_exit) noexcept {
  shm::JobRankSlot &slot = block_->slot(rank);
  const std::uint32_t flags = slot.flags.load(std::memory_order_seq_cst);
  if ((flags & (shm::kSlotEndedJob | shm::kSlotFollowedEnd)) != 0)
    exit_code = slot.exit_code.load(std::memory_order_relaxed); // the flag's load published it
  slot.exit_code.store(exit_code, std::memory_order_release);
  auto state = static_cast<shm::RankState>(slot.state.load(std::memory_order_seq_cst));
  const ExitKind kind = (flags & shm::kSlotEndedJob) != 0      ? ExitKind::ended_job
                        : (flags & shm::kSlotFollowedEnd) != 0 ? ExitKind::followed
                        : (flags & shm::kSlotKilled) != 0      ? ExitKind::killed
                        : (flags & shm::kSlotInitFailed) != 0  ? ExitKind::init_failed
                        : clean_exit && state != shm::RankState::terminated && state != shm::RankState::absent
                            ? ExitKind::left
                            : ExitKind::plain;
  // The rank is gone, so nothing else writes its state any more: a load and a store suffice.
  // A clean exit after gaspi_proc_term keeps `terminated`. Any other end, including exit(0)
  // without gaspi_proc_term or before gaspi_proc_init, becomes `dead`: a survivor waiting for
  // this rank (in gaspi_proc_init or a collective) must stop waiting.
  if (clean_exit && state == shm::RankState::terminated)
    return kind;
  // seq_cst store before the bell, the producer half of the doorbell protocol (shm/doorbell.hpp).
  slot.state.store(static_cast<std::uint32_t>(shm::RankState::dead), std::memory_order_seq_cst);
  shm::futex_wake_all(block_->bell);
  return kind;
}

bool JobControl::job_ending() noexcept {
  for (std::uint32_t r = 0; r < block_->header.nranks; ++r)
    if ((block_->slot(r).flags.load(std::memory_order_seq_cst) & shm::kSlotEndedJob) != 0)
      return true;
  return false;
}

void JobControl::remove_objects() noexcept {
  if (job_.empty())
    return;
  const std::string prefix = "hygaspi-" + job_ + "-";
  DIR *dir = opendir("/dev/shm");
  if (dir == nullptr)
    return;
  try {
    // Collect first, unlink after: removing entries while readdir walks them is allowed, but
    // collecting keeps the walk simple to reason about.
    std::vector<std::string> names;
    while (dirent *entry = readdir(dir)) {
      if (std::strncmp(entry->d_name, prefix.c_str(), prefix.size()) == 0)
        names.emplace_back(entry->d_name);
    }
    closedir(dir);
    for (const std::string &name : names)
      shm::ShmObject::unlink(name);
  } catch (...) { // out of memory while listing: nothing better to do than leave the rest
  }
}

} // namespace hygaspi::launcher
