#pragma once

// A TCP socket listening on every interface at a port the system picks: a port that is
// taken (to test "port in use"), or, once closed, one that was free a moment ago (a master
// port for a distributed run). Shared by the distributed tests.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace attnlab::tests {

struct Listener {
  int fd = -1;
  int port = 0;
  Listener() {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t size = sizeof a;
    if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && listen(fd, 4) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size) == 0)
      port = ntohs(a.sin_port);
  }
  ~Listener() { close(fd); }
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;
};

/// A port that was free when asked (another program may take it before it is used).
inline int freePort() {
  return Listener().port;
}

}  // namespace attnlab::tests
