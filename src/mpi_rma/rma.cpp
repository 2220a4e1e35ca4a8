#include "mpi_rma/rma.hpp"

#include <algorithm>
#include <climits>

#include "core/log.hpp"
#include "mpi_rma/mpi_call.hpp"
#include "mpi_rma/tags.hpp"

namespace hygaspi::mpi {

namespace {
constexpr std::uint64_t kChunk = 1ull << 30; // MPI counts are int: move large transfers in chunks

// Runs op(done, n) over [0, size) in chunks of at most kChunk bytes; stops at the first failure.
template <class Op> gaspi_return_t in_chunks(std::uint64_t size, Op &&op) {
  for (std::uint64_t done = 0; done < size; done += kChunk)
    HYGASPI_TRY(op(done, static_cast<int>(std::min(kChunk, size - done))));
  return GASPI_SUCCESS;
}

MPI_Aint address_of(const void *p) {
  MPI_Aint a = 0;
  (void)HYGASPI_MPI(MPI_Get_address(p, &a)); // cannot fail for a valid pointer
  return a;
}
} // namespace

gaspi_return_t Rma::init(Env &env) {
  env_ = &env;
  auto lock = env.lock();
  tickets_.reset(static_cast<std::size_t>(env.size()));
  table_.assign(static_cast<std::size_t>(env.size()) * limits::kSegmentSlots, RemoteSegment{});
  table_at_.assign(static_cast<std::size_t>(env.size()), 0);
  attachments_.clear();
  attached_.assign(limits::kSegmentSlots, std::array<std::uint64_t, 2>{});
  attach_limit_ = osc_rdma_max_attach();
  MPI_Info info;
  HYGASPI_TRY(HYGASPI_MPI(MPI_Info_create(&info)));
  // No MPI_Accumulate is used on this window: let the component skip accumulate ordering.
  gaspi_return_t created = HYGASPI_MPI(MPI_Info_set(info, "accumulate_ordering", "none"));
  if (created == GASPI_SUCCESS)
    created = HYGASPI_MPI(MPI_Win_create_dynamic(info, env.comm(), &win_));
  (void)HYGASPI_MPI(MPI_Info_free(&info));
  if (created != GASPI_SUCCESS) {
    // Typical in interop mode on Debian's Open MPI: the system file disables osc/ucx and
    // osc/pt2pt, and osc/rdma cannot serve this job (docs/PLATFORM.md).
    log::error("no MPI one-sided component can serve this job (OMPI_MCA_osc=%s): osc/rdma needs "
               "CMA between the processes of a host and RDMA between hosts. Run with "
               "OMPI_MCA_osc=sm,rdma,pt2pt and MPI_THREAD_SERIALIZED or lower, or with OMPI_MCA_pml=ucx "
               "OMPI_MCA_osc=ucx where UCX is available",
               env.osc());
    return created;
  }
  HYGASPI_TRY(HYGASPI_MPI(MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN)));
  HYGASPI_TRY(
      HYGASPI_MPI(MPI_Win_attach(win_, table_.data(), static_cast<MPI_Aint>(table_.size() * sizeof(RemoteSegment)))));
  std::uint64_t mine = static_cast<std::uint64_t>(address_of(table_.data()));
  HYGASPI_TRY(HYGASPI_MPI(MPI_Allgather(&mine, 1, MPI_UINT64_T, table_at_.data(), 1, MPI_UINT64_T, env.comm())));
  return HYGASPI_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_));
}

void Rma::term() noexcept {
  if (win_ == MPI_WIN_NULL)
    return;
  // Every rank reaches gaspi_proc_term, and the members of a window opened it in the same order
  // relative to the other windows they share (each open is collective and waits for them all):
  // close them in that order (each MPI_Win_free waits for the window's members).
  for (auto &w : windows_)
    w.store(nullptr, std::memory_order_relaxed);
  for (std::uint32_t i = 0; i < opened_count_.load(std::memory_order_acquire); ++i) {
    opened_[i]->window.close();
    opened_[i].reset();
  }
  opened_count_.store(0, std::memory_order_release);
  auto lock = env_->lock();
  for (GroupComm &g : comms_) // after every window over it
    (void)HYGASPI_MPI(MPI_Comm_free(&g.comm));
  comms_.clear();
  // Teardown: a failure is logged and the rest still runs.
  (void)HYGASPI_MPI(MPI_Win_unlock_all(win_));
  // Every rank reaches gaspi_proc_term; MPI_Win_free is collective and waits for all of them.
  (void)HYGASPI_MPI(MPI_Win_free(&win_));
  table_.clear();
  attachments_.clear();
  attached_.clear();
}

