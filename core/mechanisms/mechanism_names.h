#pragma once

// The mechanisms' ids, human titles and documentation anchors, without LibTorch: the
// descriptors (attention_mechanism.h) take their identity from here, and the desktop app's
// new-run form shows the same titles without pulling in ATen.
#include <array>
#include <string_view>

namespace attnlab::core {

struct MechanismName {
  /// Short id, also the config section under [attention] ("residual").
  std::string_view id;
  /// Human name and paper ("RealFormer residual attention (He et al. 2021)").
  std::string_view title;
  /// Where the formulas and the paper-vs-code choices are documented.
  std::string_view docsAnchor;
};

inline constexpr std::array<MechanismName, 12> kMechanismNames{{
    {"guidance", "Attention guidance (Deshpande & Narasimhan 2020)",
     "docs/variants.md#attention-guidance"},
    {"position", "Direct position interactions (Dufter, Schmitt & Schuetze 2020)",
     "docs/variants.md#position-interactions"},
    {"temperature", "Learnable temperature (Dufter, Schmitt & Schuetze 2020)",
     "docs/variants.md#learnable-temperature"},
    {"conv", "Convolved attention (Dufter, Schmitt & Schuetze 2020)",
     "docs/variants.md#convolved-attention"},
    {"residual", "RealFormer residual attention (He et al. 2021)",
     "docs/variants.md#realformer-residual-attention"},
    {"asa", "Adversarial self-attention (Wu et al. 2023)",
     "docs/variants.md#asa-adversarial-self-attention"},
    {"blur", "Gaussian blurring (SesameBERT, Su & Cheng 2019)", "docs/variants.md#gaussian-blur"},
    {"squeeze", "Squeeze-and-Excitation over layers (SesameBERT, Su & Cheng 2019)",
     "docs/variants.md#squeeze-and-excitation"},
    {"output_gate", "Gated attention (Qiu et al. 2025)", "docs/variants.md#gated-attention"},
    {"qk_norm", "QK-norm (Dehghani et al. 2023)", "docs/variants.md#qk-norm"},
    {"normalizer", "Softmax alternatives (softmax1, softpick, sigmoid, clipped softmax)",
     "docs/variants.md#softmax-alternatives"},
    {"differential", "Differential attention (Ye et al. 2024)",
     "docs/variants.md#differential-attention"},
}};

/// The entry with `id`, or null. constexpr so a descriptor with a misspelt id fails to compile.
constexpr const MechanismName* findMechanismName(std::string_view id) {
  for (const auto& n : kMechanismNames) {
    if (n.id == id) return &n;
  }
  return nullptr;
}

}  // namespace attnlab::core
