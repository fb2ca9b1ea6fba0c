#pragma once

// Named hook points (in the spirit of TransformerLens's HookPoints): every activation a
// researcher may want has a stable name (docs/hook-points.md lists them with shapes), and a
// forward pass answers a request by name or pattern instead of a struct of flags. A hook may
// also replace the tensor the pass continues with (ablate a head, patch an activation).

#include <ATen/core/Tensor.h>

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attnlab::core {

/// True when `name` matches `pattern`, where '*' stands for any run of characters (dots
/// included: "blocks.*.attn.pattern", "blocks.2.*", "*") and everything else for itself.
bool hookNameMatches(std::string_view pattern, std::string_view name);

/// A replacement hook: given the hook point's name and the tensor the pass made there,
/// returns the tensor the pass continues with (same shape; it may carry a graph, so a
/// replacement can be differentiated, as the head gates of the head analysis are).
using ReplaceHook = std::function<at::Tensor(const std::string& name, const at::Tensor& value)>;

/// What a forward pass should capture and replace, by name or pattern. Empty: nothing, and
/// the pass runs as without hooks (the fused attention kernel included).
class HookRequest {
 public:
  /// Capture (a detached copy of) every hook point that `pattern` matches.
  HookRequest& capture(std::string pattern);
  /// Replace every hook point that `pattern` matches by `hook`'s result; applied in the
  /// order added, before any capture (a capture holds what the pass continued with).
  HookRequest& replace(std::string pattern, ReplaceHook hook);

  bool captures(std::string_view name) const;
  bool replaces(std::string_view name) const;
  bool empty() const { return m_captures.empty() && m_replacements.empty(); }

  const std::vector<std::string>& capturePatterns() const { return m_captures; }
  /// The replacements that `name` matches, in the order they were added.
  std::vector<const ReplaceHook*> replacementsFor(std::string_view name) const;

 private:
  std::vector<std::string> m_captures;
  std::vector<std::pair<std::string, ReplaceHook>> m_replacements;
};

/// What one pass captured: name -> detached tensor, and the order the pass made them in.
class ActivationCache {
 public:
  void put(const std::string& name, at::Tensor value);
  bool contains(const std::string& name) const;
  /// Throws std::out_of_range naming the hook point when the pass did not capture it.
  const at::Tensor& at(const std::string& name) const;
  /// Moves the tensor out (releasing the cache's reference); throws like at().
  at::Tensor take(const std::string& name);
  /// "blocks.{L}.<suffix>" for L = 0 .. layers - 1, e.g. layers("attn.pattern", L).
  std::vector<at::Tensor> layers(const std::string& suffix, int count) const;
  std::vector<at::Tensor> takeLayers(const std::string& suffix, int count);
  /// The captured names in the order the pass reached them.
  const std::vector<std::string>& names() const { return m_order; }
  bool empty() const { return m_order.empty(); }

 private:
  std::map<std::string, at::Tensor> m_tensors;
  std::vector<std::string> m_order;
};

/// The hooks of one forward pass: its request (held by reference: it must outlive the pass)
/// and the cache it fills. Whether a name is wanted is decided once per name and remembered,
/// so a pass over many layers matches each name against the patterns once.
class HookSession {
 public:
  explicit HookSession(const HookRequest& request) : m_request(request) {}

  /// True when the request captures or replaces `name`.
  bool wants(const std::string& name);
  /// True when the request wants any of `names` (the attention block asks this once per
  /// layer to choose between the fused kernel and the explicit product).
  bool wantsAny(const std::string& prefix, std::initializer_list<const char*> names);
  /// The hook point: replacements, then the capture; returns what the pass continues with.
  at::Tensor apply(const std::string& name, at::Tensor value);

  ActivationCache& cache() { return m_cache; }
  const HookRequest& request() const { return m_request; }

 private:
  const HookRequest& m_request;
  ActivationCache m_cache;
  std::unordered_map<std::string, bool> m_wanted;
};

/// The hook point `name` of a pass: `value` itself when the pass has no hooks.
inline at::Tensor hookPoint(HookSession* hooks, const std::string& name, at::Tensor value) {
  return hooks == nullptr ? value : hooks->apply(name, std::move(value));
}

/// A hook point whose tensor costs work of its own (the norms of the transformed values):
/// `make` runs only when the pass wants `name`. Nothing replaces what the pass does not use.
template <typename Make>
void derivedHookPoint(HookSession* hooks, const std::string& name, Make&& make) {
  if (hooks != nullptr && hooks->wants(name)) hooks->apply(name, make());
}

}  // namespace attnlab::core