gaspi_return_t Rma::attach(std::uint32_t seg, const std::array<Range, 2> &ranges) {
  auto lock = env_->lock();
  std::array<std::uint64_t, 2> used{};
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    if (ranges[i].size == 0)
      continue;
    if (const gaspi_return_t rc =
            acquire(seg, reinterpret_cast<std::uint64_t>(ranges[i].base), ranges[i].size, used[i]);
        rc != GASPI_SUCCESS) {
      release(used[0]); // leave nothing attached for a failed attach
      return rc;
    }
  }
  attached_[seg] = used;
  return GASPI_SUCCESS;
}

void Rma::detach(std::uint32_t seg) noexcept {
  auto lock = env_->lock();
  for (const std::uint64_t base : attached_[seg])
    release(base);
  attached_[seg] = {};
}

gaspi_return_t Rma::acquire(std::uint32_t seg, std::uint64_t base, std::uint64_t size, std::uint64_t &used) {
  const std::uint64_t end = base + size; // allocate() refused bound memory that wraps around
  for (Attachment &a : attachments_) {
    // Inside an attachment (a segment bound over part of another): share it. No two attachments
    // overlap, so no other one meets the range.
    if (base >= a.base && end <= a.base + a.size) {
      ++a.users;
      used = a.base;
      return GASPI_SUCCESS;
    }
    if (base < a.base + a.size && a.base < end) {
      log::error("segment %u: %lu bytes at %p overlap the %lu bytes at %p that another segment made reachable over "
                 "MPI, without lying inside them. MPI allows no overlapping attachments: make the enclosing memory "
                 "a segment first",
                 seg, static_cast<unsigned long>(size), reinterpret_cast<void *>(base),
                 static_cast<unsigned long>(a.size), reinterpret_cast<void *>(a.base));
      return GASPI_ERROR;
    }
  }
  // The table's attachment counts too. osc/rdma must never see an attachment beyond its cap: it
  // would keep its region lock and hang the window (rma.hpp, "Attachments").
  if (attach_limit_ != 0 && attachments_.size() + 1 >= attach_limit_) {
    log::error(
        "segment %u: the MPI window holds %u attachments, the cap of Open MPI's osc/rdma "
        "(osc_rdma_max_attach); a segment takes one, two when it is bound to memory outside every other segment. "
        "OMPI_MCA_osc_rdma_max_attach=%u, set before MPI_Init, is enough for every segment id (the "
        "library sets it when it starts MPI itself)",
        seg, attach_limit_, kWindowAttachments);
    return GASPI_ERR_MANY_SEG;
  }
  HYGASPI_TRY(HYGASPI_MPI(MPI_Win_attach(win_, reinterpret_cast<void *>(base), static_cast<MPI_Aint>(size))));
  attachments_.push_back(Attachment{base, size, 1});
  used = base;
  return GASPI_SUCCESS;
}

void Rma::release(std::uint64_t base) noexcept {
  if (base == 0)
    return;
  const auto a =
      std::find_if(attachments_.begin(), attachments_.end(), [base](const Attachment &x) { return x.base == base; });
  if (a == attachments_.end() || --a->users > 0)
    return;
  // Teardown: a failure is logged, and the range is forgotten either way.
  (void)HYGASPI_MPI(MPI_Win_detach(win_, reinterpret_cast<void *>(base)));
  attachments_.erase(a);
}

gaspi_return_t Rma::register_with(std::uint32_t seg, MpiRank rank, const RemoteSegment &entry) {
  auto lock = env_->lock();
  const std::uint64_t slot =
      table_at_[static_cast<std::size_t>(rank.value())] +
      (static_cast<std::uint64_t>(env_->rank()) * limits::kSegmentSlots + seg) * sizeof(RemoteSegment);
  HYGASPI_TRY(HYGASPI_MPI(MPI_Put(&entry, sizeof entry, MPI_BYTE, rank.value(), static_cast<MPI_Aint>(slot),
                                  sizeof entry, MPI_BYTE, win_)));
  return HYGASPI_MPI(MPI_Win_flush(rank.value(), win_));
}

