// Messages over two-sided MPI on the private communicator: GASPI passive messages (into a
// mailbox, mailbox.hpp) and the active messages of the GASNet front ends (eager receives,
// eager.hpp), both within credits per sender and lane (credits.hpp). The receiver takes them from
// MPI in its progress step. They are the MPI side of the engine's message channel
// (bridge/am_channel.hpp), whose node side is shm/am_ring.hpp.
#pragma once
#include <GASPI.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/deadline.hpp"
#include "core/ranks.hpp"
#include "core/wait.hpp"
#include "mpi_rma/credits.hpp"
#include "mpi_rma/eager.hpp"
#include "mpi_rma/mailbox.hpp"
#include "mpi_rma/mpi_env.hpp"
#include "mpi_rma/tags.hpp"

namespace hygaspi::mpi {

// Where a message goes at its target. A message is taken out of MPI as soon as any wait of the
// target makes progress (passive: into a mailbox; active messages: eager.hpp), so a sender never
// waits for the receiver to look for that very message (two ranks that send to each other cannot
// deadlock).
enum class Box : unsigned { passive = 0, am_request = 1, am_reply = 2 };

class Messages {
public:
  void init(Env &env, const WaitPolicy &wait) {
    env_ = &env;
    wait_ = wait;
    credits_.open(env.size());
  }
  // Sends a message for `box` of `rank` (size <= INT_MAX); waits, driving `progress`, until the
  // target's MPI holds it. First it waits for credits (credits.hpp), driving `serve` when given
  // (the front end's poll, which runs handlers and the progress step) and `progress` otherwise.
  // GASPI_TIMEOUT: at the deadline, cancelled or never sent, nothing delivered (a large active
  // message is never cancelled once sent: see send_am_large).
  // `alive` (when given): false once the target is known dead, which ends the wait with GASPI_ERROR
  // (a message MPI cannot deliver, to a dead target, would otherwise keep it waiting).
  gaspi_return_t send(MpiRank rank, Box box, const void *data, std::uint64_t size, const Deadline &deadline,
                      Step progress, Step alive = {}, Step serve = {});
  // Takes the oldest passive message, pulling what MPI holds first. False when there is none.
  bool take_passive(Message &out);
  // Starts the receives of active messages (gasnet_attach); until then they wait in MPI.
  void open_am_boxes();
  // Looks at the eager receives (EagerReceives::test): part of every progress step once the boxes
  // are open, since a probe does not see a message that a posted receive has matched.
  bool test_eager() { return eager_.test(); }
  int test_eager_hot() { return eager_.test_hot(); }
  // Whether take_am(box) may find a message: one is queued (an answer without a lock or a call).
  [[nodiscard]] bool am_queued(Box box) const noexcept {
    return eager_.queued(static_cast<unsigned>(box) - static_cast<unsigned>(Box::am_request));
  }
  // Runs fn(from, data, size) on the next active message of `box` (am_request or am_reply), in
  // each sender's order; mostly in place, in the buffer of an eager receive. The data (16-byte
  // aligned) lives until fn returns. False when there is none. Does not pull from MPI: the caller
  // has just run the progress step.
  template <class F> bool take_am(Box box, F &&fn) {
    const unsigned lane = static_cast<unsigned>(box) - static_cast<unsigned>(Box::am_request);
    EagerReceives::Held held;
    if (!eager_.take(lane, held))
      return false;
    fn(MpiRank{held.from}, held.data, held.size);
    eager_.give_back(lane, held);
    handled(MpiRank{held.from}, box, held.size);
    return true;
  }

  // The receiver's share of a progress step: drain moves passive messages from MPI into the
  // mailbox; take_credits takes the credit reports of the ranks this one sent to. True if they
  // took anything.
  bool drain();
  bool take_credits();
  // Credit reports this rank sent that MPI has not completed yet (progress completes them).
  [[nodiscard]] bool credits_sending() const noexcept { return credit_sends_.load(std::memory_order_acquire) != 0; }
  void complete_credits();
  // gaspi_proc_term: nothing of this MPI session is delivered after a later start.
  void term() noexcept;

private:
  Env *env_ = nullptr;
  WaitPolicy wait_;
  // Passive messages that progress took from MPI while this rank was busy elsewhere.
  std::mutex mailbox_mutex_;
  Mailbox mailbox_;
  // Active messages across nodes.
  EagerReceives eager_;
  // Flow control (credits.hpp).
  Credits credits_;
  // A message of `size` bytes from `rank` for `box` was handled: tells `rank` when a report is due.
  void handled(MpiRank rank, Box box, std::uint64_t size);
  // Credit messages being sent (a buffer each, until MPI completes them).
  struct CreditSend {
    MPI_Request request = MPI_REQUEST_NULL;
    std::uint64_t payload[2] = {0, 0}; // Box, total
  };
  std::mutex credit_mutex_;
  std::vector<std::unique_ptr<CreditSend>> credit_sending_;
  std::atomic<std::size_t> credit_sends_{0};
  void complete_credit_sends(); // under credit_mutex_ and the MPI lock
  gaspi_return_t send_am_large(MpiRank rank, Box box, const void *data, std::uint64_t size, Step progress, Step alive);
};

} // namespace hygaspi::mpi
