// Several machines, rehearsed on one (issue 24): two network namespaces joined by a veth
// pair stand for two machines, each with its own network interface and address (chosen here,
// inside this test's own namespaces); attnlab-cli train --nnodes 2 runs one node in each,
// talking over that link only (--master-addr is node 0's veth address, --gloo-interface its
// veth), with the run directory on the shared disk, as docs/distributed.md describes.
// - the two nodes, one process each, end bitwise equal to one process with twice the
//   accumulation (the same global batch);
// - node 1's worker killed mid-run: node 0 ends naming rank 1, the checkpoint written before
//   stays intact, and the same two commands resume the run to its end.
// Skipped with the reason where namespaces cannot be made (no root, no iproute2, a sandbox
// that refuses them).
#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "tests/support/cli_process.h"
#include "tests/support/distributed_workers.h"
#include "tests/support/listening_socket.h"
#include "tests/support/tiny_run_setup.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <signal.h>
#include <unistd.h>

#include <fstream>

using namespace attnlab;

namespace {

/// Runs `ip ARGS`; the error text, empty on success.
QString ip(const QStringList& args) {
  const auto r = tests::runProcess(QStringLiteral("ip"), args, 20000);
  return r.exitCode == 0 ? QString()
                         : QStringLiteral("ip %1: %2").arg(args.join(' '), r.err.trimmed());
}

/// Two namespaces, node0 and node1, joined by veth0 <-> veth1 with 10.77.N.1 and 10.77.N.2.
class TwoMachines {
 public:
  TwoMachines() {
    const auto tag = QString::number(::getpid() % 100000);
    m_ns = {QStringLiteral("attnlab-n0-") + tag, QStringLiteral("attnlab-n1-") + tag};
    m_if = {QStringLiteral("al0v") + tag, QStringLiteral("al1v") + tag};
    const int subnet = 1 + ::getpid() % 250;
    m_addr = {QStringLiteral("10.77.%1.1").arg(subnet), QStringLiteral("10.77.%1.2").arg(subnet)};
  }
  ~TwoMachines() {
    for (const auto& ns : m_ns) ip({"netns", "del", ns});  // removes the veth pair with it
  }
  /// Makes the namespaces and the link; the reason when that cannot be done here.
  QString make() {
    if (::geteuid() != 0) return QStringLiteral("not root: network namespaces need CAP_SYS_ADMIN");
    for (const auto& ns : m_ns)
      if (auto e = ip({"netns", "add", ns}); !e.isEmpty()) return e;
    if (auto e = ip({"link", "add", m_if[0], "type", "veth", "peer", "name", m_if[1]});
        !e.isEmpty())
      return e;
    for (int n = 0; n < 2; ++n) {
      for (const QStringList& step :
           {QStringList{"link", "set", m_if[n], "netns", m_ns[n]},
            QStringList{"-n", m_ns[n], "addr", "add", m_addr[n] + "/24", "dev", m_if[n]},
            QStringList{"-n", m_ns[n], "link", "set", m_if[n], "up"},
            QStringList{"-n", m_ns[n], "link", "set", "lo", "up"}})
        if (auto e = ip(step); !e.isEmpty()) return e;
    }
    return {};
  }
  /// `ip netns exec <node n> attnlab-cli ARGS`, with the node's launch flags appended.
  void start(QProcess& p, int node, QStringList args, int port) const {
    args << "--nnodes"
         << "2"
         << "--node-rank" << QString::number(node) << "--nproc-per-node"
         << "1"
         << "--master-addr" << m_addr[0] << "--master-port" << QString::number(port)
         << "--gloo-interface" << m_if[node];
    p.start(QStringLiteral("ip"), QStringList{"netns", "exec", m_ns[node], tests::kCli} + args);
  }

