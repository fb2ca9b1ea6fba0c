// attnlab-spbridge-host BRIDGE: serves the SentencePiece bridge's C table to one parent
// process over file descriptor 3 (sp_host_wire.h), until the parent closes its end.
//
// The parent starts it when the bridge cannot be dlopen'ed with RTLD_DEEPBIND (sanitizer
// builds, or ATTNLAB_SPBRIDGE_MODE=process). This process links no LibTorch, so a plain
// RTLD_LOCAL dlopen keeps the bridge's bundled protobuf to itself.
//
// First it writes a handshake reply: result 0, or -1 with why the bridge did not load.
#include "sp_bridge_api.h"
#include "sp_host_wire.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using attnlab::spwire::Op;
using attnlab::spwire::Reader;
using attnlab::spwire::Writer;

constexpr std::size_t kErrCap = 4096;

bool reply(std::int64_t result, std::string_view payload, const char* err) {
  Writer w;
  w.i64(result).bytes(payload).bytes(std::string_view(err != nullptr ? err : ""));
  return w.sendTo(attnlab::spwire::kHostFd);
}

const attnlab_spbridge_api* loadBridge(const char* path, std::string& error) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    error = std::string("dlopen failed: ") + dlerror();
    return nullptr;
  }
  auto entry = reinterpret_cast<attnlab_spbridge_entry_fn>(dlsym(handle, ATTNLAB_SPBRIDGE_ENTRY));
  const attnlab_spbridge_api* api = entry != nullptr ? entry() : nullptr;
  if (api == nullptr || api->abi_version != ATTNLAB_SPBRIDGE_ABI_VERSION) {
    error = entry == nullptr ? "no symbol " ATTNLAB_SPBRIDGE_ENTRY
                             : "ABI version " + std::to_string(api ? api->abi_version : -1) +
                                   ", expected " + std::to_string(ATTNLAB_SPBRIDGE_ABI_VERSION);
    return nullptr;
  }
  return api;
}

class Server {
 public:
  explicit Server(const attnlab_spbridge_api& api) : m_api(api) {}

  /// Serves until the parent closes the socket (or sends garbage). Returns the exit code.
  int run() {
    Reader in(attnlab::spwire::kHostFd);
    for (;;) {
      const auto op = static_cast<Op>(in.u32());
      if (!in.ok()) return 0;  // the parent is done
      if (!serve(op, in)) return in.ok() ? 1 : 0;
    }
  }

 private:
  attnlab_spb_processor* processor(std::int64_t handle) const {
    const auto it = m_processors.find(handle);
    return it != m_processors.end() ? it->second : nullptr;
  }

  bool serve(Op op, Reader& in) {
    char err[kErrCap] = {0};
    switch (op) {
      case Op::Train: {
        const std::int64_t count = in.i64();
        std::vector<std::string> keys;
        std::vector<std::string> values;
        for (std::int64_t i = 0; in.ok() && i < count; ++i) {
          keys.push_back(in.bytes());
          values.push_back(in.bytes());
        }
        if (!in.ok()) return false;
        std::vector<const char*> k;
        std::vector<const char*> v;
        for (std::size_t i = 0; i < keys.size(); ++i) {
          k.push_back(keys[i].c_str());
          v.push_back(values[i].c_str());
        }
        return reply(m_api.train(k.data(), v.data(), k.size(), err, sizeof err), {}, err);
      }
      case Op::Load: {
        const std::string path = in.bytes();
        if (!in.ok()) return false;
        attnlab_spb_processor* p = m_api.load(path.c_str(), err, sizeof err);
        if (p == nullptr) return reply(-1, {}, err);
        m_processors[++m_lastHandle] = p;
        return reply(m_lastHandle, {}, nullptr);
      }
      case Op::Release: {
        const std::int64_t handle = in.i64();
        if (!in.ok()) return false;
        if (attnlab_spb_processor* p = processor(handle)) m_api.release(p);
        m_processors.erase(handle);
        return reply(0, {}, nullptr);
      }
      default:
        return serveProcessorCall(op, in);
    }
  }

  // The calls on a loaded processor: read the handle, then the call's own fields.
  bool serveProcessorCall(Op op, Reader& in) {
    char err[kErrCap] = {0};
    const std::int64_t handle = in.i64();
    std::int64_t id = 0;
    std::string text;
    if (op == Op::IdToPiece) {
      id = in.i64();
    } else if (op == Op::PieceToId || op == Op::Encode || op == Op::Decode) {
      text = in.bytes();
    } else if (op != Op::VocabSize) {
      std::fprintf(stderr, "attnlab-spbridge-host: unknown request %u\n",
                   static_cast<unsigned>(op));
      return false;
    }
    if (!in.ok()) return false;
    const attnlab_spb_processor* p = processor(handle);
    if (p == nullptr) return reply(-1, {}, "no such SentencePiece processor (released?)");

    switch (op) {
      case Op::VocabSize:
        return reply(m_api.vocab_size(p), {}, nullptr);
      case Op::PieceToId:
        return reply(m_api.piece_to_id(p, text.data(), text.size()), {}, nullptr);
      case Op::IdToPiece: {
        std::string piece(64, '\0');
        long n = m_api.id_to_piece(p, static_cast<int>(id), piece.data(), piece.size());
        if (n > static_cast<long>(piece.size())) {
          piece.resize(static_cast<std::size_t>(n));
          n = m_api.id_to_piece(p, static_cast<int>(id), piece.data(), piece.size());
        }
        piece.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
        return reply(n, piece, nullptr);
      }
      case Op::Encode: {
        std::vector<int> ids(text.size() + 8);
        long n = m_api.encode(p, text.data(), text.size(), ids.data(), ids.size(), err, sizeof err);
        if (n > static_cast<long>(ids.size())) {
          ids.resize(static_cast<std::size_t>(n));
          n = m_api.encode(p, text.data(), text.size(), ids.data(), ids.size(), err, sizeof err);
        }
        ids.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
        return reply(
            n,
            std::string_view(reinterpret_cast<const char*>(ids.data()), ids.size() * sizeof(int)),
            err);
      }
      case Op::Decode: {
        const std::size_t count = text.size() / sizeof(int);
        std::vector<int> ids(count);
        if (count > 0) std::memcpy(ids.data(), text.data(), count * sizeof(int));
        std::string out(count * 8 + 16, '\0');
        long n = m_api.decode(p, ids.data(), count, out.data(), out.size(), err, sizeof err);
        if (n > static_cast<long>(out.size())) {
          out.resize(static_cast<std::size_t>(n));
          n = m_api.decode(p, ids.data(), count, out.data(), out.size(), err, sizeof err);
        }
        out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
        return reply(n, out, err);
      }
      default:
        return false;
    }
  }

  const attnlab_spbridge_api& m_api;
  std::unordered_map<std::int64_t, attnlab_spb_processor*> m_processors;
  std::int64_t m_lastHandle = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: attnlab-spbridge-host BRIDGE\n"
                 "Started by AttnLab itself, with a socket on file descriptor %d.\n",
                 attnlab::spwire::kHostFd);
    return 2;
  }
  std::string error;
  const attnlab_spbridge_api* api = loadBridge(argv[1], error);
  if (api == nullptr) {
    reply(-1, {}, error.c_str());
    return 1;
  }
  if (!reply(0, {}, nullptr)) return 1;
  return Server(*api).run();
}
