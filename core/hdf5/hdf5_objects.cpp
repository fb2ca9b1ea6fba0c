#include "core/hdf5/hdf5_objects.h"

#include "core/hdf5/float16.h"

#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace attnlab::core::hdf5 {

static_assert(std::is_same_v<hid_t, Id>, "hid_t is a 64-bit integer since HDF5 1.10");
static_assert(std::is_same_v<hsize_t, unsigned long long> && sizeof(hsize_t) == 8);
static_assert(Dataspace::kUnlimited == static_cast<std::uint64_t>(H5S_UNLIMITED));

/// The one door to identifiers: the friend of Handle the implementations use.
struct Raw {
  static hid_t id(const Handle& h) { return h.checkedId(); }
};

namespace {

std::vector<hsize_t> toHsize(const std::vector<std::uint64_t>& v) {
  return std::vector<hsize_t>(v.begin(), v.end());
}

std::string joinPath(const std::string& base, const std::string& child) {
  if (child.empty()) return base;
  if (child.front() == '/') return child;
  if (base.empty() || base == "/") return "/" + child;
  return base + "/" + child;
}

std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::string current;
  for (char c : path) {
    if (c == '/') {
      if (!current.empty()) parts.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) parts.push_back(std::move(current));
  return parts;
}

/// Cuts `text` to at most `bytes` bytes without splitting a UTF-8 sequence.
std::string cutUtf8(const std::string& text, std::size_t bytes) {
  if (text.size() <= bytes) return text;
  std::size_t end = bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

/// A file type identifier of `type`, owned by the caller (the float16 type is a copy).
hid_t newElementType(ElementType type) {
  switch (type) {
    case ElementType::Float16: {
      // h5py's recipe: binary16 derived from IEEE f32 so readers see a float class with
      // sign bit 15, 5 exponent bits at 10, 10 mantissa bits, bias 15 -> numpy float16.
      hid_t t = H5Tcopy(H5T_IEEE_F32LE);
      if (t < 0) return t;
      if (H5Tset_fields(t, 15, 10, 5, 0, 10) < 0 || H5Tset_size(t, 2) < 0 ||
          H5Tset_ebias(t, 15) < 0) {
        H5Tclose(t);
        return -1;
      }
      return t;
    }
    case ElementType::Float32:
      return H5Tcopy(H5T_IEEE_F32LE);
    case ElementType::Float64:
      return H5Tcopy(H5T_IEEE_F64LE);
    case ElementType::Int8:
      return H5Tcopy(H5T_STD_I8LE);
    case ElementType::Int16:
      return H5Tcopy(H5T_STD_I16LE);
    case ElementType::Int32:
      return H5Tcopy(H5T_STD_I32LE);
    case ElementType::Int64:
      return H5Tcopy(H5T_STD_I64LE);
    case ElementType::UInt8:
      return H5Tcopy(H5T_STD_U8LE);
    case ElementType::UInt16:
      return H5Tcopy(H5T_STD_U16LE);
  }
  return -1;
}

}  // namespace

// --- element types -------------------------------------------------------------------------

std::size_t elementSize(ElementType type) noexcept {
  switch (type) {
    case ElementType::Int8:
    case ElementType::UInt8:
      return 1;
    case ElementType::Float16:
    case ElementType::Int16:
    case ElementType::UInt16:
      return 2;
    case ElementType::Float32:
    case ElementType::Int32:
      return 4;
    case ElementType::Float64:
    case ElementType::Int64:
      return 8;
  }
  return 0;
}

std::string_view elementTypeName(ElementType type) noexcept {
  switch (type) {
    case ElementType::Float16:
      return "float16";
    case ElementType::Float32:
      return "float32";
    case ElementType::Float64:
      return "float64";
    case ElementType::Int8:
      return "int8";
    case ElementType::Int16:
      return "int16";
    case ElementType::Int32:
      return "int32";
    case ElementType::Int64:
      return "int64";
    case ElementType::UInt8:
      return "uint8";
    case ElementType::UInt16:
      return "uint16";
  }
  return "?";
}

std::optional<ElementType> parseElementType(std::string_view name) noexcept {
  for (auto t : {ElementType::Float16, ElementType::Float32, ElementType::Float64,
                 ElementType::Int8, ElementType::Int16, ElementType::Int32, ElementType::Int64,
                 ElementType::UInt8, ElementType::UInt16}) {
    if (elementTypeName(t) == name) return t;
  }
  if (name == "f16") return ElementType::Float16;
  if (name == "f32") return ElementType::Float32;
  if (name == "f64") return ElementType::Float64;
  if (name == "i64") return ElementType::Int64;
  return std::nullopt;
}

// --- Handle --------------------------------------------------------------------------------

Handle::Handle(Handle&& other) noexcept
    : m_id(std::exchange(other.m_id, -1)),
      m_kind(other.m_kind),
      m_context(std::move(other.m_context)),
      m_path(std::move(other.m_path)) {}

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    release();
    m_id = std::exchange(other.m_id, -1);
    m_kind = other.m_kind;
    m_context = std::move(other.m_context);
    m_path = std::move(other.m_path);
  }
  return *this;
}

