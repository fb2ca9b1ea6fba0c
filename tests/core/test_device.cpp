#include "core/errors/error.h"
#include "core/runtime/blas_kernels.h"
#include "core/runtime/compute_environment.h"
#include "core/runtime/device.h"

#include <QtTest>

#include <thread>

using namespace attnlab::core;

class TestDevice : public QObject {
  Q_OBJECT
 private slots:
  void parsesSettings() {
    QVERIFY(parseDevice("cpu") == DeviceSetting{DeviceChoice::Cpu});
    QVERIFY(parseDevice("cuda") == DeviceSetting{DeviceChoice::Cuda});
    QVERIFY(parseDevice("auto") == DeviceSetting{DeviceChoice::Auto});
    QVERIFY((parseDevice("cuda:0") == DeviceSetting{DeviceChoice::Cuda, 0}));
    QVERIFY((parseDevice("cuda:12") == DeviceSetting{DeviceChoice::Cuda, 12}));
    for (const char* text : {"cuda:12", "cuda", "cpu", "auto", "cuda:0"})
      QCOMPARE(QString::fromStdString(deviceSettingName(parseDevice(text))), QString(text));
  }
  void rejectsUnknownWithKeyPath() {
    for (const char* bad : {"gpu", "cuda:", "cuda:-1", "cuda:1x", "cuda:99999", "CUDA", "cpu:0"}) {
      try {
        parseDevice(bad, "train.device");
        QFAIL(qPrintable(QString("'%1' is not a device").arg(bad)));
      } catch (const attnlab::ConfigError& e) {
        QCOMPARE(QString::fromStdString(e.where()), QStringLiteral("train.device"));
        QVERIFY(QString(e.what()).contains("cpu, cuda, cuda:N, auto"));
      }
    }
  }
  void resolvesCpuAndAuto() {
    QVERIFY(resolveDevice({DeviceChoice::Cpu}).is_cpu());
    QCOMPARE(resolveDevice({DeviceChoice::Auto}).is_cuda(), cudaAvailable());
  }
  void cudaRequestMatchesAvailability() {
    if (cudaAvailable()) {
      QVERIFY(resolveDevice({DeviceChoice::Cuda}).is_cuda());
      QCOMPARE(int(resolveDevice({DeviceChoice::Cuda, 0}).index()), 0);
    } else {
      QVERIFY_THROWS_EXCEPTION(attnlab::ConfigError, resolveDevice({DeviceChoice::Cuda}));
      QVERIFY_THROWS_EXCEPTION(attnlab::ConfigError, resolveDevice({DeviceChoice::Cuda, 0}));
    }
  }
  void namedGpuMustExistAndBeAlone() {
    if (!cudaAvailable()) QSKIP("no GPU: 'cuda:N' is refused before its index is looked at");
    try {
      resolveDevice({DeviceChoice::Cuda, 4096});
      QFAIL("cuda:4096 was accepted");
    } catch (const attnlab::ConfigError& e) {
      QVERIFY2(QString(e.what()).contains("this process sees"), e.what());
    }
    try {
      resolveDevice({DeviceChoice::Cuda, 0}, 0, 2);
      QFAIL("cuda:0 for 2 processes was accepted");
    } catch (const attnlab::ConfigError& e) {
      QVERIFY2(QString(e.what()).contains("use 'cuda'"), e.what());
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
  // OpenBLAS's fallback cores are replaced by the widest the CPU runs; a wide core, an AMD
  // core, no OpenBLAS or a CPU without AVX2 leave the choice alone (core/runtime/blas_kernels.h).
  void blasCoreTypeReplacesOnlyNarrowCores() {
    QCOMPARE(blasCoreTypeFor("Prescott", "SkylakeX"), std::string("SkylakeX"));
    QCOMPARE(blasCoreTypeFor("PRESCOTT", "Haswell"), std::string("Haswell"));
    QCOMPARE(blasCoreTypeFor("Sandybridge", "Haswell"), std::string("Haswell"));
    QCOMPARE(blasCoreTypeFor("Nehalem", ""), std::string());
    QCOMPARE(blasCoreTypeFor("Haswell", "SkylakeX"), std::string());
    QCOMPARE(blasCoreTypeFor("SkylakeX", "SkylakeX"), std::string());
    QCOMPARE(blasCoreTypeFor("Zen", "Haswell"), std::string());
    QCOMPARE(blasCoreTypeFor("", "SkylakeX"), std::string());
  }

  // An explicit OPENBLAS_CORETYPE wins (the test process sets its own for its children:
  // tests/support/same_blas_kernels.cpp), and the build line names the core in use.
  void explicitBlasCoreTypeWinsAndIsNamed() {
    const QByteArray before = qgetenv("OPENBLAS_CORETYPE");
    qputenv("OPENBLAS_CORETYPE", "Prescott");
    QCOMPARE(betterBlasCoreType(), std::string());
    QVERIFY(!requestBetterBlasKernels());
    QCOMPARE(qgetenv("OPENBLAS_CORETYPE"), QByteArray("Prescott"));
    if (before.isNull())
      qunsetenv("OPENBLAS_CORETYPE");
    else
      qputenv("OPENBLAS_CORETYPE", before);
    const std::string core = loadedBlasCoreName();
    if (!core.empty())
      QVERIFY2(describeTorchBuild().find("(" + core + ")") != std::string::npos,
               describeTorchBuild().c_str());
  }

  void matmulRateIsPositive() { QVERIFY(measureMatmulGflops(128, 2) > 0.0); }
};

QTEST_APPLESS_MAIN(TestDevice)
#include "test_device.moc"
