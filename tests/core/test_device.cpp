#include "core/errors/error.h"
#include "core/runtime/compute_environment.h"
#include "core/runtime/device.h"

#include <QtTest>

#include <thread>

using namespace attnlab::core;

class TestDevice : public QObject {
  Q_OBJECT
 private slots:
  void parsesChoices() {
    QCOMPARE(parseDeviceChoice("cpu"), DeviceChoice::Cpu);
    QCOMPARE(parseDeviceChoice("cuda"), DeviceChoice::Cuda);
    QCOMPARE(parseDeviceChoice("auto"), DeviceChoice::Auto);
  }
  void rejectsUnknownWithKeyPath() {
    try {
      parseDeviceChoice("gpu", "train.device");
      QFAIL("'gpu' is not a device choice");
    } catch (const attnlab::ConfigError& e) {
      QCOMPARE(QString::fromStdString(e.where()), QStringLiteral("train.device"));
      QVERIFY(QString(e.what()).contains("cpu, cuda, auto"));
    }
  }
  void resolvesCpuAndAuto() {
    QVERIFY(resolveDevice(DeviceChoice::Cpu).is_cpu());
    QCOMPARE(resolveDevice(DeviceChoice::Auto).is_cuda(), cudaAvailable());
  }
  void cudaRequestMatchesAvailability() {
    if (cudaAvailable()) {
      QVERIFY(resolveDevice(DeviceChoice::Cuda).is_cuda());
    } else {
      QVERIFY_THROWS_EXCEPTION(attnlab::ConfigError, resolveDevice(DeviceChoice::Cuda));
    }
  }
  // Seen on an H200 machine: --nproc-per-node 2 with train.device = cuda put both ranks on
  // GPU 0 and NCCL ended the run with "Duplicate GPU detected" after the data preparation.
  void eachProcessNeedsItsOwnGpu() {
    requireGpuPerProcess(1, 1);
    requireGpuPerProcess(2, 2);
    requireGpuPerProcess(4, 8);
    requireGpuPerProcess(2, 0);  // no GPU: the run uses the CPU (or refuses 'cuda' itself)
    try {
      requireGpuPerProcess(2, 1);
      QFAIL("2 processes on 1 GPU were accepted");
    } catch (const attnlab::ConfigError& e) {
      const QString what = QString::fromUtf8(e.what());
      QVERIFY2(what.startsWith(QStringLiteral("train.device: ")), qPrintable(what));
      QVERIFY2(what.contains(QStringLiteral("in 2 processes")), qPrintable(what));
      QVERIFY2(what.contains(QStringLiteral("this machine has 1")), qPrintable(what));
      QVERIFY2(what.contains(QStringLiteral("--nproc-per-node 1")), qPrintable(what));
    }
    QVERIFY_THROWS_EXCEPTION(attnlab::ConfigError, requireGpuPerProcess(3, 2));
  }
  void threadsDefaultToCores() {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    QCOMPARE(configureIntraOpThreads(0), cores);
    QCOMPARE(configureIntraOpThreads(1), 1);
    QVERIFY(describeTorchBuild().find("threads 1") != std::string::npos);
  }
  void matmulRateIsPositive() { QVERIFY(measureMatmulGflops(128, 2) > 0.0); }
};

QTEST_APPLESS_MAIN(TestDevice)
#include "test_device.moc"
