#!/usr/bin/env python3
"""Regenerates native/core/rules/cli_option_unset.inc: what slurm_option_get
answers for an option nobody set, per command and per emulated release.

"Not set" has many spellings: NULL, "unset", "invalid-context" (an option of
another command), a default number ("-2", "0", "60"), a formatted NO_VAL
("2982616-04:14:00"), the working directory (chdir), the caller's uid. They
come from each option's reset and get functions, so they are asked of the real
thing: Debian's Slurm 22.05 client (slurm-client and slurm-wlm-basic-plugins,
installed) runs a cli_filter.lua that reads every option in setup_defaults,
as an unprivileged user in a directory of its own, and stops at submission
(no controller listens). Values that are the working directory, the uid or
the gid are written as @cwd@, @uid@ and @gid@ and filled in at run time.

24.11's values are 22.05's for every option whose get and reset functions
are the same text in both releases' slurm_opt.c; this script compares them
and stops if one differs and has no entry in SOURCE_READ_2411 below (read
from slurm_opt.c at slurm-24-11-5-1), so a new difference cannot slip by.

usage: scripts/gen-cli-option-unset.py <slurm-git-dir> > native/core/rules/cli_option_unset.inc
"""
import importlib.util
import os
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("builtin_options", HERE / "gen-builtin-options.py")
builtin_options = importlib.util.module_from_spec(spec)
spec.loader.exec_module(builtin_options)

COMMANDS = ["srun", "sbatch", "salloc"]
PLUGIN_DIR = "/usr/lib/x86_64-linux-gnu/slurm-wlm"
NOBODY = 65534
NULL = None
INVALID = "invalid-context"

# What 24.11 answers where its get or reset function differs from 22.05's,
# or the option is new, per command (srun, sbatch, salloc).
SOURCE_READ_2411 = {
    # Only the buffer size of the time string changed.
    "begin": "same", "deadline": "same", "chdir": "same",
    # cpu_bind's reset now also clears the bind type; the value stays NULL.
    "cpu-bind": "same", "cpu_bind": "same",
    # New flag bits and a "topo" spelling; the unset spelling is the same.
    "exclusive": "same", "oversubscribe": "same", "gres-flags": "same",
    # The resets clear more fields; the printed value is the same.
    "jobid": "same", "ntasks": "same",
    # The getters became plain integer getters with the same defaults.
    "quiet": "same", "threads-per-core": "same",
    # arg_get_delay_boot returns NULL for NO_VAL now.
    "delay-boot": (NULL, NULL, NULL),
    # --pty takes an optional argument: a string getter of srun.
    "pty": (NULL, INVALID, INVALID),
    # --resv-ports moved out of srun_opt: "unset" in every command.
    "resv-ports": ("unset", "unset", "unset"),
    # slurmd-debug is reset to LOG_LEVEL_ERROR instead of QUIET.
    "slurmd-debug": ("error", INVALID, INVALID),
    # argv is read through the lua plugin's own table, not the getter.
    "argv": "same",
    # New in 24.11 (or new to this table).
    "autocomplete": (NULL, NULL, NULL),
    "container-id": (NULL, NULL, NULL),
    "external-launcher": ("unset", INVALID, INVALID),
    "extra": (NULL, NULL, NULL),
    "get-user-env": (NULL, NULL, NULL),
    "gid": ("@gid@", "@gid@", "@gid@"),
    "uid": ("@uid@", "@uid@", "@uid@"),
    "oom-kill-step": ("unset", "unset", "unset"),
    "segment": (NULL, NULL, NULL),
    "stepmgr": ("unset", "unset", "unset"),
    "treewidth": ("0", INVALID, INVALID),
    "tres-bind": (NULL, NULL, NULL),
    "tres-per-task": (NULL, NULL, NULL),
}

DUMP_SCRIPT = """
local names = {}
for line in io.lines(NAMES) do names[#names + 1] = line end
function slurm_cli_setup_defaults(options)
  local f = io.open(OUT, "w")
  for _, n in ipairs(names) do
    local v = options[n]
    if type(v) == "string" then f:write(n, "\\t", v, "\\n") else f:write(n, "\\n") end
  end
  f:close()
  return slurm.ERROR
end
function slurm_cli_pre_submit(options, offset) return slurm.ERROR end
function slurm_cli_post_submit(offset, jobid, stepid) return slurm.SUCCESS end
"""


def slurm_opt_source(gitdir, tag):
    return subprocess.run(["git", "-C", gitdir, "show", f"{tag}:src/common/slurm_opt.c"],
                          check=True, capture_output=True, text=True).stdout


