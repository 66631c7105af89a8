// A system call's failure as the JavaScript error the addon throws: the
// call and strerror in the message, `errno` and `syscall` as Node's own
// errors carry them.
#pragma once

#include <napi.h>

#include <cstring>
#include <string>

inline Napi::Value throwSystemError(Napi::Env env, const char* call, int e) {
  Napi::Error error = Napi::Error::New(env, std::string(call) + ": " + std::strerror(e));
  error.Set("errno", Napi::Number::New(env, e));
  error.Set("syscall", Napi::String::New(env, call));
  error.ThrowAsJavaScriptException();
  return env.Undefined();
}
