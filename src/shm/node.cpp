// shm::Node (shm/node.hpp): the job block, this rank's block, the node-wide
// handshake of init, and the end of a rank (term, abandon, exit, kill). Elsewhere: segments and
// host data movement (node_segments.cpp), failures (node_failures.cpp), the node barrier, groups
// and reductions (node_barrier.cpp, node_group.cpp, node_reduce.cpp).
#include "shm/node.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <unistd.h>

#include "core/log.hpp"
#include "kinds/devices.hpp"

namespace hygaspi::shm {

#define HYGASPI_TRY_NODE(expr)                                                                                         \
  do {                                                                                                                 \
    gaspi_return_t node_rc_ = (expr);                                                                                  \
    if (node_rc_ != GASPI_SUCCESS)                                                                                     \
      return node_rc_;                                                                                                 \
  } while (0)

Node::~Node() {
  // A process that ends with its init pending (it never retried after GASPI_TIMEOUT) failed it.
  if (resumable_)
    abandon();
  term();
}

std::string Node::object_name(const char *kind, std::uint32_t rank, std::uint64_t a, std::uint64_t b,
                              std::uint64_t nonce) const {
  char tail[48];
  std::snprintf(tail, sizeof tail, "-%016llx-p%d", static_cast<unsigned long long>(nonce), pid_of(NodeIndex{rank}));
  return "hygaspi-" + job_ + "-" + kind + std::to_string(rank) + "-" + std::to_string(a) + "-" + std::to_string(b) +
         tail;
}

bool Node::create_object(const char *kind, std::uint64_t a, std::uint64_t b, std::size_t bytes, ShmObject &out,
                         std::uint64_t &nonce, std::string &name, std::string &error, const ShmObject::PlaceFn &place) {
  // 64 random bits make a collision with our own names impossible in practice; a taken name is
  // someone else's. A few tries outlast any squatter, who cannot read the nonces.
  for (int attempt = 0; attempt < 8; ++attempt) {
    if (getentropy(&nonce, sizeof nonce) != 0) {
      error = std::string("getentropy failed: ") + std::strerror(errno);
      return false;
    }
    name = object_name(kind, rank_, a, b, nonce);
    bool taken = false;
    if (ShmObject::create(name, bytes, out, error, place, &taken)) {
      // A standalone job, or a node of one rank (mpirun with HYGASPI_NODE_SIZE=1): no peer will
      // ever open it, so no name need outlive a crash (nothing sweeps /dev/shm under mpirun).
      if (solo_ || nranks_ == 1)
        ShmObject::unlink(name);
      return true;
    }
    if (!taken)
      return false;
    log::warn("shared memory name %s is taken by someone else; trying another", name.c_str());
  }
  return false;
}

std::int32_t Node::pid_of(NodeIndex rank) const noexcept {
  return job_block_->slot(rank.value()).pid.load(std::memory_order_acquire);
}

gaspi_return_t Node::init(const NodeOptions &options, const Deadline &deadline) {
  if (resumable_ && options.job == job_ && options.rank == rank_ && options.nranks == nranks_) {
    // The previous init timed out waiting for peers: everything of this rank is published; go on
    // waiting where it stopped.
    resumable_ = false;
  } else {
    if (resumable_) {
      abandon(); // a different job: the pending one is given up
      resumable_ = false;
    }
    HYGASPI_TRY_NODE(start(options));
  }
  gaspi_return_t rc = map_peers(deadline);
  if (rc == GASPI_TIMEOUT) {
    resumable_ = true;
    return rc;
  }
  if (rc != GASPI_SUCCESS)
    return rc;
  return handshake(deadline);
}

gaspi_return_t Node::start(const NodeOptions &options) {
  job_ = options.job;
  solo_ = job_.empty();
  rank_ = options.rank;
  nranks_ = options.nranks;
  global_ranks_ = options.global_ranks;
  wait_ = options.wait;
  keep_job_block_ = options.keep_job_block;
  cuda_library_ = options.cuda_library;
  std::string error;
  const std::string job_name = solo_ ? std::string() : "hygaspi-" + job_ + "-job";

  if (solo_) {
    // A process started without the launcher is a 1-rank job with a private, random job id.
    std::uint64_t id[2];
    if (getentropy(id, sizeof id) != 0) {
      log::error("getentropy failed: %s", std::strerror(errno));
      return GASPI_ERROR;
    }
    char hex[33];
    std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(id[0]),
                  static_cast<unsigned long long>(id[1]));
    job_ = hex;
    std::string name = "hygaspi-" + job_ + "-job";
    if (!ShmObject::create(name, JobBlock::bytes(1), job_object_, error)) {
      log::error("%s", error.c_str());
      return GASPI_ERR_MEMALLOC;
    }
    ShmObject::unlink(name);
    job_block_ = static_cast<JobBlock *>(job_object_.data());
    job_block_->header = JobHeader{kJobMagic, kLayoutVersion, 1, 0, 0};
    job_block_->slot(0).pid.store(getpid(), std::memory_order_relaxed);
  } else {
    if (kept_job_.mapped() && kept_job_id_ == job_) {
      job_object_ = std::move(kept_job_); // a later life cycle: the name is gone (see init)
    } else if (!ShmObject::open(job_name, JobBlock::bytes(nranks_), job_object_, error)) {
      log::error("%s (was the job started by hygaspi-run, and is it still running?)", error.c_str());
      return GASPI_ERR_ENV;
    }
    kept_job_.reset();
    job_block_ = static_cast<JobBlock *>(job_object_.data());
    const JobHeader &h = job_block_->header;
    if (h.magic != kJobMagic || h.version != kLayoutVersion || h.nranks != nranks_) {
      log::error("job block %s does not match this library (version %u, %u ranks)", job_name.c_str(), h.version,
                 h.nranks);
      job_object_.reset();
      job_block_ = nullptr;
      return GASPI_ERR_ENV;
    }
  }

