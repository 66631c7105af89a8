// Starting the zygote without forking Node, and reaping it (spawn.cc).
#pragma once

#include <napi.h>

void registerSpawn(Napi::Env env, Napi::Object exports);
