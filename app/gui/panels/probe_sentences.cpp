#include "app/gui/panels/probe_sentences.h"

#include "analysis/coref/reflexive_generator.h"

namespace attnlab::app {

QStringList firstProbeSentences(int count) {
  analysis::coref::ReflexiveOptions options;  // the default seed, as the probe uses it
  options.size = count;
  QStringList sentences;
  for (const auto& example : analysis::coref::generateReflexives(options).examples) {
    QStringList words;
    for (const auto& w : example.words) words << QString::fromStdString(w);
    sentences << words.join(QLatin1Char(' '));
  }
  return sentences;
}

}  // namespace attnlab::app
