// Node's side of the memory a host keeps its unsent events in
// (native/core/common/event_slots.h has the why). Node never maps it: it
// reads the few words and, at a host's end, the few slots it needs with
// pread on the memfd, which costs a system call where a mapping would cost
// an mmap and, at its end, an munmap that stops every thread of Node's on
// every CPU it ran on. The handle is the descriptor, closed as any other.
#include "event_slots.h"
#include "system_error.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/event_slots.h"

namespace {

namespace slots = plugstack::event_slots;
namespace msg = plugstack::msg;

bool readAt(int fd, void* into, size_t size, size_t offset) {
  auto* p = static_cast<char*>(into);
  while (size) {
    ssize_t n = pread(fd, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<size_t>(n);
  }
  return true;
}

int fdOf(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsNumber()) {
    Napi::TypeError::New(info.Env(), "an event slots descriptor").ThrowAsJavaScriptException();
    return -1;
  }
  return info[0].As<Napi::Number>().Int32Value();
}

// eventSlotsCreate() -> [fd, hostFd]: the memory (a memfd, sparse: a page
// exists once a process writes to it), twice: Node's descriptor, and the
// one to hand the host (Node closes it once handed over). Both close-on-exec.
Napi::Value Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = memfd_create("plugstack-events", MFD_CLOEXEC);
  if (fd < 0) return throwSystemError(env, "memfd_create", errno);
  if (ftruncate(fd, static_cast<off_t>(slots::kTotalBytes)) != 0) {
    int e = errno;
    close(fd);
    return throwSystemError(env, "ftruncate", e);
  }
  int hostFd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (hostFd < 0) {
    int e = errno;
    close(fd);
    return throwSystemError(env, "fcntl", e);
  }
  Napi::Array out = Napi::Array::New(env, 2);
  out.Set(0u, fd);
  out.Set(1u, hostFd);
  return out;
}

// eventSlotsOpenCalls(fd, slot) -> the calls into plugin code open now in
// the process of that slot.
Napi::Value OpenCalls(const Napi::CallbackInfo& info) {
  int fd = fdOf(info);
  if (fd < 0) return info.Env().Undefined();
  uint32_t slot = info.Length() > 1 && info[1].IsNumber() ? info[1].As<Napi::Number>().Uint32Value() : 0;
  uint32_t open = 0;
  if (slot < msg::kEventSlotCount && !readAt(fd, &open, sizeof open, slots::callsWord(slot) * sizeof(uint32_t))) open = 0;
  return Napi::Number::New(info.Env(), open);
}

// eventSlotsTake(fd) -> [Buffer]: each slot's events that were never sent,
// as a complete JSON array, in slot order. Only once every process that
// could write them is gone.
Napi::Value Take(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array out = Napi::Array::New(env);
  int fd = fdOf(info);
  if (fd < 0) return out;
  std::vector<uint32_t> words(2 * msg::kEventSlotCount);
  if (!readAt(fd, words.data(), words.size() * sizeof(uint32_t), 0)) return out;
  uint32_t n = 0;
  for (size_t i = 0; i < msg::kEventSlotCount; i++) {
    uint32_t used = words[slots::usedWord(i)];
    if (used == 0) continue;
    if (used > msg::kEventSlotBytes) used = msg::kEventSlotBytes;  // not a host's
    Napi::Buffer<char> b = Napi::Buffer<char>::New(env, used + 1);
    if (!readAt(fd, b.Data(), used, slots::dataOffset(i))) continue;
    b.Data()[used] = ']';
    out.Set(n++, b);
  }
  return out;
}

}  // namespace

void registerEventSlots(Napi::Env env, Napi::Object exports) {
  exports.Set("eventSlotsCreate", Napi::Function::New(env, Create));
  exports.Set("eventSlotsOpenCalls", Napi::Function::New(env, OpenCalls));
  exports.Set("eventSlotsTake", Napi::Function::New(env, Take));
}
