// The safetensors reader (core/pretrained/safetensors_file.h) on a file written by Hugging
// Face's own `safetensors` library (tests/fixtures/safetensors/make_fixture.py: F32, F16,
// BF16, I64, F64, an empty tensor and metadata; the values as the library wrote them are in
// small.json, decoded here from the raw bytes independently of the reader), and on broken
// files written here: each refused with the file and what is wrong, never read past its end.
#include "core/errors/error.h"
#include "core/pretrained/safetensors_file.h"

#include <QtTest>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <cstring>
#include <fstream>
#include <string>

using namespace attnlab::core;

namespace {

const std::string kFixture = std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/safetensors/";

/// One element of `bytes` at `i` as a double, by the dtype's bit layout.
double decode(SafetensorsDtype dtype, const std::byte* bytes, std::int64_t i) {
  const auto* p = bytes + i * static_cast<std::int64_t>(dtypeSize(dtype));
  if (dtype == SafetensorsDtype::F32 || dtype == SafetensorsDtype::BF16) {
    std::uint32_t bits = 0;
    if (dtype == SafetensorsDtype::BF16) {
      std::uint16_t half = 0;
      std::memcpy(&half, p, 2);
      bits = std::uint32_t{half} << 16;  // bfloat16: the upper half of a float32
    } else {
      std::memcpy(&bits, p, 4);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  if (dtype == SafetensorsDtype::F16) {
    std::uint16_t h = 0;
    std::memcpy(&h, p, 2);
    const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (exponent == 0) return sign * std::ldexp(mantissa, -24);  // subnormal
    return sign * std::ldexp(1024 + mantissa, exponent - 25);
  }
  if (dtype == SafetensorsDtype::F64) {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  std::int64_t v = 0;
  std::memcpy(&v, p, 8);  // I64 (the fixture has no I32)
  return static_cast<double>(v);
}

/// A file of the header `json` (its length prefixed) and `data` bytes.
std::string writeFile(const QTemporaryDir& dir, const std::string& name, const std::string& json,
                      std::size_t data, std::uint64_t headerLength = 0) {
  const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
  std::ofstream out(path, std::ios::binary);
  std::uint64_t n = headerLength != 0 ? headerLength : json.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xff));
  out << json << std::string(data, '\0');
  return path;
}

QString errorOf(const std::string& path) {
  try {
    SafetensorsFile file(path);
  } catch (const attnlab::DataError& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TestSafetensorsFile : public QObject {
  Q_OBJECT
 private slots:
  void readsWhatTheLibraryWrote() {
    QFile f(QString::fromStdString(kFixture + "small.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject expected = QJsonDocument::fromJson(f.readAll()).object();
    const SafetensorsFile file(kFixture + "small.safetensors");
    const QJsonObject tensors = expected["tensors"].toObject();
    QCOMPARE(file.entries().size(), std::size_t(tensors.size()));
    for (auto it = tensors.begin(); it != tensors.end(); ++it) {
      const auto* entry = file.find(it.key().toStdString());
      QVERIFY2(entry != nullptr, qPrintable(it.key()));
      const QJsonObject want = it.value().toObject();
      QCOMPARE(QString(dtypeName(entry->dtype)), want["dtype"].toString());
      const QJsonArray shape = want["shape"].toArray();
      QCOMPARE(entry->shape.size(), std::size_t(shape.size()));
      for (int d = 0; d < shape.size(); ++d) QCOMPARE(entry->shape[d], shape[d].toInteger());
      const QJsonArray values = want["values"].toArray();
      QCOMPARE(entry->elements(), std::int64_t(values.size()));
      const auto bytes = file.bytes(*entry);
      QCOMPARE(bytes.size(), std::size_t(values.size()) * dtypeSize(entry->dtype));
      for (int i = 0; i < values.size(); ++i)
        QCOMPARE(decode(entry->dtype, bytes.data(), i), values[i].toDouble());
    }
    QCOMPARE(file.metadata().at("format"), std::string("pt"));
    QCOMPARE(file.metadata().at("note"), std::string("issue 29"));
    QVERIFY(file.find("no such tensor") == nullptr);
    for (std::size_t i = 1; i < file.entries().size(); ++i)
      QVERIFY(file.entries()[i - 1].begin <= file.entries()[i].begin);
  }

  void brokenFilesAreRefusedWithWhatAndWhere() {
    QTemporaryDir dir;
    const std::string ok = R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})";
    QVERIFY(errorOf(writeFile(dir, "ok.safetensors", ok, 16)).isEmpty());
    const struct {
      const char* name;
      std::string json;
      std::size_t data;
      std::uint64_t length;
      const char* says;
    } cases[] = {
        {"truncated", ok, 8, 0, "ends beyond the 8 bytes of data"},
        {"length", ok, 16, 1ull << 40, "points beyond the"},
        {"not-json", "{\"w\": [", 16, 0, "the header is not JSON"},
        {"dtype", R"({"w":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})", 2, 0,
         "dtype U8 is not read"},
        {"size", R"({"w":{"dtype":"F32","shape":[3,2],"data_offsets":[0,16]}})", 16, 0,
         "needs a different size"},
        {"offsets", R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[8,4]}})", 16, 0,
         "ends before it begins"},
        {"missing", R"({"w":{"dtype":"F32","shape":[1]}})", 4, 0, "data_offsets missing"},
        {"overlap",
         R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
         12, 0, "overlaps"},
        {"shape", R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4, 0, "not a size"},
        {"metadata", R"({"__metadata__":{"a":1}})", 0, 0, "__metadata__ \"a\" is not a string"},
    };
    for (const auto& c : cases) {
      const std::string path =
          writeFile(dir, std::string(c.name) + ".safetensors", c.json, c.data, c.length);
      const QString error = errorOf(path);
      QVERIFY2(error.contains(QString::fromStdString(path)), qPrintable(error));
      QVERIFY2(error.contains(c.says), qPrintable(QString(c.name) + ": " + error));
    }
    // Shorter than the length field itself.
    const std::string tiny = dir.filePath("tiny.safetensors").toStdString();
    std::ofstream(tiny) << "abc";
    QVERIFY(errorOf(tiny).contains("8-byte header length"));
    QVERIFY(errorOf(dir.filePath("absent").toStdString()).contains("cannot open"));
  }
};

QTEST_APPLESS_MAIN(TestSafetensorsFile)
#include "test_safetensors_file.moc"
