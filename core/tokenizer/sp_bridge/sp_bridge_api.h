// The narrow C interface between attnlab_core and the isolated SentencePiece bridge.
//
// Why a C table behind dlopen: Debian's libsentencepiece bundles protobuf 3.14 and
// exports its symbols, while LibTorch links the system protobuf 3.21; linking both
// into one symbol scope crashes at static initialisation. The bridge is the only
// binary that links sentencepiece; it is loaded with RTLD_LOCAL | RTLD_DEEPBIND so
// its protobuf calls bind inside it. Nothing but plain C types crosses this line.
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ATTNLAB_SPBRIDGE_ABI_VERSION 1
#define ATTNLAB_SPBRIDGE_ENTRY "attnlab_spbridge_entry"

typedef struct attnlab_spb_processor attnlab_spb_processor;

/// All calls report failure by returning a negative count or NULL and writing a
/// NUL-terminated message into `err` (at most `err_cap` bytes, truncated if longer).
typedef struct attnlab_spbridge_api {
  int abi_version;
  /// Train a model; `keys`/`values` are SentencePiece trainer flags (e.g. "vocab_size").
  /// Returns 0 on success.
  int (*train)(const char* const* keys, const char* const* values, size_t count, char* err,
               size_t err_cap);
  attnlab_spb_processor* (*load)(const char* model_path, char* err, size_t err_cap);
  void (*release)(attnlab_spb_processor* processor);
  int (*vocab_size)(const attnlab_spb_processor* processor);
  /// Id of `piece`, or the unknown id when the piece is not in the vocabulary.
  int (*piece_to_id)(const attnlab_spb_processor* processor, const char* piece, size_t len);
  /// Copies the piece (not NUL-terminated) into `out`; returns its full length, or -1
  /// for an id out of range. Call again with a larger buffer when the result exceeds `cap`.
  long (*id_to_piece)(const attnlab_spb_processor* processor, int id, char* out, size_t cap);
  /// Writes up to `cap` ids; returns the total count (call again if it exceeds `cap`).
  long (*encode)(const attnlab_spb_processor* processor, const char* text, size_t len, int* ids,
                 size_t cap, char* err, size_t err_cap);
  /// Writes up to `cap` bytes of UTF-8; returns the full length (call again if larger).
  long (*decode)(const attnlab_spb_processor* processor, const int* ids, size_t count, char* out,
                 size_t cap, char* err, size_t err_cap);
} attnlab_spbridge_api;

typedef const attnlab_spbridge_api* (*attnlab_spbridge_entry_fn)(void);

#ifdef __cplusplus
}
#endif
