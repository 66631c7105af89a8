// Node's side of the memory a host keeps its unsent events in
// (native/core/common/event_slots.h has the why). An opaque handle, as
// everything the addon owns: the mapping is never handed to JavaScript as
// a buffer, which would outlive an unmap. JavaScript asks for the two
// things it needs: how many calls into plugin code are open now, and, once
// the host has ended, what its processes never sent.
#include "event_slots.h"
#include "system_error.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "common/event_slots.h"

namespace {

namespace slots = plugstack::event_slots;
namespace msg = plugstack::msg;

struct Mapping {
  char* base = nullptr;
  void release() {
    if (base) munmap(base, slots::kTotalBytes);
    base = nullptr;
  }
  std::atomic<uint32_t>* counter(size_t i) const { return reinterpret_cast<std::atomic<uint32_t>*>(base) + i; }
};

Mapping* mappingOf(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsExternal()) {
    Napi::TypeError::New(info.Env(), "an event slots handle").ThrowAsJavaScriptException();
    return nullptr;
  }
  return info[0].As<Napi::External<Mapping>>().Data();
}

// eventSlotsCreate() -> [handle, fd]: the memory (a memfd, close-on-exec,
// sparse: a page exists once a process writes to it), mapped here. The
// descriptor is the host's; Node closes its copy once it is handed over.
Napi::Value Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = memfd_create("plugstack-events", MFD_CLOEXEC);
  if (fd < 0) return throwSystemError(env, "memfd_create", errno);
  if (ftruncate(fd, static_cast<off_t>(slots::kTotalBytes)) != 0) {
    int e = errno;
    close(fd);
    return throwSystemError(env, "ftruncate", e);
  }
  void* p = mmap(nullptr, slots::kTotalBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    int e = errno;
    close(fd);
    return throwSystemError(env, "mmap", e);
  }
  auto* m = new Mapping{static_cast<char*>(p)};
  // Unmapped when released, or at the latest when the handle is collected.
  auto handle = Napi::External<Mapping>::New(env, m, [](Napi::Env, Mapping* mapping) {
    mapping->release();
    delete mapping;
  });
  Napi::Array out = Napi::Array::New(env, 2);
  out.Set(0u, handle);
  out.Set(1u, fd);
  return out;
}

// eventSlotsOpenCalls(handle, slot) -> the calls into plugin code open
// now in the process of that slot.
Napi::Value OpenCalls(const Napi::CallbackInfo& info) {
  Mapping* m = mappingOf(info);
  if (!m) return info.Env().Undefined();
  uint32_t slot = info.Length() > 1 && info[1].IsNumber() ? info[1].As<Napi::Number>().Uint32Value() : 0;
  uint32_t open = m->base && slot < msg::kEventSlotCount ? m->counter(slots::callsWord(slot))->load(std::memory_order_acquire) : 0;
  return Napi::Number::New(info.Env(), open);
}

// eventSlotsTake(handle) -> [Buffer]: each slot's events that were never
// sent, as a complete JSON array, in slot order; the slots are emptied.
// Only once every process that could write them is gone.
Napi::Value Take(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Mapping* m = mappingOf(info);
  Napi::Array out = Napi::Array::New(env);
  if (!m || !m->base) return out;
  uint32_t n = 0;
  for (size_t i = 0; i < msg::kEventSlotCount; i++) {
    uint32_t used = m->counter(slots::usedWord(i))->load(std::memory_order_acquire);
    if (used == 0) continue;
    if (used > msg::kEventSlotBytes) used = msg::kEventSlotBytes;  // not a host's
    const char* data = m->base + slots::dataOffset(i);
    Napi::Buffer<char> b = Napi::Buffer<char>::New(env, used + 1);
    std::memcpy(b.Data(), data, used);
    b.Data()[used] = ']';
    m->counter(slots::usedWord(i))->store(0, std::memory_order_release);
    out.Set(n++, b);
  }
  return out;
}

// eventSlotsRelease(handle): unmapped now.
Napi::Value Release(const Napi::CallbackInfo& info) {
  Mapping* m = mappingOf(info);
  if (m) m->release();
  return info.Env().Undefined();
}

}  // namespace

void registerEventSlots(Napi::Env env, Napi::Object exports) {
  exports.Set("eventSlotsCreate", Napi::Function::New(env, Create));
  exports.Set("eventSlotsOpenCalls", Napi::Function::New(env, OpenCalls));
  exports.Set("eventSlotsTake", Napi::Function::New(env, Take));
  exports.Set("eventSlotsRelease", Napi::Function::New(env, Release));
}
