#include "mpi_rma/control.hpp"

#include <ctime>
#include <sched.h>
#include <algorithm>
#include <memory>
#include <vector>

#include "core/log.hpp"

namespace hygaspi::mpi {

bool Control::drain_passive() {
  // One drainer at a time: two threads that each match a message of the same sender could queue
  // them out of order.
  std::lock_guard box(mailbox_mutex_);
  bool took = false;
  for (;;) {
    auto lock = env_->lock();
    // Matched probe: with a progress thread two threads may probe at once, and a plain
    // Iprobe + Recv pair could hand one thread's message to the other.
    int pending = 0;
    MPI_Message handle;
    MPI_Status status;
    MPI_Improbe(MPI_ANY_SOURCE, kTagPassive, env_->comm(), &pending, &handle, &status);
    if (!pending)
      return took;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    Message m{status.MPI_SOURCE, std::vector<char>(static_cast<std::size_t>(count))};
    MPI_Mrecv(m.data.data(), count, MPI_BYTE, &handle, MPI_STATUS_IGNORE);
    mailbox_.push_back(std::move(m));
    took = true;
  }
}

bool Control::progress() {
  bool served = drain_passive();
  {
    std::lock_guard abandon(abandoned_mutex_);
    auto lock = env_->lock();
    std::erase_if(abandoned_, [](Abandoned &a) {
      int done = 0;
      MPI_Test(&a.request, &done, MPI_STATUS_IGNORE);
      return done != 0;
    });
  }
  for (;;) {
    auto lock = env_->lock();
    int pending = 0;
    MPI_Message handle;
    MPI_Status status;
    MPI_Improbe(MPI_ANY_SOURCE, kTagAtomicRequest, env_->comm(), &pending, &handle, &status);
    if (!pending)
      return served;
    AtomicRequest request{};
    int rc = MPI_Mrecv(&request, sizeof request, MPI_BYTE, &handle, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || !valid_reply_tag(request.reply_tag))
      continue;                      // malformed (too long, or a tag no initiator posts): nobody to answer
    std::uint64_t reply[2] = {0, 0}; // {gaspi_return_t, old value}
    reply[0] = static_cast<std::uint64_t>(static_cast<std::int64_t>(local_atomic_(request, reply[1])));
    MPI_Send(reply, 2, MPI_UINT64_T, status.MPI_SOURCE, request.reply_tag, env_->comm());
    served = true;
  }
}

void Control::start_thread() {
  stop_.store(false);
  thread_ = std::thread([this] {
    while (!stop_.load(std::memory_order_relaxed)) {
      progress();
      timespec nap{0, 50000};
      nanosleep(&nap, nullptr);
    }
  });
}

void Control::stop_thread() noexcept {
  if (!thread_.joinable())
    return;
  stop_.store(true);
  thread_.join();
}

gaspi_return_t Control::atomic(int rank, AtomicRequest request, std::uint64_t &old, const Deadline &deadline) {
  request.reply_tag = kTagReply + static_cast<int>(next_reply_.fetch_add(1) % kReplyTags);
  auto reply = std::make_unique<std::uint64_t[]>(2);
  MPI_Request receive;
  {
    auto lock = env_->lock();
    MPI_Irecv(reply.get(), 2, MPI_UINT64_T, rank, request.reply_tag, env_->comm(), &receive);
    int rc = MPI_Send(&request, sizeof request, MPI_BYTE, rank, kTagAtomicRequest, env_->comm());
    if (rc != MPI_SUCCESS) {
      MPI_Cancel(&receive);
      MPI_Request_free(&receive);
      return fail("gaspi_atomic", "MPI_Send", rc);
    }
  }
  std::int64_t round = 0;
  for (;;) {
    int done = 0;
    {
      auto lock = env_->lock();
      MPI_Test(&receive, &done, MPI_STATUS_IGNORE);
    }
    if (done)
      break;
    if (deadline.expired()) {
      // The request may still run at the target; keep its reply buffer until the reply comes, so
      // that it cannot land in a later request's buffer.
      std::lock_guard abandon(abandoned_mutex_);
      abandoned_.push_back(Abandoned{receive, std::move(reply)});
      return GASPI_TIMEOUT;
    }
    progress();
    pause(round);
  }
  old = reply[1];
  return static_cast<gaspi_return_t>(static_cast<std::int64_t>(reply[0]));
}

gaspi_return_t Control::passive_send(int rank, const void *data, std::uint64_t size, const Deadline &deadline) {
  MPI_Request send;
  {
    auto lock = env_->lock();
    // Complete once the target's MPI holds it: its progress moves it into its mailbox.
    int rc = MPI_Isend(data, static_cast<int>(size), MPI_BYTE, rank, kTagPassive, env_->comm(), &send);
    if (rc != MPI_SUCCESS)
      return fail("gaspi_passive_send", "MPI_Isend", rc);
  }
  std::int64_t round = 0;
  for (;;) {
    int done = 0;
    {
      auto lock = env_->lock();
      MPI_Test(&send, &done, MPI_STATUS_IGNORE);
    }
    if (done)
      return GASPI_SUCCESS;
    if (deadline.expired()) {
      auto lock = env_->lock();
      MPI_Cancel(&send);
      MPI_Status status;
      MPI_Wait(&send, &status);
      int cancelled = 0;
      MPI_Test_cancelled(&status, &cancelled);
      return cancelled ? GASPI_TIMEOUT : GASPI_SUCCESS; // not cancelled: it was delivered
    }
    progress();
    pause(round);
  }
}

gaspi_return_t Control::passive_try_receive(void *data, std::uint64_t size, int &from) {
  drain_passive();
  Message m;
  {
    std::lock_guard box(mailbox_mutex_);
    if (mailbox_.empty())
      return GASPI_TIMEOUT;
    m = std::move(mailbox_.front());
    mailbox_.pop_front();
  }
  from = m.from;
  const std::size_t keep = std::min<std::size_t>(m.data.size(), size);
  std::copy(m.data.begin(), m.data.begin() + static_cast<long>(keep), static_cast<char *>(data));
  if (m.data.size() > size) {
    // As on the shm path: the message is consumed, what fits is kept, the truncation reported.
    log::error("gaspi_passive_receive", "message of %zu bytes from rank %d is longer than size %lu", m.data.size(),
               from, static_cast<unsigned long>(size));
    return GASPI_ERROR;
  }
  return GASPI_SUCCESS;
}

void Control::passive_purge() {
  drain_passive();
  std::lock_guard box(mailbox_mutex_);
  mailbox_.clear();
}

} // namespace hygaspi::mpi
