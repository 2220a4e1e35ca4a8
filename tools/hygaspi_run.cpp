// hygaspi-run: the single-node launcher (docs/DESIGN.md "Who uses it and how").
//
//   hygaspi-run [options] -n N [--] prog args...
//
// It creates the job block in /dev/shm, forks N ranks with HYGASPI_JOB/RANK/NRANKS set, and then
// waits in one poll() loop for three kinds of events: signals (SIGCHLD, SIGINT, SIGTERM, SIGHUP,
// all read from a signalfd so that no work happens in a signal handler), rank output (--prefix),
// and deadlines (--timeout, and the SIGTERM -> SIGKILL grace period). When a rank exits it
// records the exit in the job block and marks the rank dead unless it ended through
// gaspi_proc_term, so that survivors stop waiting for it. The first failure ends the job
// (with --keep-going the others run on; the exit code is still the first failure's).
// Whatever happens, every process of the job is gone and /dev/shm holds nothing of the job when
// the launcher returns.
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <optional>
#include <poll.h>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include <unordered_map>
#include <vector>

#include "launcher_job.hpp"
#include "launcher_options.hpp"
#include "launcher_output.hpp"
#include "launcher_procs.hpp"
#include "shm/reclaim.hpp"

namespace hygaspi::launcher {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr auto kGrace = 1s;       // SIGTERM first; whoever is left after this gets SIGKILL
constexpr int kExitTimeout = 124; // as timeout(1)
constexpr int kExitLauncher = 1;  // the launcher itself failed (shm, fork, ...)

const char *signal_name(int sig) noexcept {
  const char *name = sigabbrev_np(sig); // null for real-time signals
  return name != nullptr ? name : "?";
}

class Launcher {
public:
  explicit Launcher(Options options) : options_(std::move(options)) {}
  ~Launcher();
  Launcher(const Launcher &) = delete;
  Launcher &operator=(const Launcher &) = delete;

  int run();

private:
  bool setup();
  void start_ranks();
  void event_loop();
  void handle_signals();
  void reap() noexcept;
  void rank_exited(std::uint32_t rank, int status) noexcept;
  // The job's exit code is the first of the strongest reasons recorded. A code a rank exited with
  // or the launcher chose (non-zero) beats the 1 the launcher gives a rank that exited 0 without
  // ending its session, which beats the 0 of a rank's gasnet_exit(0): GASNet lets the job's code
  // be any of the codes its ranks asked for at once (G1 section 2.1.5, "chosen arbitrarily"), and
  // a script must see the failure, whichever rank the launcher reaped first.
  enum class Reason { asked_zero, made_up, given };
  void record(int exit_code, Reason reason) noexcept;
  void end_job(int exit_code, Reason reason = Reason::given) noexcept;
  void finish() noexcept;
  [[nodiscard]] std::vector<pid_t> live_ranks() const;
  [[nodiscard]] int poll_timeout_ms() const;

