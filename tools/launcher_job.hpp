// The launcher's side of the job block (shm/layout.hpp) and the job's names in /dev/shm.
#pragma once
#include <cstdint>
#include <string>
#include <sys/types.h>

#include "shm/layout.hpp"
#include "shm/shm_object.hpp"

namespace hygaspi::launcher {

// 32 lower-case hex digits from getentropy(): unguessable, so no other user can predict a name
// (the objects are 0600 as well). Returns "" and fills `error` when the kernel gives no entropy.
std::string make_job_id(std::string &error);

// What the rank's job slot says about its end (shm::kSlot* flags).
enum class ExitKind {
  plain,       // judge by the exit status
  init_failed, // its gaspi_proc_init failed: a failure of the job, whatever the exit status
  killed,      // gaspi_proc_kill by a peer: intended, not a failure (GPI-2 lets the job go on)
  ended_job,   // it ended the job with a code of its own (gasnet_exit), which replaces the status
  followed,    // it left with the code of another rank's gasnet_exit, which replaces the status
  left,        // it exited 0 after init without term: its peers see it dead; a failure of the job
};

class JobControl {
public:
  // Creates "hygaspi-<job>-job" for `nranks` ranks and fills its header; every slot is absent.
  bool create(const std::string &job, std::uint32_t nranks, std::string &error);

  [[nodiscard]] const std::string &job() const noexcept { return job_; }

  void set_pid(std::uint32_t rank, pid_t pid) noexcept;
  // Records the exit of `rank` and, unless it ended cleanly through gaspi_proc_term, marks it
  // dead and wakes every waiter of the job, so that survivors stop waiting for it.
  // Returns what the slot says about the end.
  // `exit_code` is the process's; for ended_job it becomes the code the rank asked for.
  ExitKind rank_exited(std::uint32_t rank, std::int32_t &exit_code, bool clean_exit) noexcept;
  // Whether a rank has begun to end the job (gasnet_exit marks itself before it kills its node
  // peers, so their deaths are part of that end, not a gaspi_proc_kill).
  [[nodiscard]] bool job_ending() noexcept;

  // Removes every /dev/shm object of this job, including ones that crashed ranks left behind
  // ("hygaspi-<job>-r*", "-s*") and the job block itself. The mapping stays valid.
  void remove_objects() noexcept;

private:
  std::string job_;
  shm::ShmObject object_;
  shm::JobBlock *block_ = nullptr;
};

} // namespace hygaspi::launcher
