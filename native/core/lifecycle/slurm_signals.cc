#include "lifecycle/slurm_signals.h"

#include <signal.h>

#include <cstring>

namespace plugstack::slurm_signals {

namespace {

struct Named {
  const char* name;
  int number;
};

// The classic signals, by the names Slurm's tables use without SIG.
constexpr Named kSignals[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},     {"QUIT", SIGQUIT},   {"ILL", SIGILL},   {"TRAP", SIGTRAP},
    {"ABRT", SIGABRT}, {"BUS", SIGBUS},     {"FPE", SIGFPE},     {"USR1", SIGUSR1}, {"SEGV", SIGSEGV},
    {"USR2", SIGUSR2}, {"PIPE", SIGPIPE},   {"ALRM", SIGALRM},   {"TERM", SIGTERM}, {"CHLD", SIGCHLD},
    {"CONT", SIGCONT}, {"TSTP", SIGTSTP},   {"TTIN", SIGTTIN},   {"TTOU", SIGTTOU}, {"URG", SIGURG},
    {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ},   {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH},
    {"IO", SIGIO},     {"PWR", SIGPWR},     {"SYS", SIGSYS},
};

int numberOf(const std::string& name) {
  for (const Named& s : kSignals)
    if (name == s.name) return s.number;
  return 0;
}

void doNothing(int) {}

}  // namespace

std::vector<int> parse(const std::string& names) {
  std::vector<int> out;
  size_t at = 0;
  while (at < names.size()) {
    size_t comma = names.find(',', at);
    if (comma == std::string::npos) comma = names.size();
    if (int sig = numberOf(names.substr(at, comma - at))) out.push_back(sig);
    at = comma + 1;
  }
  return out;
}

void block(const std::string& names) {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : parse(names)) sigaddset(&set, sig);
  sigprocmask(SIG_BLOCK, &set, nullptr);
}

void catchIgnoring(const std::string& names) {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = doNothing;
  sigemptyset(&sa.sa_mask);
  for (int sig : parse(names)) sigaction(sig, &sa, nullptr);
}

void ignore(const std::string& names) {
  for (int sig : parse(names)) signal(sig, SIG_IGN);
}

void uncatch(const std::string& names) {
  for (int sig : parse(names)) signal(sig, SIG_DFL);
}

void allDefault() {
  for (int sig = 1; sig < NSIG; sig++)
    if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

void unblockAsTaskChild(const std::string& blocked) {
  for (int sig : parse(blocked)) {
    signal(sig, SIG_IGN);
    signal(sig, SIG_DFL);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

}  // namespace plugstack::slurm_signals
