#include "core/distributed/distributed_context.h"

#include "core/errors/error.h"

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef ATTNLAB_HAVE_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iomanip>
#include <sstream>

namespace attnlab::core {
namespace {

std::string seconds(std::chrono::milliseconds t) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << static_cast<double>(t.count()) / 1000.0 << " s";
  return out.str();
}

/// True when this machine's host name resolves only to loopback addresses (127/8, ::1): a
/// Gloo device bound there cannot be reached from another machine.
bool hostnameIsLoopback(std::string* hostname) {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return true;
  *hostname = name;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  addrinfo* found = nullptr;
  if (getaddrinfo(name, nullptr, &hints, &found) != 0 || !found) return true;
  bool onlyLoopback = true;
  for (addrinfo* a = found; a; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
      if ((ntohl(in->sin_addr.s_addr) >> 24) != 127) onlyLoopback = false;
    } else if (a->ai_family == AF_INET6) {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(a->ai_addr);
      if (!IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) onlyLoopback = false;
    }
  }
  freeaddrinfo(found);
  return onlyLoopback;
}

/// Gloo's device: an explicit interface, else an explicit host, else (one machine) loopback;
/// a multi-machine run without either is refused when the host name means loopback.
std::shared_ptr<::gloo::transport::Device> glooDevice(const LaunchEnvironment& env,
                                                      const DistributedOptions& options,
                                                      std::string* transport) {
  try {
    if (!options.glooInterface.empty()) {
      *transport = "interface " + options.glooInterface;
      return c10d::ProcessGroupGloo::createDeviceForInterface(options.glooInterface);
    }
    if (!options.glooHost.empty()) {
      *transport = "host " + options.glooHost;
      return c10d::ProcessGroupGloo::createDeviceForHostname(options.glooHost);
    }
    if (!env.multiMachine()) {
      *transport = "host 127.0.0.1";
      return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
    }
  } catch (const std::exception& e) {
    throw DistributedError("Gloo device (" + *transport + ")", e.what());
  }
  std::string hostname;
  if (hostnameIsLoopback(&hostname))
    throw DistributedError(
        "rank " + std::to_string(env.rank),
        "this machine's host name '" + hostname +
            "' resolves to a loopback address, which the other machines cannot reach; name "
            "the network interface with --gloo-interface IF (e.g. eth0) or the address with "
            "--gloo-host ADDR");
  *transport = "host " + hostname;
  return c10d::ProcessGroupGloo::createDeviceForHostname(hostname);
}

}  // namespace

struct DistributedContext::State {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
#ifdef ATTNLAB_HAVE_NCCL
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> nccl;  // CUDA tensors, once useCudaTensors()
#endif
  std::chrono::milliseconds timeout{0};

  /// Starts the sum of `tensor` over the ranks. CUDA tensors go to NCCL where there is a
  /// group for them; otherwise what Gloo reduces is a host copy, `*wire`, which the caller
  /// copies back after waiting (a CPU tensor is its own wire).
  c10::intrusive_ptr<c10d::Work> allreduce(const at::Tensor& tensor, at::Tensor* wire,
                                           const c10d::AllreduceOptions& options = {}) {
#ifdef ATTNLAB_HAVE_NCCL
    if (nccl && tensor.is_cuda()) {
      *wire = tensor;
      std::vector<at::Tensor> one{tensor};
      return nccl->allreduce(one, options);
    }
#endif
    *wire = tensor.is_cuda() ? tensor.to(at::kCPU) : tensor;
    std::vector<at::Tensor> one{*wire};
    return group->allreduce(one, options);
  }

  /// Waits for `work`; any failure is fatal for the run (the group is poisoned).
  void wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what) {
    try {
      work->wait();
    } catch (const std::exception& e) {
      throw DistributedError(
          std::string("collective ") + what,
          std::string(e.what()) + " (a peer has probably stopped; see its own message)");
    }
  }
};

