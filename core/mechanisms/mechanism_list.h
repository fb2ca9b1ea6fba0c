#pragma once

// The descriptors defined in this folder, one function per file. Only
// mechanism_registry.cpp includes this header: that is where a mechanism is registered.

namespace attnlab::core {

class AttentionMechanism;

const AttentionMechanism& attentionGuidanceMechanism();     // attention_guidance_mechanism.cpp
const AttentionMechanism& positionInteractionsMechanism();  // position_interactions_mechanism.cpp
const AttentionMechanism& learnableTemperatureMechanism();  // learnable_temperature_mechanism.cpp
const AttentionMechanism& convolvedAttentionMechanism();    // convolved_attention_mechanism.cpp
const AttentionMechanism& residualAttentionMechanism();     // residual_attention_mechanism.cpp
const AttentionMechanism& adversarialAttentionMechanism();  // adversarial_attention_mechanism.cpp
const AttentionMechanism& gaussianBlurMechanism();          // gaussian_blur_mechanism.cpp
const AttentionMechanism& squeezeExcitationMechanism();     // squeeze_excitation_mechanism.cpp
const AttentionMechanism& outputGateMechanism();            // output_gate_mechanism.cpp
const AttentionMechanism& qkNormMechanism();                // qk_norm_mechanism.cpp
const AttentionMechanism& normalizerMechanism();            // normalizer_mechanism.cpp
const AttentionMechanism& differentialMechanism();          // differential_mechanism.cpp

}  // namespace attnlab::core