Handle::~Handle() {
  if (release() < 0) H5Eclear2(H5E_DEFAULT);
}

int Handle::release() noexcept {
  if (m_id < 0) return 0;
  silenceHdf5ErrorPrinting();
  const hid_t id = std::exchange(m_id, -1);
  switch (m_kind) {
    case Kind::File:
      return H5Fclose(id);
    case Kind::Group:
      return H5Gclose(id);
    case Kind::Dataset:
      return H5Dclose(id);
    case Kind::Dataspace:
      return H5Sclose(id);
    case Kind::Datatype:
      return H5Tclose(id);
    case Kind::Attribute:
      return H5Aclose(id);
    case Kind::PropertyList:
      return H5Pclose(id);
  }
  return 0;
}

void Handle::close() {
  if (release() < 0) fail("closing failed");
}

Id Handle::checkedId() const {
  silenceHdf5ErrorPrinting();
  if (m_id < 0) throwPlainError(m_context, m_path, "use of a closed HDF5 object");
  return m_id;
}

void Handle::fail(const std::string& action) const {
  throwError(m_context, m_path, action);
}

// --- PropertyList --------------------------------------------------------------------------

PropertyList PropertyList::fileAccess(const Context& ctx, bool latestFormat) {
  silenceHdf5ErrorPrinting();
  PropertyList p(H5Pcreate(H5P_FILE_ACCESS), ctx, "(file access properties)");
  if (!p.valid()) throwError(ctx, "", "cannot create file access properties");
  if (latestFormat && H5Pset_libver_bounds(Raw::id(p), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) < 0)
    p.fail("cannot select the latest file format");
  return p;
}

PropertyList PropertyList::datasetCreate(const Context& ctx,
                                         const std::vector<std::uint64_t>& chunk, int gzipLevel,
                                         bool checksum) {
  silenceHdf5ErrorPrinting();
  PropertyList p(H5Pcreate(H5P_DATASET_CREATE), ctx, "(dataset creation properties)");
  if (!p.valid()) throwError(ctx, "", "cannot create dataset creation properties");
  if (!chunk.empty()) {
    auto dims = toHsize(chunk);
    if (H5Pset_chunk(Raw::id(p), static_cast<int>(dims.size()), dims.data()) < 0)
      p.fail("cannot set the chunk shape");
  }
  if (gzipLevel > 0) {
    if (H5Pset_shuffle(Raw::id(p)) < 0 ||
        H5Pset_deflate(Raw::id(p), static_cast<unsigned>(std::min(gzipLevel, 9))) < 0)
      p.fail("cannot set gzip compression");
  }
  if (checksum && H5Pset_fletcher32(Raw::id(p)) < 0) p.fail("cannot enable checksums");
  return p;
}

PropertyList PropertyList::linkCreate(const Context& ctx) {
  silenceHdf5ErrorPrinting();
  PropertyList p(H5Pcreate(H5P_LINK_CREATE), ctx, "(link creation properties)");
  if (!p.valid()) throwError(ctx, "", "cannot create link creation properties");
  if (H5Pset_create_intermediate_group(Raw::id(p), 1) < 0)
    p.fail("cannot enable intermediate groups");
  if (H5Pset_char_encoding(Raw::id(p), H5T_CSET_UTF8) < 0) p.fail("cannot set UTF-8 names");
  return p;
}

// --- Dataspace -----------------------------------------------------------------------------

Dataspace Dataspace::scalar(const Context& ctx) {
  silenceHdf5ErrorPrinting();
  Dataspace s(H5Screate(H5S_SCALAR), ctx, "(dataspace)");
  if (!s.valid()) throwError(ctx, "", "cannot create a scalar dataspace");
  return s;
}