  Options options_;
  JobControl job_;
  sigset_t child_mask_{}; // the mask to give back to the ranks
  int signal_fd_ = -1;
  std::vector<pid_t> pids_; // per rank; 0 once reaped (a reaped pid may be reused by others)
  std::unordered_map<pid_t, std::uint32_t> rank_of_;
  std::uint32_t live_ = 0;
  std::vector<std::unique_ptr<LineForwarder>> outputs_;
  std::optional<int> exit_code_; // record()
  Reason exit_reason_ = Reason::asked_zero;
  bool ending_ = false; // SIGTERM sent to the job
  bool killed_ = false; // SIGKILL sent to the job
  bool finished_ = false;
  std::optional<Clock::time_point> timeout_at_;
  Clock::time_point kill_at_{};
};

Launcher::~Launcher() {
  // Only an exception or an early return gets here unfinished: leave no rank running.
  if (!finished_) {
    signal_job(live_ranks(), SIGKILL);
    for (pid_t pid : pids_)
      if (pid > 0)
        while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
    job_.remove_objects();
  }
  if (signal_fd_ >= 0)
    close(signal_fd_);
}

std::vector<pid_t> Launcher::live_ranks() const {
  std::vector<pid_t> live;
  for (pid_t pid : pids_)
    if (pid > 0)
      live.push_back(pid);
  return live;
}

bool Launcher::setup() {
  // Signals arrive through the signalfd only. SIGCHLD must be blocked before the first fork so
  // that no exit is missed; an inherited SIG_IGN for SIGCHLD would make the kernel reap the
  // ranks itself and lose their exit codes.
  std::signal(SIGCHLD, SIG_DFL);
  std::signal(SIGPIPE, SIG_IGN); // a closed stdout must not kill the launcher and orphan the job
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP})
    sigaddset(&mask, sig);
  if (sigprocmask(SIG_BLOCK, &mask, &child_mask_) != 0 ||
      (signal_fd_ = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
    std::fprintf(stderr, "hygaspi-run: cannot set up signal handling: %s\n", std::strerror(errno));
    return false;
  }
  // Orphaned grandchildren are re-parented to us, so the kill sequence still finds them.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  if (options_.prefix) {
    // Two pipes per rank: 4096 ranks need more descriptors than the usual soft limit of 1024.
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
      limit.rlim_cur = limit.rlim_max;
      setrlimit(RLIMIT_NOFILE, &limit);
    }
  }
  // Objects of jobs whose processes are all gone (a launcher killed with SIGKILL cannot clean up
  // after itself; its ranks die with it through PR_SET_PDEATHSIG): every start sweeps them.
  shm::reclaim_stale_objects();
  std::string error;
  std::string job = make_job_id(error);
  if (job.empty() || !job_.create(job, options_.nranks, error)) {
    std::fprintf(stderr, "hygaspi-run: %s\n", error.c_str());
    return false;
  }
  if (options_.timeout_s > 0)
    timeout_at_ =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.timeout_s));
  return true;
}

void Launcher::start_ranks() {
  pids_.assign(options_.nranks, 0);
  std::vector<cpu_set_t> affinity; // --bind: one CPU set per rank, empty without
  if (std::string error; !bind_sets(options_.bind, options_.nranks, affinity, error)) {
    std::fprintf(stderr, "hygaspi-run: %s\n", error.c_str());
    end_job(kExitLauncher);
    return;
  }
  for (std::uint32_t r = 0; r < options_.nranks; ++r) {
    RankSpawn spawn{r, options_.nranks, &job_.job(), &options_.command, &child_mask_};
    if (!affinity.empty())
      spawn.affinity = &affinity[r];
    int out_pipe[2] = {-1, -1};
    int err_pipe[2] = {-1, -1};
    if (options_.prefix) {
      if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
        std::fprintf(stderr, "hygaspi-run: cannot create output pipes for rank %u: %s\n", r, std::strerror(errno));
        for (int fd : {out_pipe[0], out_pipe[1]})
          if (fd >= 0)
            close(fd);
        end_job(kExitLauncher);
        return;
      }
      spawn.stdout_fd = out_pipe[1];
      spawn.stderr_fd = err_pipe[1];
    }
    pid_t pid = spawn_rank(spawn);
    int fork_errno = errno;
    if (options_.prefix) {
      // The parent keeps only the read ends; EOF then means every writer has gone.
      close(out_pipe[1]);
      close(err_pipe[1]);
      for (int fd : {out_pipe[0], err_pipe[0]})
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
      outputs_.push_back(std::make_unique<LineForwarder>(r, out_pipe[0], STDOUT_FILENO));
      outputs_.push_back(std::make_unique<LineForwarder>(r, err_pipe[0], STDERR_FILENO));
    }
    if (pid < 0) {
      std::fprintf(stderr, "hygaspi-run: cannot start rank %u: %s\n", r, std::strerror(fork_errno));
      end_job(kExitLauncher);
      return;
    }
    pids_[r] = pid;
    rank_of_[pid] = r;
    ++live_;
    job_.set_pid(r, pid);
  }
}

