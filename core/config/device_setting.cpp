#include "core/config/device_setting.h"

namespace attnlab::core {

std::optional<DeviceSetting> parseDeviceSetting(std::string_view text) {
  if (const auto choice = parseChoice<DeviceChoice>(text)) return DeviceSetting{*choice, -1};
  constexpr std::string_view prefix = "cuda:";
  if (text.substr(0, prefix.size()) != prefix) return std::nullopt;
  const std::string_view digits = text.substr(prefix.size());
  if (digits.empty() || digits.size() > 4) return std::nullopt;
  int index = 0;
  for (const char ch : digits) {
    if (ch < '0' || ch > '9') return std::nullopt;
    index = index * 10 + (ch - '0');
  }
  return DeviceSetting{DeviceChoice::Cuda, index};
}

std::string deviceSettingName(const DeviceSetting& setting) {
  if (setting.kind == DeviceChoice::Cuda && setting.index >= 0)
    return "cuda:" + std::to_string(setting.index);
  return std::string(choiceName(setting.kind));
}

}  // namespace attnlab::core