DistributedContext::DistributedContext(int rank, int worldSize, std::unique_ptr<State> state)
    : m_rank(rank), m_worldSize(worldSize), m_state(std::move(state)) {}

DistributedContext::~DistributedContext() = default;

std::unique_ptr<DistributedContext> DistributedContext::connect(const LaunchEnvironment& env,
                                                                const DistributedOptions& options) {
  auto state = std::make_unique<State>();
  state->timeout = options.timeout;
  c10d::TCPStoreOptions storeOptions;
  storeOptions.port = static_cast<std::uint16_t>(env.masterPort);
  storeOptions.isServer = env.rank == 0 && !env.agentStore;
  storeOptions.numWorkers =
      env.agentStore ? c10::nullopt : c10::optional<std::size_t>(env.worldSize);
  storeOptions.waitWorkers = !env.agentStore;
  storeOptions.timeout = options.timeout;
  const std::string master = env.masterAddr + ":" + std::to_string(env.masterPort);
  try {
    auto tcp = c10::make_intrusive<c10d::TCPStore>(env.masterAddr, storeOptions);
    state->store = c10::make_intrusive<c10d::PrefixStore>(env.storePrefix(), tcp);
  } catch (const std::exception& e) {
    const std::string reason = e.what();
    if (storeOptions.isServer && reason.find("ddress already in use") != std::string::npos)
      throw DistributedError("master " + master,
                             "port in use: another run (or program) listens on port " +
                                 std::to_string(env.masterPort) +
                                 "; choose another with --master-port");
    throw DistributedError("rank " + std::to_string(env.rank),
                           std::string(storeOptions.isServer ? "could not start the store at "
                                                             : "could not reach the master at ") +
                               master + " within " + seconds(options.timeout) + " (" +
                               reason.substr(0, reason.find('\n')) + ")");
  }
  auto glooOptions = c10d::ProcessGroupGloo::Options::create(options.timeout);
  std::string transport;
  glooOptions->devices.push_back(glooDevice(env, options, &transport));
  glooOptions->threads = 2;
  try {
    state->group = c10::make_intrusive<c10d::ProcessGroupGloo>(state->store, env.rank,
                                                               env.worldSize, glooOptions);
  } catch (const std::exception& e) {
    const std::string reason = e.what();
    throw DistributedError("rank " + std::to_string(env.rank),
                           "the process group did not form within " + seconds(options.timeout) +
                               " (master " + master + "; " + reason.substr(0, reason.find('\n')) +
                               ")");
  }
  auto context = std::unique_ptr<DistributedContext>(
      new DistributedContext(env.rank, env.worldSize, std::move(state)));
  context->m_transport = transport;
  context->m_localRank = env.localRank;
  context->m_localWorldSize = env.localWorldSize;
  return context;
}

std::unique_ptr<DistributedContext> DistributedContext::connectWithFileStore(
    const std::filesystem::path& storeFile, int rank, int worldSize,
    std::chrono::milliseconds timeout) {
  auto state = std::make_unique<State>();
  state->timeout = timeout;
  state->store = c10::make_intrusive<c10d::FileStore>(storeFile.string(), worldSize);
  state->store->setTimeout(timeout);
  auto glooOptions = c10d::ProcessGroupGloo::Options::create(timeout);
  glooOptions->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  glooOptions->threads = 2;
  state->group =
      c10::make_intrusive<c10d::ProcessGroupGloo>(state->store, rank, worldSize, glooOptions);
  auto context = std::unique_ptr<DistributedContext>(
      new DistributedContext(rank, worldSize, std::move(state)));
  context->m_transport = "host 127.0.0.1";
  return context;
}