 private:
  QStringList m_ns, m_if, m_addr;
};

/// Runs node 0 and node 1 to their ends; both results.
std::pair<tests::ProcessResult, tests::ProcessResult> runBoth(const TwoMachines& machines,
                                                              const QStringList& args) {
  const int port = tests::freePort();
  QProcess nodes[2];
  for (int n = 0; n < 2; ++n) machines.start(nodes[n], n, args, port);
  tests::ProcessResult r[2];
  for (int n = 0; n < 2; ++n) {
    if (!nodes[n].waitForFinished(240000)) nodes[n].kill();
    nodes[n].waitForFinished();
    r[n].exitCode = nodes[n].exitStatus() == QProcess::NormalExit ? nodes[n].exitCode() : -1;
    r[n].out = QString::fromUtf8(nodes[n].readAllStandardOutput());
    r[n].err = QString::fromUtf8(nodes[n].readAllStandardError());
  }
  return {r[0], r[1]};
}

}  // namespace

class TestCliTwoMachines : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_config;
  TwoMachines m_machines;

  QString path(const QString& name) const { return m_dir.filePath(name); }
  QStringList trainArgs(const QString& run, const QStringList& extra = {}) const {
    return QStringList{"train", "--config", m_config, "--run-dir", run, "--plain"} + extra;
  }

 private slots:
  void initTestCase() {
    if (const QString why = m_machines.make(); !why.isEmpty())
      QSKIP(
          qPrintable("network namespaces cannot be made here, so two machines cannot be "
                     "rehearsed: " +
                     why));
    QVERIFY(m_dir.isValid());
    m_config = tests::writeShortMultiProcessRun(m_dir.path());
  }

  void twoMachinesEqualOneProcessWithTwiceTheAccumulation() {
    const auto [node0, node1] = runBoth(m_machines, trainArgs(path("two")));
    QVERIFY2(node0.exitCode == 0, qPrintable(node0.err + node0.out));
    QVERIFY2(node1.exitCode == 0, qPrintable(node1.err + node1.out));
    QVERIFY2(node0.out.contains("data-parallel over 2 processes"), qPrintable(node0.out));
    const auto one =
        tests::runCli(trainArgs(path("one"), {"--set", "train.gradient_accumulation=2"}));
    QVERIFY2(one.exitCode == 0, qPrintable(one.err + one.out));
    int compared = 0;
    const double difference =
        tests::largestDifference(path("one/checkpoints/step-0000012.h5").toStdString(),
                                 path("two/checkpoints/step-0000012.h5").toStdString(), &compared);
    qInfo("%d tensors; largest difference %g", compared, difference);
    QVERIFY(compared > 10);
    QCOMPARE(difference, 0.0);  // each gradient element is one addition, as accumulation's
  }

  void aKilledNodeIsNamedAndTheRunResumes() {
    const QString run = path("killed");
    QStringList args =
        trainArgs(run, {"--set", "schedule.steps=400", "--set", "train.checkpoint_every=20"});
    const int port = tests::freePort();
    QProcess nodes[2];
    for (int n = 0; n < 2; ++n) m_machines.start(nodes[n], n, args, port);
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(run + "/checkpoints/step-0000020.h5"), 120000);
    // `ip netns exec` became node 1's launcher; its worker is rank 1.
    const qint64 rank1 = tests::workerPid(nodes[1].processId(), 1);
    QVERIFY(rank1 > 0);
    QCOMPARE(::kill(static_cast<pid_t>(rank1), SIGKILL), 0);
    for (auto& node : nodes) QVERIFY(node.waitForFinished(90000));
    QVERIFY(nodes[0].exitCode() != 0);
    const QString err0 = QString::fromUtf8(nodes[0].readAllStandardError());
    QVERIFY2(err0.contains("rank 1") || err0.contains("peer"), qPrintable(err0));
    const auto kept = core::CheckpointStore(run.toStdString(), 2, true).latest();
    QVERIFY(kept.has_value());
    QVERIFY(core::CheckpointStore::load(kept->path).step >= 20);
    // The same two commands (a short schedule, to keep the test quick) resume to the end.
    args.replace(args.indexOf("schedule.steps=400"),
                 QStringLiteral("schedule.steps=%1").arg(kept->step + 4));
    const auto [node0, node1] = runBoth(m_machines, args);
    QVERIFY2(node0.exitCode == 0, qPrintable(node0.err + node0.out));
    QVERIFY2(node1.exitCode == 0, qPrintable(node1.err + node1.out));
    QVERIFY2(node0.out.contains("resum"), qPrintable(node0.out));
  }
};

QTEST_MAIN(TestCliTwoMachines)
#include "test_cli_two_machines.moc"
