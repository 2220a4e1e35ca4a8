// The tags of the engine's private communicator (Env::comm; the collectives' tags live on
// Env::collective_comm), and the reply tags of the requests that their target answers.
#pragma once
#include <cstdint>

namespace hygaspi::mpi {

// MPI guarantees tags up to 32767.
enum Tag : int {
  kTagAtomicRequest = 1,
  kTagPassive = 2,
  kTagKill = 3,           // gaspi_proc_kill of a rank on another node: payload = the killer's reply tag
  kTagAmRequest = 4,      // active messages of the GASNet front end, requests and replies (separate, so
  kTagAmReply = 5,        //   that replies always drain), larger than a preposted receive takes
  kTagAmRequestEager = 6, // the others, and the announcements of the large ones (mpi_rma/eager.hpp)
  kTagAmReplyEager = 7,
  kTagCredit = 8,        // what a receiver handled: a Box and a running total of units (credits.hpp)
  kTagDeviceRequest = 9, // a transfer into or out of a device segment, served by its owner (DeviceRequest)
  kTagDeath = 10,        // a rank died: payload its MPI rank (Control::tell_death)
  kTagReply = 100,       // + request number % kReplyTags
  kTagGroup = 16384, // + a bucket of the group's commit tag * kGroupTagStride, on Env::collective_comm() (leaders.cpp)
};
// On Env::collective_comm() below kTagGroup: MPI_Comm_create_group of a group's window
// communicator (Rma::group_comm), which opens one at a time.
inline constexpr int kTagWindowComm = 1;
// Per group bucket: [0, 16) leader barrier rounds, 16 leader allreduce, 17 abort notice.
inline constexpr int kGroupTagStride = 32;
inline constexpr int kReplyTags = 8192;

// A reply tag that an initiator can have posted: a request from another process names the tag of
// its answer, and the target checks it before it answers.
[[nodiscard]] constexpr bool valid_reply_tag(std::int32_t tag) noexcept {
  return tag >= kTagReply && tag < kTagReply + kReplyTags;
}

} // namespace hygaspi::mpi
