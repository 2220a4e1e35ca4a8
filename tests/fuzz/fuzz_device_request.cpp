// libFuzzer target: the checks a target rank applies to a device transfer request that arrives
// from another node over MPI (src/mpi_rma/device_requests.hpp: valid_device_request,
// device_range_inside, device_notification_inside; used by DeviceRequests::take and serve_device_requests in
// src/bridge/remote_device.cpp).
//
// Input: the raw bytes of a DeviceRequest as MPI_Mrecv would leave them (short input: zero
// padded), then 8 bytes of message size and 8 of segment size (its high half also the segment's
// notification count, for a put that carries a notification). A request both checks accept is
// carried out the way the target carries it out on its side, a copy into or out of [offset, +size)
// of the segment through the request's inline bytes or a host buffer of kDevicePiece bytes, the
// segment here a heap buffer of exactly its size (folded to at most 2 MiB), so that ASan reports
// any byte the checks let through outside either.
#include "fuzz_check.hpp"
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "mpi_rma/device_requests.hpp"

using namespace hygaspi::mpi;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  DeviceRequest request{};
  std::uint64_t words[2] = {0, 0}; // message bytes, segment size
  std::memcpy(&request, data, size < sizeof request ? size : sizeof request);
  if (size > sizeof request)
    std::memcpy(words, data + sizeof request,
                size - sizeof request < sizeof words ? size - sizeof request : sizeof words);
  const std::uint64_t message_bytes = words[0];
  const std::uint64_t segment_size = words[1] % ((std::uint64_t{2} << 20) + 1);
  if (!valid_device_request(request, message_bytes))
    return 0;
  FUZZ_CHECK(request.size <= (request.staging == 0 ? kDeviceInline : kDevicePiece) &&
             valid_reply_tag(request.reply_tag));
  FUZZ_CHECK(message_bytes == sizeof request + (request.staging == 0 && request.put != 0 ? request.size : 0));
  FUZZ_CHECK(request.notify_value == 0 || request.put == 1);
  // A notification the target sets: inside an array of that many (folded to at most 1024).
  const std::uint32_t notification_num = static_cast<std::uint32_t>(words[1] >> 32) % 1025;
  if (device_notification_inside(request, notification_num) && request.notify_value != 0) {
    auto notifications = std::make_unique<std::uint32_t[]>(notification_num);
    notifications[request.notify_id] = request.notify_value;
  }
  if (!device_range_inside(request, segment_size))
    return 0;
  auto segment = std::make_unique<char[]>(segment_size + 1); // +1: a zero-size segment still has an address
  // The target's side of the bytes: the request's inline bytes (DeviceCall::bytes), or its host
  // buffer of a staged request.
  auto payload = std::make_unique<char[]>(request.staging == 0 ? kDeviceInline : kDevicePiece);
  if (request.put != 0)
    std::memcpy(segment.get() + request.offset, payload.get(), request.size);
  else
    std::memcpy(payload.get(), segment.get() + request.offset, request.size);
  return 0;
}
