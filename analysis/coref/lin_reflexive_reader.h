#pragma once

#include "analysis/coref/coref_example.h"

#include <istream>
#include <string>

namespace attnlab::analysis::coref {

/// Reads the reflexive data that Lin, Tan & Frank (2019, "Open Sesame") released
/// (bert-opensesame, pytorch_pretrained_bert/data_refl/refl.0 .. refl.8) into examples for the
/// antecedent probe. One line per sentence, fields separated by tabs:
///
///   sentence <TAB> reflexive index <TAB> antecedent indices [<TAB> distractor indices]...
///
/// e.g. "some husband could accept your wizard by himself\t7\t0 1\t4 5 ". Indices are 0-based
/// positions in the sentence split on spaces, separated by spaces inside a field. The release
/// ends every line with the distractor field, empty in refl.0 ("...\t0 1\t") and with a trailing
/// space elsewhere; both are accepted. A distractor field may hold several noun phrases (refl.5
/// to refl.8 write both in one field, "5 6 9 10"): each run of consecutive positions is one
/// phrase, so one field per phrase reads the same.
///
/// Each line becomes one example, source "file:line": mentions are the antecedent group
/// (cluster 0, spanning its first to last listed word), the reflexive (cluster 0) and each
/// distractor phrase (cluster -1, a singleton), in textual order; a mention's head word is its
/// last word (Lin's groups are determiner + noun). The one item is: query = the reflexive,
/// correct words = every word of the antecedent group, as the official scorer counts the
/// determiner and the noun alike. Distractor phrases are never correct answers.
///
/// Bad lines are skipped and reported in `skipped` with "file:line" and the reason: fewer than
/// three fields, an empty sentence, a word holding a control character (a stray CR or vertical
/// tab inside the sentence), a reflexive field that is not exactly one index, an empty
/// antecedent field, an index that is not an integer or lies outside the sentence, the
/// reflexive inside the antecedent or a distractor group, a word listed twice. Blank lines
/// carry nothing and are passed over silently.
///
/// Throws DataError naming the file when it cannot be opened or holds no usable line (with
/// the number of skipped lines and the first reason).
CorefDataset readLinReflexives(const std::string& path);

/// The same from a stream; `fileName` is what "file:line" locations and errors name.
CorefDataset readLinReflexives(std::istream& in, const std::string& fileName);

}  // namespace attnlab::analysis::coref
