#pragma once

// What Run probe on the Probe tab asks for: the CLI's `probe coref` options that the tab
// sets (--dataset, and for synthetic data --size, --seed and --distractor).

#include <QMetaType>
#include <QString>

#include <cstdint>

namespace attnlab::app {

struct ProbeRequest {
  /// "synthetic", "conll:PATH" or "lin:PATH", as attnlab-cli probe coref --dataset.
  QString dataset = QStringLiteral("synthetic");
  int size = 1000;          ///< synthetic sentences to generate
  std::uint64_t seed = 1;   ///< seed of the synthetic data
  bool distractor = false;  ///< synthetic: a distractor phrase before each sentence
};

}  // namespace attnlab::app

Q_DECLARE_METATYPE(attnlab::app::ProbeRequest)
