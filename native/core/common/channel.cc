#include "common/channel.h"

#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
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
  // Node answers what it has been told: everything waiting goes first.
  flush();
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

namespace {
Channel* g_channel = nullptr;

// The channel's lock, held for the scope.
class Held {
 public:
  explicit Held(pthread_mutex_t* m) : m_(m) { pthread_mutex_lock(m_); }
  ~Held() { pthread_mutex_unlock(m_); }
  Held(const Held&) = delete;
  Held& operator=(const Held&) = delete;

 private:
  pthread_mutex_t* m_;
};
}  // namespace

Channel::Channel(int eventsFd, int commandsFd) : fd_(eventsFd), in_(commandsFd) {
  g_channel = this;
  static bool hooked = false;
  if (!hooked) {
    hooked = true;
    pthread_atfork(nullptr, nullptr, &Channel::forkedChild);
  }
}

Channel::~Channel() {
  if (g_channel == this) g_channel = nullptr;
}

void Channel::forkedChild() {
  if (!g_channel) return;
  // Another thread of the parent's may have held it at the fork.
  pthread_mutex_init(&g_channel->lock_, nullptr);
  g_channel->slot_ = event_slots::Slot();
  g_channel->batch_.clear();
}

void Channel::useSlot(size_t index) {
  Held held(&lock_);
  slot_ = event_slots::slot(index);
  if (!slot_) return;
  slot_.used->store(0, std::memory_order_relaxed);
  slot_.calls->store(0, std::memory_order_release);
}

void Channel::callOpened() {
  if (slot_) slot_.calls->fetch_add(1, std::memory_order_release);
}

void Channel::callClosed() {
  if (slot_) slot_.calls->fetch_sub(1, std::memory_order_release);
}

void Channel::emit(std::string_view event, Event::Delivery delivery) {
  Held held(&lock_);
  if (!slot_) {
    if (!batch_.empty() && batch_.size() + event.size() + 2 > kBatchBytes) flushLocked();
    batch_ += batch_.empty() ? '[' : ',';
    batch_ += event;
    if (delivery != Event::Delivery::Batched || batch_.size() >= kBatchBytes) flushLocked();
    return;
  }
  // In the slot: the event is written first, then counted, so that Node
  // never reads half an event of a process that died while writing it.
  size_t used = slot_.used->load(std::memory_order_relaxed);
  if (used && used + event.size() + 2 > slot_.capacity) {
    flushLocked();
    used = 0;
  }
  if (event.size() + 2 > slot_.capacity) {
    // Larger than a slot: sent on its own, at once.
    std::string alone;
    alone.reserve(event.size() + 2);
    alone.append("[").append(event).append("]");
    write(alone);
    return;
  }
  slot_.data[used] = used ? ',' : '[';
  std::memcpy(slot_.data + used + 1, event.data(), event.size());
  used += 1 + event.size();
  slot_.used->store(static_cast<uint32_t>(used), std::memory_order_release);
  // A full slot is sent when the next event does not fit (above).
  if (delivery == Event::Delivery::Now) flushLocked();
}

void Channel::flush() {
  Held held(&lock_);
  flushLocked();
}

void Channel::flushLocked() {
  if (slot_) {
    size_t used = slot_.used->load(std::memory_order_relaxed);
    if (!used) return;
    // Made into a frame and the slot emptied before the write: a process
    // killed in between loses the batch (as one killed inside a write
    // always could), but Node never reads it twice.
    std::string frame;
    bool made = frameOf(std::string_view(slot_.data, used), "]", &frame);
    slot_.used->store(0, std::memory_order_release);
    if (made) sendAll(frame);
    return;
  }
  if (batch_.empty()) return;
  batch_ += ']';
  write(batch_);
  batch_.clear();
}

bool Channel::write(std::string_view payload) { return writeFrame(payload, std::string_view()); }

bool Channel::writeFrame(std::string_view body, std::string_view tail) {
  std::string frame;
  return frameOf(body, tail, &frame) && sendAll(frame);
}

bool Channel::frameOf(std::string_view body, std::string_view tail, std::string* frame) {
  size_t size = body.size() + tail.size();
  if (size > kMaxFrame) return false;
  frame->assign(4 + size, '\0');
  uint32_t len = static_cast<uint32_t>(size);
  for (int i = 0; i < 4; i++) (*frame)[static_cast<size_t>(i)] = static_cast<char>((len >> (8 * i)) & 0xff);
  std::memcpy(frame->data() + 4, body.data(), body.size());
  std::memcpy(frame->data() + 4 + body.size(), tail.data(), tail.size());
  return true;
}

bool Channel::sendAll(const std::string& frame) {
  // One buffer, one write: frames from a process never interleave with
  // each other, even when a forked child shares the socket.
  // MSG_NOSIGNAL: a stream Node has closed answers EPIPE without raising
  // SIGPIPE, whose disposition is the emulated Slurm process's (default in
  // sbatch, say), not ours to change.
  size_t sent = 0;
  while (sent < frame.size()) {
    ssize_t n = socket_ ? ::send(fd_, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL)
                        : ::write(fd_, frame.data() + sent, frame.size() - sent);
    if (n < 0) {
      if (errno == EINTR) continue;
      // Not a socket (a pipe someone gave us): written as such from now on.
      if (errno == ENOTSOCK && socket_) {
        socket_ = false;
        continue;
      }
      // Node is gone: nobody will read a result, and the tasks go with us.
      if (errno == EPIPE) _exit(1);
      return false;
    }
    sent += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace plugstack
