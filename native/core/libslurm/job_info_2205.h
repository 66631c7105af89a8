// The job record of Slurm 22.05 (slurm_job_info_t of its slurm.h), in its
// exact layout: a plugin built against 22.05's header reads these offsets.
// 24.11 added fields (container_id, extra, failed_node, job_size_str,
// oom_kill_step, priority_array, priority_array_names, resv_ports), dropped
// power_flags, select_jobinfo and show_flags, and widened state_reason to 32
// bits; include/slurm/slurm.h has the 24.11 record. Pointers to types
// plugstack never fills (bitmaps, select data, job resources) are void*.
// test/libslurm-layout.test.ts reads a record plugstack filled through
// Debian's 22.05 header.
#pragma once

#include <cstdint>
#include <ctime>

namespace plugstack::libslurm {

struct JobInfo2205 {
  char *account;
  time_t accrue_time;
  char *admin_comment;
  char *alloc_node;
  uint32_t alloc_sid;
  int64_t *array_bitmap;
  uint32_t array_job_id;
  uint32_t array_task_id;
  uint32_t array_max_tasks;
  char *array_task_str;
  uint32_t assoc_id;
  char *batch_features;
  uint16_t batch_flag;
  char *batch_host;
  uint64_t bitflags;
  uint16_t boards_per_node;
  char *burst_buffer;
  char *burst_buffer_state;
  char *cluster;
  char *cluster_features;
  char *command;
  char *comment;
  char *container;
  uint16_t contiguous;
  uint16_t core_spec;
  uint16_t cores_per_socket;
  double billable_tres;
  uint16_t cpus_per_task;
  uint32_t cpu_freq_min;
  uint32_t cpu_freq_max;
  uint32_t cpu_freq_gov;
  char *cpus_per_tres;
  char *cronspec;
  time_t deadline;
  uint32_t delay_boot;
  char *dependency;
  uint32_t derived_ec;
  time_t eligible_time;
  time_t end_time;
  char *exc_nodes;
  int32_t *exc_node_inx;
  uint32_t exit_code;
  char *features;
  char *fed_origin_str;
  uint64_t fed_siblings_active;
  char *fed_siblings_active_str;
  uint64_t fed_siblings_viable;
  char *fed_siblings_viable_str;
  uint32_t gres_detail_cnt;
  char **gres_detail_str;
  char *gres_total;
  uint32_t group_id;
  uint32_t het_job_id;
  char *het_job_id_set;
  uint32_t het_job_offset;
  uint32_t job_id;
  void *job_resrcs;
  uint32_t job_state;
  time_t last_sched_eval;
  char *licenses;
  uint16_t mail_type;
  char *mail_user;
  uint32_t max_cpus;
  uint32_t max_nodes;
  char *mcs_label;
  char *mem_per_tres;
  char *name;
  char *network;
  char *nodes;
  uint32_t nice;
  int32_t *node_inx;
  uint16_t ntasks_per_core;
  uint16_t ntasks_per_tres;
  uint16_t ntasks_per_node;
  uint16_t ntasks_per_socket;
  uint16_t ntasks_per_board;
  uint32_t num_cpus;
  uint32_t num_nodes;
  uint32_t num_tasks;
  char *partition;
  char *prefer;
  uint64_t pn_min_memory;
  uint16_t pn_min_cpus;
  uint32_t pn_min_tmp_disk;
  uint8_t power_flags;
  time_t preempt_time;
  time_t preemptable_time;
  time_t pre_sus_time;
  uint32_t priority;
  uint32_t profile;
  char *qos;
  uint8_t reboot;
  char *req_nodes;
  int32_t *req_node_inx;
  uint32_t req_switch;
  uint16_t requeue;
  time_t resize_time;
  uint16_t restart_cnt;
  char *resv_name;
  char *sched_nodes;
  void *select_jobinfo;
  char *selinux_context;
  uint16_t shared;
  uint16_t show_flags;
  uint32_t site_factor;
  uint16_t sockets_per_board;
  uint16_t sockets_per_node;
  time_t start_time;
  uint16_t start_protocol_ver;
  char *state_desc;
  uint16_t state_reason;
  char *std_err;
  char *std_in;
  char *std_out;
  time_t submit_time;
  time_t suspend_time;
  char *system_comment;
  uint32_t time_limit;
  uint32_t time_min;
  uint16_t threads_per_core;
  char *tres_bind;
  char *tres_freq;
  char *tres_per_job;
  char *tres_per_node;
  char *tres_per_socket;
  char *tres_per_task;
  char *tres_req_str;
  char *tres_alloc_str;
  uint32_t user_id;
  char *user_name;
  uint32_t wait4switch;
  char *wckey;
  char *work_dir;
};

// sizeof(slurm_job_info_t) with Slurm 22.05's header on x86-64.
static_assert(sizeof(JobInfo2205) == 904, "22.05 job record layout");

}  // namespace plugstack::libslurm
