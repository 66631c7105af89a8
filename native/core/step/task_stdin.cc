#include "step/task_stdin.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "lifecycle/containment.h"
#include "step/privileges.h"
#include "step/step_spec.h"

namespace plugstack {

namespace {

// The host's input, once moved off descriptor 0 (-1: none).
int g_source = -1;

constexpr size_t kReadChunk = 65536;

}  // namespace

void TaskStdin::takeHostInput() {
  if (g_source >= 0) return;
  int fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
  if (fd < 0) return;
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null >= 0) {
    dup2(null, 0);
    close(null);
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  containment::own(fd);
  g_source = fd;
}

bool TaskStdin::setup(const StepSpec& spec, std::string* failedPath, int* error) {
  tasks_.assign(spec.record.tasks.size(), Task{});
  if (!spec.stdinSpec) return true;
  const auto& wanted = *spec.stdinSpec;
  // Files are opened as the user, as slurmstepd opens them with its
  // privileges dropped.
  PrivState saved;
  bool dropped = false;
  for (size_t i = 0; i < tasks_.size() && i < wanted.size(); i++) {
    Task& t = tasks_[i];
    if (!wanted[i]) {
      int p[2];
      if (pipe2(p, O_CLOEXEC) < 0) {
        *failedPath = "pipe";
        *error = errno;
        closeAll();
        return false;
      }
      containment::own(p[0]);
      containment::own(p[1]);
      fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK);
      t.read = p[0];
      t.write = p[1];
      fed_ = true;
      continue;
    }
    if (!dropped) dropped = dropPrivileges(spec.identity(), true, &saved);
    int fd;
    int tries = 0;
    do fd = open(wanted[i]->c_str(), O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR && ++tries < 10);
    if (fd < 0) {
      *failedPath = *wanted[i];
      *error = errno;
      if (dropped) reclaimPrivileges(saved);
      closeAll();
      return false;
    }
    containment::own(fd);
    t.read = fd;
  }
  if (dropped) reclaimPrivileges(saved);
  // No input from srun at all: every pipe ends at once.
  if (fed_ && g_source < 0) {
    sourceEnded_ = true;
    for (auto& t : tasks_) finish(t);
  }
  return true;
}

int TaskStdin::taskEnd(size_t index) const { return index < tasks_.size() ? tasks_[index].read : -1; }

std::vector<int> TaskStdin::childDrops(size_t index) const {
  std::vector<int> out;
  if (g_source >= 0) out.push_back(g_source);
  for (size_t i = 0; i < tasks_.size(); i++) {
    if (tasks_[i].write >= 0) out.push_back(tasks_[i].write);
    if (i != index && tasks_[i].read >= 0) out.push_back(tasks_[i].read);
  }
  return out;
}

void TaskStdin::forked(size_t index) {
  if (index < tasks_.size()) containment::closeOwned(&tasks_[index].read);
}

void TaskStdin::finish(Task& t) {
  if (t.write >= 0 && t.pending.empty() && sourceEnded_) containment::closeOwned(&t.write);
}

void TaskStdin::flush(Task& t) {
  while (t.write >= 0 && !t.pending.empty()) {
    ssize_t n = write(t.write, t.pending.data(), t.pending.size());
    if (n > 0) {
      t.pending.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    // EPIPE: the task closed its input or ended; what it did not read goes.
    t.pending.clear();
    containment::closeOwned(&t.write);
    return;
  }
  finish(t);
}

void TaskStdin::readSource() {
  char buf[kReadChunk];
  for (;;) {
    ssize_t n = read(g_source, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {
      sourceEnded_ = true;
      containment::closeOwned(&g_source);
      for (auto& t : tasks_) finish(t);
      return;
    }
    for (auto& t : tasks_)
      if (t.write >= 0) {
        t.pending.append(buf, static_cast<size_t>(n));
        flush(t);
      }
    return;
  }
}

void TaskStdin::addPollFds(std::vector<struct pollfd>* fds) {
  if (!fed_) return;
  bool room = false, anyOpen = false;
  for (auto& t : tasks_) {
    if (t.write < 0) continue;
    anyOpen = true;
    if (t.pending.size() < kMaxPending) room = true;
    if (!t.pending.empty()) fds->push_back({t.write, POLLOUT, 0});
  }
  // Read on only while every open task has room: one that reads nothing
  // holds the input up only past kMaxPending.
  bool allRoom = std::all_of(tasks_.begin(), tasks_.end(),
                             [](const Task& t) { return t.write < 0 || t.pending.size() < kMaxPending; });
  if (g_source >= 0 && !sourceEnded_ && anyOpen && room && allRoom) fds->push_back({g_source, POLLIN, 0});
}

void TaskStdin::handle(const std::vector<struct pollfd>& fds) {
  if (!fed_) return;
  for (const auto& p : fds) {
    if (!p.revents) continue;
    if (p.fd == g_source) {
      readSource();
      continue;
    }
    for (auto& t : tasks_)
      if (t.write >= 0 && t.write == p.fd) flush(t);
  }
}

void TaskStdin::closeAll() {
  for (auto& t : tasks_) {
    containment::closeOwned(&t.read);
    containment::closeOwned(&t.write);
    t.pending.clear();
  }
  containment::closeOwned(&g_source);
}

}  // namespace plugstack
