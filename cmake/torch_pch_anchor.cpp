// The translation unit that the precompiled LibTorch headers are compiled with
// (cmake/AttnLabPrecompiledHeaders.cmake); it defines nothing.
