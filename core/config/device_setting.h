#pragma once

#include "core/config/config_choices.h"

#include <optional>
#include <string>
#include <string_view>

namespace attnlab::core {

/// train.device: `cpu`, `cuda`, `cuda:N` (GPU N of those this process sees) or `auto`.
struct DeviceSetting {
  DeviceChoice kind = DeviceChoice::Auto;
  int index = -1;  ///< with kind Cuda: the GPU `cuda:N` named; -1 for plain `cuda`

  bool operator==(const DeviceSetting&) const = default;
};

/// "cpu", "cuda", "cuda:2", "auto" as a setting; nullopt for anything else (an index is
/// decimal digits, at most 4 of them).
std::optional<DeviceSetting> parseDeviceSetting(std::string_view text);

/// The setting as written in a config: the inverse of parseDeviceSetting.
std::string deviceSettingName(const DeviceSetting& setting);

}  // namespace attnlab::core