const RemoteSegment *Rma::remote(MpiRank rank, std::uint32_t seg) {
  RemoteSegment &e = table_[static_cast<std::size_t>(rank.value()) * limits::kSegmentSlots + seg];
  if (std::atomic_ref<std::uint64_t>(e.generation).load(std::memory_order_acquire) == 0) {
    sync(); // the owner's put may have landed without our loads seeing it yet
    if (std::atomic_ref<std::uint64_t>(e.generation).load(std::memory_order_acquire) == 0)
      return nullptr;
  }
  return &e;
}

void Rma::sync() noexcept {
  auto lock = env_->lock();
  (void)HYGASPI_MPI(MPI_Win_sync(win_)); // a hint to the memory model: nothing to propagate
}

gaspi_return_t Rma::group_comm(const std::vector<int> &members, MPI_Comm &comm) {
  if (members.empty()) {
    comm = env_->comm();
    return GASPI_SUCCESS;
  }
  for (const GroupComm &g : comms_)
    if (g.members == members) {
      comm = g.comm;
      return GASPI_SUCCESS;
    }
  auto lock = env_->lock();
  // Collective over the members alone. On the collective communicator, whose point-to-point
  // traffic nobody probes for any tag, as the engine's requests are on env.comm().
  MPI_Group all = MPI_GROUP_NULL, some = MPI_GROUP_NULL;
  HYGASPI_TRY(HYGASPI_MPI(MPI_Comm_group(env_->collective_comm(), &all)));
  gaspi_return_t rc = HYGASPI_MPI(MPI_Group_incl(all, static_cast<int>(members.size()), members.data(), &some));
  MPI_Comm made = MPI_COMM_NULL;
  if (rc == GASPI_SUCCESS)
    rc = HYGASPI_MPI(MPI_Comm_create_group(env_->collective_comm(), some, kTagWindowComm, &made));
  if (some != MPI_GROUP_NULL)
    (void)HYGASPI_MPI(MPI_Group_free(&some)); // nothing to undo
  (void)HYGASPI_MPI(MPI_Group_free(&all));
  HYGASPI_TRY(rc);
  comms_.push_back(GroupComm{members, made});
  HYGASPI_TRY(HYGASPI_MPI(MPI_Comm_set_errhandler(made, MPI_ERRORS_RETURN)));
  comm = made;
  return GASPI_SUCCESS;
}