  JobRankSlot &me = job_block_->slot(rank_);
  epoch_ = me.init_epoch.load(std::memory_order_relaxed) + 1;
  me.pid.store(getpid(), std::memory_order_release); // before any object name is formed
  peers_.clear();
  peers_.resize(nranks_);
  others_.clear();
  for (std::uint32_t r = 0; r < nranks_; ++r)
    if (r != rank_)
      others_.push_back(NodeIndex{r});
  for (auto &p : peers_) {
    p.segments = std::make_unique<std::atomic<const MappedSegment *>[]>(limits::kSegmentSlots);
    for (std::uint32_t s = 0; s < limits::kSegmentSlots; ++s)
      p.segments[s].store(nullptr, std::memory_order_relaxed);
  }

  Peer &self = peers_[rank_];
  self.epoch = epoch_;
  std::uint64_t block_nonce = 0;
  std::string name;
  if (!create_object("r", epoch_, 0, rank_block_bytes(nranks_), self.block_object, block_nonce, name, error)) {
    log::error("%s", error.c_str());
    return GASPI_ERR_MEMALLOC;
  }
  if (!solo_)
    linked_.push_back(name);
  self.block = static_cast<RankBlock *>(self.block_object.data());
  self.block->header = RankHeader{kRankMagic, kLayoutVersion, getpid(), rank_, 0, {}};

  // A second life cycle (gaspi_proc_term, then gaspi_proc_init again) first withdraws the old
  // state, so a peer that reads the new epoch never takes "terminated" or "ready" of the previous
  // life for this one (map_peers reads the epoch first, then the state).
  me.state.store(static_cast<std::uint32_t>(RankState::absent), std::memory_order_seq_cst);
  me.pid.store(getpid(), std::memory_order_relaxed);
  me.block_nonce.store(block_nonce, std::memory_order_relaxed);
  me.death_told.store(0, std::memory_order_relaxed);
  me.init_epoch.store(epoch_, std::memory_order_release);
  me.state.store(static_cast<std::uint32_t>(RankState::ready), std::memory_order_seq_cst);
  shm::futex_wake_all(job_block_->bell);
  return GASPI_SUCCESS;
}

