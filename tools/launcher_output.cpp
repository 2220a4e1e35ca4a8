#include "launcher_output.hpp"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace hygaspi::launcher {

namespace {
// A line longer than this is written in pieces, so that a rank printing without newlines cannot
// make the launcher grow without bound.
constexpr std::size_t kMaxPartial = 64 * 1024;
} // namespace

void write_all(int fd, const char *data, std::size_t size) noexcept {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

LineForwarder::LineForwarder(std::uint32_t rank, int read_fd, int out_fd)
    : prefix_("[" + std::to_string(rank) + "] "), read_fd_(read_fd), out_fd_(out_fd) {}

LineForwarder::~LineForwarder() { close_pipe(); }

void LineForwarder::close_pipe() {
  if (read_fd_ >= 0)
    close(read_fd_);
  read_fd_ = -1;
}

void LineForwarder::emit(const char *data, std::size_t size, bool line_end) {
  std::string out;
  out.reserve(prefix_.size() + size + 1);
  if (!mid_line_)
    out += prefix_;
  out.append(data, size);
  if (line_end)
    out += '\n';
  mid_line_ = !line_end;
  write_all(out_fd_, out.data(), out.size());
}

void LineForwarder::pump() {
  char buffer[16384];
  while (read_fd_ >= 0) {
    ssize_t n = read(read_fd_, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        return;
      n = 0; // any other error ends this stream like end of file
    }
    if (n == 0) {
      if (!partial_.empty() || mid_line_)
        emit(partial_.data(), partial_.size(), true);
      partial_.clear();
      close_pipe();
      return;
    }
    partial_.append(buffer, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t nl; (nl = partial_.find('\n', start)) != std::string::npos; start = nl + 1)
      emit(partial_.data() + start, nl - start, true);
    partial_.erase(0, start);
    if (partial_.size() > kMaxPartial) {
      emit(partial_.data(), partial_.size(), false);
      partial_.clear();
    }
  }
}

void LineForwarder::drain_and_close() {
  pump();
  if (read_fd_ < 0)
    return;
  if (!partial_.empty() || mid_line_)
    emit(partial_.data(), partial_.size(), true);
  partial_.clear();
  close_pipe();
}

} // namespace hygaspi::launcher
