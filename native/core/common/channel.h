// The host's end of the socketpair to Node: length-prefixed frames.
//
// A frame is a 4-byte little-endian length followed by that many bytes of
// JSON. Frames over kMaxFrame are refused in both directions, so a corrupt
// length can never make either side allocate without bound.
#pragma once

#include <string>
#include <string_view>

#include "common/events.h"

namespace plugstack {

constexpr uint32_t kProtocolVersion = 1;
constexpr uint32_t kMaxFrame = 16u << 20;

class Channel : public EventSink {
 public:
  explicit Channel(int fd) : fd_(fd) {}

  // Blocks for one frame. False at end of stream or on a malformed frame,
  // with *error set.
  bool read(std::string* payload, std::string* error);
  bool write(std::string_view payload);

  void emit(const json::Value& event) override { write(event.dump()); }

  int fd() const { return fd_; }

 private:
  int fd_;
};

}  // namespace plugstack