gaspi_return_t Node::map_peers(const Deadline &deadline) {
  for (std::uint32_t r = 0; r < nranks_; ++r) {
    if (r == rank_ || peers_[r].block != nullptr)
      continue; // mapped by an init that timed out later
    JobRankSlot &slot = job_block_->slot(r);
    auto state = [&] { return static_cast<RankState>(slot.state.load(std::memory_order_seq_cst)); };
    // Wait for the peer's life cycle that matches ours (the same number of gaspi_proc_init calls):
    // after a re-init here, a peer still in, or just out of, its previous one does not count.
    // A peer of this life cycle cannot have ended it yet: its init waits until we have mapped it.
    auto arrived = [&] {
      const bool current = slot.init_epoch.load(std::memory_order_acquire) >= epoch_;
      const RankState s = state();
      return s == RankState::dead || (current && s != RankState::absent);
    };
    // Any dead peer ends the wait, not only this one: a peer mapped before may have died since, and
    // its death would otherwise be seen only once every later peer had started (measured under
    // hygaspi-run --keep-going: 19 s, until a late rank arrived, and the message then named it).
    auto dead_peer = [&]() -> std::int64_t {
      for (const NodeIndex p : others_)
        if (job_block_->slot(p.value()).state.load(std::memory_order_seq_cst) ==
            static_cast<std::uint32_t>(RankState::dead))
          return p.value();
      return -1;
    };
    const gaspi_return_t w = wait_until(arrived, deadline, wait_, NoProgress{}, DoorbellSleep{job_block_->bell},
                                        [&] { return dead_peer() < 0; });
    if (w == GASPI_TIMEOUT) {
      log::error("rank %u did not start in time", global_rank(NodeIndex{r}).print());
      return GASPI_TIMEOUT;
    }
    if (!arrived()) { // another peer died meanwhile
      const auto d = static_cast<std::uint32_t>(dead_peer());
      const bool failed = (job_block_->slot(d).flags.load(std::memory_order_acquire) & kSlotInitFailed) != 0;
      log::error("rank %u %s", global_rank(NodeIndex{d}).print(),
                 failed ? "failed in gaspi_proc_init" : "died during gaspi_proc_init");
      return GASPI_ERROR;
    }
    if (state() != RankState::ready) {
      const bool failed = (slot.flags.load(std::memory_order_acquire) & kSlotInitFailed) != 0;
      log::error("rank %u %s", global_rank(NodeIndex{r}).print(),
                 failed ? "failed in gaspi_proc_init" : "died or ended before it initialised");
      return GASPI_ERROR;
    }
    std::string error;
    const std::uint32_t epoch = slot.init_epoch.load(std::memory_order_acquire);
    const std::string name = object_name("r", r, epoch, 0, slot.block_nonce.load(std::memory_order_relaxed));
    if (!ShmObject::open(name, rank_block_bytes(nranks_), peers_[r].block_object, error)) {
      log::error("%s", error.c_str());
      return GASPI_ERROR;
    }
    auto *block = static_cast<RankBlock *>(peers_[r].block_object.data());
    const RankHeader &h = block->header;
    if (h.magic != kRankMagic || h.version != kLayoutVersion || h.rank != r) {
      log::error("rank %u runs an incompatible HyGASPI (layout version %u)", global_rank(NodeIndex{r}).print(),
                 h.version);
      peers_[r].block_object.reset();
      return GASPI_ERROR;
    }
    peers_[r].epoch = epoch;
    peers_[r].block = block;
  }
  return GASPI_SUCCESS;
}

gaspi_return_t Node::handshake(const Deadline &deadline) {
  JobRankSlot &me = job_block_->slot(rank_);
  // seq_cst store before the bell: the producer half of the doorbell protocol (shm/doorbell.hpp).
  me.mapped_epoch.store(epoch_, std::memory_order_seq_cst);
  shm::futex_wake_all(job_block_->bell);
  for (const NodeIndex peer : others_) {
    const std::uint32_t r = peer.value();
    JobRankSlot &slot = job_block_->slot(r);
    // A peer that has mapped us may have ended its life cycle since, or started the next one:
    // mapped_epoch only grows.
    auto mapped = [&] { return slot.mapped_epoch.load(std::memory_order_seq_cst) >= epoch_; };
    auto dead = [&] {
      return slot.state.load(std::memory_order_seq_cst) == static_cast<std::uint32_t>(RankState::dead);
    };
    const gaspi_return_t w =
        wait_until(mapped, deadline, wait_, NoProgress{}, DoorbellSleep{job_block_->bell}, [&] { return !dead(); });
    if (mapped())
      continue;
    // A peer that is still mapping when the time is up has started: we cannot take our ready
    // back from it, so this is a failure, not a resumable timeout.
    const bool failed = (slot.flags.load(std::memory_order_acquire) & kSlotInitFailed) != 0;
    log::error("rank %u %s", r,
               w == GASPI_TIMEOUT ? "did not finish its gaspi_proc_init in time"
               : failed           ? "failed in gaspi_proc_init"
                                  : "died during gaspi_proc_init");
    return GASPI_ERROR;
  }
  // Every node peer has mapped our rank block, and holds the job block: no name
  // is needed any more.
  for (const std::string &name : linked_)
    ShmObject::unlink(name);
  linked_.clear();
  if (!solo_ && rank_ == 0)
    ShmObject::unlink("hygaspi-" + job_ + "-job");
  return GASPI_SUCCESS;
}

bool Node::slot_unclaimed(const std::string &job, std::uint32_t nranks, std::uint32_t rank) {
  ShmObject object;
  std::string error;
  if (!ShmObject::open("hygaspi-" + job + "-job", JobBlock::bytes(nranks), object, error))
    return false; // gone: the job's ranks have all initialised, so this one too
  auto *block = static_cast<JobBlock *>(object.data());
  if (block->header.magic != kJobMagic || block->header.version != kLayoutVersion || block->header.nranks != nranks ||
      rank >= nranks)
    return false;
  const JobRankSlot &slot = block->slot(rank);
  return slot.init_epoch.load(std::memory_order_acquire) == 0 &&
         slot.state.load(std::memory_order_acquire) == static_cast<std::uint32_t>(RankState::absent);
}

