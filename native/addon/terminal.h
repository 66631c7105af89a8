// salloc's job control on a terminal (terminal.cc): which process group
// has the terminal, handing it over, and its saved mode.
#pragma once

#include <napi.h>

void registerTerminal(Napi::Env env, Napi::Object exports);
