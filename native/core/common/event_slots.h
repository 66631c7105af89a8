// The shared memory in which a host's processes keep the events they have
// not sent yet (protocol/messages.json, "eventSlots"; Node's side is
// lib/host/event-slots.ts).
//
// A call into plugin code must be known to Node before the plugin runs, so
// that a crash, an exit() or a hang inside it is pinned on the right plugin
// and hook. Without this memory every "enter" is written to the socket at
// once: a write, and a wake-up of Node, per call (thirteen per task of a
// step with three plugins). With it, the host's process and its task
// children append their events to a slot Node can read, and send them in
// batches as they would anything else; what a process never sent (it
// crashed, exited or was killed inside plugin code) Node reads from its
// slot once the host has ended. Each slot's counter of open calls tells
// Node, while the host runs, whether it is inside plugin code.
//
// Node gives the memory on descriptor msg::kEventSlotsFd; a host without it
// (or a task past the last slot) sends every "enter" at once, as before.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "protocol/messages.h"

namespace plugstack::event_slots {

// The layout, from the catalogue (the addon maps the same memory).
constexpr size_t kTotalBytes = msg::kEventSlotHeaderBytes + size_t{msg::kEventSlotCount} * msg::kEventSlotBytes;
// Slot i's counters are the header's 32-bit words 2i (bytes used) and
// 2i + 1 (calls open); its data starts at dataOffset(i).
constexpr size_t usedWord(size_t slot) { return 2 * slot; }
constexpr size_t callsWord(size_t slot) { return 2 * slot + 1; }
constexpr size_t dataOffset(size_t slot) { return msg::kEventSlotHeaderBytes + slot * msg::kEventSlotBytes; }
static_assert(callsWord(msg::kEventSlotCount - 1) * sizeof(uint32_t) < msg::kEventSlotHeaderBytes,
              "the counters fit the header");
static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) && std::atomic<uint32_t>::is_always_lock_free,
              "a counter is a plain 32-bit word both sides can read");

struct Slot {
  // Bytes of data held: "[" and comma-separated events, no closing bracket.
  std::atomic<uint32_t>* used = nullptr;
  // Calls into plugin code its process has open.
  std::atomic<uint32_t>* calls = nullptr;
  char* data = nullptr;
  size_t capacity = 0;
  explicit operator bool() const { return data != nullptr; }
};

// Maps the memory when Node gave it (once, in the host's process, before
// any plugin code), and closes the descriptor: plugin code never sees it.
// Anything else on that descriptor is left alone.
void attach();

// Slot `index` (0: the host's process; 1 + i: task i's child); empty when
// there is no memory or no such slot.
Slot slot(size_t index);

}  // namespace plugstack::event_slots
