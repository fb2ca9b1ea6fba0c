#pragma once

// Data-parallel training over LibTorch's own c10d: one Gloo process group per run, over a
// TCPStore (rank 0 serves it, or torchrun's agent does) or a FileStore (tests). The only
// place in the project that includes c10d; the trainer sees tensors and this class.
//
// Gloo matches collectives by the order they are issued, so every rank must call the same
// functions in the same order. Any failed collective poisons the group: every error here is
// a DistributedError and the run must end.

#include "core/distributed/launch_environment.h"

#include <ATen/core/Tensor.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::core {

struct DistributedOptions {
  /// The network interface Gloo binds to (e.g. eth0): what other machines reach this one by.
  std::string glooInterface;
  /// Else the host name or address Gloo binds to.
  std::string glooHost;
  /// How long a rank waits for its peers at start and in each collective.
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
};

/// A sum over the ranks in flight (DistributedContext::startSum). Move-only; finishSum()
/// waits for it.
class PendingSum {
 public:
  PendingSum();
  ~PendingSum();
  PendingSum(PendingSum&&) noexcept;
  PendingSum& operator=(PendingSum&&) noexcept;
  bool started() const { return m_work != nullptr; }

 private:
  friend class DistributedContext;
  struct Work;
  std::unique_ptr<Work> m_work;
};

class DistributedContext {
 public:
  /// Joins the group the environment describes: rank 0 serves the TCPStore on MASTER_PORT
  /// (unless torchrun's agent does), every rank creates the Gloo group. Throws
  /// DistributedError naming address, port and timeout when the master cannot be reached,
  /// "port in use" when rank 0 cannot listen, and refuses a multi-machine run whose Gloo
  /// device would bind to a loopback address (with how to choose one).
  static std::unique_ptr<DistributedContext> connect(const LaunchEnvironment& env,
                                                     const DistributedOptions& options);
  /// The same over a FileStore at `storeFile` (tests; loopback Gloo device).
  static std::unique_ptr<DistributedContext> connectWithFileStore(
      const std::filesystem::path& storeFile, int rank, int worldSize,
      std::chrono::milliseconds timeout);
  ~DistributedContext();
  DistributedContext(const DistributedContext&) = delete;
  DistributedContext& operator=(const DistributedContext&) = delete;

  int rank() const { return m_rank; }
  int worldSize() const { return m_worldSize; }
  bool isRoot() const { return m_rank == 0; }

  /// Sums the gradients of `parameters` over the ranks in place (each rank's gradient is its
  /// share of the step's objective, core/train/train_step.cpp): flattened into buckets of
  /// about `bucketBytes`, all buckets' sums issued asynchronously in parameter order. A
  /// parameter without a gradient on one rank counts as zero there; one without a gradient on
  /// every rank keeps none (as a single process would).
  void sumGradients(const std::vector<at::Tensor>& parameters,
                    std::int64_t bucketBytes = std::int64_t{1} << 20);
  /// Sums `values` (one contiguous tensor) over the ranks in place.
  void sum(at::Tensor& values);
  /// Starts summing `values` (one contiguous tensor) over the ranks without waiting: the
  /// sum is in `values` once finishSum() returns, and nothing may touch `values` before.
  /// Collectives are matched by the order they are started, the same on every rank.
  PendingSum startSum(const at::Tensor& values);
  /// Waits for a sum startSum() began; `what` names it in the error when a peer failed.
  void finishSum(PendingSum& pending, const char* what);
  /// The largest of `value` over the ranks (stop requests: any rank's counts).
  std::int64_t max(std::int64_t value);
  /// Copies rank `root`'s tensors into every rank's (no autograd).
  void broadcast(const std::vector<at::Tensor>& tensors, int root = 0);
  void barrier();
  /// Refuses ranks whose `value` (a config hash) differs from rank 0's, naming both.
  void requireSameAsRoot(const std::string& what, const std::string& value);

  /// Publishes `value` under `key` in the run's key-value store (the TCPStore or FileStore):
  /// not a collective, so one rank can tell others something while they poll, for as long
  /// as it takes (data preparation can outlast any collective's timeout).
  void publish(const std::string& key, const std::string& value);
  /// The value published under `key`, or nullopt while there is none (does not wait).
  std::optional<std::string> published(const std::string& key);

  /// The address the Gloo device bound to (for the run log).
  const std::string& transport() const { return m_transport; }

  /// This rank's index among the ranks of its machine (its GPU, when the run uses CUDA).
  int localRank() const { return m_localRank; }
  /// The ranks on this machine (attnlab-cli train --nproc-per-node).
  int localWorldSize() const { return m_localWorldSize; }
  /// The run's tensors live on CUDA devices: gradients and measurements are then reduced by
  /// an NCCL process group where this build has one (ATTNLAB_HAVE_NCCL: a CUDA LibTorch
  /// whose c10d was built with NCCL), else copied to the host and reduced by Gloo. Every
  /// rank must call it (or none): it forms a group. Returns "NCCL" or "Gloo (host copies)".
  std::string useCudaTensors();

 private:
  struct State;
  DistributedContext(int rank, int worldSize, std::unique_ptr<State> state);
  int m_rank;
  int m_worldSize;
  int m_localRank = 0;
  int m_localWorldSize = 1;
  std::string m_transport;
  std::unique_ptr<State> m_state;
};

}  // namespace attnlab::core