Dataspace Dataspace::simple(const Context& ctx, const std::vector<std::uint64_t>& dims,
                            const std::vector<std::uint64_t>& maxDims) {
  silenceHdf5ErrorPrinting();
  auto d = toHsize(dims);
  auto m = toHsize(maxDims.empty() ? dims : maxDims);
  Dataspace s(H5Screate_simple(static_cast<int>(d.size()), d.data(), m.data()), ctx, "(dataspace)");
  if (!s.valid()) throwError(ctx, "", "cannot create a dataspace");
  return s;
}

int Dataspace::rank() const {
  int r = H5Sget_simple_extent_ndims(checkedId());
  if (r < 0) fail("cannot read the dataspace rank");
  return r;
}

std::vector<std::uint64_t> Dataspace::dims() const {
  std::vector<hsize_t> d(static_cast<std::size_t>(rank()));
  if (!d.empty() && H5Sget_simple_extent_dims(checkedId(), d.data(), nullptr) < 0)
    fail("cannot read the dataspace shape");
  return std::vector<std::uint64_t>(d.begin(), d.end());
}

std::uint64_t Dataspace::elementCount() const {
  hssize_t n = H5Sget_simple_extent_npoints(checkedId());
  if (n < 0) fail("cannot count dataspace elements");
  return static_cast<std::uint64_t>(n);
}

void Dataspace::selectRows(std::uint64_t first, std::uint64_t count) {
  auto d = dims();
  if (d.empty()) throwPlainError(context(), objectPath(), "cannot select rows of a scalar");
  std::vector<hsize_t> start(d.size(), 0), extent(d.begin(), d.end());
  start[0] = first;
  extent[0] = count;
  if (H5Sselect_hyperslab(checkedId(), H5S_SELECT_SET, start.data(), nullptr, extent.data(),
                          nullptr) < 0)
    fail("cannot select rows");
}

// --- Datatype ------------------------------------------------------------------------------

Datatype Datatype::element(const Context& ctx, ElementType type) {
  silenceHdf5ErrorPrinting();
  Datatype t(newElementType(type), ctx, "(datatype)");
  if (!t.valid())
    throwError(ctx, "", "cannot create the " + std::string(elementTypeName(type)) + " type");
  return t;
}

Datatype Datatype::fixedString(const Context& ctx, std::size_t bytes) {
  silenceHdf5ErrorPrinting();
  Datatype t(H5Tcopy(H5T_C_S1), ctx, "(datatype)");
  if (!t.valid() || H5Tset_size(Raw::id(t), std::max<std::size_t>(bytes, 1)) < 0 ||
      H5Tset_strpad(Raw::id(t), H5T_STR_NULLPAD) < 0 || H5Tset_cset(Raw::id(t), H5T_CSET_UTF8) < 0)
    throwError(ctx, "", "cannot create a fixed string type");
  return t;
}

Datatype Datatype::variableString(const Context& ctx) {
  silenceHdf5ErrorPrinting();
  Datatype t(H5Tcopy(H5T_C_S1), ctx, "(datatype)");
  if (!t.valid() || H5Tset_size(Raw::id(t), H5T_VARIABLE) < 0 ||
      H5Tset_cset(Raw::id(t), H5T_CSET_UTF8) < 0)
    throwError(ctx, "", "cannot create a variable-length string type");
  return t;
}

std::optional<ElementType> Datatype::elementType() const {
  const hid_t id = checkedId();
  const H5T_class_t cls = H5Tget_class(id);
  const std::size_t size = H5Tget_size(id);
  if (cls == H5T_INTEGER) {
    const bool isSigned = H5Tget_sign(id) == H5T_SGN_2;
    switch (size) {
      case 1:
        return isSigned ? ElementType::Int8 : ElementType::UInt8;
      case 2:
        return isSigned ? std::optional(ElementType::Int16) : ElementType::UInt16;
      case 4:
        return isSigned ? std::optional(ElementType::Int32) : std::nullopt;
      case 8:
        return isSigned ? std::optional(ElementType::Int64) : std::nullopt;
      default:
        return std::nullopt;
    }
  }
  if (cls == H5T_FLOAT) {
    if (size == 2) return ElementType::Float16;
    if (size == 4) return ElementType::Float32;
    if (size == 8) return ElementType::Float64;
  }
  return std::nullopt;
}