int Launcher::poll_timeout_ms() const {
  std::optional<Clock::time_point> next = timeout_at_;
  if (ending_ && !killed_ && (!next || kill_at_ < *next))
    next = kill_at_;
  if (!next)
    return -1;
  auto left = *next - Clock::now();
  if (left <= Clock::duration::zero())
    return 0;
  // Round up: waking a little early would only make the loop poll again with 0 ms.
  return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(left).count());
}

void Launcher::event_loop() {
  std::vector<pollfd> fds;
  std::vector<LineForwarder *> sources;
  while (live_ > 0) {
    fds.assign(1, pollfd{signal_fd_, POLLIN, 0});
    sources.assign(1, nullptr);
    for (auto &out : outputs_)
      if (out->open()) {
        fds.push_back(pollfd{out->fd(), POLLIN, 0});
        sources.push_back(out.get());
      }
    int ready = poll(fds.data(), fds.size(), poll_timeout_ms());
    if (ready < 0 && errno != EINTR)
      throw std::runtime_error(std::string("poll failed: ") + std::strerror(errno));
    for (std::size_t i = 1; ready > 0 && i < fds.size(); ++i)
      if (fds[i].revents != 0)
        sources[i]->pump();
    if (ready > 0 && fds[0].revents != 0)
      handle_signals();
    reap(); // also after a timeout or a coalesced SIGCHLD: WNOHANG makes it cheap

    const auto now = Clock::now();
    if (timeout_at_ && now >= *timeout_at_) {
      timeout_at_.reset();
      if (live_ > 0) {
        std::fprintf(stderr, "hygaspi-run: timeout after %g s, terminating the job\n", options_.timeout_s);
        end_job(kExitTimeout);
      }
    }
    if (ending_ && !killed_ && now >= kill_at_) {
      killed_ = true;
      signal_job(live_ranks(), SIGKILL);
    }
  }
}

void Launcher::handle_signals() {
  signalfd_siginfo info{};
  while (read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    int sig = static_cast<int>(info.ssi_signo);
    if (sig == SIGCHLD)
      continue; // reap() runs after every wake-up
    if (!ending_) {
      std::fprintf(stderr, "hygaspi-run: caught SIG%s, terminating the job\n", signal_name(sig));
      end_job(128 + sig);
    } else if (!killed_) {
      // A second interrupt (impatient Ctrl-C): skip the rest of the grace period.
      killed_ = true;
      signal_job(live_ranks(), SIGKILL);
    }
  }
}

void Launcher::reap() noexcept {
  for (;;) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0)
      return; // 0: nobody else has exited; -1: ECHILD
    auto it = rank_of_.find(pid);
    if (it == rank_of_.end())
      continue; // an orphaned grandchild re-parented to us (subreaper)
    std::uint32_t rank = it->second;
    rank_of_.erase(it);
    pids_[rank] = 0;
    --live_;
    rank_exited(rank, status);
  }
}

