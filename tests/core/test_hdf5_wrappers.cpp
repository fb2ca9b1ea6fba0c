#include "core/errors/error.h"
#include "core/hdf5/float16.h"
#include "core/hdf5/hdf5_objects.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace attnlab::core;
using namespace attnlab::core::hdf5;

class TestHdf5Wrappers : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }

 private slots:
  void missingFileNamesPathAndInnermostMessage() {
    const std::string missing = path("nope/missing.h5");
    try {
      File::open(missing, ErrorDomain::RunLog, File::Mode::ReadOnly);
      QFAIL("opening a missing file must fail");
    } catch (const attnlab::RunLogError& e) {
      QVERIFY(e.where().find(missing) != std::string::npos);
      // The innermost message is the POSIX driver's, with errno text.
      QVERIFY2(std::string(e.what()).find("No such file or directory") != std::string::npos,
               e.what());
    }
  }

  void domainSelectsErrorClass() {
    QVERIFY_THROWS_EXCEPTION(
        attnlab::CheckpointError,
        File::open(path("missing.h5"), ErrorDomain::Checkpoint, File::Mode::ReadOnly));
  }

  void missingObjectNamesObjectPath() {
    File f = File::create(path("objects.h5"), ErrorDomain::RunLog, true);
    Group root = f.root();
    root.createGroup("a/b");
    QVERIFY(root.exists("a/b"));
    QVERIFY(!root.exists("a/c/d"));
    QVERIFY(root.isGroup("a"));
    try {
      root.openDataset("a/b/x");
      QFAIL("opening a missing dataset must fail");
    } catch (const attnlab::RunLogError& e) {
      QVERIFY2(e.where().find("objects.h5:/a/b/x") != std::string::npos, e.what());
    }
  }

  void attributesRoundTrip() {
    {
      File f = File::create(path("attrs.h5"), ErrorDomain::RunLog, true);
      Group root = f.root();
      root.setIntAttribute("i", -42);
      root.setDoubleAttribute("d", 0.125);
      root.setStringAttribute("s", "héllo ▁world");
      root.setIntAttribute("i", 7);  // replaces
    }
    File f = File::open(path("attrs.h5"), ErrorDomain::RunLog, File::Mode::ReadOnly);
    Group root = f.root();
    QCOMPARE(root.intAttribute("i"), std::int64_t{7});
    QCOMPARE(root.doubleAttribute("d"), 0.125);
    QCOMPARE(root.stringAttribute("s"), std::string("héllo ▁world"));
    QVERIFY(root.hasAttribute("s"));
    QVERIFY(!root.hasAttribute("t"));
    QCOMPARE(root.attributeNames().size(), std::size_t{3});
  }

  void extensibleAppendAndStrings() {
    {
      File f = File::create(path("ext.h5"), ErrorDomain::RunLog, true);
      Group root = f.root();
      Dataset d = root.createExtensible("x/values", ElementType::Float32, {2, 3}, 4, 4);
      std::vector<float> rows(12);
      for (int i = 0; i < 12; ++i) rows[i] = static_cast<float>(i);
      d.appendRows(rows.data(), ElementType::Float32, 2);
      d.appendRows(rows.data(), ElementType::Float32, 1);
      QCOMPARE(d.rows(), std::uint64_t{3});
      Dataset s = root.createExtensible("x/names", Datatype::fixedString(root.context(), 4), {});
      // "aé€" is 1 + 2 + 3 bytes: cut to 4 bytes it must not split the euro sign.
      s.appendFixedStrings({"ab", "aé€", "abcdefg"});
      root.writeStrings("x/vlen", {"", "▁the", "x"});
      root.writeString("x/one", "text");
    }
    File f = File::open(path("ext.h5"), ErrorDomain::RunLog, File::Mode::ReadOnly);
    Group root = f.root();
    Dataset d = root.openDataset("x/values");
    QCOMPARE(d.dims(), (std::vector<std::uint64_t>{3, 2, 3}));
    const auto all = d.readFloat32();
    QCOMPARE(all.size(), std::size_t{18});
    QCOMPARE(all[12], 0.0f);
    QCOMPARE(all[17], 5.0f);
    QCOMPARE(root.openDataset("x/names").readStrings(),
             (std::vector<std::string>{"ab", "aé", "abcd"}));
    QCOMPARE(root.openDataset("x/vlen").readStrings(), (std::vector<std::string>{"", "▁the", "x"}));
    QCOMPARE(root.openDataset("x/one").readStrings(), (std::vector<std::string>{"text"}));
  }

  void float16TypeAndConversion() {
    const std::vector<float> in{0.0f, 1.0f, -2.5f, 0.1f, 65504.0f, 1e-7f, 70000.0f};
    std::vector<std::uint16_t> bits(in.size());
    floatsToHalves(in.data(), bits.data(), in.size());
    QCOMPARE(bits[1], std::uint16_t{0x3C00});
    QCOMPARE(bits[2], std::uint16_t{0xC100});
    QCOMPARE(bits[4], std::uint16_t{0x7BFF});
    QCOMPARE(bits[6], std::uint16_t{0x7C00});  // overflow -> +inf
    {
      File f = File::create(path("half.h5"), ErrorDomain::RunLog, true);
      Group root = f.root();
      root.writeArray("h", ElementType::Float16, bits.data(), {bits.size()});
    }
    File f = File::open(path("half.h5"), ErrorDomain::RunLog, File::Mode::ReadOnly);
    Dataset d = f.root().openDataset("h");
    QCOMPARE(d.elementType(), std::optional(ElementType::Float16));
    const auto back = d.readFloat32();
    QCOMPARE(back[3], halfBitsToFloat(bits[3]));
    QCOMPARE(back[4], 65504.0f);
    QVERIFY(std::isinf(back[6]));
  }

  void handlesCloseAndMove() {
    File f = File::create(path("move.h5"), ErrorDomain::RunLog, true);
    File g = std::move(f);
    QVERIFY(!f.valid());  // NOLINT(bugprone-use-after-move): checking the moved-from state
    QVERIFY(g.valid());
    g.close();
    QVERIFY(!g.valid());
    QVERIFY_THROWS_EXCEPTION(attnlab::RunLogError, g.root());
  }

  void elementTypeNames() {
    QCOMPARE(parseElementType("f16"), std::optional(ElementType::Float16));
    QCOMPARE(parseElementType("int64"), std::optional(ElementType::Int64));
    QVERIFY(!parseElementType("complex"));
    QCOMPARE(elementSize(ElementType::Float16), std::size_t{2});
  }
};

QTEST_APPLESS_MAIN(TestHdf5Wrappers)
#include "test_hdf5_wrappers.moc"