gaspi_return_t Rma::open_window(std::uint32_t seg, Range range, std::uint64_t generation, Window::Kind kind,
                                const std::vector<MpiRank> &members) {
  std::lock_guard guard(open_mutex_);
  std::vector<int> ranks; // env.comm() ranks of the window's group; empty: every rank
  if (members.size() != static_cast<std::size_t>(env_->size()))
    for (const MpiRank r : members)
      ranks.push_back(r.value());
  MPI_Comm comm = MPI_COMM_NULL;
  HYGASPI_TRY(group_comm(ranks, comm));
  const std::size_t size = ranks.empty() ? static_cast<std::size_t>(env_->size()) : ranks.size();
  auto rank_of = [&](std::size_t i) { return ranks.empty() ? static_cast<int>(i) : ranks[i]; };
  const std::uint32_t n = opened_count_.load(std::memory_order_relaxed);
  const bool room = n < kMaxSegmentWindows && seg < windows_.size();
  std::vector<std::uint64_t> generations;
  if (generation != 0) {
    // [3i]: member i's segment id (kNoWindow: it offers none), [3i + 1]: its generation, [3i + 2]:
    // 1 when it can open one more window (members of different groups have opened different
    // numbers). Every member sees the same table and so makes the same choice.
    std::vector<std::uint64_t> all(3 * size);
    const std::uint64_t mine[3] = {seg, generation, room ? 1u : 0u};
    {
      auto lock = env_->lock();
      HYGASPI_TRY(HYGASPI_MPI(MPI_Allgather(mine, 3, MPI_UINT64_T, all.data(), 3, MPI_UINT64_T, comm)));
    }
    generations.assign(static_cast<std::size_t>(env_->size()), 0); // 0: outside the group, never a generation
    for (std::size_t i = 0; i < size; ++i) {
      if (all[3 * i] != seg || seg == kNoWindow) {
        log::debug("segment %u: rank %d created segment %lu in the same call; reached through the dynamic window", seg,
                   rank_of(i), static_cast<unsigned long>(all[3 * i]));
        return GASPI_SUCCESS;
      }
      if (all[3 * i + 2] == 0) {
        log::debug("segment %u: rank %d has %u windows open already; reached through the dynamic window", seg,
                   rank_of(i), kMaxSegmentWindows);
        return GASPI_SUCCESS;
      }
      generations[static_cast<std::size_t>(rank_of(i))] = all[3 * i + 1];
    }
  } else if (!room) {
    log::debug("segment %u: %u windows are open already", seg, n);
    return GASPI_ERROR;
  }
  auto w = std::make_unique<SegmentWindow>();
  const gaspi_return_t rc = w->window.open(*env_, kind, const_cast<void *>(range.base), range.size, comm, ranks);
  w->generation = std::move(generations);
  SegmentWindow *opened = w.get();
  // Kept even when open failed half way: term closes it, as every member does.
  opened_[n] = std::move(w);
  opened_count_.store(n + 1, std::memory_order_release);
  if (rc == GASPI_SUCCESS) {
    windows_[seg].store(opened, std::memory_order_release);
    log::debug("segment %u: reached through a window of its own (%u open, %zu members)", seg, n + 1, size);
  }
  return rc;
}

Window *Rma::window(std::uint32_t seg) const noexcept {
  SegmentWindow *w = seg < windows_.size() ? windows_[seg].load(std::memory_order_acquire) : nullptr;
  return w != nullptr ? &w->window : nullptr;
}

void Rma::forget_window(std::uint32_t seg) noexcept {
  if (seg < windows_.size())
    windows_[seg].store(nullptr, std::memory_order_release);
}

Rma::SegmentWindow *Rma::reach(MpiRank rank, const RemoteSegment &seg) const noexcept {
  if (seg.segment >= windows_.size())
    return nullptr;
  SegmentWindow *w = windows_[seg.segment].load(std::memory_order_acquire);
  // The owner's entry may change under us (its delete clears it): read the generation once.
  const std::uint64_t generation =
      std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t &>(seg.generation)).load(std::memory_order_acquire);
  if (w == nullptr || w->generation.empty() || w->generation[static_cast<std::size_t>(rank.value())] != generation)
    return nullptr;
  return w;
}

gaspi_return_t Rma::put(MpiRank rank, const RemoteSegment &seg, std::uint64_t offset, const void *src,
                        std::uint64_t size) {
  if (SegmentWindow *w = reach(rank, seg)) {
    std::uint64_t ticket = 0;
    return w->window.put(rank, seg.data - seg.notifications + offset, src, size, Window::Complete::none, ticket);
  }
  return put(rank, seg.data + offset, src, size);
}

gaspi_return_t Rma::get(void *dst, MpiRank rank, const RemoteSegment &seg, std::uint64_t offset, std::uint64_t size) {
  if (SegmentWindow *w = reach(rank, seg)) {
    std::uint64_t ticket = 0;
    return w->window.get_nb(dst, rank, seg.data - seg.notifications + offset, size, ticket);
  }
  return get(dst, rank, seg.data + offset, size);
}

gaspi_return_t Rma::put(MpiRank rank, std::uint64_t address, const void *src, std::uint64_t size) {
  auto lock = env_->lock();
  const char *p = static_cast<const char *>(src);
  const gaspi_return_t rc = in_chunks(size, [&](std::uint64_t done, int n) {
    return HYGASPI_MPI(
        MPI_Put(p + done, n, MPI_BYTE, rank.value(), static_cast<MPI_Aint>(address + done), n, MPI_BYTE, win_));
  });
  tickets_.issue(rank); // a chunk may be in flight even where a later one failed
  return rc;
}

