#include "hopsim/core/process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "hopsim/core/error.hpp"

extern char** environ;

namespace hopsim {

ChildResult run_child(const std::vector<std::string>& argv, const std::string& stdout_path, bool merge_stderr) {
  ChildOptions opt;
  opt.stdout_path = stdout_path;
  opt.merge_stderr = merge_stderr;
  return run_child(argv, opt);
}

ChildResult run_child(const std::vector<std::string>& argv, const ChildOptions& opt) {
  if (argv.empty()) throw Error("run_child: no program");
  std::vector<std::string> args = argv;
  std::vector<char*> cargv;
  cargv.reserve(args.size() + 1);
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  // The environment with opt.env replacing variables of the same name.
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string v = *e;
    const auto name = v.substr(0, v.find('=') + 1);
    bool replaced = false;
    for (const auto& o : opt.env) replaced = replaced || o.compare(0, name.size(), name) == 0;
    if (!replaced) env.push_back(v);
  }
  env.insert(env.end(), opt.env.begin(), opt.env.end());
  std::vector<char*> cenv;
  cenv.reserve(env.size() + 1);
  for (auto& e : env) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (!opt.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, opt.cwd.c_str());
  if (!opt.stdout_path.empty())
    posix_spawn_file_actions_addopen(&fa, 1, opt.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (opt.merge_stderr) {
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
  } else if (!opt.stderr_path.empty()) {
    posix_spawn_file_actions_addopen(&fa, 2, opt.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, args[0].c_str(), &fa, nullptr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&fa);
  if (err != 0) throw Error(fmt::format("cannot start {}: {}", args[0], std::strerror(err)));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ChildResult r;
  r.signalled = WIFSIGNALED(status);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

}  // namespace hopsim
