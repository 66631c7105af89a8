// Polled sockets: a socket Node reads and writes through libuv's poll,
// without a net.Socket. Every host the zygote forks shares four or five socketpairs
// with Node (its standard output and error, its events, its commands,
// perhaps its standard input). As net.Sockets each one cost ~80 µs of
// Node's CPU to make and tear down (stream state, a pipe handle, a close
// callback, ticks for every read), and loading node:net cost every command
// ~2.5 ms before it did anything. A polled socket is one uv_poll_t on the
// descriptor: when it is readable, whatever is there is read and handed to
// JavaScript, in a new buffer per read or, for a socket whose reader keeps
// nothing of a chunk past its call (a host's events), in one buffer given
// at the start (a buffer per read made work for the garbage collector:
// ~5 ms per 64-task step); writes go out at once, and what the socket
// does not take is queued until it is writable. Policy (what an end or an
// error means for the host) stays in lib/host/polled-socket.ts.
#include "polled_socket.h"

#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include <cerrno>
#include <deque>
#include <string>

namespace {

// What a polled socket tells JavaScript: lib/host/polled-socket.ts has the same numbers.
enum Event { kData = 0, kEnd = 1, kReadError = 2, kDrain = 3, kWriteError = 4 };

// A read takes at most this much; a host's frames and output come in less.
constexpr size_t kReadSize = 64 * 1024;
// Reads per wake-up before other handles get their turn (libuv's streams
// read 32 times; a full socket buffer is ~200 KB here).
constexpr int kReadsPerWake = 8;

class PolledSocket : public Napi::ObjectWrap<PolledSocket> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "PolledSocket",
                       {InstanceMethod<&PolledSocket::Write>("write"), InstanceMethod<&PolledSocket::End>("end"),
                        InstanceMethod<&PolledSocket::Close>("close"), InstanceMethod<&PolledSocket::RefLoop>("ref"),
                        InstanceMethod<&PolledSocket::UnrefLoop>("unref")});
  }

  // new PolledSocket(fd, readable, onEvent(kind, value), into?): the
  // descriptor is the object's from now on (close() closes it). With a
  // buffer `into`, what is read goes there and the data event's value is
  // its length; otherwise it is a new buffer.
  explicit PolledSocket(const Napi::CallbackInfo& info) : Napi::ObjectWrap<PolledSocket>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 3 || !info[0].IsNumber() || !info[1].IsBoolean() || !info[2].IsFunction() ||
        (info.Length() > 3 && !info[3].IsUndefined() && !info[3].IsBuffer())) {
      Napi::TypeError::New(env, "new PolledSocket(fd, readable, onEvent, into?)").ThrowAsJavaScriptException();
      return;
    }
    fd_ = info[0].As<Napi::Number>().Int32Value();
    reading_ = info[1].As<Napi::Boolean>().Value();
    onEvent_ = Napi::Persistent(info[2].As<Napi::Function>());
    if (info.Length() > 3 && info[3].IsBuffer()) {
      Napi::Buffer<char> into = info[3].As<Napi::Buffer<char>>();
      into_ = Napi::Persistent(into);
      intoData_ = into.Data();
      intoSize_ = into.Length();
    }
    uv_loop_t* loop = nullptr;
    if (napi_get_uv_event_loop(env, &loop) != napi_ok) {
      shut();
      Napi::Error::New(env, "no event loop").ThrowAsJavaScriptException();
      return;
    }
    poll_ = new uv_poll_t;
    int r = uv_poll_init_socket(loop, poll_, fd_);
    if (r != 0) {
      delete poll_;
      poll_ = nullptr;
      shut();
      Napi::Error::New(env, std::string("uv_poll_init: ") + uv_strerror(r)).ThrowAsJavaScriptException();
      return;
    }
    poll_->data = this;
    // Alive while open: JavaScript may drop its last reference to a
    // socket that still has a host at the other end.
    Ref();
    referenced_ = true;
    update();
  }

  ~PolledSocket() override { shut(); }

 private:
  // write(buffer) -> 0 written, 1 queued (a 'drain' follows), or -errno.
  Napi::Value Write(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsBuffer()) {
      Napi::TypeError::New(env, "write(buffer)").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    if (closed_) return Napi::Number::New(env, -EBADF);
    if (writeError_) return Napi::Number::New(env, -writeError_);
    Napi::Buffer<char> data = info[0].As<Napi::Buffer<char>>();
    const char* p = data.Data();
    size_t n = data.Length();
    if (queue_.empty()) {
      while (n > 0) {
        ssize_t w = send(fd_, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (w < 0) {
          writeError_ = errno;
          return Napi::Number::New(env, -writeError_);
        }
        p += w;
        n -= static_cast<size_t>(w);
      }
      if (n == 0) return Napi::Number::New(env, 0);
    }
    queue_.emplace_back(p, n);
    update();
    return Napi::Number::New(env, 1);
  }

  // end(): no more writes; the peer reads end of stream once the queue is out.
  Napi::Value End(const Napi::CallbackInfo& info) {
    if (!closed_ && !ending_) {
      ending_ = true;
      if (queue_.empty()) shutdown(fd_, SHUT_WR);
    }
    return info.Env().Undefined();
  }

  // close(): stops polling and closes the descriptor; nothing is reported after it.
  Napi::Value Close(const Napi::CallbackInfo& info) {
    release();
    return info.Env().Undefined();
  }

  // ref()/unref(): whether an open socket keeps Node's event loop alive.
  Napi::Value RefLoop(const Napi::CallbackInfo& info) {
    if (poll_) uv_ref(reinterpret_cast<uv_handle_t*>(poll_));
    return info.Env().Undefined();
  }
  Napi::Value UnrefLoop(const Napi::CallbackInfo& info) {
    if (poll_) uv_unref(reinterpret_cast<uv_handle_t*>(poll_));
    return info.Env().Undefined();
  }

  // Closed for good: JavaScript no longer needs to hold the object alive
  // (whoever closed it: JavaScript, or a call into it that failed).
  void release() {
    shut();
    if (referenced_) {
      referenced_ = false;
      Unref();
    }
  }

  // Stops polling before the descriptor closes (libuv's rule), then frees
  // the handle once libuv is done with it.
  void shut() {
    if (closed_) return;
    closed_ = true;
    queue_.clear();
    if (poll_) {
      uv_poll_stop(poll_);
      uv_close(reinterpret_cast<uv_handle_t*>(poll_), [](uv_handle_t* h) { delete reinterpret_cast<uv_poll_t*>(h); });
      poll_ = nullptr;
    }
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    // The callback holds the JavaScript side (and all it refers to) from a
    // strong reference: let go, or none of it is ever collected.
    onEvent_.Reset();
    into_.Reset();
    intoData_ = nullptr;
  }

  // Polls for what is wanted now: reading until the end, writing while something is queued.
  void update() {
    if (closed_ || !poll_) return;
    int events = (reading_ ? UV_READABLE : 0) | (queue_.empty() ? 0 : UV_WRITABLE);
    if (events == polling_) return;
    polling_ = events;
    if (events == 0) uv_poll_stop(poll_);
    else uv_poll_start(poll_, events, OnPoll);
  }

  // Calls JavaScript from libuv: napi_make_callback runs the ticks and
  // promise jobs the callback queued, as Node does after a read of its own.
  // A throw is Node's uncaught exception, as it would be from a stream's
  // 'data' listener. Raw N-API calls, not node-addon-api's, in all of this
  // path: those abort the process when a call fails, and calls fail once
  // Node has begun to tear its environment down (the loop still runs then,
  // and a socket Node no longer holds, like the zygote's, can still become
  // readable). Then nothing listens any more: the socket is closed.
  // value == nullptr: a number (errno) instead.
  void emit(napi_env env, int kind, napi_value value, int number = 0) {
    if (closed_) return;
    napi_value argv[2];
    napi_value result;
    napi_value fn;
    if (napi_create_int32(env, kind, &argv[0]) != napi_ok || napi_get_reference_value(env, onEvent_, &fn) != napi_ok ||
        (!value && napi_create_int32(env, number, &value) != napi_ok)) {
      release();
      return;
    }
    argv[1] = value;
    if (napi_make_callback(env, nullptr, Value(), fn, 2, argv, &result) == napi_ok) return;
    bool pending = false;
    if (napi_is_exception_pending(env, &pending) == napi_ok && pending) {
      napi_value error;
      napi_get_and_clear_last_exception(env, &error);
      napi_fatal_exception(env, error);
      return;
    }
    release();
  }

  static void OnPoll(uv_poll_t* handle, int status, int events) {
    auto* self = static_cast<PolledSocket*>(handle->data);
    napi_env env = self->Env();
    napi_handle_scope scope;
    if (napi_open_handle_scope(env, &scope) != napi_ok) return self->release();
    // Holds the object through the callbacks, whatever they drop: its
    // value in this scope keeps it from being collected.
    napi_value keep = self->Value();
    (void)keep;
    if (status < 0) {
      // The socket has an error (a peer that closed with our writes
      // unread: ECONNRESET), and libuv has stopped polling it. What the
      // peer wrote before that is still there to read, as a net.Socket
      // would read it: first that, then the error (or the end) itself.
      self->polling_ = 0;
      if (self->reading_) self->readSome(env);
      if (!self->closed_) {
        int error = 0;
        socklen_t size = sizeof error;
        if (getsockopt(self->fd_, SOL_SOCKET, SO_ERROR, &error, &size) != 0 || error == 0) error = -status;
        bool reading = self->reading_;
        self->reading_ = false;
        self->queue_.clear();
        self->update();
        self->emit(env, reading ? kReadError : kWriteError, nullptr, error);
      }
    } else {
      if (events & UV_READABLE) self->readSome(env);
      if (!self->closed_ && (events & UV_WRITABLE)) self->flush(env);
    }
    napi_close_handle_scope(env, scope);
  }

  void readSome(napi_env env) {
    char own[kReadSize];
    char* buf = intoData_ ? intoData_ : own;
    size_t size = intoData_ ? intoSize_ : sizeof own;
    for (int i = 0; i < kReadsPerWake && reading_ && !closed_; i++) {
      ssize_t n = recv(fd_, buf, size, MSG_DONTWAIT);
      if (n < 0 && errno == EINTR) {
        i--;
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n <= 0) {
        int e = n < 0 ? errno : 0;
        reading_ = false;
        update();
        if (e) emit(env, kReadError, nullptr, e);
        else emit(env, kEnd, nullptr);
        return;
      }
      if (intoData_) {
        emit(env, kData, nullptr, static_cast<int>(n));
      } else {
        napi_value chunk;
        void* copy;
        if (napi_create_buffer_copy(env, static_cast<size_t>(n), buf, &copy, &chunk) != napi_ok) return release();
        emit(env, kData, chunk);
      }
      // Less than asked for: the socket is empty (the next wake-up says otherwise).
      if (static_cast<size_t>(n) < size) return;
    }
  }

  void flush(napi_env env) {
    while (!queue_.empty()) {
      std::string& front = queue_.front();
      ssize_t w = send(fd_, front.data() + sent_, front.size() - sent_, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (w < 0) {
        writeError_ = errno;
        queue_.clear();
        sent_ = 0;
        update();
        emit(env, kWriteError, nullptr, writeError_);
        return;
      }
      sent_ += static_cast<size_t>(w);
      if (sent_ == front.size()) {
        queue_.pop_front();
        sent_ = 0;
      }
    }
    if (ending_) shutdown(fd_, SHUT_WR);
    update();
    emit(env, kDrain, nullptr);
  }

  int fd_ = -1;
  uv_poll_t* poll_ = nullptr;
  int polling_ = 0;
  bool reading_ = false;
  bool ending_ = false;
  bool closed_ = false;
  // Ref() taken at the start, until release().
  bool referenced_ = false;
  int writeError_ = 0;
  std::deque<std::string> queue_;
  size_t sent_ = 0;
  Napi::FunctionReference onEvent_;
  // The buffer reads go into, when one was given (held for as long as the socket).
  Napi::Reference<Napi::Buffer<char>> into_;
  char* intoData_ = nullptr;
  size_t intoSize_ = 0;
};

}  // namespace

void registerPolledSocket(Napi::Env env, Napi::Object exports) {
  exports.Set("PolledSocket", PolledSocket::Define(env));
}
