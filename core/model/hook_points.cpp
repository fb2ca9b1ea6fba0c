#include "core/model/hook_points.h"

#include <stdexcept>
#include <utility>

namespace attnlab::core {

bool hookNameMatches(std::string_view pattern, std::string_view name) {
  // Iterative glob with one backtrack point (the last '*'): linear in practice for the
  // short names and patterns here.
  size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (p < pattern.size() && pattern[p] == name[n]) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

HookRequest& HookRequest::capture(std::string pattern) {
  m_captures.push_back(std::move(pattern));
  return *this;
}

HookRequest& HookRequest::replace(std::string pattern, ReplaceHook hook) {
  m_replacements.emplace_back(std::move(pattern), std::move(hook));
  return *this;
}

bool HookRequest::captures(std::string_view name) const {
  for (const auto& p : m_captures)
    if (hookNameMatches(p, name)) return true;
  return false;
}

bool HookRequest::replaces(std::string_view name) const {
  for (const auto& [p, hook] : m_replacements)
    if (hookNameMatches(p, name)) return true;
  return false;
}

std::vector<const ReplaceHook*> HookRequest::replacementsFor(std::string_view name) const {
  std::vector<const ReplaceHook*> out;
  for (const auto& [p, hook] : m_replacements)
    if (hookNameMatches(p, name)) out.push_back(&hook);
  return out;
}

void ActivationCache::put(const std::string& name, at::Tensor value) {
  auto [it, inserted] = m_tensors.insert_or_assign(name, std::move(value));
  if (inserted) m_order.push_back(name);
}

bool ActivationCache::contains(const std::string& name) const {
  return m_tensors.count(name) != 0;
}

const at::Tensor& ActivationCache::at(const std::string& name) const {
  const auto it = m_tensors.find(name);
  if (it == m_tensors.end())
    throw std::out_of_range("hook point \"" + name + "\" was not captured by this pass");
  return it->second;
}

at::Tensor ActivationCache::take(const std::string& name) {
  const auto it = m_tensors.find(name);
  if (it == m_tensors.end())
    throw std::out_of_range("hook point \"" + name + "\" was not captured by this pass");
  return std::exchange(it->second, at::Tensor());
}

std::vector<at::Tensor> ActivationCache::layers(const std::string& suffix, int count) const {
  std::vector<at::Tensor> out;
  for (int l = 0; l < count; ++l) out.push_back(at("blocks." + std::to_string(l) + "." + suffix));
  return out;
}

std::vector<at::Tensor> ActivationCache::takeLayers(const std::string& suffix, int count) {
  std::vector<at::Tensor> out;
  for (int l = 0; l < count; ++l) out.push_back(take("blocks." + std::to_string(l) + "." + suffix));
  return out;
}

bool HookSession::wants(const std::string& name) {
  const auto it = m_wanted.find(name);
  if (it != m_wanted.end()) return it->second;
  const bool wanted = m_request.captures(name) || m_request.replaces(name);
  m_wanted.emplace(name, wanted);
  return wanted;
}

bool HookSession::wantsAny(const std::string& prefix, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (wants(prefix + n)) return true;
  return false;
}

at::Tensor HookSession::apply(const std::string& name, at::Tensor value) {
  if (!wants(name)) return value;
  for (const ReplaceHook* hook : m_request.replacementsFor(name)) value = (*hook)(name, value);
  if (m_request.captures(name)) m_cache.put(name, value.detach());
  return value;
}

}  // namespace attnlab::core
