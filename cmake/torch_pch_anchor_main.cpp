// The executable twin of torch_pch_anchor.cpp: executables compile with -fPIE, which GCC
// will not mix with a header precompiled under -fPIC (cmake/AttnLabPrecompiledHeaders.cmake).
int main() { return 0; }
