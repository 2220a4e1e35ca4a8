// Transfers into and out of another node's device segment, which no MPI window reaches: its owner
// serves them in its progress step (bridge/remote_device.cpp serve_device_requests) and answers.
#pragma once
#include <GASPI.h>

#include <cstdint>
#include <memory>

#include "core/ranks.hpp"
#include "core/wait.hpp"
#include "mpi_rma/mpi_env.hpp"
#include "mpi_rma/replies.hpp"
#include "mpi_rma/tags.hpp"

namespace hygaspi::mpi {

// A transfer into (`put`) or out of [offset, +size) of the target's device segment `segment`, which
// no MPI window reaches; the target copies with the driver on its side and answers. The bytes
// travel one of two ways:
//  - inline (`staging` 0, at most kDeviceInline bytes): after the request in its message (put), or
//    after the status word in the reply (get): one short message each way;
//  - staged: they wait in the initiator's staging buffer at `staging` in its MPI window
//    (bridge/remote_device.cpp), which the target reads (put: MPI_Get + flush) or writes (get:
//    MPI_Put + flush). The messages stay short, so neither side waits for the other to match a
//    large one, and the bytes move by RMA.
// At most kDevicePiece bytes per staged request: an initiator keeps several in flight, so that the
// target serves one piece while the initiator copies the next (bridge/remote_device.cpp).
// A put may carry a notification (gaspi_write_notify): once its bytes are in, the target sets
// notification `notify_id` of the segment to `notify_value` (0: none; a GASPI notification value
// is never 0), so that the initiator need not wait for the data before it notifies.
struct DeviceRequest {
  std::uint32_t segment;
  std::uint32_t put;
  std::uint64_t offset;
  std::uint64_t size;
  std::uint64_t staging;
  std::int32_t reply_tag;
  std::uint32_t notify_value;
  std::uint32_t notify_id;
  std::uint32_t reserved;
};
static_assert(sizeof(DeviceRequest) == 48);
inline constexpr std::uint64_t kDevicePiece = std::uint64_t{1} << 18;
// Under the eager limits of Open MPI's transports (shared memory 4 KiB, TCP 64 KiB) with the
// request or the status word: a sender's blocking send completes without the target.
inline constexpr std::uint64_t kDeviceInline = 2048;
// The bytes of a request's message: the request, and an inline put's bytes.
[[nodiscard]] constexpr std::uint64_t device_message_bytes(const DeviceRequest &request) noexcept {
  return sizeof request + (request.staging == 0 && request.put != 0 ? request.size : 0);
}
// The message checked at the target, which compares the range with its segment itself
// (device_range_inside). The staging address is the initiator's to get right: the target reaches
// it through the initiator's window, which exposes nothing but the initiator's own memory.
[[nodiscard]] constexpr bool valid_device_request(const DeviceRequest &request, std::uint64_t message_bytes) noexcept {
  return request.put <= 1 && request.size <= (request.staging == 0 ? kDeviceInline : kDevicePiece) &&
         message_bytes == device_message_bytes(request) && valid_reply_tag(request.reply_tag) &&
         (request.notify_value == 0 || request.put == 1) && request.reserved == 0;
}
// The notification a request asks for, if any, is one of the segment's `notification_num`.
[[nodiscard]] constexpr bool device_notification_inside(const DeviceRequest &request,
                                                        std::uint32_t notification_num) noexcept {
  return request.notify_value == 0 || request.notify_id < notification_num;
}
// [offset, +size) of a request lies inside a segment of `segment_size` bytes (overflow-safe).
[[nodiscard]] constexpr bool device_range_inside(const DeviceRequest &request, std::uint64_t segment_size) noexcept {
  return request.offset <= segment_size && request.size <= segment_size - request.offset;
}
// A request at its target, taken by DeviceRequests::take: `bytes` holds an inline put's bytes, and
// is where an inline get's go.
struct DeviceCall {
  DeviceRequest request{};
  MpiRank from;
  alignas(8) char bytes[kDeviceInline];
};

class DeviceRequests {
public:
  void init(Env &env, Replies &replies, const WaitPolicy &wait) noexcept {
    env_ = &env;
    replies_ = &replies;
    wait_ = wait;
  }
  // A transfer in flight: the receive of its reply (the target's status, and an inline get's
  // bytes), the caller's until test returned true or abandon took it.
  struct Flight {
    Replies::Reply reply;
    std::uint64_t got = 0; // the inline get's bytes that follow the status words
  };
  // Sends `request` (its reply_tag is set here) to `rank`, with an inline put's bytes from
  // `bytes`, and posts the receive of its reply into `flight`.
  gaspi_return_t start(MpiRank rank, DeviceRequest request, const void *bytes, Flight &flight);
  // One look (no progress: the caller's wait drives it): true once the reply is in, with `rc` the
  // target's status and a successful inline get's bytes copied to `bytes`.
  bool test(Flight &flight, gaspi_return_t &rc, void *bytes);
  // A flight whose wait ended before its reply (the target died): Replies completes or cancels it.
  void abandon(Flight &&flight);
  // start, then a wait for the reply driving `progress`, which ends with GASPI_ERROR once `alive`
  // says the target died. Returns the target's status.
  gaspi_return_t transfer(MpiRank rank, DeviceRequest request, void *bytes, Step progress, Step alive);
  // The owner's side: take, one pending request, checked (valid_device_request); reply, the
  // answer to `call` with `rc`, and a successful inline get with its bytes (call.bytes).
  bool take(DeviceCall &call);
  void reply(const DeviceCall &call, gaspi_return_t rc);

private:
  Env *env_ = nullptr;
  Replies *replies_ = nullptr;
  WaitPolicy wait_;
};

} // namespace hygaspi::mpi
