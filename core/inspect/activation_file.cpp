#include "core/inspect/activation_file.h"

#include "core/errors/error.h"
#include "core/hdf5/hdf5_objects.h"
#include "core/tokenizer/tokenizer.h"

#include <torch/torch.h>

#include <system_error>

namespace attnlab::core {

namespace fs = std::filesystem;

namespace {

struct ProbeShape {
  std::int64_t batch, length;
};

/// A batch of `shape` made of one ordinary piece between <s> and </s>.
at::Tensor probeIds(const AttentionInspector& inspector, ProbeShape shape) {
  const auto& special = inspector.tokenizer().specialIds();
  auto ids = torch::full({shape.batch, shape.length}, special.unk, torch::kLong);
  ids.select(1, 0).fill_(special.bos);
  ids.select(1, shape.length - 1).fill_(special.eos);
  return ids;
}

/// "[B, 4, T, 16]": axes that followed the batch and the length between the two passes get
/// their letter; the MLM head's rows (every real position: B x T) are N.
std::string symbolicShape(at::IntArrayRef first, at::IntArrayRef second, ProbeShape a,
                          ProbeShape b) {
  std::string out = "[";
  for (size_t i = 0; i < first.size(); ++i) {
    if (i > 0) out += ", ";
    if (first[i] == second[i])
      out += std::to_string(first[i]);
    else if (first[i] == a.batch && second[i] == b.batch)
      out += "B";
    else if (first[i] == a.length && second[i] == b.length)
      out += "T";
    else if (first[i] == a.batch * a.length && second[i] == b.batch * b.length)
      out += "N";
    else
      out += "?";
  }
  return out + "]";
}

}  // namespace

std::vector<HookPointShape> listHookPoints(AttentionInspector& inspector) {
  HookRequest everything;
  everything.capture("*");
  const bool fixed = inspector.config().attention.conv == ConvAttention::OneD;
  const std::int64_t longest = inspector.maxLength();
  // Batch 1 then 2, length 5 then 7 (distinct from each other and from B x T).
  const ProbeShape a{1, fixed ? longest : std::min<std::int64_t>(5, longest)};
  const ProbeShape b{2, fixed ? longest : std::min<std::int64_t>(7, longest)};
  const auto first = inspector.captureActivations(probeIds(inspector, a), everything);
  const auto second = inspector.captureActivations(probeIds(inspector, b), everything);
  std::vector<HookPointShape> out;
  for (const auto& name : first.names())
    out.push_back({name, symbolicShape(first.at(name).sizes(), second.at(name).sizes(), a, b)});
  return out;
}

TextActivations captureText(AttentionInspector& inspector, const std::string& text,
                            const std::vector<std::string>& patterns) {
  TextActivations out;
  out.tokens = inspector.tokenize(text);
  HookRequest request;
  for (const auto& p : patterns) request.capture(p);
  const auto ids = torch::tensor(out.tokens.ids, torch::kLong).unsqueeze(0);
  out.cache = inspector.captureActivations(ids, request);
  if (out.cache.empty()) {
    std::string joined;
    for (const auto& p : patterns) joined += (joined.empty() ? "" : ", ") + p;
    throw DataError("--capture", "no hook point of this model matches " + joined +
                                     " (attnlab-cli inspect MODEL --hooks lists them)");
  }
  return out;
}

void writeActivations(const TextActivations& a, const std::vector<std::string>& patterns,
                      const fs::path& out) {
  using hdf5::ElementType;
  const fs::path tmp = out.string() + ".tmp";
  {
    auto file = hdf5::File::create(tmp.string(), hdf5::ErrorDomain::RunLog, /*latestFormat=*/false);
    auto root = file.root();
    const auto& t = a.tokens;
    root.setStringAttribute("format", "attnlab-activations");
    root.setIntAttribute("format_version", 1);
    root.setStringAttribute("checkpoint", t.checkpoint.string());
    root.setIntAttribute("step", t.step);
    root.setStringAttribute("text", t.text);
    root.setIntAttribute("real_tokens", t.realTokens);
    root.setIntAttribute("truncated", t.truncated ? 1 : 0);
    root.writeStrings("patterns", patterns);
    root.writeStrings("tokens", t.pieces);
    root.writeArray("token_ids", ElementType::Int64, t.ids.data(), {t.ids.size()});
    root.writeStrings("names", a.cache.names());
    auto group = root.createGroup("activations");
    for (const auto& name : a.cache.names()) {
      // Stored as float32 (the model's precision) whatever the hook's type (the Gram
      // matrices are float64, ASA's keep-masks float32).
      const at::Tensor value = a.cache.at(name).to(torch::kCPU, torch::kFloat).contiguous();
      const std::vector<std::uint64_t> dims(value.sizes().begin(), value.sizes().end());
      group.writeArray(name, ElementType::Float32, value.data_ptr(), dims);
    }
  }
  std::error_code ec;
  fs::rename(tmp, out, ec);
  if (ec)
    throw RunLogError(out.string(), "cannot move the activations into place: " + ec.message());
}

}  // namespace attnlab::core
