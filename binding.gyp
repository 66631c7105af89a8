# The one build of record: the N-API addon (plugstack.node), the shared
# library plugins bind to (libslurmhost.so) and the host executable
# (plugstack-host). See README.md, "Building".
{
  "variables": {
    # Testing only: `node-gyp configure -- -Dsanitize=1` builds
    # libslurmhost.so and plugstack-host with AddressSanitizer and
    # UndefinedBehaviorSanitizer (scripts/sanitize.mjs does it, in its own
    # build tree, build-sanitize/, so build/ and prebuilds/ never see these
    # flags). sanitize_options names a generated source that plugstack-host
    # compiles in as well: the sanitizers' default options, which must hold
    # even for hosts started with an environment built from scratch (a
    # prolog/epilog helper gets exactly slurmd's). With sanitize=0 (the
    # default) nothing below changes.
    "sanitize%": 0,
    "sanitize_options%": "",
    "core_include": ["include", "native/core"],
    "core_cflags": [
      "-fvisibility=hidden",
      "-fvisibility-inlines-hidden",
      "-Wall",
      "-Wextra",
      "-Wno-unused-parameter"
    ],
    # The shipped binaries load on glibc 2.28 and later (native/compat/
    # glibc_floor.h says how): every reference to a glibc symbol newer
    # than 2.28 is redirected (--wrap) to a replacement that uses only what
    # 2.28 has, and libdl and libpthread, where older glibcs keep dlopen and
    # pthread_once, are needed explicitly (they are empty on newer ones).
    # libstdc++ and libgcc are linked in statically, so nothing needs the
    # system's (RHEL 8's libstdc++ is older than the build machine's).
    # Sanitized builds, which are never shipped, leave all this out.
    "glibc_floor_ldflags": [
      "-Wl,--wrap=__libc_single_threaded",
      "-Wl,--wrap=stat", "-Wl,--wrap=stat64",
      "-Wl,--wrap=lstat", "-Wl,--wrap=lstat64",
      "-Wl,--wrap=fstat", "-Wl,--wrap=fstat64",
      "-Wl,--wrap=pthread_once", "-Wl,--wrap=__pthread_key_create",
      "-Wl,--wrap=arc4random",
      "-Wl,--wrap=_dl_find_object",
      "-Wl,--no-as-needed", "-l:libpthread.so.0", "-Wl,--as-needed",
      "-static-libstdc++",
      "-static-libgcc"
    ],
    "glibc_floor_dl_ldflags": [
      "-Wl,--wrap=dlopen", "-Wl,--wrap=dlsym", "-Wl,--wrap=dlclose",
      "-Wl,--wrap=dlerror", "-Wl,--wrap=dladdr",
      "-Wl,--no-as-needed", "-l:libdl.so.2", "-Wl,--as-needed"
    ],
    # plugstack's own mpi plugins: C; native/plugins/mpi.map exports the
    # plugin interface and nothing else.
    "plugin_cflags": ["-Wall", "-Wextra", "-Wno-unused-parameter", "-std=gnu11"],
    "plugin_ldflags": ["-Wl,--version-script=<(module_root_dir)/native/plugins/mpi.map"],
    "mpi_pmi2_sources": [
      "native/plugins/mpi_pmi2/exports.c",
      "native/plugins/mpi_pmi2/frame.c",
      "native/plugins/mpi_pmi2/hooks_2205.c",
      "native/plugins/mpi_pmi2/hooks_2411.c",
      "native/plugins/mpi_pmi2/kvs.c",
      "native/plugins/mpi_pmi2/mapping.c",
      "native/plugins/mpi_pmi2/pmi2_plugin.c",
      "native/plugins/mpi_pmi2/report.c",
      "native/plugins/mpi_pmi2/srun_server.c",
      "native/plugins/mpi_pmi2/stepd_server.c",
      "native/plugins/mpi_pmi2/wire.c"
    ],
    # Pure parts of the core that the addon compiles in as well: they run no
    # plugin code and keep no process-wide state.
    "pure_core_sources": [
      "native/core/common/json.cc",
      "native/core/config/plugstack_conf.cc",
      "native/core/config/safe_read.cc",
      "native/core/config/slurm_conf.cc",
      "native/core/config/conf_syntax.cc",
      "native/core/libslurm/hostlist.cc",
      "native/core/rules/builtin_checks.cc",
      "native/core/rules/builtin_options.cc",
      "native/core/rules/slurm_conf_keys.cc",
      "native/core/rules/slurm_errors.cc",
      "native/core/rules/slurm_version.cc",
      "native/core/rules/task_distribution.cc",
      "native/core/spank/help_format.cc"
    ]
  },
  "targets": [
    {
      "target_name": "slurmhost",
      "type": "shared_library",
      "product_prefix": "lib",
      "sources": [
        "<@(pure_core_sources)",
        "native/core/api/log_api.cc",
        "native/core/api/spank_api.cc",
        "native/core/api/spank_items.cc",
        "native/core/api/cli_filter_api.cc",
        "native/core/api/xmalloc_api.cc",
        "native/core/api/env_api.cc",
        "native/core/api/parse_config_api.cc",
        "native/core/config/sp_table.cc",
        "native/core/cli_filter/builtin_filters.cc",
        "native/core/cli_filter/c_filter.cc",
        "native/core/cli_filter/filter_stack.cc",
        "native/core/cli_filter/json_options.cc",
        "native/core/cli_filter/lua/lua_filter.cc",
        "native/core/cli_filter/lua/lua_runtime.cc",
        "native/core/cli_filter/syslog_filter.cc",
        "native/core/cli_filter/user_defaults_filter.cc",
        "native/core/cli_filter/option_store.cc",
        "native/core/cli_filter/option_values.cc",
        "native/core/libslurm/api_guard.cc",
        "native/core/libslurm/api_table.cc",
        "native/core/libslurm/controller.cc",
        "native/core/libslurm/errno_api.cc",
        "native/core/libslurm/hostlist_api.cc",
        "native/core/libslurm/job_info_layout.cc",
        "native/core/libslurm/job_table.cc",
        "native/core/libslurm/library.cc",
        "native/core/libslurm/list.cc",
        "native/core/libslurm/load_job.cc",
        "native/core/libslurm/not_emulated.cc",
        "native/core/libslurm/release.cc",
        "native/core/common/channel.cc",
        "native/core/common/event_slots.cc",
        "native/core/common/events.cc",
        "native/core/common/hook_scope.cc",
        "native/core/common/problem.cc",
        "native/core/common/slurm_log.cc",
        "native/core/lifecycle/containment.cc",
        "native/core/lifecycle/mount_namespace.cc",
        "native/core/lifecycle/zygote.cc",
        "native/core/plugins/load_failure.cc",
        "native/core/plugins/builtin_dir.cc",
        "native/core/plugins/typed_plugin.cc",
        "native/core/plugins/plugin_context.cc",
        "native/core/plugins/plugin_file.cc",
        "native/core/lifecycle/process_tree.cc",
        "native/core/lifecycle/slurm_signals.cc",
        "native/core/lifecycle/slurm_limits.cc",
        "native/core/lifecycle/user_env.cc",
        "native/core/lifecycle/salloc_command.cc",
        "native/core/mpi/mpi_client.cc",
        "native/core/mpi/mpi_daemon.cc",
        "native/core/mpi/mpi_plugin.cc",
        "native/core/mpi/mpi_release.cc",
        "native/core/mpi/mpi_stepd.cc",
        "native/core/mpi/plugin_list.cc",
        "native/core/mpi/pmi_report_api.cc",
        "native/core/mpi/step_shape.cc",
        "native/core/mpi/structs_2205.cc",
        "native/core/mpi/structs_2411.cc",
        "native/core/mpi/x_env.cc",
        "native/core/job_container/jc_daemon.cc",
        "native/core/job_container/jc_extern.cc",
        "native/core/job_container/jc_list.cc",
        "native/core/job_container/jc_plugin.cc",
        "native/core/job_container/jc_release.cc",
        "native/core/job_container/jc_stepd.cc",
        "native/core/client/client_options.cc",
        "native/core/client/host_file.cc",
        "native/core/client/shared_checks.cc",
        "native/core/roles/client.cc",
        "native/core/roles/host_main.cc",
        "native/core/roles/inspect.cc",
        "native/core/roles/job_script.cc",
        "native/core/roles/stack_request.cc",
        "native/core/roles/slurmd.cc",
        "native/core/roles/stepd.cc",
        "native/core/rules/cli_env_options.cc",
        "native/core/rules/parse_time.cc",
        "native/core/rules/signal_names.cc",
        "native/core/rules/context.cc",
        "native/core/rules/item_rules.cc",
        "native/core/rules/phase.cc",
        "native/core/spank/env_array.cc",
        "native/core/spank/job_records.cc",
        "native/core/spank/option_cache.cc",
        "native/core/spank/plugin.cc",
        "native/core/spank/plugin_loader.cc",
        "native/core/spank/stack.cc",
        "native/core/step/privileges.cc",
        "native/core/step/remote_options.cc",
        "native/core/step/step_lifecycle.cc",
        "native/core/step/step_spec.cc",
        "native/core/step/task_env.cc",
        "native/core/step/task_process.cc",
        "native/core/step/task_scripts.cc",
        "native/core/step/task_output.cc",
        "native/core/step/task_stdin.cc"
      ],
      "include_dirs": ["<@(core_include)"],
      "cflags": ["<@(core_cflags)"],
      "cflags_cc": ["-std=gnu++17"],
      # -z now: resolve our own calls once, in the host, instead of again in
      # every forked task child (plugins still bind lazily, as in Slurm).
      "ldflags": [
        "-Wl,--version-script=<(module_root_dir)/native/core/api/exports.map",
        "-Wl,--exclude-libs,ALL",
        "-Wl,-z,now",
        "-static-libstdc++",
        "-static-libgcc"
      ],
      "libraries": ["-ldl"],
      "conditions": [
        ["sanitize==0", {
          "sources": ["native/compat/glibc_floor.cc", "native/compat/glibc_floor_dl.cc"],
          # Each function and datum in a section of its own, and the linker
          # drops what nothing reaches (the static libstdc++'s among it):
          # text 2.68 -> 2.15 MB. Every process of a step maps this library,
          # and a task child faults in its code again 64 KB at a time: a
          # 16-task launchStep took about 40 fewer page faults and 3% less
          # time (medians of 7 interleaved pairs, 107.7 -> 104.2 ms).
          "cflags": ["-ffunction-sections", "-fdata-sections"],
          "ldflags": ["<@(glibc_floor_ldflags)", "<@(glibc_floor_dl_ldflags)", "-Wl,--gc-sections"]
        }],
        ["sanitize==1", {
          "cflags": ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-g"],
          # -O1 after common.gypi's -O3 (C++ flags come last): half the
          # compile time, and stack traces that name every frame.
          "cflags_cc": ["-O1"],
          # The sanitizer runtimes are shared libraries that replace
          # operator new/delete and the unwinder's users: link the shared
          # libstdc++ and libgcc next to them, as the sanitizers expect.
          # The sanitized library is never shipped.
          "ldflags": ["-fsanitize=address,undefined"],
          "ldflags!": ["-static-libstdc++", "-static-libgcc"]
        }]
      ]
    },
    {
      "target_name": "plugstack-host",
      "type": "executable",
      "product_dir": "<(PRODUCT_DIR)/bin",
      "dependencies": ["slurmhost"],
      "sources": ["native/host/main.cc"],
      "cflags": ["<@(core_cflags)"],
      # main() calls plugstack_host_main, so libslurmhost.so is a real
      # DT_NEEDED and its SPANK API is in the global scope, as libslurmfull
      # is for slurmstepd. The rpaths find it next to the executable
      # (prebuilds) and one level up (build/Release/bin).
      "ldflags": [
        "-Wl,-z,now",
        "-Wl,-rpath,'$$ORIGIN'",
        "-Wl,-rpath,'$$ORIGIN/..'"
      ],
      "conditions": [
        ["sanitize==0", {
          "sources": ["native/compat/glibc_floor_start.cc"],
          "ldflags": ["-Wl,--wrap=__libc_start_main"]
        }],
        ["sanitize==1", {
          "cflags": ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-g"],
          "cflags_cc": ["-O1"],
          "ldflags": ["-fsanitize=address,undefined"]
        }],
        ["sanitize==1 and sanitize_options!=''", {
          "sources": ["<(sanitize_options)"]
        }]
      ]
    },
    # plugstack's own mpi plugins (native/plugins/), C, built against
    # plugstack/mpi.h, beside plugstack-host in mpi/ (shipped in the
    # prebuilds with it): pmi2 for 22.05 and 24.11, none for 22.05. They
    # bind to nothing at link time: like any plugin, they find Slurm's
    # names (here libslurmhost.so's) in the process that loads them.
    {
      "target_name": "mpi_pmi2",
      "type": "shared_library",
      "product_prefix": "",
      "product_extension": "so",
      "product_dir": "<(PRODUCT_DIR)/bin/mpi",
      "sources": ["<@(mpi_pmi2_sources)"],
      "include_dirs": ["include"],
      "cflags": ["<@(plugin_cflags)"],
      "ldflags": ["<@(plugin_ldflags)"]
    },
    # plugstack's own job_container/tmpfs (native/plugins/job_container_tmpfs),
    # beside plugstack-host in job_container/: Slurm's needs slurmd's
    # internals; this one serves 22.05 and 24.11 alike.
    {
      "target_name": "job_container_tmpfs",
      "type": "shared_library",
      "product_prefix": "",
      "product_extension": "so",
      "product_dir": "<(PRODUCT_DIR)/bin/job_container",
      "sources": [
        "native/plugins/job_container_tmpfs/conf.c",
        "native/plugins/job_container_tmpfs/exports.c",
        "native/plugins/job_container_tmpfs/ns.c",
        "native/plugins/job_container_tmpfs/step_2411.c"
      ],
      "include_dirs": ["include"],
      "cflags": ["<@(plugin_cflags)"],
      "ldflags": ["-Wl,--version-script=<(module_root_dir)/native/plugins/job_container.map"]
    },
    {
      "target_name": "mpi_none",
      "type": "shared_library",
      "product_prefix": "",
      "product_extension": "so",
      "product_dir": "<(PRODUCT_DIR)/bin/mpi",
      "sources": ["native/plugins/mpi_none/mpi_none.c"],
      "include_dirs": ["include"],
      "defines": ["SLURM_VERSION_NUMBER=0x160508"],
      "cflags": ["<@(plugin_cflags)"],
      "ldflags": ["<@(plugin_ldflags)"]
    },
    {
      "target_name": "plugstack",
      "sources": ["<@(pure_core_sources)", "native/addon/addon.cc", "native/addon/polled_socket.cc", "native/addon/descriptors.cc", "native/addon/event_slots.cc", "native/addon/signals.cc", "native/addon/spawn.cc", "native/addon/terminal.cc"],
      "include_dirs": [
        "<@(core_include)",
        "<!(node -p \"require('node-addon-api').include_dir\")"
      ],
      "defines": [
        "NAPI_VERSION=8",
        "NAPI_DISABLE_CPP_EXCEPTIONS",
        "NODE_ADDON_API_DISABLE_DEPRECATED",
        "PLUGSTACK_NO_EXPORTS"
      ],
      "cflags": ["<@(core_cflags)"],
      "cflags_cc": ["-std=gnu++17"],
      "ldflags": [
        "-Wl,--version-script=<(module_root_dir)/native/addon/exports.map",
        "-Wl,--exclude-libs,ALL"
      ],
      "conditions": [
        ["sanitize==0", {
          "sources": ["native/compat/glibc_floor.cc"],
          "ldflags": ["<@(glibc_floor_ldflags)"]
        }]
      ]
    }
  ]
}
