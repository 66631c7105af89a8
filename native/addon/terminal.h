// The terminal calls of salloc's job control and srun's --pty
// (terminal.cc): which process group has the terminal, handing it over,
// its saved mode, its size.
#pragma once

#include <napi.h>

void registerTerminal(Napi::Env env, Napi::Object exports);
