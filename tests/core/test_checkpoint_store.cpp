#include "core/checkpoint/checkpoint_store.h"
#include "core/errors/error.h"

#include <torch/torch.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

using namespace attnlab::core;
namespace fs = std::filesystem;

namespace {

bool sameBytes(const at::Tensor& a, const at::Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  const auto ca = a.contiguous();
  const auto cb = b.contiguous();
  // An empty tensor may have no storage at all: memcmp must not see its null pointer.
  if (ca.nbytes() == 0) return true;
  return std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.nbytes()) == 0;
}

CheckpointMetadata someMetadata() {
  CheckpointMetadata m;
  m.configToml = "[model]\nlayers = 2\n";
  m.attributes = {{"tokenizer", "sp.model"}, {"note", "ünïcode ▁piece"}};
  m.blobs = {{"rng/cpu", {0, 1, 2, 255, 128}}, {"rng/data", {}}};
  return m;
}

}  // namespace

class TestCheckpointStore : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  fs::path runDir(const char* name) const { return fs::path(m_dir.filePath(name).toStdString()); }

 private slots:
  void roundTripIsBitwise() {
    torch::manual_seed(3);
    std::map<std::string, at::Tensor> tensors{
        {"encoder.layers.0.attention.query.weight", torch::randn({8, 4})},
        {"encoder.layers.0.attention.query.bias", torch::randn({8}, torch::kFloat64)},
        {"optimizer/encoder.layers.0.attention.query.weight/exp_avg", torch::randn({8, 4})},
        {"optimizer/step", torch::tensor(int64_t{1234567890123})},
        {"data/order", torch::randint(0, 1000000, {17}, torch::kInt64)},
        {"data/mask", torch::randint(0, 256, {3, 5}, torch::kUInt8)},
        {"half", torch::randn({6}).to(torch::kHalf)},
        {"bhalf", torch::randn({6}).to(torch::kBFloat16)},
        {"flags", torch::rand({4}) > 0.5},
        {"ints", torch::randint(-5, 5, {2, 2}, torch::kInt32)},
        {"empty", torch::zeros({0, 3})},
        {"transposed", torch::randn({3, 5}).t()},
    };
    CheckpointStore store(runDir("roundtrip"), 3, true);
    const fs::path saved = store.save(500, 2.75, tensors, someMetadata());
    QCOMPARE(saved.filename().string(), std::string("step-0000500.h5"));
    QVERIFY(fs::exists(saved));
    QVERIFY(!fs::exists(saved.string() + ".tmp"));

    const CheckpointData d = CheckpointStore::load(saved);
    QCOMPARE(d.step, std::int64_t{500});
    QCOMPARE(d.valLoss, std::optional(2.75));
    QCOMPARE(d.formatVersion, std::int64_t{1});
    QCOMPARE(d.createdUtc.size(), std::size_t{20});
    QCOMPARE(d.metadata.configToml, someMetadata().configToml);
    QCOMPARE(d.metadata.attributes, someMetadata().attributes);
    QCOMPARE(d.metadata.blobs, someMetadata().blobs);
    QCOMPARE(d.tensors.size(), tensors.size());
    for (const auto& [key, t] : tensors) {
      auto it = d.tensors.find(key);
      QVERIFY2(it != d.tensors.end(), key.c_str());
      QVERIFY2(sameBytes(t, it->second), key.c_str());
    }
    QCOMPARE(d.tensors.at("optimizer/step").dim(), int64_t{0});
  }

  void h5pyReadsTensorsByKey() {
    CheckpointStore store(runDir("h5py"), 1, false);
    const fs::path saved = store.save(
        1, std::nullopt, {{"encoder.layers.0.attention.query.weight", torch::ones({2, 3})}}, {});
    QVERIFY(!CheckpointStore::load(saved).valLoss);
    QProcess p;
    p.start(QStringLiteral(ATTNLAB_PYTHON),
            {QStringLiteral("-c"),
             QStringLiteral("import h5py,sys; f=h5py.File(sys.argv[1],'r'); "
                            "d=f['tensors/encoder.layers.0.attention.query.weight']; "
                            "print(d.dtype, d.shape, float(d[()].sum()), int(f.attrs['step']))"),
             QString::fromStdString(saved.string())});
    QVERIFY(p.waitForFinished(60000));
    const QString out = QString::fromUtf8(p.readAllStandardOutput()).trimmed();
    QCOMPARE(out, QStringLiteral("float32 (2, 3) 6.0 1"));
  }

  void retentionKeepsLastAndBest() {
    const double losses[] = {3.0, 1.0, 2.0, 2.5, 2.2};
    CheckpointStore store(runDir("retention"), 2, true);
    for (int i = 0; i < 5; ++i)
      store.save((i + 1) * 100, losses[i], {{"w", torch::full({2}, i)}}, {});
    auto steps = [&] {
      std::vector<std::int64_t> out;
      for (const auto& c : store.list()) out.push_back(c.step);
      return out;
    };
    QCOMPARE(steps(), (std::vector<std::int64_t>{200, 400, 500}));
    QCOMPARE(store.best()->step, std::int64_t{200});
    QCOMPARE(store.latest()->step, std::int64_t{500});

    CheckpointStore noBest(runDir("retention-nobest"), 2, false);
    for (int i = 0; i < 5; ++i)
      noBest.save((i + 1) * 100, losses[i], {{"w", torch::full({2}, i)}}, {});
    std::vector<std::int64_t> kept;
    for (const auto& c : noBest.list()) kept.push_back(c.step);
    QCOMPARE(kept, (std::vector<std::int64_t>{400, 500}));
  }

  void leftoversAndBrokenFilesAreIgnored() {
    CheckpointStore store(runDir("leftovers"), 5, true);
    store.save(100, 1.5, {{"w", torch::ones({3})}}, {});
    { std::ofstream(store.directory() / "step-0000200.h5.tmp") << "half-written"; }
    { std::ofstream(store.directory() / "step-0000300.h5") << "not hdf5 at all"; }
    const CheckpointScan scan = store.scan();
    QCOMPARE(scan.checkpoints.size(), std::size_t{1});
    QCOMPARE(scan.leftovers.size(), std::size_t{1});
    QCOMPARE(scan.leftovers[0].filename().string(), std::string("step-0000200.h5.tmp"));
    QCOMPARE(scan.unreadable.size(), std::size_t{1});
    QVERIFY(scan.unreadable[0].find("step-0000300.h5") != std::string::npos);
    QCOMPARE(store.latest()->step, std::int64_t{100});
    // Retention on the next save leaves files it cannot read alone.
    store.save(400, 1.0, {{"w", torch::ones({3})}}, {});
    QVERIFY(fs::exists(store.directory() / "step-0000200.h5.tmp"));
    QVERIFY(fs::exists(store.directory() / "step-0000300.h5"));
  }

  void truncatedCheckpointGivesClearError() {
    CheckpointStore store(runDir("truncated"), 2, false);
    const fs::path saved = store.save(7, 1.0, {{"w", torch::randn({256, 64})}}, someMetadata());
    const fs::path broken = saved.parent_path() / "broken.h5";
    fs::copy_file(saved, broken);
    fs::resize_file(broken, fs::file_size(saved) / 2);
    try {
      CheckpointStore::load(broken);
      QFAIL("a truncated checkpoint must not load");
    } catch (const attnlab::CheckpointError& e) {
      QVERIFY2(std::string(e.what()).find("broken.h5") != std::string::npos, e.what());
      qInfo() << "truncated:" << e.what();
    }
    QVERIFY_THROWS_EXCEPTION(attnlab::CheckpointError,
                             CheckpointStore::load(saved.parent_path() / "missing.h5"));
  }

  void corruptTensorDataIsDetected() {
    CheckpointStore store(runDir("corrupt"), 2, false);
    const auto w = torch::arange(4096, torch::kFloat32);
    const fs::path saved = store.save(9, 1.0, {{"w", w}}, {});
    // Flip bytes inside the tensor's data (find the float 1000.0f's bytes).
    std::fstream f(saved, std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), {});
    const float needle = 1000.0f;
    const auto at = bytes.find(std::string(reinterpret_cast<const char*>(&needle), 4));
    QVERIFY(at != std::string::npos);
    f.seekp(static_cast<std::streamoff>(at));
    f.write("\x7f\x7f\x7f\x7f", 4);
    f.close();
    try {
      CheckpointStore::load(saved);
      QFAIL("a corrupt tensor must not load");
    } catch (const attnlab::CheckpointError& e) {
      QVERIFY2(std::string(e.what()).find("step-0000009.h5") != std::string::npos, e.what());
      qInfo() << "corrupt:" << e.what();
    }
  }

  // A shape whose elements the file never stored (h5py leaves a dataset it did not write
  // unallocated, as a damaged header would claim one): refused by name before anything of
  // that size is allocated, so a 4 GB claim in a 100 KB file cannot exhaust memory.
  void shapesLargerThanTheFileAreRefused() {
    CheckpointStore store(runDir("unstored"), 2, false);
    const fs::path saved = store.save(3, 1.0, {{"w", torch::ones({4, 4})}}, someMetadata());
    const std::map<QString, QString> claims = {
        {QStringLiteral("tensors/huge"), QStringLiteral("(1000000000,), dtype='f4'")},
        {QStringLiteral("blobs/rng/huge"), QStringLiteral("(1000000000,), dtype='u1'")},
        {QStringLiteral("tensors/unwritten"), QStringLiteral("(4, 4), dtype='f4'")}};
    for (const auto& [name, shape] : claims) {
      const fs::path damaged = saved.parent_path() / "damaged.h5";
      fs::copy_file(saved, damaged, fs::copy_options::overwrite_existing);
      QProcess p;
      p.start(QStringLiteral(ATTNLAB_PYTHON),
              {QStringLiteral("-c"),
               QStringLiteral("import h5py,sys; f=h5py.File(sys.argv[1],'a'); "
                              "f.create_dataset(sys.argv[2], %1); f.close()")
                   .arg(shape),
               QString::fromStdString(damaged.string()), name});
      QVERIFY(p.waitForFinished(60000));
      QCOMPARE(p.exitCode(), 0);
      try {
        CheckpointStore::load(damaged);
        QFAIL(qPrintable(name + " must not load"));
      } catch (const attnlab::CheckpointError& e) {
        const std::string what = e.what();
        QVERIFY2(what.find("damaged.h5:/" + name.toStdString()) != std::string::npos, e.what());
        QVERIFY2(what.find("the file stores 0 B") != std::string::npos, e.what());
        qInfo() << "refused:" << e.what();
      }
    }
    // A stored dtype narrower than the one its torch_dtype names: the tensor would be 8 times
    // what the file holds.
    const fs::path wide = saved.parent_path() / "wide.h5";
    fs::copy_file(saved, wide, fs::copy_options::overwrite_existing);
    QProcess p;
    p.start(QStringLiteral(ATTNLAB_PYTHON),
            {QStringLiteral("-c"),
             QStringLiteral("import h5py,sys,numpy as np; f=h5py.File(sys.argv[1],'a'); "
                            "d=f.create_dataset('tensors/wide', data=np.zeros((4,4),'u1')); "
                            "d.attrs['torch_dtype']='float64'; f.close()"),
             QString::fromStdString(wide.string())});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    try {
      CheckpointStore::load(wide);
      QFAIL("a tensor wider than its stored bytes must not load");
    } catch (const attnlab::CheckpointError& e) {
      QVERIFY2(std::string(e.what()).find("wide.h5:/tensors/wide: the shape [4, 4] needs 128 B") !=
                   std::string::npos,
               e.what());
    }
    QCOMPARE(CheckpointStore::load(saved).tensors.at("w").sum().item<float>(), 16.0f);
  }

  void invalidKeysAreRejected() {
    CheckpointStore store(runDir("keys"), 2, false);
    QVERIFY_THROWS_EXCEPTION(
        attnlab::CheckpointError,
        store.save(1, std::nullopt, {{"a", torch::ones({1})}, {"a/b", torch::ones({1})}}, {}));
    QVERIFY_THROWS_EXCEPTION(attnlab::CheckpointError,
                             store.save(1, std::nullopt, {{"a//b", torch::ones({1})}}, {}));
    QVERIFY(store.list().empty());
    QVERIFY(store.scan().leftovers.empty());
  }

  void cudaTensorsAreSavedFromTheCpu() {
    if (!torch::cuda::is_available()) QSKIP("no CUDA device");
    CheckpointStore store(runDir("cuda"), 2, false);
    const auto t = torch::randn({4, 4}, torch::kCUDA);
    const fs::path saved = store.save(1, std::nullopt, {{"w", t}}, {});
    QVERIFY(sameBytes(t.cpu(), CheckpointStore::load(saved).tensors.at("w")));
  }
};

QTEST_APPLESS_MAIN(TestCheckpointStore)
#include "test_checkpoint_store.moc"
