// RMA on engine segments by (rank, segment id): a copy on a node, MPI on the segment's window
// across nodes (bridge/segment_rma.hpp).
#include "bridge/segment_rma.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <iterator>
#include <string>

#include "bridge/engine.hpp"
#include "bridge/progress.hpp"
#include "bridge/remote_device.hpp"
#include "bridge/runtime.hpp"
#include "core/log.hpp"

namespace hygaspi::engine {

namespace {

using Window = mpi::Window;

// The window of segment `id` (mpi::Rma holds them all), or nullptr.
Window *window_of(std::uint32_t id) noexcept { return rt().rma.active() ? rt().rma.window(id) : nullptr; }

// A copy of n bytes, scalars as one load and one store: clients move single values this way, and
// a call to memcpy for 8 bytes costs more than the rest of the path.
inline void copy(void *to, const void *from, std::size_t n) noexcept {
  switch (n) {
  case 1:
    std::memcpy(to, from, 1);
    return;
  case 2:
    std::memcpy(to, from, 2);
    return;
  case 4:
    std::memcpy(to, from, 4);
    return;
  case 8:
    std::memcpy(to, from, 8);
    return;
  default:
    std::memcpy(to, from, n);
  }
}

} // namespace

void Completion::add(std::uint32_t segment, GlobalRank target, std::uint64_t ticket) {
  for (auto &p : pending_)
    if (p.segment == segment && p.rank == target.value()) {
      p.ticket = std::max(p.ticket, ticket); // tickets grow: the last one covers the earlier
      return;
    }
  pending_.push_back(Pending{segment, target.value(), ticket});
}

Completion::~Completion() {
  if (!copies_.empty())
    (void)wait_until([this] { return copies_done(); }, Deadline(GASPI_BLOCK), WaitPolicy{}, Step(), Nap{},
                     kAlwaysHealthy);
}

void Completion::add(kinds::CudaDevice &device, const kinds::Copy &copy) { copies_.push_back(InFlight{&device, copy}); }

void Completion::add(AtomicFlightPtr flight, GlobalRank target, void *result, unsigned width) {
  atomics_.push_back(Atomic{std::move(flight), target.value(), width, result});
}

void Completion::add(RemoteTransferPtr transfer) { remote_.push_back(std::move(transfer)); }

void Completion::merge(Completion &other) {
  for (const Pending &p : other.pending_)
    add(p.segment, GlobalRank{p.rank}, p.ticket);
  other.pending_.clear();
  copies_.insert(copies_.end(), other.copies_.begin(), other.copies_.end());
  other.copies_.clear();
  std::move(other.atomics_.begin(), other.atomics_.end(), std::back_inserter(atomics_));
  other.atomics_.clear();
  std::move(other.remote_.begin(), other.remote_.end(), std::back_inserter(remote_));
  other.remote_.clear();
  failed_ = failed_ || other.failed_;
  other.failed_ = false;
}

bool Completion::copies_done() {
  // A stream completes its copies in order, so the first one still running ends the look (one on
  // another device's stream that is done already leaves at a later look).
  std::size_t done = 0;
  for (; done < copies_.size(); ++done) {
    std::string why;
    if (!copies_[done].device->test(copies_[done].copy, why))
      break;
    if (!why.empty()) {
      log::error("a copy on CUDA device %d failed: %s", copies_[done].device->ordinal(), why.c_str());
      failed_ = true;
    }
  }
  copies_.erase(copies_.begin(), copies_.begin() + static_cast<std::ptrdiff_t>(done));
  return copies_.empty();
}

bool Completion::atomics_done() {
  // Replies arrive in any order: every atomic gets its look.
  std::erase_if(atomics_, [this](Atomic &a) {
    gaspi_return_t rc = GASPI_SUCCESS;
    std::uint64_t old = 0;
    if (!test_atomic(*a.flight, rc, old))
      return false;
    if (rc != GASPI_SUCCESS) {
      log::error("rank %u could not apply an atomic to its segment", a.rank);
      failed_ = true;
    } else if (a.result != nullptr && a.width == 4) {
      *static_cast<std::uint32_t *>(a.result) = static_cast<std::uint32_t>(old);
    } else if (a.result != nullptr) {
      *static_cast<std::uint64_t *>(a.result) = old;
    }
    return true;
  });
  return atomics_.empty();
}

bool Completion::remote_done() {
  std::erase_if(remote_, [this](const RemoteTransferPtr &t) {
    gaspi_return_t rc = GASPI_SUCCESS;
    if (!test_remote_device(*t, rc))
      return false;
    failed_ = failed_ || rc != GASPI_SUCCESS; // logged by the transfer
    return true;
  });
  return remote_.empty();
}

bool Completion::ready() {
  // Each kind looked at, whatever the others answer.
  const bool copies = copies_.empty() || copies_done();
  const bool remote = remote_.empty() || remote_done();
  return (atomics_.empty() || atomics_done()) && copies && remote;
}

gaspi_return_t Completion::settle() {
  Runtime &r = rt();
  if (!copies_.empty())
    (void)wait_until([this] { return copies_done(); }, Deadline(GASPI_BLOCK), r.node.wait_policy(), Step(), Nap{},
                     kAlwaysHealthy);
  if (!remote_.empty()) // each transfer gives itself up when its owner dies
    (void)wait_until([this] { return remote_done(); }, Deadline(GASPI_BLOCK), r.node.wait_policy(), mpi_progress(),
                     Nap{}, kAlwaysHealthy);
  if (!atomics_.empty()) {
    auto targets_alive = [this, &r] {
      return std::all_of(atomics_.begin(), atomics_.end(),
                         [&r](const Atomic &a) { return r.alive(r.peers[GlobalRank{a.rank}]); });
    };
    if (wait_until([this] { return atomics_done(); }, Deadline(GASPI_BLOCK), r.node.wait_policy(), mpi_progress(),
                   Nap{}, Step(targets_alive)) != GASPI_SUCCESS) {
      log::error("an atomic's target died before it replied");
      atomics_.clear(); // each flight gives its reply receive up
      failed_ = true;
    }
  }
  gaspi_return_t rc = failed_ ? GASPI_ERROR : GASPI_SUCCESS;
  failed_ = false;
  for (const Pending &p : pending_) {
    Window *w = window_of(p.segment);
    if (w == nullptr || w->flush(r.peers[GlobalRank{p.rank}].mpi, p.ticket) != GASPI_SUCCESS)
      rc = GASPI_ERROR;
  }
  pending_.clear();
  return rc;
}

gaspi_return_t copy_now(kinds::CudaDevice &device, void *dst, const void *src, std::size_t n) {
  kinds::Copy copy;
  std::string why;
  if (!device.start_copy(dst, src, n, copy, why)) {
    log::error("CUDA device %d: %s", device.ordinal(), why.c_str());
    return GASPI_ERROR;
  }
  Completion done;
  done.add(device, copy);
  return done.settle();
}

gaspi_return_t open_window(std::uint32_t id, void *base, std::uint64_t size) {
  Runtime &r = rt();
  if (!r.peers.spans_nodes())
    return GASPI_SUCCESS;
  if (r.rma.window(id) != nullptr)
    return GASPI_ERROR; // one window per segment id
  const auto kind = r.knobs.dynamic_window ? Window::Kind::dynamic : Window::Kind::regular;
  return r.rma.open_window(id, {base, size}, 0, kind);
}

gaspi_return_t put(GlobalRank target, std::uint32_t id, std::uint64_t offset, const void *local, std::size_t n,
                   Complete complete, Completion *pending) {
  if (char *mapped = mapping(target, id)) {
    copy(mapped + offset, local, n);
    return GASPI_SUCCESS;
  }
  Window *w = window_of(id);
  if (w == nullptr)
    return GASPI_ERROR;
  const MpiRank mpi_rank = rt().peers[target].mpi;
  const Window::Complete c = pending == nullptr || complete == Complete::remote ? Window::Complete::remote
                             : complete == Complete::local                      ? Window::Complete::local
                                                                                : Window::Complete::none;
  std::uint64_t ticket = 0;
  const gaspi_return_t rc = w->put(mpi_rank, offset, local, n, c, ticket);
  if (rc == GASPI_SUCCESS && c != Window::Complete::remote)
    pending->add(id, target, ticket);
  return rc;
}

gaspi_return_t get(void *local, GlobalRank target, std::uint32_t id, std::uint64_t offset, std::size_t n,
                   Completion *pending) {
  if (const char *mapped = mapping(target, id)) {
    copy(local, mapped + offset, n);
    return GASPI_SUCCESS;
  }
  Window *w = window_of(id);
  if (w == nullptr)
    return GASPI_ERROR;
  const MpiRank mpi_rank = rt().peers[target].mpi;
  if (pending == nullptr)
    return w->get(local, mpi_rank, offset, n);
  std::uint64_t ticket = 0;
  const gaspi_return_t rc = w->get_nb(local, mpi_rank, offset, n, ticket);
  if (rc == GASPI_SUCCESS)
    pending->add(id, target, ticket);
  return rc;
}

} // namespace hygaspi::engine
