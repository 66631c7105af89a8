// Sockets Node reads and writes through libuv's poll (polled_socket.cc).
#pragma once

#include <napi.h>

void registerPolledSocket(Napi::Env env, Napi::Object exports);
