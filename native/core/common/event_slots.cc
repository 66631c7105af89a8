#include "common/event_slots.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>


namespace plugstack::event_slots {

namespace {

char* g_base = nullptr;

}  // namespace

void attach() {
  const int fd = msg::kEventSlotsFd;
  struct stat st;
  // Only Node's memfd, of the size Node and we agree on: anything else on
  // this descriptor is not ours to map.
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<size_t>(st.st_size) != kTotalBytes) return;
  void* p = mmap(nullptr, kTotalBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p != MAP_FAILED) g_base = static_cast<char*>(p);
  close(fd);
}

Slot slot(size_t index) {
  Slot s;
  if (!g_base || index >= msg::kEventSlotCount) return s;
  auto* counters = reinterpret_cast<std::atomic<uint32_t>*>(g_base);
  s.used = &counters[usedWord(index)];
  s.calls = &counters[callsWord(index)];
  s.data = g_base + dataOffset(index);
  s.capacity = msg::kEventSlotBytes;
  return s;
}

}  // namespace plugstack::event_slots
