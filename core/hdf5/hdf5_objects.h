#pragma once

// RAII owners over the HDF5 C API. Every identifier is closed by the object that owns it and
// never leaves these classes: <hdf5.h> is included only by core/hdf5/*.cpp, so consumers see
// no HDF5 macros. Every failure throws RunLogError or CheckpointError (by the file's
// ErrorDomain) naming the file, the object path and HDF5's innermost message.
//
// HDF5 is built thread-safe on Debian (one global library lock), so objects may be used from
// another thread than the one that opened them, one thread at a time per object.

#include "core/hdf5/element_type.h"
#include "core/hdf5/hdf5_error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::core::hdf5 {

/// HDF5's identifier (hid_t is a 64-bit integer since HDF5 1.10); opaque outside core/hdf5.
using Id = std::int64_t;

struct Raw;

/// Owns one HDF5 identifier. Movable, not copyable; the destructor closes without throwing.
class Handle {
 public:
  Handle() = default;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept;
  Handle& operator=(Handle&& other) noexcept;
  ~Handle();

  /// True while an identifier is owned.
  bool valid() const noexcept { return m_id >= 0; }
  /// Closes now; throws when HDF5 reports a failure (for a file: the final flush failed).
  void close();
  /// The file and error domain failures are reported against.
  const Context& context() const noexcept { return m_context; }
  /// The object's path inside the file ("/scalars/train/loss/value"), or a description.
  const std::string& objectPath() const noexcept { return m_path; }

 protected:
  enum class Kind { File, Group, Dataset, Dataspace, Datatype, Attribute, PropertyList };
  Handle(Id id, Kind kind, Context context, std::string path) noexcept
      : m_id(id), m_kind(kind), m_context(std::move(context)), m_path(std::move(path)) {}
  /// Throws when no identifier is owned (a moved-from or closed object).
  Id checkedId() const;
  [[noreturn]] void fail(const std::string& action) const;

 private:
  // The wrappers' implementations reach identifiers through Raw (defined in the .cpp).
  friend struct Raw;

  int release() noexcept;

  Id m_id = -1;
  Kind m_kind = Kind::File;
  Context m_context;
  std::string m_path;
};

/// A property list: file access, dataset creation, link creation.
class PropertyList : public Handle {
 public:
  PropertyList() = default;
  /// File access; `latestFormat` sets libver bounds (latest, latest), which SWMR needs.
  static PropertyList fileAccess(const Context& ctx, bool latestFormat);
  /// Chunked dataset creation with optional gzip (`gzipLevel` 1-9; 0 = none) and an
  /// optional Fletcher-32 checksum per chunk (reads of a damaged chunk then fail).
  static PropertyList datasetCreate(const Context& ctx, const std::vector<std::uint64_t>& chunk,
                                    int gzipLevel, bool checksum = false);
  /// Link creation that makes missing intermediate groups ("train/loss" -> group "train").
  static PropertyList linkCreate(const Context& ctx);

 public:
  /// Adopts an identifier (core/hdf5 internals; nothing outside can obtain one).
  PropertyList(Id id, Context context, std::string path) noexcept
      : Handle(id, Kind::PropertyList, std::move(context), std::move(path)) {}
};

/// A dataspace: scalar or simple (n-dimensional, optionally extensible).
class Dataspace : public Handle {
 public:
  /// Maximum extent meaning "unlimited" (H5S_UNLIMITED).
  static constexpr std::uint64_t kUnlimited = ~std::uint64_t{0};

  Dataspace() = default;
  static Dataspace scalar(const Context& ctx);
  /// `maxDims` empty means fixed at `dims`.
  static Dataspace simple(const Context& ctx, const std::vector<std::uint64_t>& dims,
                          const std::vector<std::uint64_t>& maxDims = {});
  int rank() const;
  std::vector<std::uint64_t> dims() const;
  std::uint64_t elementCount() const;
  /// Selects rows [first, first + count) along dimension 0 and everything inside them.
  void selectRows(std::uint64_t first, std::uint64_t count);

 public:
  /// Adopts an identifier (core/hdf5 internals; nothing outside can obtain one).
  Dataspace(Id id, Context context, std::string path) noexcept
      : Handle(id, Kind::Dataspace, std::move(context), std::move(path)) {}
};

