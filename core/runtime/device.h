#pragma once

#include "core/config/device_setting.h"

#include <c10/core/Device.h>

#include <string>
#include <string_view>

namespace attnlab::core {

// train.device (cpu | cuda | cuda:N | auto) is a DeviceSetting: core/config/device_setting.h.

/// Parses "cpu", "cuda", "cuda:N" or "auto"; throws ConfigError naming `keyPath` otherwise.
DeviceSetting parseDevice(std::string_view text, std::string_view keyPath = "device");

/// The device a run uses. Throws ConfigError when CUDA is asked for but unavailable,
/// saying whether this LibTorch lacks CUDA or no GPU was found. `localRank`: this process'
/// index among the data-parallel ranks of its machine; with `cuda` or `auto` each takes GPU
/// localRank modulo the GPUs it sees (GPU 0 for one process). `cuda:N` takes GPU N, refused
/// when N is not below the GPUs seen or when several processes run on this machine.
/// `processesHere`: the data-parallel ranks on this machine; on a GPU each needs its own
/// (requireGpuPerProcess).
c10::Device resolveDevice(const DeviceSetting& setting, int localRank = 0, int processesHere = 1);
/// Throws ConfigError (train.device) when `processes` ranks of one machine would share its
/// `gpus` GPUs: NCCL refuses two ranks on one GPU ("Duplicate GPU detected").
void requireGpuPerProcess(int processes, int gpus);

/// True when the linked LibTorch was built with CUDA and sees at least one GPU.
bool cudaAvailable();

}  // namespace attnlab::core