gaspi_return_t Node::create_job_block(const std::string &job, std::uint32_t nranks, ShmObject &out) {
  std::string error;
  if (!ShmObject::create("hygaspi-" + job + "-job", JobBlock::bytes(nranks), out, error)) {
    log::error("%s", error.c_str());
    return GASPI_ERR_MEMALLOC;
  }
  // The creator stands in for a launcher: while it lives, reclaim_stale_objects() keeps the block.
  static_cast<JobBlock *>(out.data())->header = JobHeader{kJobMagic, kLayoutVersion, nranks, getpid(), 0};
  return GASPI_SUCCESS;
}

void Node::term() noexcept { release(RankState::terminated); }

void Node::leaving() noexcept {
  if (job_block_ == nullptr || solo_)
    return;
  job_block_->slot(rank_).state.store(static_cast<std::uint32_t>(RankState::terminated), std::memory_order_seq_cst);
  shm::futex_wake_all(job_block_->bell);
}

void Node::abandon() noexcept {
  resumable_ = false;
  if (job_block_ != nullptr && !solo_) {
    JobRankSlot &me = job_block_->slot(rank_);
    me.flags.fetch_or(kSlotInitFailed, std::memory_order_seq_cst);
  }
  release(RankState::dead);
}

void Node::leave_at_exit(bool clean) noexcept {
  if (job_block_ == nullptr || solo_)
    return;
  JobRankSlot &me = job_block_->slot(rank_);
  if (resumable_) // its init is pending: it failed it
    me.flags.fetch_or(kSlotInitFailed, std::memory_order_seq_cst);
  const RankState end = clean && !resumable_ ? RankState::terminated : RankState::dead;
  me.state.store(static_cast<std::uint32_t>(end), std::memory_order_seq_cst);
  shm::futex_wake_all(job_block_->bell);
}

void Node::end_job(std::int32_t code) noexcept {
  if (job_block_ == nullptr || solo_)
    return;
  note_job_end(code, true);
  job_block_->slot(rank_).state.store(static_cast<std::uint32_t>(RankState::terminated), std::memory_order_seq_cst);
  shm::futex_wake_all(job_block_->bell);
}

void Node::note_job_end(std::int32_t code, bool asked) noexcept {
  if (job_block_ == nullptr || solo_)
    return;
  JobRankSlot &me = job_block_->slot(rank_);
  me.exit_code.store(code, std::memory_order_relaxed);
  me.flags.fetch_or(asked ? kSlotEndedJob : kSlotFollowedEnd, std::memory_order_seq_cst); // publishes the code
}

bool Node::kill(NodeIndex rank) noexcept {
  JobRankSlot &slot = job_block_->slot(rank.value());
  const pid_t pid = slot.pid.load(std::memory_order_acquire);
  if (pid <= 0)
    return false;
  // The mark comes first: the launcher reaps the victim only after the SIGKILL, and must find
  // the death intended by then.
  slot.flags.fetch_or(kSlotKilled, std::memory_order_seq_cst);
  if (::kill(pid, SIGKILL) != 0 && errno != ESRCH)
    return false;
  // The victim cannot write its state any more once the signal is delivered; survivors on this
  // node need not wait for the launcher to see it dead.
  slot.state.store(static_cast<std::uint32_t>(RankState::dead), std::memory_order_seq_cst);
  shm::futex_wake_all(job_block_->bell);
  return true;
}

void Node::release(RankState final_state) noexcept {
  if (job_block_ == nullptr)
    return;
  if (!peers_.empty() && peers_[rank_].block != nullptr)
    for (std::uint32_t s = 0; s < limits::kSegmentSlots; ++s)
      if (local(s) != nullptr)
        segment_delete(s);
  for (const std::string &name : linked_) // an init that did not finish
    ShmObject::unlink(name);
  linked_.clear();
  JobRankSlot &me = job_block_->slot(rank_);
  if (me.state.load(std::memory_order_seq_cst) != static_cast<std::uint32_t>(RankState::dead))
    me.state.store(static_cast<std::uint32_t>(final_state), std::memory_order_seq_cst);
  shm::futex_wake_all(job_block_->bell);
  watch_.reset();
  for (const auto &m : mappings_)
    if (m->imported) {
      std::string why;
      if (kinds::CudaDevice *dev = kinds::device(cuda_library_, m->device, why); dev != nullptr)
        dev->unimport(m->key);
    }
  mappings_.clear();
  imported_.clear();
  imported_count_.store(0, std::memory_order_release);
  peers_.clear();
  if (!solo_ && keep_job_block_) {
    kept_job_ = std::move(job_object_);
    kept_job_id_ = job_;
  }
  job_object_.reset();
  job_block_ = nullptr;
}

} // namespace hygaspi::shm
