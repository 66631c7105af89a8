#include "common/channel.h"

#include <errno.h>
#include <unistd.h>

#include <cstring>

namespace plugstack {

namespace {

bool readFully(int fd, char* buf, size_t len, bool* eof) {
  size_t got = 0;
  *eof = false;
  while (got < len) {
    ssize_t n = ::read(fd, buf + got, len - got);
    if (n == 0) {
      *eof = got == 0;
      return false;
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    got += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

bool Channel::read(std::string* payload, std::string* error) {
  unsigned char header[4];
  bool eof;
  if (!readFully(in_, reinterpret_cast<char*>(header), sizeof header, &eof)) {
    *error = eof ? "end of stream" : "truncated frame header";
    return false;
  }
  uint32_t len = header[0] | (header[1] << 8) | (header[2] << 16) |
                 (static_cast<uint32_t>(header[3]) << 24);
  if (len > kMaxFrame) {
    *error = "frame of " + std::to_string(len) + " bytes exceeds the limit";
    return false;
  }
  payload->assign(len, '\0');
  if (len && !readFully(in_, payload->data(), len, &eof)) {
    *error = "truncated frame";
    return false;
  }
  return true;
}

void Channel::emit(std::string_view event, bool urgent) {
  if (!batch_.empty() && batch_.size() + event.size() + 2 > kBatchBytes) flush();
  batch_ += batch_.empty() ? '[' : ',';
  batch_ += event;
  if (urgent || batch_.size() >= kBatchBytes) flush();
}

void Channel::flush() {
  if (batch_.empty()) return;
  batch_ += ']';
  write(batch_);
  batch_.clear();
}

bool Channel::write(std::string_view payload) {
  if (payload.size() > kMaxFrame) return false;
  // One buffer, one write: frames from a process never interleave with
  // each other, even when a forked child shares the socket.
  std::string frame(4 + payload.size(), '\0');
  uint32_t len = static_cast<uint32_t>(payload.size());
  for (int i = 0; i < 4; i++) frame[static_cast<size_t>(i)] = static_cast<char>((len >> (8 * i)) & 0xff);
  std::memcpy(frame.data() + 4, payload.data(), payload.size());
  size_t sent = 0;
  while (sent < frame.size()) {
    ssize_t n = ::write(fd_, frame.data() + sent, frame.size() - sent);
    if (n < 0) {
      if (errno == EINTR) continue;
      // Node is gone: nobody will read a result, and the tasks go with us.
      if (errno == EPIPE) _exit(1);
      return false;
    }
    sent += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace plugstack
