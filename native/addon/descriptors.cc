// Descriptors for the zygote (native/core/lifecycle/zygote.h): Node has no
// API to make a socketpair or to pass a descriptor over a unix socket, so
// the addon does those three things and nothing else. The descriptors are
// close-on-exec; Node's ends are read and written through polled_socket.cc.
#include "descriptors.h"
#include "system_error.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace {

// socketPair() -> [fd, fd]: a connected unix stream socketpair.
Napi::Value SocketPair(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return throwSystemError(env, "socketpair", errno);
  Napi::Array out = Napi::Array::New(env, 2);
  out.Set(0u, sv[0]);
  out.Set(1u, sv[1]);
  return out;
}

// sendWithDescriptors(fd, buffer, [fds]): all of buffer, the descriptors
// attached to its first byte. Waits while the socket is full (it may be
// non-blocking: Node reads from it too).
Napi::Value SendWithDescriptors(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 3 || !info[0].IsNumber() || !info[1].IsBuffer() || !info[2].IsArray()) {
    Napi::TypeError::New(env, "sendWithDescriptors(fd, buffer, fds)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  int fd = info[0].As<Napi::Number>().Int32Value();
  Napi::Buffer<char> data = info[1].As<Napi::Buffer<char>>();
  Napi::Array list = info[2].As<Napi::Array>();
  std::vector<int> fds;
  for (uint32_t i = 0; i < list.Length(); i++) fds.push_back(list.Get(i).As<Napi::Number>().Int32Value());
  std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()));
  size_t sent = 0;
  while (sent < data.Length()) {
    struct iovec iov = {data.Data() + sent, data.Length() - sent};
    struct msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (sent == 0 && !fds.empty()) {
      msg.msg_control = control.data();
      msg.msg_controllen = control.size();
      struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
      std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    }
    ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      struct pollfd p = {fd, POLLOUT, 0};
      if (poll(&p, 1, 10000) <= 0) return throwSystemError(env, "sendmsg", ETIMEDOUT);
      continue;
    }
    if (n < 0) return throwSystemError(env, "sendmsg", errno);
    sent += static_cast<size_t>(n);
  }
  return env.Undefined();
}

// closeDescriptor(fd)
Napi::Value CloseDescriptor(const Napi::CallbackInfo& info) {
  if (info.Length() >= 1 && info[0].IsNumber()) close(info[0].As<Napi::Number>().Int32Value());
  return info.Env().Undefined();
}

}  // namespace

void registerDescriptors(Napi::Env env, Napi::Object exports) {
  exports.Set("socketPair", Napi::Function::New(env, SocketPair));
  exports.Set("sendWithDescriptors", Napi::Function::New(env, SendWithDescriptors));
  exports.Set("closeDescriptor", Napi::Function::New(env, CloseDescriptor));
}