bool Datatype::isString() const {
  return H5Tget_class(checkedId()) == H5T_STRING;
}

bool Datatype::isVariableString() const {
  const htri_t v = H5Tis_variable_str(checkedId());
  if (v < 0) fail("cannot inspect a string type");
  return v > 0;
}

std::size_t Datatype::size() const {
  return H5Tget_size(checkedId());
}

// --- Attribute -----------------------------------------------------------------------------

std::int64_t Attribute::readInt() const {
  std::int64_t v = 0;
  if (H5Aread(checkedId(), H5T_NATIVE_INT64, &v) < 0) fail("cannot read the attribute");
  return v;
}

double Attribute::readDouble() const {
  double v = 0;
  if (H5Aread(checkedId(), H5T_NATIVE_DOUBLE, &v) < 0) fail("cannot read the attribute");
  return v;
}

std::string Attribute::readString() const {
  const hid_t id = checkedId();
  Datatype type(H5Aget_type(id), context(), objectPath());
  if (!type.valid()) fail("cannot read the attribute type");
  if (!type.isString()) throwPlainError(context(), objectPath(), "the attribute is not a string");
  if (type.isVariableString()) {
    char* text = nullptr;
    Datatype mem = Datatype::variableString(context());
    if (H5Aread(id, Raw::id(mem), &text) < 0) fail("cannot read the attribute");
    std::string out = text ? text : "";
    H5free_memory(text);
    return out;
  }
  std::string buffer(type.size(), '\0');
  if (H5Aread(id, Raw::id(type), buffer.data()) < 0) fail("cannot read the attribute");
  buffer.resize(std::strlen(buffer.c_str()));
  return buffer;
}

// --- Object --------------------------------------------------------------------------------

bool Object::hasAttribute(const std::string& name) const {
  const htri_t e = H5Aexists(checkedId(), name.c_str());
  if (e < 0) fail("cannot look up attribute '" + name + "'");
  return e > 0;
}

namespace {
herr_t collectAttributeName(hid_t, const char* name, const H5A_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->emplace_back(name);
  return 0;
}
herr_t collectLinkName(hid_t, const char* name, const H5L_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->emplace_back(name);
  return 0;
}
}  // namespace

std::vector<std::string> Object::attributeNames() const {
  std::vector<std::string> names;
  hsize_t index = 0;
  if (H5Aiterate2(checkedId(), H5_INDEX_NAME, H5_ITER_INC, &index, collectAttributeName, &names) <
      0)
    fail("cannot list attributes");
  return names;
}

Attribute Object::openAttribute(const std::string& name) const {
  Attribute a(H5Aopen(checkedId(), name.c_str(), H5P_DEFAULT), context(),
              objectPath() + "@" + name);
  if (!a.valid()) fail("cannot open attribute '" + name + "'");
  return a;
}

namespace {
void writeScalarAttribute(Object& obj, hid_t objId, const std::string& name, hid_t fileType,
                          hid_t memType, const void* value, const Context& ctx,
                          const std::string& path) {
  if (H5Aexists(objId, name.c_str()) > 0 && H5Adelete(objId, name.c_str()) < 0)
    throwError(ctx, path, "cannot replace attribute '" + name + "'");
  Dataspace space = Dataspace::scalar(ctx);
  Attribute a(H5Acreate2(objId, name.c_str(), fileType, Raw::id(space), H5P_DEFAULT, H5P_DEFAULT),
              ctx, path + "@" + name);
  if (!a.valid()) throwError(ctx, path, "cannot create attribute '" + name + "'");
  if (H5Awrite(Raw::id(a), memType, value) < 0)
    throwError(ctx, path, "cannot write attribute '" + name + "'");
  a.close();
  (void)obj;
}
}  // namespace

void Object::setIntAttribute(const std::string& name, std::int64_t value) {
  writeScalarAttribute(*this, checkedId(), name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value, context(),
                       objectPath());
}

void Object::setDoubleAttribute(const std::string& name, double value) {
  writeScalarAttribute(*this, checkedId(), name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value,
                       context(), objectPath());
}

void Object::setStringAttribute(const std::string& name, const std::string& value) {
  Datatype type = Datatype::variableString(context());
  const char* text = value.c_str();
  writeScalarAttribute(*this, checkedId(), name, Raw::id(type), Raw::id(type), &text, context(),
                       objectPath());
}