void DistributedContext::sumGradients(const std::vector<at::Tensor>& parameters,
                                      std::int64_t bucketBytes) {
  torch::NoGradGuard noGrad;
  // Which parameters have a gradient anywhere: a parameter unused on every rank keeps none,
  // as in one process, so AdamW leaves it alone there too.
  const auto n = static_cast<std::int64_t>(parameters.size());
  at::Tensor defined = torch::zeros({n}, torch::kDouble);
  auto flags = defined.accessor<double, 1>();  // host writes, no tensor op per parameter
  for (std::int64_t i = 0; i < n; ++i)
    if (parameters[static_cast<std::size_t>(i)].grad().defined()) flags[i] = 1.0;
  // Buckets in parameter order, the same on every rank (Gloo matches collectives by order).
  struct Bucket {
    std::vector<std::size_t> members;
    at::Tensor flat;
    at::Tensor wire;  // what the collective reduces: flat, or its host copy
  };
  std::vector<Bucket> buckets;
  std::int64_t bytes = 0;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const at::Tensor& p = parameters[i];
    const std::int64_t size = p.numel() * static_cast<std::int64_t>(p.element_size());
    const bool sameType =
        !buckets.empty() && !buckets.back().members.empty() &&
        parameters[buckets.back().members.front()].scalar_type() == p.scalar_type();
    if (buckets.empty() || bytes + size > bucketBytes || !sameType) {
      buckets.push_back({});
      bytes = 0;
    }
    buckets.back().members.push_back(i);
    bytes += size;
  }
  std::vector<c10::intrusive_ptr<c10d::Work>> pending;
  std::vector<at::Tensor> flagTensors{defined};
  pending.push_back(m_state->group->allreduce(flagTensors));  // host flags: always Gloo
  for (auto& bucket : buckets) {
    std::vector<at::Tensor> pieces;
    for (std::size_t i : bucket.members) {
      const at::Tensor& p = parameters[i];
      pieces.push_back(p.grad().defined() ? p.grad().reshape({-1})
                                          : torch::zeros({p.numel()}, p.options()));
    }
    bucket.flat = torch::cat(pieces);
    pending.push_back(m_state->allreduce(bucket.flat, &bucket.wire));
  }
  for (const auto& work : pending) m_state->wait(work, "allreduce (gradients)");
  for (auto& bucket : buckets)
    if (!bucket.wire.is_same(bucket.flat)) bucket.flat.copy_(bucket.wire);
  const auto& anyGradient = flags;  // the summed flags, read on the host
  for (auto& bucket : buckets) {
    std::int64_t offset = 0;
    for (std::size_t i : bucket.members) {
      at::Tensor p = parameters[i];
      const std::int64_t count = p.numel();
      if (anyGradient[static_cast<std::int64_t>(i)] > 0) {
        at::Tensor summed = bucket.flat.narrow(0, offset, count).view(p.sizes());
        if (p.grad().defined())
          p.mutable_grad().copy_(summed);
        else
          p.mutable_grad() = summed.clone();
      }
      offset += count;
    }
  }
}

struct PendingSum::Work {
  c10::intrusive_ptr<c10d::Work> work;
  at::Tensor values;
  at::Tensor wire;  // what the collective reduces: values, or its host copy
};

PendingSum::PendingSum() = default;
PendingSum::~PendingSum() = default;
PendingSum::PendingSum(PendingSum&&) noexcept = default;
PendingSum& PendingSum::operator=(PendingSum&&) noexcept = default;

PendingSum DistributedContext::startSum(const at::Tensor& values) {
  PendingSum pending;
  pending.m_work = std::make_unique<PendingSum::Work>();
  pending.m_work->values = values;
  pending.m_work->work = m_state->allreduce(values, &pending.m_work->wire);
  return pending;
}

void DistributedContext::finishSum(PendingSum& pending, const char* what) {
  if (!pending.m_work) return;
  const auto work = std::move(pending.m_work);
  m_state->wait(work->work, what);
  if (!work->wire.is_same(work->values)) work->values.copy_(work->wire);
}

void DistributedContext::sum(at::Tensor& values) {
  at::Tensor wire;
  m_state->wait(m_state->allreduce(values, &wire), "allreduce (metrics)");
  if (!wire.is_same(values)) values.copy_(wire);
}