gaspi_return_t Rma::get(void *dst, MpiRank rank, std::uint64_t address, std::uint64_t size) {
  auto lock = env_->lock();
  char *p = static_cast<char *>(dst);
  const gaspi_return_t rc = in_chunks(size, [&](std::uint64_t done, int n) {
    return HYGASPI_MPI(
        MPI_Get(p + done, n, MPI_BYTE, rank.value(), static_cast<MPI_Aint>(address + done), n, MPI_BYTE, win_));
  });
  tickets_.issue(rank);
  return rc;
}

gaspi_return_t Rma::notify(MpiRank rank, const RemoteSegment &seg, std::uint32_t id, std::uint32_t value) {
  HYGASPI_TRY(flush(rank)); // earlier writes to `rank`, through any window, land before the notification
  const std::uint64_t offset = std::uint64_t{id} * sizeof(std::uint32_t);
  // Complete it before return: `value` lives on this stack, and a waiting target should see it soon.
  if (SegmentWindow *w = reach(rank, seg)) {
    std::uint64_t ticket = 0;
    return w->window.put(rank, offset, &value, sizeof value, Window::Complete::remote, ticket);
  }
  auto lock = env_->lock();
  HYGASPI_TRY(HYGASPI_MPI(MPI_Put(&value, 1, MPI_UINT32_T, rank.value(),
                                  static_cast<MPI_Aint>(seg.notifications + offset), 1, MPI_UINT32_T, win_)));
  return HYGASPI_MPI(MPI_Win_flush(rank.value(), win_));
}

gaspi_return_t Rma::flush(MpiRank rank) {
  gaspi_return_t rc = GASPI_SUCCESS;
  if (Tickets &t = tickets_.of(rank); !t.idle()) {
    auto lock = env_->lock();
    rc = t.flush([&] { return HYGASPI_MPI(MPI_Win_flush(rank.value(), win_)); });
  }
  for (std::uint32_t i = 0, n = opened_count_.load(std::memory_order_acquire); i < n; ++i)
    if (Window &w = opened_[i]->window; w.active() && !w.idle(rank))
      if (const gaspi_return_t f = w.flush(rank); f != GASPI_SUCCESS)
        rc = f;
  return rc;
}

gaspi_return_t Rma::flush_all() {
  gaspi_return_t rc = GASPI_SUCCESS;
  if (Tickets &t = tickets_.all(); !t.idle()) {
    auto lock = env_->lock();
    rc = t.flush([&] { return HYGASPI_MPI(MPI_Win_flush_all(win_)); });
  }
  for (std::uint32_t i = 0, n = opened_count_.load(std::memory_order_acquire); i < n; ++i)
    if (Window &w = opened_[i]->window; w.active())
      if (const gaspi_return_t f = w.flush_all(); f != GASPI_SUCCESS)
        rc = f;
  return rc;
}

} // namespace hygaspi::mpi

namespace hygaspi::mpi {

gaspi_return_t Window::open(Env &env, Kind kind, void *base, std::uint64_t size, MPI_Comm comm,
                            const std::vector<int> &members) {
  env_ = &env;
  auto lock = env.lock();
  bases_.assign(static_cast<std::size_t>(env.size()), 0);
  tickets_.reset(static_cast<std::size_t>(env.size()));
  in_comm_.clear();
  if (!members.empty()) {
    in_comm_.assign(static_cast<std::size_t>(env.size()), -1);
    for (std::size_t i = 0; i < members.size(); ++i)
      in_comm_[static_cast<std::size_t>(members[i])] = static_cast<int>(i);
  }
  MPI_Info info;
  HYGASPI_TRY(HYGASPI_MPI(MPI_Info_create(&info)));
  // Only puts and gets: let the component skip accumulate ordering (as Rma::init).
  gaspi_return_t rc = HYGASPI_MPI(MPI_Info_set(info, "accumulate_ordering", "none"));
  if (rc == GASPI_SUCCESS && kind == Kind::regular)
    rc = HYGASPI_MPI(MPI_Win_create(size == 0 ? nullptr : base, static_cast<MPI_Aint>(size), 1, info, comm, &win_));
  else if (rc == GASPI_SUCCESS)
    rc = HYGASPI_MPI(MPI_Win_create_dynamic(info, comm, &win_));
  (void)HYGASPI_MPI(MPI_Info_free(&info));
  HYGASPI_TRY(rc);
  // A failure from here on leaves the window for close(), which every rank still reaches.
  HYGASPI_TRY(HYGASPI_MPI(MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN)));
  if (kind == Kind::dynamic) {
    if (size != 0) {
      HYGASPI_TRY(HYGASPI_MPI(MPI_Win_attach(win_, base, static_cast<MPI_Aint>(size))));
      attached_ = base;
    }
    MPI_Aint mine = 0;
    HYGASPI_TRY(HYGASPI_MPI(MPI_Get_address(base, &mine)));
    const std::uint64_t at = static_cast<std::uint64_t>(mine);
    std::vector<std::uint64_t> bases(members.empty() ? bases_.size() : members.size());
    HYGASPI_TRY(HYGASPI_MPI(MPI_Allgather(&at, 1, MPI_UINT64_T, bases.data(), 1, MPI_UINT64_T, comm)));
    for (std::size_t i = 0; i < bases.size(); ++i)
      bases_[members.empty() ? i : static_cast<std::size_t>(members[i])] = bases[i];
  }
  return HYGASPI_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_));
}

