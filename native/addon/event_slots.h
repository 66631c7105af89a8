// Node's side of the memory a host keeps its unsent events in
// (native/core/common/event_slots.h; lib/host/event-slots.ts).
#pragma once

#include <napi.h>

void registerEventSlots(Napi::Env env, Napi::Object exports);
