// The isolated SentencePiece bridge: the only binary of the project that links
// libsentencepiece. Built with hidden visibility; exports one C entry point.
#include "sp_bridge_api.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <string>
#include <unordered_map>
#include <vector>

// Exported by libsentencepiece but declared only in its private common.h.
namespace sentencepiece::logging {
void SetMinLogLevel(int level);
}

struct attnlab_spb_processor {
  sentencepiece::SentencePieceProcessor processor;
};

namespace {

void writeError(char* err, size_t cap, const std::string& message) {
  if (err == nullptr || cap == 0) return;
  const size_t n = std::min(cap - 1, message.size());
  std::memcpy(err, message.data(), n);
  err[n] = '\0';
}

int train(const char* const* keys, const char* const* values, size_t count, char* err,
          size_t errCap) {
  try {
    std::unordered_map<std::string, std::string> kwargs;
    for (size_t i = 0; i < count; ++i) {
      const std::string key = keys[i];
      // Two settings are process-wide calls, not TrainerSpec fields.
      if (key == "attnlab_random_seed") {
        sentencepiece::SetRandomGeneratorSeed(static_cast<unsigned>(std::stoul(values[i])));
      } else if (key == "attnlab_min_log_level") {
        sentencepiece::logging::SetMinLogLevel(std::stoi(values[i]));
      } else {
        kwargs[key] = values[i];
      }
    }
    const auto status = sentencepiece::SentencePieceTrainer::Train(kwargs);
    if (!status.ok()) {
      writeError(err, errCap, status.ToString());
      return -1;
    }
    return 0;
  } catch (const std::exception& e) {
    writeError(err, errCap, e.what());
    return -1;
  }
}

attnlab_spb_processor* load(const char* path, char* err, size_t errCap) {
  try {
    auto* p = new attnlab_spb_processor;
    const auto status = p->processor.Load(path);
    if (!status.ok()) {
      delete p;
      writeError(err, errCap, status.ToString());
      return nullptr;
    }
    return p;
  } catch (const std::exception& e) {
    writeError(err, errCap, e.what());
    return nullptr;
  }
}

void release(attnlab_spb_processor* p) {
  delete p;
}

int vocabSize(const attnlab_spb_processor* p) {
  return p->processor.GetPieceSize();
}

int pieceToId(const attnlab_spb_processor* p, const char* piece, size_t len) {
  return p->processor.PieceToId(std::string(piece, len));
}

long idToPiece(const attnlab_spb_processor* p, int id, char* out, size_t cap) {
  if (id < 0 || id >= p->processor.GetPieceSize()) return -1;
  const std::string& piece = p->processor.IdToPiece(id);
  std::memcpy(out, piece.data(), std::min(cap, piece.size()));
  return static_cast<long>(piece.size());
}

long encode(const attnlab_spb_processor* p, const char* text, size_t len, int* ids, size_t cap,
            char* err, size_t errCap) {
  try {
    std::vector<int> result;
    const auto status = p->processor.Encode(std::string(text, len), &result);
    if (!status.ok()) {
      writeError(err, errCap, status.ToString());
      return -1;
    }
    std::copy_n(result.begin(), std::min(cap, result.size()), ids);
    return static_cast<long>(result.size());
  } catch (const std::exception& e) {
    writeError(err, errCap, e.what());
    return -1;
  }
}

long decode(const attnlab_spb_processor* p, const int* ids, size_t count, char* out, size_t cap,
            char* err, size_t errCap) {
  try {
    std::string text;
    const auto status = p->processor.Decode(std::vector<int>(ids, ids + count), &text);
    if (!status.ok()) {
      writeError(err, errCap, status.ToString());
      return -1;
    }
    std::memcpy(out, text.data(), std::min(cap, text.size()));
    return static_cast<long>(text.size());
  } catch (const std::exception& e) {
    writeError(err, errCap, e.what());
    return -1;
  }
}

const attnlab_spbridge_api kApi = {ATTNLAB_SPBRIDGE_ABI_VERSION,
                                   train,
                                   load,
                                   release,
                                   vocabSize,
                                   pieceToId,
                                   idToPiece,
                                   encode,
                                   decode};

}  // namespace

extern "C" __attribute__((visibility("default"))) const attnlab_spbridge_api*
attnlab_spbridge_entry() {
  return &kApi;
}
