#pragma once

// What AttnLab computes for a checkpoint, written for tests/app/hf_export_check.py to compare
// with Hugging Face's libraries on the exported folder (the export tests of issues 29 and
// 43): lines.txt (one text a line), ids.json (per line, AttnLab's ids: bos pieces eos, uncut)
// and reference.safetensors ("input_ids" [B, T] cut to the model's length and padded,
// "logits" [B, T, V] and "attentions.L" [B, H, T, T], float32). No raw string literals: moc
// reads the test files that include this.

#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "core/inspect/attention_inspector.h"
#include "core/model/hook_points.h"
#include "core/model/masked_lm.h"
#include "core/pretrained/safetensors_writer.h"
#include "core/tokenizer/tokenizer.h"
#include "tests/support/cli_process.h"

#include <torch/torch.h>

#include <QString>
#include <QStringList>

#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace attnlab::tests {

/// Texts whose tokenization is easy to get wrong: whitespace, Unicode normalisation, unknown
/// characters, lines longer than the model's 24 positions.
inline QStringList exportHardLines() {
  return {"  leading and  double   spaces  ",
          "a tab\there and a trailing tab\t",
          "Caf\u00e9 na\u00efve \u00dcber \uFB01ne \u00bd \u2460 \uFF21\uFF22 full-width",
          "unknown \u03A9 \u4E2D\u6587 \U0001F642 characters",
          "NUMBERS 12345 and 3.14, PUNCTUATION!?;",
          "the cat watched the river near the harbour . the cat watched the river near the harbour "
          ". the cat watched the river near the harbour .",
          "\u2581already escaped"};
}

/// AttnLab's model of the checkpoint, built as the inspector builds it, in evaluation mode;
/// `length` gets the run's sequence length.
inline core::MaskedLanguageModel checkpointModel(const std::filesystem::path& checkpoint, int padId,
                                                 int& length) {
  const auto data = core::CheckpointStore::load(checkpoint);
  const auto config = core::parseRunConfig(data.metadata.configToml, "checkpoint");
  length = config.data.sequenceLength;
  const auto rows = data.tensors.at("model/token_embedding.weight").size(0);
  core::MaskedLanguageModel model(config.model, config.attention, length, static_cast<int>(rows),
                                  padId);
  torch::NoGradGuard noGrad;
  for (auto& p : model->named_parameters()) p.value().copy_(data.tensors.at("model/" + p.key()));
  model->eval();
  return model;
}

/// The largest difference between the attention of two models (checkpoints or folders) on
/// `text`; infinity when their ids differ.
inline double inspectedDifference(const std::string& a, const std::string& b,
                                  const std::string& text) {
  core::AttentionInspector first(a), second(b);
  const auto x = first.inspect(text);
  const auto y = second.inspect(text);
  if (x.ids != y.ids) return std::numeric_limits<double>::infinity();
  return (x.probabilities - y.probabilities).abs().max().item<double>();
}

/// The ids of `lines` (bos pieces eos each, uncut) and their padded batch [B, T] cut to T.
inline torch::Tensor referenceBatch(const core::Tokenizer& tokenizer, const QStringList& lines,
                                    int T, QByteArray& idsJson) {
  const auto& special = tokenizer.specialIds();
  auto ids = torch::full({static_cast<std::int64_t>(lines.size()), T}, special.pad, torch::kLong);
  idsJson = "[";
  for (int b = 0; b < lines.size(); ++b) {
    std::vector<std::int64_t> full = {special.bos};
    for (const int id : tokenizer.encode(lines[b].toStdString())) full.push_back(id);
    full.push_back(special.eos);
    QStringList numbers;
    for (const auto id : full) numbers << QString::number(id);
    idsJson += (b ? ",[" : "[") + numbers.join(',').toUtf8() + "]";
    if (static_cast<int>(full.size()) > T)
      full.resize(static_cast<size_t>(T)), full.back() = special.eos;
    ids[b]
        .slice(0, 0, static_cast<std::int64_t>(full.size()))
        .copy_(torch::tensor(full, torch::kLong));
  }
  idsJson += "]";
  return ids;
}

/// Writes lines.txt, ids.json and reference.safetensors into `ref` (created).
inline void writeExportReference(const std::filesystem::path& checkpoint,
                                 const core::Tokenizer& tokenizer, const QStringList& lines,
                                 const std::filesystem::path& ref) {
  std::filesystem::create_directories(ref);
  int T = 0;
  auto model = checkpointModel(checkpoint, tokenizer.specialIds().pad, T);
  QByteArray json, text;
  const auto ids = referenceBatch(tokenizer, lines, T, json);
  for (const auto& line : lines) text += line.toUtf8() + '\n';
  torch::NoGradGuard noGrad;
  core::HookRequest request;
  request.capture("blocks.*.attn.probs");
  core::HookSession hooks(request);
  const auto hidden = model->encode(ids, ids.ne(tokenizer.specialIds().pad), &hooks);
  const auto logits = model->logits(hidden.reshape({-1, hidden.size(2)}))
                          .reshape({ids.size(0), ids.size(1), -1})
                          .contiguous();
  std::vector<torch::Tensor> keep = {ids, logits};
  std::vector<core::SafetensorsTensorView> views;
  const auto add = [&](const std::string& name, const torch::Tensor& t,
                       core::SafetensorsDtype dtype) {
    keep.push_back(t);
    views.push_back({name, dtype, t.sizes().vec(),
                     std::span<const std::byte>(static_cast<const std::byte*>(t.data_ptr()),
                                                static_cast<size_t>(t.nbytes()))});
  };
  add("input_ids", ids, core::SafetensorsDtype::I64);
  add("logits", logits, core::SafetensorsDtype::F32);
  for (const auto& name : hooks.cache().names())  // blocks.L.attn.probs -> attentions.L
    add("attentions." + name.substr(7, name.find('.', 7) - 7),
        hooks.cache().at(name).to(torch::kFloat).contiguous(), core::SafetensorsDtype::F32);
  core::writeSafetensors(ref / "reference.safetensors", views);
  writeBytes(QString::fromStdString((ref / "ids.json").string()), json);
  writeBytes(QString::fromStdString((ref / "lines.txt").string()), text);
}

}  // namespace attnlab::tests
