#include "spank/job_records.h"

namespace plugstack {

namespace {

void fillArgv(const std::vector<std::string>& args, std::vector<std::string>* store,
              std::vector<char*>* view) {
  *store = args;
  view->clear();
  for (auto& a : *store) view->push_back(a.data());
  view->push_back(nullptr);
}

}  // namespace

void TaskRecord::setArgv(const std::vector<std::string>& args) {
  fillArgv(args, &argvStore, &argv);
  argc = static_cast<int>(args.size());
}

void StepRecord::setArgv(const std::vector<std::string>& args) {
  fillArgv(args, &argvStore, &argv);
}

void LauncherJobRecord::setArgv(const std::vector<std::string>& args) {
  fillArgv(args, &argvStore, &argv);
}

}  // namespace plugstack