void Window::close() noexcept {
  if (win_ == MPI_WIN_NULL)
    return;
  auto lock = env_->lock();
  // Teardown: a failure is logged and the rest still runs.
  (void)HYGASPI_MPI(MPI_Win_unlock_all(win_));
  if (attached_ != nullptr)
    (void)HYGASPI_MPI(MPI_Win_detach(win_, attached_));
  attached_ = nullptr;
  (void)HYGASPI_MPI(MPI_Win_free(&win_));
}

gaspi_return_t Window::put(MpiRank rank, std::uint64_t offset, const void *src, std::uint64_t size, Complete complete,
                           std::uint64_t &ticket) {
  auto lock = env_->lock();
  const char *p = static_cast<const char *>(src);
  HYGASPI_TRY(in_chunks(size, [&](std::uint64_t done, int n) {
    return HYGASPI_MPI(
        MPI_Put(p + done, n, MPI_BYTE, target(rank), displacement(rank, offset + done), n, MPI_BYTE, win_));
  }));
  ticket = tickets_.issue(rank);
  if (complete == Complete::remote)
    return flush_locked(rank);
  if (complete == Complete::local)
    return HYGASPI_MPI(MPI_Win_flush_local(target(rank), win_));
  return GASPI_SUCCESS;
}

gaspi_return_t Window::get(void *dst, MpiRank rank, std::uint64_t offset, std::uint64_t size) {
  auto lock = env_->lock();
  char *p = static_cast<char *>(dst);
  HYGASPI_TRY(in_chunks(size, [&](std::uint64_t done, int n) {
    return HYGASPI_MPI(
        MPI_Get(p + done, n, MPI_BYTE, target(rank), displacement(rank, offset + done), n, MPI_BYTE, win_));
  }));
  return flush_locked(rank); // also completes the puts before it: count them
}

gaspi_return_t Window::get_nb(void *dst, MpiRank rank, std::uint64_t offset, std::uint64_t size,
                              std::uint64_t &ticket) {
  auto lock = env_->lock();
  char *p = static_cast<char *>(dst);
  HYGASPI_TRY(in_chunks(size, [&](std::uint64_t done, int n) {
    return HYGASPI_MPI(
        MPI_Get(p + done, n, MPI_BYTE, target(rank), displacement(rank, offset + done), n, MPI_BYTE, win_));
  }));
  ticket = tickets_.issue(rank);
  return GASPI_SUCCESS;
}

gaspi_return_t Window::flush(MpiRank rank, std::uint64_t ticket) {
  if (flushed(rank, ticket))
    return GASPI_SUCCESS;
  auto lock = env_->lock();
  return flush_locked(rank);
}

gaspi_return_t Window::flush_all() {
  Tickets &t = tickets_.all();
  if (t.idle())
    return GASPI_SUCCESS;
  auto lock = env_->lock();
  return t.flush([&] { return HYGASPI_MPI(MPI_Win_flush_all(win_)); });
}

gaspi_return_t Window::flush_locked(MpiRank rank) {
  return tickets_.of(rank).flush([&] { return HYGASPI_MPI(MPI_Win_flush(target(rank), win_)); });
}

} // namespace hygaspi::mpi