std::int64_t Object::intAttribute(const std::string& name) const {
  return openAttribute(name).readInt();
}
double Object::doubleAttribute(const std::string& name) const {
  return openAttribute(name).readDouble();
}
std::string Object::stringAttribute(const std::string& name) const {
  return openAttribute(name).readString();
}

// --- Dataset -------------------------------------------------------------------------------

Datatype Dataset::datatype() const {
  Datatype t(H5Dget_type(checkedId()), context(), objectPath());
  if (!t.valid()) fail("cannot read the dataset's type");
  return t;
}

Dataspace Dataset::space() const {
  Dataspace s(H5Dget_space(checkedId()), context(), objectPath());
  if (!s.valid()) fail("cannot read the dataset's shape");
  return s;
}

std::vector<std::uint64_t> Dataset::dims() const {
  return space().dims();
}

std::uint64_t Dataset::rows() const {
  auto d = dims();
  return d.empty() ? 1 : d[0];
}

std::uint64_t Dataset::storedBytes() const {
  return H5Dget_storage_size(checkedId());
}

std::optional<ElementType> Dataset::elementType() const {
  return datatype().elementType();
}

void Dataset::write(const void* data, ElementType memType) {
  write(data, Datatype::element(context(), memType));
}

void Dataset::write(const void* data, const Datatype& memType) {
  if (H5Dwrite(checkedId(), Raw::id(memType), H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    fail("cannot write");
}

void Dataset::read(void* out, ElementType memType) const {
  read(out, Datatype::element(context(), memType));
}

void Dataset::read(void* out, const Datatype& memType) const {
  if (H5Dread(checkedId(), Raw::id(memType), H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
    fail("cannot read");
}

void Dataset::appendRows(const void* data, ElementType memType, std::uint64_t count) {
  appendRows(data, Datatype::element(context(), memType), count);
}

void Dataset::appendRows(const void* data, const Datatype& memType, std::uint64_t count) {
  if (count == 0) return;
  auto d = dims();
  if (d.empty()) throwPlainError(context(), objectPath(), "cannot append to a scalar dataset");
  const std::uint64_t first = d[0];
  auto grown = toHsize(d);
  grown[0] = first + count;
  if (H5Dset_extent(checkedId(), grown.data()) < 0) fail("cannot extend");
  Dataspace fileSpace = space();
  fileSpace.selectRows(first, count);
  auto memDims = d;
  memDims[0] = count;
  Dataspace memSpace = Dataspace::simple(context(), memDims);
  if (H5Dwrite(checkedId(), Raw::id(memType), Raw::id(memSpace), Raw::id(fileSpace), H5P_DEFAULT,
               data) < 0)
    fail("cannot append " + std::to_string(count) + " rows");
}

void Dataset::readRows(void* out, ElementType memType, std::uint64_t first,
                       std::uint64_t count) const {
  if (count == 0) return;
  auto d = dims();
  if (d.empty() || first + count > d[0])
    throwPlainError(context(), objectPath(),
                    "rows " + std::to_string(first) + ".." + std::to_string(first + count) +
                        " are out of range (" + std::to_string(d.empty() ? 0 : d[0]) + " rows)");
  Dataspace fileSpace = space();
  fileSpace.selectRows(first, count);
  auto memDims = d;
  memDims[0] = count;
  Dataspace memSpace = Dataspace::simple(context(), memDims);
  Datatype mem = Datatype::element(context(), memType);
  if (H5Dread(checkedId(), Raw::id(mem), Raw::id(memSpace), Raw::id(fileSpace), H5P_DEFAULT, out) <
      0)
    fail("cannot read rows");
}

void Dataset::resizeRows(std::uint64_t count) {
  auto d = toHsize(dims());
  if (d.empty()) throwPlainError(context(), objectPath(), "cannot resize a scalar dataset");
  d[0] = count;
  if (H5Dset_extent(checkedId(), d.data()) < 0) fail("cannot resize");
}

void Dataset::appendFixedStrings(const std::vector<std::string>& values) {
  if (values.empty()) return;
  Datatype type = datatype();
  const std::size_t width = type.size();
  std::vector<char> buffer(width * values.size(), '\0');
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string cut = cutUtf8(values[i], width);
    std::memcpy(buffer.data() + i * width, cut.data(), cut.size());
  }
  appendRows(buffer.data(), type, values.size());
}

std::vector<std::string> Dataset::readStrings() const {
  auto d = dims();
  if (d.empty()) {
    Datatype type = datatype();
    if (!type.isString()) throwPlainError(context(), objectPath(), "not a string dataset");
    if (type.isVariableString()) {
      char* text = nullptr;
      read(&text, type);
      std::string out = text ? text : "";
      H5free_memory(text);
      return {out};
    }
    std::string buffer(type.size(), '\0');
    read(buffer.data(), type);
    buffer.resize(std::strlen(buffer.c_str()));
    return {buffer};
  }
  return readStringRows(0, d[0]);
}

std::vector<std::string> Dataset::readStringRows(std::uint64_t first, std::uint64_t count) const {
  std::vector<std::string> out;
  if (count == 0) return out;
  Datatype type = datatype();
  if (!type.isString()) throwPlainError(context(), objectPath(), "not a string dataset");
  Dataspace fileSpace = space();
  fileSpace.selectRows(first, count);
  Dataspace memSpace = Dataspace::simple(context(), {count});
  out.reserve(count);
  if (type.isVariableString()) {
    std::vector<char*> texts(count, nullptr);
    if (H5Dread(checkedId(), Raw::id(type), Raw::id(memSpace), Raw::id(fileSpace), H5P_DEFAULT,
                texts.data()) < 0)
      fail("cannot read strings");
    for (char* t : texts) out.emplace_back(t ? t : "");
    H5Dvlen_reclaim(Raw::id(type), Raw::id(memSpace), H5P_DEFAULT, texts.data());
    return out;
  }
  const std::size_t width = type.size();
  std::vector<char> buffer(width * count, '\0');
  if (H5Dread(checkedId(), Raw::id(type), Raw::id(memSpace), Raw::id(fileSpace), H5P_DEFAULT,
              buffer.data()) < 0)
    fail("cannot read strings");
  for (std::uint64_t i = 0; i < count; ++i) {
    const char* p = buffer.data() + i * width;
    out.emplace_back(p, strnlen(p, width));
  }
  return out;
}

std::vector<std::int64_t> Dataset::readInt64() const {
  std::vector<std::int64_t> out(space().elementCount());
  if (!out.empty()) read(out.data(), ElementType::Int64);
  return out;
}

std::vector<double> Dataset::readFloat64() const {
  std::vector<double> out(space().elementCount());
  if (!out.empty()) read(out.data(), ElementType::Float64);
  return out;
}

std::vector<float> Dataset::readFloat32() const {
  const auto d = dims();
  return d.empty() ? std::vector<float>{} : readFloat32Rows(0, d[0]);
}

std::vector<float> Dataset::readFloat32Rows(std::uint64_t first, std::uint64_t count) const {
  const auto d = dims();
  std::uint64_t perRow = 1;
  for (std::size_t i = 1; i < d.size(); ++i) perRow *= d[i];
  std::vector<float> out(perRow * count);
  if (out.empty()) return out;
  if (elementType() == ElementType::Float16) {
    // Our own conversion: exact, and independent of HDF5's soft float conversion path.
    std::vector<std::uint16_t> bits(out.size());
    readRows(bits.data(), ElementType::Float16, first, count);
    halvesToFloats(bits.data(), out.data(), out.size());
  } else {
    readRows(out.data(), ElementType::Float32, first, count);
  }
  return out;
}

void Dataset::flush() {
  if (H5Dflush(checkedId()) < 0) fail("cannot flush");
}

void Dataset::refresh() {
  if (H5Drefresh(checkedId()) < 0) fail("cannot refresh");
}

// --- Group ---------------------------------------------------------------------------------

Group Group::createGroup(const std::string& path) {
  PropertyList lcpl = PropertyList::linkCreate(context());
  const std::string full = joinPath(objectPath(), path);
  Group g(H5Gcreate2(checkedId(), path.c_str(), Raw::id(lcpl), H5P_DEFAULT, H5P_DEFAULT), context(),
          full);
  if (!g.valid()) throwError(context(), full, "cannot create group");
  return g;
}

Group Group::requireGroup(const std::string& path) {
  return exists(path) ? openGroup(path) : createGroup(path);
}

Group Group::openGroup(const std::string& path) const {
  const std::string full = joinPath(objectPath(), path);
  Group g(H5Gopen2(checkedId(), path.c_str(), H5P_DEFAULT), context(), full);
  if (!g.valid()) throwError(context(), full, "cannot open group");
  return g;
}

bool Group::exists(const std::string& path) const {
  const hid_t id = checkedId();
  std::string prefix = (!path.empty() && path.front() == '/') ? "/" : "";
  for (const auto& part : splitPath(path)) {
    prefix += (prefix.empty() || prefix == "/") ? part : "/" + part;
    const htri_t e = H5Lexists(id, prefix.c_str(), H5P_DEFAULT);
    if (e < 0) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
    if (e == 0) return false;
  }
  return true;
}

bool Group::isGroup(const std::string& path) const {
  if (!exists(path)) return false;
  H5O_info_t info;
  if (H5Oget_info_by_name2(checkedId(), path.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
    fail("cannot inspect '" + path + "'");
  return info.type == H5O_TYPE_GROUP;
}

bool Group::isDataset(const std::string& path) const {
  if (!exists(path)) return false;
  H5O_info_t info;
  if (H5Oget_info_by_name2(checkedId(), path.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
    fail("cannot inspect '" + path + "'");
  return info.type == H5O_TYPE_DATASET;
}

std::vector<std::string> Group::childNames() const {
  std::vector<std::string> names;
  hsize_t index = 0;
  if (H5Literate(checkedId(), H5_INDEX_NAME, H5_ITER_INC, &index, collectLinkName, &names) < 0)
    fail("cannot list the group");
  return names;
}

Dataset Group::createDataset(const std::string& path, const Datatype& type, const Dataspace& space,
                             const PropertyList* createProps) {
  PropertyList lcpl = PropertyList::linkCreate(context());
  const std::string full = joinPath(objectPath(), path);
  Dataset d(H5Dcreate2(checkedId(), path.c_str(), Raw::id(type), Raw::id(space), Raw::id(lcpl),
                       createProps ? Raw::id(*createProps) : H5P_DEFAULT, H5P_DEFAULT),
            context(), full);
  if (!d.valid()) throwError(context(), full, "cannot create dataset");
  return d;
}

Dataset Group::openDataset(const std::string& path) const {
  const std::string full = joinPath(objectPath(), path);
  Dataset d(H5Dopen2(checkedId(), path.c_str(), H5P_DEFAULT), context(), full);
  if (!d.valid()) throwError(context(), full, "cannot open dataset");
  return d;
}

Dataset Group::createExtensible(const std::string& path, const Datatype& type,
                                const std::vector<std::uint64_t>& innerShape,
                                std::uint64_t chunkRows, int gzipLevel) {
  std::uint64_t rowBytes = type.size();
  for (auto n : innerShape) rowBytes *= std::max<std::uint64_t>(n, 1);
  if (chunkRows == 0) chunkRows = std::clamp<std::uint64_t>((64 * 1024) / rowBytes, 1, 4096);
  std::vector<std::uint64_t> dims{0}, maxDims{Dataspace::kUnlimited}, chunk{chunkRows};
  for (auto n : innerShape) {
    dims.push_back(n);
    maxDims.push_back(n);
    chunk.push_back(std::max<std::uint64_t>(n, 1));
  }
  Dataspace space = Dataspace::simple(context(), dims, maxDims);
  PropertyList dcpl = PropertyList::datasetCreate(context(), chunk, gzipLevel);
  return createDataset(path, type, space, &dcpl);
}

Dataset Group::createExtensible(const std::string& path, ElementType type,
                                const std::vector<std::uint64_t>& innerShape,
                                std::uint64_t chunkRows, int gzipLevel) {
  return createExtensible(path, Datatype::element(context(), type), innerShape, chunkRows,
                          gzipLevel);
}

Dataset Group::writeArray(const std::string& path, ElementType type, const void* data,
                          const std::vector<std::uint64_t>& dims, bool checksum) {
  Datatype t = Datatype::element(context(), type);
  Dataspace space =
      dims.empty() ? Dataspace::scalar(context()) : Dataspace::simple(context(), dims);
  std::uint64_t bytes = elementSize(type);
  for (auto n : dims) bytes *= n;
  if (checksum && !dims.empty() && bytes > 0 && bytes < (std::uint64_t{1} << 32) - 1) {
    PropertyList dcpl = PropertyList::datasetCreate(context(), dims, 0, true);
    Dataset d = createDataset(path, t, space, &dcpl);
    d.write(data, t);
    return d;
  }
  Dataset d = createDataset(path, t, space);
  if (space.elementCount() > 0) d.write(data, t);
  return d;
}

Dataset Group::writeString(const std::string& path, const std::string& text) {
  Datatype t = Datatype::variableString(context());
  Dataset d = createDataset(path, t, Dataspace::scalar(context()));
  const char* p = text.c_str();
  d.write(&p, t);
  return d;
}

Dataset Group::writeStrings(const std::string& path, const std::vector<std::string>& values) {
  Datatype t = Datatype::variableString(context());
  Dataset d = createDataset(path, t, Dataspace::simple(context(), {values.size()}));
  std::vector<const char*> ptrs;
  ptrs.reserve(values.size());
  for (const auto& v : values) ptrs.push_back(v.c_str());
  if (!ptrs.empty()) d.write(ptrs.data(), t);
  return d;
}

// --- File ----------------------------------------------------------------------------------

File File::create(const std::string& path, ErrorDomain domain, bool latestFormat, bool truncate) {
  silenceHdf5ErrorPrinting();
  Context ctx{path, domain};
  PropertyList fapl = PropertyList::fileAccess(ctx, latestFormat);
  File f(
      H5Fcreate(path.c_str(), truncate ? H5F_ACC_TRUNC : H5F_ACC_EXCL, H5P_DEFAULT, Raw::id(fapl)),
      ctx, "/");
  if (!f.valid()) throwError(ctx, "", "cannot create the file");
  return f;
}

namespace {
constexpr unsigned kSwmrMetadataReadAttempts = 30;
}  // namespace

File File::open(const std::string& path, ErrorDomain domain, Mode mode, bool clearStatusFlags) {
  silenceHdf5ErrorPrinting();
  Context ctx{path, domain};
  PropertyList fapl = PropertyList::fileAccess(ctx, mode != Mode::ReadOnly);
  if (clearStatusFlags && mode == Mode::ReadWrite) {
    // h5clear's property: lets a writer reopen a file a crashed SWMR writer left marked as
    // open, which is exactly the file a resumed run wants to append to.
    hbool_t clear = 1;
    if (H5Pset(Raw::id(fapl), "clear_status_flags", &clear) < 0)
      throwError(ctx, "", "cannot ask to clear the file's status flags");
  }
  unsigned flags = H5F_ACC_RDONLY;
  if (mode == Mode::SwmrRead) {
    flags = H5F_ACC_RDONLY | H5F_ACC_SWMR_READ;
    // A SWMR reader retries a metadata read whose checksum fails (the writer may be halfway
    // through it), sleeping 1 ns, 2 ns, 4 ns, ... between tries. HDF5's default of 100 tries
    // makes a damaged file hang the reader practically for ever (found by fuzzing: over 5
    // minutes on one flipped byte); 30 tries wait about 1 s in all, far longer than a
    // writer's flush takes, and then fail with HDF5's checksum error.
    if (H5Pset_metadata_read_attempts(Raw::id(fapl), kSwmrMetadataReadAttempts) < 0)
      throwError(ctx, "", "cannot set the number of metadata read attempts");
  }
  if (mode == Mode::ReadWrite) flags = H5F_ACC_RDWR;
  File f(H5Fopen(path.c_str(), flags, Raw::id(fapl)), ctx, "/");
  if (!f.valid()) throwError(ctx, "", "cannot open the file");
  // A SWMR writer that died never wrote its final end-of-allocation into the superblock:
  // rows it flushed lie past the recorded EOA. Raise the EOA to the file's real size (as
  // `h5clear --increment` does), or reads fail and closing would truncate those rows away.
  if (clearStatusFlags && mode == Mode::ReadWrite && H5Fincrement_filesize(Raw::id(f), 0) < 0)
    throwError(ctx, "", "cannot repair the end-of-allocation mark");
  return f;
}

Group File::root() const {
  Group g(H5Gopen2(checkedId(), "/", H5P_DEFAULT), context(), "/");
  if (!g.valid()) fail("cannot open the root group");
  return g;
}

void File::startSwmrWrite() {
  if (H5Fstart_swmr_write(checkedId()) < 0) fail("cannot start SWMR writing");
}

void File::flush() {
  if (H5Fflush(checkedId(), H5F_SCOPE_GLOBAL) < 0) fail("cannot flush");
}

}  // namespace attnlab::core::hdf5
