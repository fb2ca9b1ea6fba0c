#include "core/pretrained/safetensors_writer.h"

#include "core/errors/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <system_error>

namespace attnlab::core {

namespace {

using ordered_json = nlohmann::ordered_json;

void checkTensors(const std::vector<SafetensorsTensorView>& tensors, const std::string& where) {
  std::set<std::string> names;
  for (const auto& t : tensors) {
    if (t.name.empty() || t.name == "__metadata__")
      throw DataError(where, "tensor name \"" + t.name + "\" is reserved or empty");
    if (!names.insert(t.name).second)
      throw DataError(where, "tensor \"" + t.name + "\" given twice");
    std::uint64_t elements = 1;
    for (const auto d : t.shape) {
      if (d < 0) throw DataError(where, "tensor \"" + t.name + "\": negative dimension");
      elements *= static_cast<std::uint64_t>(d);
    }
    if (elements * dtypeSize(t.dtype) != t.bytes.size())
      throw DataError(where, "tensor \"" + t.name + "\": " + std::to_string(t.bytes.size()) +
                                 " bytes, the shape and " + dtypeName(t.dtype) + " need " +
                                 std::to_string(elements * dtypeSize(t.dtype)));
  }
}

/// The data order of the safetensors library: larger dtypes first (alignment), then by name.
std::vector<const SafetensorsTensorView*> dataOrder(
    const std::vector<SafetensorsTensorView>& tensors) {
  std::vector<const SafetensorsTensorView*> order;
  for (const auto& t : tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    const auto sa = dtypeSize(a->dtype), sb = dtypeSize(b->dtype);
    return sa != sb ? sa > sb : a->name < b->name;
  });
  return order;
}

}  // namespace

std::string safetensorsBytes(const std::vector<SafetensorsTensorView>& tensors,
                             const std::map<std::string, std::string>& metadata,
                             const std::string& where) {
  checkTensors(tensors, where);
  const auto order = dataOrder(tensors);
  ordered_json header = ordered_json::object();
  if (!metadata.empty()) {
    header["__metadata__"] = ordered_json::object();
    for (const auto& [k, v] : metadata) header["__metadata__"][k] = v;
  }
  std::uint64_t offset = 0;
  for (const auto* t : order) {
    header[t->name] = {{"dtype", dtypeName(t->dtype)},
                       {"shape", t->shape},
                       {"data_offsets", {offset, offset + t->bytes.size()}}};
    offset += t->bytes.size();
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  const auto n = static_cast<std::uint64_t>(text.size());
  for (int i = 0; i < 8; ++i)
    out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  out.reserve(8 + text.size() + offset);
  out += text;
  for (const auto* t : order)
    out.append(reinterpret_cast<const char*>(t->bytes.data()), t->bytes.size());
  return out;
}

void writeSafetensors(const std::filesystem::path& path,
                      const std::vector<SafetensorsTensorView>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  const std::string bytes = safetensorsBytes(tensors, metadata, path.string());
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw DataError(path.string(), "cannot be written (" + tmp.string() + ")");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw DataError(path.string(), "cannot be renamed into place: " + ec.message());
  }
}

}  // namespace attnlab::core
