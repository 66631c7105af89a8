// Socketpairs and descriptor passing for the zygote (descriptors.cc).
#pragma once

#include <napi.h>

void registerDescriptors(Napi::Env env, Napi::Object exports);
