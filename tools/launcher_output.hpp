// --prefix: the output of each rank arrives through one pipe per stream, and the launcher writes
// it to its own stdout/stderr line by line with "[rank] " in front. Whole lines are written with
// one write(), so lines of different ranks never interleave within a line.
#pragma once
#include <cstdint>
#include <string>

namespace hygaspi::launcher {

class LineForwarder {
public:
  LineForwarder(std::uint32_t rank, int read_fd, int out_fd);
  ~LineForwarder();
  LineForwarder(const LineForwarder &) = delete;
  LineForwarder &operator=(const LineForwarder &) = delete;

  [[nodiscard]] int fd() const noexcept { return read_fd_; }
  [[nodiscard]] bool open() const noexcept { return read_fd_ >= 0; }

  // Reads what the pipe holds now (the read end is non-blocking) and writes the complete lines.
  // At end of file it writes the unfinished last line, with a newline, and closes the pipe.
  void pump();
  // Same as pump(), then closes the pipe even without end of file: used once every rank has been
  // reaped, when a leftover grandchild might hold the write end open forever.
  void drain_and_close();

private:
  void emit(const char *data, std::size_t size, bool line_end);
  void close_pipe();

  std::string prefix_;
  int read_fd_;
  int out_fd_;
  std::string partial_;   // the unfinished line
  bool mid_line_ = false; // an over-long line was written in part; its rest needs no prefix
};

// write() of the whole buffer, retried after short writes. Output that cannot be written (the
// reader went away: EPIPE, SIGPIPE is ignored) is dropped; the job goes on.
void write_all(int fd, const char *data, std::size_t size) noexcept;

} // namespace hygaspi::launcher
