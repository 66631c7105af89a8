// The host's end of the socketpair to Node: length-prefixed frames.
//
// A frame is a 4-byte little-endian length followed by that many bytes of
// JSON: a request from Node, or from the host a JSON array of events.
// Frames over kMaxFrame are refused in both directions, so a corrupt length
// can never make either side allocate without bound.
#pragma once

#include <pthread.h>

#include <string>
#include <string_view>

#include "common/event_slots.h"
#include "common/events.h"

namespace plugstack {

constexpr uint32_t kMaxFrame = 16u << 20;

class Channel : public EventSink {
 public:
  // Events go out on eventsFd; the request and Node's commands come in on
  // commandsFd (the same descriptor when Node gives only one). Two
  // descriptors let Node write a command to a host that has just exited
  // without losing what the host wrote last: the failed write (EPIPE) ends
  // only the command stream, never the one still holding unread events.
  Channel(int eventsFd, int commandsFd);

  // Blocks for one frame. False at end of stream or on a malformed frame,
  // with *error set.
  bool read(std::string* payload, std::string* error);
  bool write(std::string_view payload);

  ~Channel() override;

  void emit(std::string_view event, Event::Delivery delivery) override;
  void flush() override;
  void useSlot(size_t index) override;
  void callOpened() override;
  void callClosed() override;
  unsigned openCalls() const override { return slot_ ? slot_.calls->load(std::memory_order_relaxed) : 0; }
  void setOpenCalls(unsigned n) override {
    if (slot_) slot_.calls->store(n, std::memory_order_release);
  }

  // Where commands arrive (for poll).
  int commandFd() const { return in_; }

 private:
  // Events wait as "[e1,e2,..." (in the process's slot, or in batch_)
  // until the next flush. A step's task
  // children write to the same socket as the stepd: a frame must reach
  // the socket in one piece, which Linux guarantees for a write to a unix
  // stream socket that fits one buffer (32 KiB and more). Batches stay
  // well below that; only a single event larger than this is sent alone.
  static constexpr size_t kBatchBytes = 16 * 1024;
  // Plugin code may report from threads of its own (slurm_info from a
  // thread it started; the mpi plugin's agents): one at a time, so that no
  // event is written into another's. A forked child gets a fresh one.
  pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;
  void flushLocked();
  // Sends one frame whose payload is `body` followed by `tail`.
  bool writeFrame(std::string_view body, std::string_view tail);
  // The frame of that payload; false when it is over kMaxFrame.
  static bool frameOf(std::string_view body, std::string_view tail, std::string* frame);
  bool sendAll(const std::string& frame);
  // A process forked from this one (by us or by plugin code) starts with
  // nothing buffered and no slot: the parent's are the parent's.
  static void forkedChild();
  int fd_;
  // Node's end is a socket (sent to with MSG_NOSIGNAL) until a send says otherwise.
  bool socket_ = true;
  int in_;
  // With a slot, the batch is the slot's data (shared with Node);
  // without, this string.
  event_slots::Slot slot_ = event_slots::slot(0);
  std::string batch_;
};

}  // namespace plugstack