void Launcher::rank_exited(std::uint32_t rank, int status) noexcept {
  const bool signalled = WIFSIGNALED(status);
  int code = signalled ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  const ExitKind kind = job_.rank_exited(rank, code, !signalled && code == 0);
  if (kind == ExitKind::ended_job) {
    // gasnet_exit(code): the job's code, even when another exiting rank's kill came first.
    if (code != 0)
      std::fprintf(stderr, "hygaspi-run: rank %u ended the job with code %d\n", rank, code);
    end_job(code);
    return;
  }
  if (kind == ExitKind::followed) { // the rank that asked for the end says so when it is reaped
    end_job(code);
    return;
  }
  if (ending_)
    return; // after the job was told to end, deaths are expected and not reported
  if (kind == ExitKind::killed && signalled && WTERMSIG(status) == SIGKILL) {
    // A rank ending the job (gasnet_exit) kills its node peers: the end it reports says it all.
    // Otherwise gaspi_proc_kill: the survivors go on, as with GPI-2.
    if (!job_.job_ending())
      std::fprintf(stderr, "hygaspi-run: rank %u killed by a peer's gaspi_proc_kill; the job goes on\n", rank);
    return;
  }
  Reason reason = Reason::given;
  if (kind == ExitKind::init_failed && code == 0) {
    // Its peers failed their init because of it: the job failed, whatever this rank returned.
    std::fprintf(stderr, "hygaspi-run: rank %u exited with code 0 after its gaspi_proc_init failed\n", rank);
    code = 1;
    reason = Reason::made_up;
  } else if (kind == ExitKind::left) {
    // Its peers see it dead and may go on (fault-tolerant programs do); the job still failed.
    std::fprintf(stderr,
                 "hygaspi-run: rank %u exited with code 0 without gaspi_proc_term or gasnet_exit; its peers see it "
                 "dead\n",
                 rank);
    record(1, Reason::made_up);
    return;
  } else if (code == 0) {
    return;
  } else if (signalled) {
    std::fprintf(stderr, "hygaspi-run: rank %u killed by signal SIG%s\n", rank, signal_name(WTERMSIG(status)));
  } else {
    std::fprintf(stderr, "hygaspi-run: rank %u exited with code %d\n", rank, code);
  }
  if (options_.keep_going) { // the survivors see it dead and handle the failure themselves
    record(code, reason);
    return;
  }
  end_job(code, reason);
}

void Launcher::record(int exit_code, Reason reason) noexcept {
  if (exit_code_ && reason <= exit_reason_)
    return;
  exit_code_ = exit_code;
  exit_reason_ = reason;
}

void Launcher::end_job(int exit_code, Reason reason) noexcept {
  record(exit_code, exit_code == 0 ? Reason::asked_zero : reason);
  if (ending_)
    return;
  ending_ = true;
  kill_at_ = Clock::now() + kGrace;
  signal_job(live_ranks(), SIGTERM);
}

void Launcher::finish() noexcept {
  // Every rank is reaped. What remains are processes the ranks left behind (`cmd &`); the job is
  // over, so they go too. A few rounds catch ones forked while the previous round ran.
  for (int round = 0; round < 20; ++round) {
    std::vector<pid_t> rest;
    try {
      rest = descendants();
    } catch (...) {
      break;
    }
    if (rest.empty())
      break;
    for (pid_t pid : rest)
      kill(pid, SIGKILL);
    pollfd fd{signal_fd_, POLLIN, 0};
    poll(&fd, 1, 50); // wake on their SIGCHLD; bounded so that a grandchild's child still goes
    handle_signals();
    reap();
  }
  for (auto &out : outputs_)
    out->drain_and_close();
  job_.remove_objects();
  finished_ = true;
}

int Launcher::run() {
  if (!setup())
    return kExitLauncher;
  start_ranks();
  event_loop();
  finish();
  return exit_code_.value_or(0);
}

} // namespace
} // namespace hygaspi::launcher

int main(int argc, char **argv) {
  using namespace hygaspi::launcher;
  Options options;
  std::string error;
  switch (parse_options(argc, argv, options, error)) {
  case ParseResult::help:
    print_usage(stdout);
    return 0;
  case ParseResult::error:
    std::fprintf(stderr, "hygaspi-run: %s\n", error.c_str());
    print_usage(stderr);
    return 2;
  case ParseResult::run:
    break;
  }
  try {
    Launcher launcher(std::move(options));
    return launcher.run();
  } catch (const std::exception &e) {
    // ~Launcher has killed the ranks and removed the job's objects by now.
    std::fprintf(stderr, "hygaspi-run: %s\n", e.what());
    return kExitLauncher;
  }
}
