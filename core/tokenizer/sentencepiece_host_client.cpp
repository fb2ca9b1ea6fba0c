#include "core/tokenizer/sentencepiece_host_client.h"

#include "core/tokenizer/sp_bridge/sp_bridge_api.h"
#include "core/tokenizer/sp_bridge/sp_host_wire.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>

extern char** environ;

namespace attnlab::core {
namespace {

using spwire::Op;
using spwire::Reader;
using spwire::Writer;

struct Reply {
  std::int64_t result = -1;
  std::string payload;
  std::string error;
};

// The one host of this process. Calls take the mutex for a whole request and reply, so
// threads (the app's engine thread and its GUI) never interleave on the socket.
struct Connection {
  std::mutex mutex;
  int fd = -1;
  pid_t pid = -1;
  bool alive = false;
};

Connection& connection() {
  static Connection c;  // never destroyed: the host sees EOF when this process ends
  return c;
}

void writeError(char* err, size_t cap, const std::string& message) {
  if (err == nullptr || cap == 0) return;
  const size_t n = std::min(cap - 1, message.size());
  std::memcpy(err, message.data(), n);
  err[n] = '\0';
}

Reply readReply(int fd) {
  Reader in(fd);
  Reply r;
  r.result = in.i64();
  r.payload = in.bytes();
  r.error = in.bytes();
  if (!in.ok()) r.result = -2;
  return r;
}

// Sends one request and waits for its reply. result -2: the host is gone.
Reply call(const Writer& request) {
  Connection& c = connection();
  std::lock_guard lock(c.mutex);
  Reply r;
  r.result = -2;
  if (c.alive && request.sendTo(c.fd)) r = readReply(c.fd);
  if (r.result == -2) {
    c.alive = false;
    r.error = "the SentencePiece host process (attnlab-spbridge-host, pid " +
              std::to_string(c.pid) + ") has ended";
  }
  return r;
}

std::int64_t handleOf(const attnlab_spb_processor* p) {
  return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p));
}

int train(const char* const* keys, const char* const* values, size_t count, char* err,
          size_t errCap) {
  Writer w;
  w.u32(static_cast<std::uint32_t>(Op::Train)).i64(static_cast<std::int64_t>(count));
  for (size_t i = 0; i < count; ++i) {
    w.bytes(std::string_view(keys[i])).bytes(std::string_view(values[i]));
  }
  const Reply r = call(w);
  if (r.result != 0) writeError(err, errCap, r.error);
  return r.result == 0 ? 0 : -1;
}

attnlab_spb_processor* load(const char* path, char* err, size_t errCap) {
  Writer w;
  w.u32(static_cast<std::uint32_t>(Op::Load)).bytes(std::string_view(path));
  const Reply r = call(w);
  if (r.result <= 0) {
    writeError(err, errCap, r.error);
    return nullptr;
  }
  return reinterpret_cast<attnlab_spb_processor*>(static_cast<std::uintptr_t>(r.result));
}

void release(attnlab_spb_processor* p) {
  Writer w;
  w.u32(static_cast<std::uint32_t>(Op::Release)).i64(handleOf(p));
  call(w);
}

int vocabSize(const attnlab_spb_processor* p) {
  Writer w;
  w.u32(static_cast<std::uint32_t>(Op::VocabSize)).i64(handleOf(p));
  return static_cast<int>(call(w).result);
}

int pieceToId(const attnlab_spb_processor* p, const char* piece, size_t len) {
  Writer w;
  w.u32(static_cast<std::uint32_t>(Op::PieceToId)).i64(handleOf(p)).bytes(piece, len);
  return static_cast<int>(call(w).result);
}

long idToPiece(const attnlab_spb_processor* p, int id, char* out, size_t cap) {
  Writer w;
  w.u32(static_cast<std::uint32_t>(Op::IdToPiece)).i64(handleOf(p)).i64(id);
  const Reply r = call(w);
  if (r.result < 0) return -1;
  std::memcpy(out, r.payload.data(), std::min(cap, r.payload.size()));
  return static_cast<long>(r.payload.size());
}

long encode(const attnlab_spb_processor* p, const char* text, size_t len, int* ids, size_t cap,
            char* err, size_t errCap) {
  Writer w;
  w.u32(static_cast<std::uint32_t>(Op::Encode)).i64(handleOf(p)).bytes(text, len);
  const Reply r = call(w);
  if (r.result < 0) {
    writeError(err, errCap, r.error);
    return -1;
  }
  const size_t count = r.payload.size() / sizeof(int);
  std::memcpy(ids, r.payload.data(), std::min(cap, count) * sizeof(int));
  return static_cast<long>(count);
}

long decode(const attnlab_spb_processor* p, const int* ids, size_t count, char* out, size_t cap,
            char* err, size_t errCap) {
  Writer w;
  w.u32(static_cast<std::uint32_t>(Op::Decode)).i64(handleOf(p)).bytes(ids, count * sizeof(int));
  const Reply r = call(w);
  if (r.result < 0) {
    writeError(err, errCap, r.error);
    return -1;
  }
  std::memcpy(out, r.payload.data(), std::min(cap, r.payload.size()));
  return static_cast<long>(r.payload.size());
}

const attnlab_spbridge_api kRemoteApi = {ATTNLAB_SPBRIDGE_ABI_VERSION,
                                         train,
                                         load,
                                         release,
                                         vocabSize,
                                         pieceToId,
                                         idToPiece,
                                         encode,
                                         decode};

// A close-on-exec copy of `fd` numbered above the host's fixed descriptor, so that the
// spawn's dup2 onto kHostFd always makes a new descriptor (dup2 onto itself would keep
// close-on-exec set and the host would find nothing there).
int aboveHostFd(int fd) {
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, spwire::kHostFd + 1);
  close(fd);
  return moved;
}

}  // namespace

const attnlab_spbridge_api* startSentencePieceHost(const std::filesystem::path& host,
                                                   const std::filesystem::path& bridge,
                                                   std::string& error) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    error = std::string("socketpair failed: ") + std::strerror(errno);
    return nullptr;
  }
  const int parentFd = aboveHostFd(sv[0]);
  const int childFd = aboveHostFd(sv[1]);
  if (parentFd < 0 || childFd < 0) {
    error = std::string("cannot set up the host's socket: ") + std::strerror(errno);
    if (parentFd >= 0) close(parentFd);
    if (childFd >= 0) close(childFd);
    return nullptr;
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, childFd, spwire::kHostFd);
  const std::string hostPath = host.string();
  const std::string bridgePath = bridge.string();
  char* const argv[] = {const_cast<char*>(hostPath.c_str()), const_cast<char*>(bridgePath.c_str()),
                        nullptr};
  // Its own process group: a terminal's Ctrl-C, or the distributed launcher's signal to its
  // workers' group, is for this process to handle (stop after the step, checkpoint), and
  // the host must keep serving until then. It ends when this process closes the socket.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, hostPath.c_str(), &actions, &attributes, argv, environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  close(childFd);
  if (spawned != 0) {
    error = "cannot start " + hostPath + ": " + std::strerror(spawned);
    close(parentFd);
    return nullptr;
  }

  const Reply hello = readReply(parentFd);
  if (hello.result != 0) {
    error =
        hello.result == -2 ? hostPath + " ended before it answered" : hostPath + ": " + hello.error;
    close(parentFd);
    waitpid(pid, nullptr, 0);
    return nullptr;
  }
  Connection& c = connection();
  std::lock_guard lock(c.mutex);
  c.fd = parentFd;
  c.pid = pid;
  c.alive = true;
  return &kRemoteApi;
}

}  // namespace attnlab::core
