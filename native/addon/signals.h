// Signals to processes and process groups, answered with an errno instead
// of an exception (signals.cc).
#pragma once

#include <napi.h>

void registerSignals(Napi::Env env, Napi::Object exports);
