#include "mpi_rma/device_requests.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/deadline.hpp"
#include "mpi_rma/mpi_call.hpp"

namespace hygaspi::mpi {

gaspi_return_t DeviceRequests::start(MpiRank rank, DeviceRequest request, const void *bytes, Flight &flight) {
  const std::uint64_t sent = device_message_bytes(request) - sizeof request;
  flight.got = request.staging == 0 && request.put == 0 ? request.size : 0;
  flight.reply.words = std::make_unique<std::uint64_t[]>(2 + (flight.got + 7) / 8);
  alignas(8) char message[sizeof request + kDeviceInline];
  auto lock = env_->lock();
  if (const gaspi_return_t rc =
          replies_->post(rank, ReplyKind::device, flight.reply.request, flight.reply.words.get(),
                         static_cast<int>(2 * sizeof(std::uint64_t) + flight.got), MPI_BYTE, request.reply_tag);
      rc != GASPI_SUCCESS)
    return rc;
  std::memcpy(message, &request, sizeof request);
  if (sent != 0)
    std::memcpy(message + sizeof request, bytes, sent);
  // Short (kDeviceInline): the send completes without the target.
  if (const gaspi_return_t rc = HYGASPI_MPI(MPI_Send(message, static_cast<int>(sizeof request + sent), MPI_BYTE,
                                                     rank.value(), kTagDeviceRequest, env_->comm()));
      rc != GASPI_SUCCESS) {
    replies_->cancel(flight.reply.request);
    return rc;
  }
  return GASPI_SUCCESS;
}

bool DeviceRequests::test(Flight &flight, gaspi_return_t &rc, void *bytes) {
  bool failed = false;
  if (!replies_->test(flight.reply.request, failed))
    return false;
  rc = failed ? GASPI_ERROR : static_cast<gaspi_return_t>(static_cast<std::int64_t>(flight.reply.words[0]));
  if (rc == GASPI_SUCCESS && flight.got != 0)
    std::memcpy(bytes, flight.reply.words.get() + 2, flight.got);
  return true;
}

void DeviceRequests::abandon(Flight &&flight) {
  // The reply buffer belongs to MPI until the reply is in.
  replies_->abandon(std::move(flight.reply));
  flight.reply.request = MPI_REQUEST_NULL;
}

gaspi_return_t DeviceRequests::transfer(MpiRank rank, DeviceRequest request, void *bytes, Step progress, Step alive) {
  Flight flight;
  if (const gaspi_return_t rc = start(rank, request, bytes, flight); rc != GASPI_SUCCESS)
    return rc;
  gaspi_return_t rc = GASPI_ERROR;
  auto replied = [&] { return test(flight, rc, bytes); };
  if (wait_until(replied, Deadline(GASPI_BLOCK), wait_, progress, Nap{}, alive) != GASPI_SUCCESS) {
    abandon(std::move(flight));
    return GASPI_ERROR;
  }
  return rc;
}

bool DeviceRequests::take(DeviceCall &call) {
  for (;;) {
    auto lock = env_->lock();
    Probed p = env_->probe(MPI_ANY_SOURCE, kTagDeviceRequest);
    if (!p.found)
      return false;
    alignas(8) char message[sizeof(DeviceRequest) + kDeviceInline];
    call.request = DeviceRequest{};
    // A longer message fails the receive (truncated, logged); a shorter one fails the check.
    const auto bytes = static_cast<std::uint64_t>(std::max(p.bytes, 0));
    if (HYGASPI_MPI(MPI_Mrecv(message, sizeof message, MPI_BYTE, &p.handle, MPI_STATUS_IGNORE)) != GASPI_SUCCESS ||
        bytes < sizeof call.request)
      continue; // malformed: nobody to answer
    std::memcpy(&call.request, message, sizeof call.request);
    if (!valid_device_request(call.request, bytes))
      continue;
    std::memcpy(call.bytes, message + sizeof call.request, bytes - sizeof call.request);
    call.from = MpiRank{p.source};
    return true;
  }
}

void DeviceRequests::reply(const DeviceCall &call, gaspi_return_t rc) {
  alignas(8) char reply[2 * sizeof(std::uint64_t) + kDeviceInline];
  const std::uint64_t words[2] = {static_cast<std::uint64_t>(static_cast<std::int64_t>(rc)), 0};
  std::memcpy(reply, words, sizeof words);
  const DeviceRequest &q = call.request;
  const std::uint64_t n = rc == GASPI_SUCCESS && q.staging == 0 && q.put == 0 ? q.size : 0;
  std::memcpy(reply + sizeof words, call.bytes, n);
  auto lock = env_->lock();
  // A failure is logged; the initiator then waits until it sees this rank dead.
  (void)HYGASPI_MPI(
      MPI_Send(reply, static_cast<int>(sizeof words + n), MPI_BYTE, call.from.value(), q.reply_tag, env_->comm()));
}

} // namespace hygaspi::mpi
