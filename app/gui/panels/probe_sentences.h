#pragma once

// The probe sentences the app offers as ready text: the first sentences of the synthetic
// reflexive data at its default seed (analysis/coref/reflexive_generator.h), words joined by
// spaces, as the coreference probe uses them.

#include <QStringList>

namespace attnlab::app {

QStringList firstProbeSentences(int count);

}  // namespace attnlab::app