/// A datatype: the numeric element types, fixed and variable-length UTF-8 strings.
class Datatype : public Handle {
 public:
  Datatype() = default;
  /// The little-endian file type of `type` (Float16: the custom binary16 type).
  static Datatype element(const Context& ctx, ElementType type);
  /// Fixed-length UTF-8 string of `bytes` bytes, null-padded.
  static Datatype fixedString(const Context& ctx, std::size_t bytes);
  /// Variable-length UTF-8 string.
  static Datatype variableString(const Context& ctx);

  /// The element type this is, when it is one of ours (integer and float classes are
  /// matched by size, sign and precision, so a file written elsewhere reads too).
  std::optional<ElementType> elementType() const;
  bool isString() const;
  bool isVariableString() const;
  std::size_t size() const;

 public:
  /// Adopts an identifier (core/hdf5 internals; nothing outside can obtain one).
  Datatype(Id id, Context context, std::string path) noexcept
      : Handle(id, Kind::Datatype, std::move(context), std::move(path)) {}
};

/// An attribute of a group or dataset: a scalar number or a string.
class Attribute : public Handle {
 public:
  Attribute() = default;
  std::int64_t readInt() const;
  double readDouble() const;
  /// Fixed or variable-length string (a fixed one loses its trailing NULs).
  std::string readString() const;

 public:
  /// Adopts an identifier (core/hdf5 internals; nothing outside can obtain one).
  Attribute(Id id, Context context, std::string path) noexcept
      : Handle(id, Kind::Attribute, std::move(context), std::move(path)) {}
};

/// Something that carries attributes: a group or a dataset.
class Object : public Handle {
 public:
  Object() = default;
  bool hasAttribute(const std::string& name) const;
  std::vector<std::string> attributeNames() const;
  Attribute openAttribute(const std::string& name) const;
  /// Creates or replaces a scalar attribute.
  void setIntAttribute(const std::string& name, std::int64_t value);
  void setDoubleAttribute(const std::string& name, double value);
  /// A variable-length UTF-8 string attribute (h5py reads str).
  void setStringAttribute(const std::string& name, const std::string& value);
  std::int64_t intAttribute(const std::string& name) const;
  double doubleAttribute(const std::string& name) const;
  std::string stringAttribute(const std::string& name) const;

 protected:
  Object(Id id, Kind kind, Context context, std::string path) noexcept
      : Handle(id, kind, std::move(context), std::move(path)) {}
};

/// A dataset. Rows are along dimension 0; "inner" dimensions are the rest.
class Dataset : public Object {
 public:
  Dataset() = default;
  Datatype datatype() const;
  Dataspace space() const;
  std::vector<std::uint64_t> dims() const;
  /// Rows (dimension 0; 1 for a scalar dataset).
  std::uint64_t rows() const;
  /// Bytes the file holds for the elements (H5Dget_storage_size): what was written, with any
  /// filter's overhead; 0 for a dataset whose space was never allocated.
  std::uint64_t storedBytes() const;
  std::optional<ElementType> elementType() const;

  /// Writes the whole dataset from memory laid out as `memType`.
  void write(const void* data, ElementType memType);
  void write(const void* data, const Datatype& memType);
  /// Reads the whole dataset, converting to `memType`.
  void read(void* out, ElementType memType) const;
  void read(void* out, const Datatype& memType) const;

  /// Extends dimension 0 by `count` rows and writes them (a chunked, extensible dataset).
  void appendRows(const void* data, ElementType memType, std::uint64_t count);
  void appendRows(const void* data, const Datatype& memType, std::uint64_t count);
  /// Reads rows [first, first + count).
  void readRows(void* out, ElementType memType, std::uint64_t first, std::uint64_t count) const;
  /// Sets dimension 0 to `count` rows (grows or shrinks).
  void resizeRows(std::uint64_t count);

  /// Appends fixed-length strings, cutting each to the type's size at a UTF-8 boundary.
  void appendFixedStrings(const std::vector<std::string>& values);
  /// Every string of a 1-D or scalar string dataset (fixed or variable length).
  std::vector<std::string> readStrings() const;
  /// Rows [first, first + count) of a 1-D string dataset.
  std::vector<std::string> readStringRows(std::uint64_t first, std::uint64_t count) const;

  /// Whole-dataset typed reads with conversion by HDF5.
  std::vector<std::int64_t> readInt64() const;
  std::vector<double> readFloat64() const;
  /// Any numeric element type as float (Float16 converted exactly).
  std::vector<float> readFloat32() const;
  /// Same for rows [first, first + count).
  std::vector<float> readFloat32Rows(std::uint64_t first, std::uint64_t count) const;

