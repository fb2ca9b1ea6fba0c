// attnlab_core bundles the per-area libraries (see core/CMakeLists.txt); a static
// library needs at least one object of its own.
namespace attnlab::core {
const char* coreLibraryName() {
  return "attnlab_core";
}
}  // namespace attnlab::core
