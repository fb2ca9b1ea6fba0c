#include "core/runlog/run_event_kind.h"

#include <array>
#include <utility>

namespace attnlab::core {

namespace {
// In declaration order: kRunEventKindNames[static_cast<size_t>(kind)] is kind's row.
constexpr std::array<std::pair<RunEventKind, std::string_view>, 13> kRunEventKindNames{{
    {RunEventKind::Setup, "setup"},
    {RunEventKind::Data, "data"},
    {RunEventKind::Note, "note"},
    {RunEventKind::Start, "start"},
    {RunEventKind::Resume, "resume"},
    {RunEventKind::Variants, "variants"},
    {RunEventKind::Distributed, "distributed"},
    {RunEventKind::Paused, "paused"},
    {RunEventKind::Unpaused, "unpaused"},
    {RunEventKind::Stopped, "stopped"},
    {RunEventKind::Finished, "finished"},
    {RunEventKind::OutOfMemory, "out_of_memory"},
    {RunEventKind::NonFinite, "non_finite"},
}};

constexpr bool tableInOrder() {
  for (std::size_t i = 0; i < kRunEventKindNames.size(); ++i)
    if (static_cast<std::size_t>(kRunEventKindNames[i].first) != i) return false;
  return static_cast<std::size_t>(RunEventKind::NonFinite) + 1 == kRunEventKindNames.size();
}
static_assert(tableInOrder(), "kRunEventKindNames lists every RunEventKind once, in order");
}  // namespace

std::string_view runEventKindName(RunEventKind kind) {
  return kRunEventKindNames[static_cast<std::size_t>(kind)].second;
}

std::optional<RunEventKind> runEventKindFromName(std::string_view name) {
  for (const auto& [kind, text] : kRunEventKindNames)
    if (text == name) return kind;
  // Logs written before "stopped" existed ended a stopped run with "stop".
  if (name == "stop") return RunEventKind::Stopped;
  return std::nullopt;
}

std::string runEventKindString(RunEventKind kind) {
  return std::string(runEventKindName(kind));
}

}  // namespace attnlab::core