def functions_of(src):
    """name -> (get function text, reset function text) for every named option."""
    out = {}
    for m in re.finditer(r"^static slurm_cli_opt_t slurm_opt_\w+ = \{(.*?)\n\};", src, re.S | re.M):
        body = re.sub(r"#else.*?#endif", "", m.group(1), flags=re.S)  # as gen-builtin-options.py
        f = dict(re.findall(r"\.(\w+)\s*=\s*([^,\n]+),", body))
        name = f.get("name", "NULL").strip().strip('"')
        if name != "NULL":
            out.setdefault(name, tuple(text_of(src, f.get(k, "").strip()) for k in ("get_func", "reset_func")))
    return out


def text_of(src, fn):
    if not fn:
        return None
    m = re.search(r"^static \w[\w\s\*]*\b" + re.escape(fn) + r"\(.*?\n\}", src, re.S | re.M)
    if m:
        return m.group(0)
    base = re.sub(r"^arg_(get|reset)_", "", fn)
    m = re.search(r"^(COMMON_\w+)\(" + re.escape(base) + r"(?:,[^)]*)?\)", src, re.M)
    # Macros that only add a setter leave the getter and reset alone.
    return re.sub(r"_SET_DATA|_SET\b", "", m.group(0)) if m else fn


def ask_real_client(names):
    values = {}
    with tempfile.TemporaryDirectory(prefix="plugstack-unset-") as d:
        os.chmod(d, 0o777)
        work = os.path.join(d, "work")
        os.mkdir(work)
        os.chmod(work, 0o777)
        names_file = os.path.join(d, "names.txt")
        pathlib.Path(names_file).write_text("\n".join(names) + "\n")
        for cmd in COMMANDS:
            out = os.path.join(d, f"{cmd}.txt")
            script = DUMP_SCRIPT.replace("NAMES", repr(names_file)).replace("OUT", repr(out))
            pathlib.Path(d, "cli_filter.lua").write_text(script)
            pathlib.Path(d, "slurm.conf").write_text("\n".join([
                "ClusterName=unset", "SlurmctldHost=localhost", "SlurmctldPort=1",
                "AuthType=auth/munge", f"PluginDir={PLUGIN_DIR}", "CliFilterPlugins=cli_filter/lua",
                "NodeName=n0 CPUs=1", "PartitionName=p Nodes=n0 Default=YES", ""]))
            for f in os.listdir(d):
                os.chmod(os.path.join(d, f), 0o777 if os.path.isdir(os.path.join(d, f)) else 0o666)
            args = {"srun": ["srun", "true"], "sbatch": ["sbatch", "--wrap", "true"], "salloc": ["salloc", "true"]}[cmd]
            env = {"PATH": "/usr/bin:/bin", "SLURM_CONF": os.path.join(d, "slurm.conf"), "HOME": work}
            subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *args],
                           cwd=work, env=env, capture_output=True, timeout=60)
            text = pathlib.Path(out).read_text()
            for line in text.splitlines():
                name, _, value = line.partition("\t")
                v = value if "\t" in line else NULL
                if v == work:
                    v = "@cwd@"
                elif v == str(NOBODY) and name in ("uid", "gid"):
                    v = f"@{name}@"
                values.setdefault(name, {})[cmd] = v
    return values


def c_string(v):
    return "nullptr" if v is None else '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    gitdir = sys.argv[1]
    names = {tag: [row[0] for row in builtin_options.read_options(gitdir, tag)]
             for _, tag, _ in builtin_options.RELEASES}
    old, new = "slurm-22-05-8-1", "slurm-24-11-5-1"
    real = ask_real_client(list(dict.fromkeys(names[old])))
    f_old, f_new = functions_of(slurm_opt_source(gitdir, old)), functions_of(slurm_opt_source(gitdir, new))
    rows = []
    for name in dict.fromkeys(names[old]):
        rows.append((name, 2, tuple(real[name][c] for c in COMMANDS)))
    for name in dict.fromkeys(names[new]):
        same_text = name in f_old and f_old[name] == f_new[name]
        read = SOURCE_READ_2411.get(name)
        if read is None and not same_text:
            sys.exit(f"{name}: its getter or reset differs in 24.11; add it to SOURCE_READ_2411")
        values = tuple(real[name][c] for c in COMMANDS) if (same_text or read == "same") else read
        rows.append((name, 1, values))
    merged = {}
    for name, bit, values in rows:
        key = (name, values)
        merged[key] = merged.get(key, 0) | bit
    print("// Generated by scripts/gen-cli-option-unset.py: what slurm_option_get answers")
    print("// for an option nobody set, asked of Debian's real 22.05 client; 24.11's are")
    print("// 22.05's where the get and reset functions are unchanged, else read from its")
    print("// source. @cwd@, @uid@ and @gid@ are filled in at run time. Do not edit.")
    print("// { name, releases (1 = 24.11, 2 = 22.05), srun, sbatch, salloc }")
    for (name, values), bits in merged.items():
        print(f'{{"{name}", {bits}, ' + ", ".join(c_string(v) for v in values) + "},")


if __name__ == "__main__":
    main()
