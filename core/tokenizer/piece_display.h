#pragma once

// How a piece is shown to a person (heatmap axes, the lens table, tooltips, exports), the same
// for every tokenizer kind: a word's leading space as SentencePiece spells it ("▁the"), bytes
// that are not text as SentencePiece's byte pieces ("<0x0A>"). SentencePiece and WordPiece
// pieces are shown as the vocabulary spells them; a byte-level BPE piece ("Ġthe", "Ã©",
// "Ċ") is mapped back from GPT-2's byte alphabet to its bytes first ("▁the", "é", "<0x0A>").

#include <string>
#include <string_view>

namespace attnlab::core {

/// The display text of the bytes a byte-level piece stands for: each space as U+2581, each
/// control byte and each byte of an incomplete or invalid UTF-8 sequence as "<0xNN>", the rest
/// as the UTF-8 text it is.
std::string displayBytes(std::string_view bytes);

}  // namespace attnlab::core