std::string DistributedContext::useCudaTensors() {
#ifdef ATTNLAB_HAVE_NCCL
  if (!m_state->nccl) {
    // Its own key space in the store, beside Gloo's.
    auto store = c10::make_intrusive<c10d::PrefixStore>("nccl/", m_state->store);
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = m_state->timeout;
    try {
      m_state->nccl =
          c10::make_intrusive<c10d::ProcessGroupNCCL>(store, m_rank, m_worldSize, options);
    } catch (const std::exception& e) {
      const std::string reason = e.what();
      throw DistributedError(
          "rank " + std::to_string(m_rank),
          "the NCCL process group did not form: " + reason.substr(0, reason.find('\n')));
    }
  }
  return "NCCL";
#else
  return "Gloo (host copies)";
#endif
}

std::int64_t DistributedContext::max(std::int64_t value) {
  std::vector<at::Tensor> one{torch::full({1}, value, torch::kLong)};
  c10d::AllreduceOptions options;
  options.reduceOp = c10d::ReduceOp::MAX;
  m_state->wait(m_state->group->allreduce(one, options), "allreduce (control)");
  return one[0].item<std::int64_t>();
}

void DistributedContext::broadcast(const std::vector<at::Tensor>& tensors, int root) {
  torch::NoGradGuard noGrad;
  for (const at::Tensor& t : tensors) {
    std::vector<at::Tensor> one{t};
    c10d::BroadcastOptions options;
    options.rootRank = root;
#ifdef ATTNLAB_HAVE_NCCL
    if (m_state->nccl && t.is_cuda()) {
      m_state->wait(m_state->nccl->broadcast(one, options), "broadcast (parameters)");
      continue;
    }
#endif
    if (t.is_cuda()) one[0] = t.to(at::kCPU);  // Gloo carries a host copy
    m_state->wait(m_state->group->broadcast(one, options), "broadcast (parameters)");
    if (!one[0].is_same(t)) t.copy_(one[0]);
  }
}

void DistributedContext::barrier() {
  m_state->wait(m_state->group->barrier(), "barrier");
}

void DistributedContext::publish(const std::string& key, const std::string& value) {
  try {
    m_state->store->set("attnlab/" + key, std::vector<std::uint8_t>(value.begin(), value.end()));
  } catch (const std::exception& e) {
    throw DistributedError("key-value store", "cannot publish " + key + ": " + e.what());
  }
}

std::optional<std::string> DistributedContext::published(const std::string& key) {
  try {
    if (!m_state->store->check({"attnlab/" + key})) return std::nullopt;
    const auto bytes = m_state->store->get("attnlab/" + key);
    return std::string(bytes.begin(), bytes.end());
  } catch (const std::exception& e) {
    throw DistributedError("key-value store", "cannot read " + key + ": " + e.what());
  }
}

void DistributedContext::requireSameAsRoot(const std::string& what, const std::string& value) {
  // Every rank publishes its value and reads everyone's, so every rank (rank 0 included)
  // reaches the same verdict and ends with the same message rather than a broken collective.
  const auto key = [&](int rank) { return "same/" + what + "/" + std::to_string(rank); };
  std::vector<std::string> values;
  try {
    m_state->store->set(key(m_rank), std::vector<std::uint8_t>(value.begin(), value.end()));
    for (int r = 0; r < m_worldSize; ++r) {
      const auto bytes = m_state->store->get(key(r));
      values.emplace_back(bytes.begin(), bytes.end());
    }
  } catch (const std::exception& e) {
    throw DistributedError("rank " + std::to_string(m_rank),
                           "could not compare " + what + " with the other ranks': " + e.what());
  }
  for (int r = 1; r < m_worldSize; ++r) {
    if (values[static_cast<std::size_t>(r)] != values[0])
      throw DistributedError("rank " + std::to_string(r),
                             what +
                                 " differs from rank 0's: " + values[static_cast<std::size_t>(r)] +
                                 " on rank " + std::to_string(r) + ", " + values[0] +
                                 " on rank 0 (every rank must run the same configuration)");
  }
}

}  // namespace attnlab::core