  /// H5Dflush: makes appended rows visible to SWMR readers.
  void flush();
  /// H5Drefresh: a SWMR reader picks up rows written since it opened the dataset.
  void refresh();

 public:
  /// Adopts an identifier (core/hdf5 internals; nothing outside can obtain one).
  Dataset(Id id, Context context, std::string path) noexcept
      : Object(id, Kind::Dataset, std::move(context), std::move(path)) {}
};

/// A group (the root group of a file included).
class Group : public Object {
 public:
  Group() = default;
  /// Creates a group at `path` (relative; intermediate groups are made as needed).
  Group createGroup(const std::string& path);
  /// Opens `path`, or creates it (with intermediates) when missing.
  Group requireGroup(const std::string& path);
  Group openGroup(const std::string& path) const;
  /// True when every component of `path` exists (no error for a missing parent).
  bool exists(const std::string& path) const;
  bool isGroup(const std::string& path) const;
  bool isDataset(const std::string& path) const;
  /// Names of the direct children, in name order.
  std::vector<std::string> childNames() const;

  Dataset createDataset(const std::string& path, const Datatype& type, const Dataspace& space,
                        const PropertyList* createProps = nullptr);
  Dataset openDataset(const std::string& path) const;

  /// An empty chunked dataset [0, inner...] extensible along dimension 0.
  /// `chunkRows` 0 picks about 64 KiB per chunk (at least one row, at most 4096).
  Dataset createExtensible(const std::string& path, const Datatype& type,
                           const std::vector<std::uint64_t>& innerShape,
                           std::uint64_t chunkRows = 0, int gzipLevel = 0);
  Dataset createExtensible(const std::string& path, ElementType type,
                           const std::vector<std::uint64_t>& innerShape,
                           std::uint64_t chunkRows = 0, int gzipLevel = 0);
  /// A fixed-shape numeric dataset written from `data` (`dims` empty = scalar dataset).
  /// `checksum` stores it as one Fletcher-32-checked chunk when it has elements and fits
  /// in a chunk (under 4 GiB), so corruption is detected on reading.
  Dataset writeArray(const std::string& path, ElementType type, const void* data,
                     const std::vector<std::uint64_t>& dims, bool checksum = false);
  /// A scalar variable-length UTF-8 string dataset.
  Dataset writeString(const std::string& path, const std::string& text);
  /// A 1-D variable-length UTF-8 string dataset.
  Dataset writeStrings(const std::string& path, const std::vector<std::string>& values);

 public:
  /// Adopts an identifier (core/hdf5 internals; nothing outside can obtain one).
  Group(Id id, Context context, std::string path) noexcept
      : Object(id, Kind::Group, std::move(context), std::move(path)) {}
};

/// An open HDF5 file.
class File : public Handle {
 public:
  enum class Mode {
    ReadOnly,   ///< plain read
    SwmrRead,   ///< read while a SWMR writer appends (needs a latest-format file)
    ReadWrite,  ///< append to an existing file
  };

  File() = default;
  /// Creates (or, with `truncate`, replaces) a file. `latestFormat` selects the 1.10 file
  /// format, which SWMR writing requires.
  static File create(const std::string& path, ErrorDomain domain, bool latestFormat,
                     bool truncate = true);
  /// Opens an existing file. `clearStatusFlags` (ReadWrite only) opens a file a crashed
  /// SWMR writer left marked "open for writing" and raises its end-of-allocation mark to the
  /// file's size, as `h5clear --increment` would, so the rows it flushed stay reachable.
  static File open(const std::string& path, ErrorDomain domain, Mode mode,
                   bool clearStatusFlags = false);

  Group root() const;
  /// H5Fstart_swmr_write: from here on readers may open the file with SWMR read; no group,
  /// dataset or attribute may be created any more (HDF5 1.10).
  void startSwmrWrite();
  /// H5Fflush of the whole file.
  void flush();
  const std::string& path() const noexcept { return context().filePath; }

 public:
  /// Adopts an identifier (core/hdf5 internals; nothing outside can obtain one).
  File(Id id, Context context, std::string path) noexcept
      : Handle(id, Kind::File, std::move(context), std::move(path)) {}
};

}  // namespace attnlab::core::hdf5
